//===- OptimisedCodeError.h - errors found in optimised device code -*- C++ -*-===//
//
// The audits of the optimised module (UndefinedBehaviour.h, GuardedWrites.h) report what they
// find as `file:line:col: error: ...`, at the user's line the instruction came from.
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_COMPILER_OPTIMISEDCODEERROR_H
#define OXIDE_COMPILER_OPTIMISEDCODEERROR_H

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Instruction.h"
#include "llvm/Support/raw_ostream.h"

namespace oxide {

/// Prints `message` as an error located at `at`'s source line (unlocated when `at` is null or
/// has no debug location).
inline void printOptimisedCodeError(const llvm::Instruction *at, llvm::StringRef message,
                                    llvm::raw_ostream &os) {
  if (const llvm::DILocation *loc = at ? at->getDebugLoc().get() : nullptr)
    os << loc->getFilename() << ':' << loc->getLine() << ':' << loc->getColumn() << ": ";
  os << "error: " << message << "\n";
}

} // namespace oxide

#endif
