//===- DebugFiles.h - the files a module's debug information names -*- C++ -*-===//
#ifndef OXIDE_COMPILER_DEBUGFILES_H
#define OXIDE_COMPILER_DEBUGFILES_H

#include "Oxide/IR/SourcePaths.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/IR/Module.h"

#include <vector>

namespace llvm {
class DIFile;
} // namespace llvm

namespace oxide {

/// Every file `module`'s debug information names: of its scopes, subprograms, compile units and
/// the locations of its instructions (inlined frames too), each once.
std::vector<llvm::DIFile *> debugFiles(llvm::Module &module);

/// Every file of `module`'s debug information named with `map`'s prefixes replaced
/// (-fdebug-prefix-map), its name and its directory alike.
void remapDebugPaths(llvm::Module &module, llvm::ArrayRef<PathPrefix> map);

} // namespace oxide

#endif
