//===- TargetCodegen.h - LLVM optimisation and code emission ----*- C++ -*-===//
#ifndef OXIDE_COMPILER_TARGETCODEGEN_H
#define OXIDE_COMPILER_TARGETCODEGEN_H

#include "llvm/IR/Module.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <string>

namespace oxide {

/// Registers LLVM's targets (once per process; thread-safe). The in-process clang compiles use
/// them too, so every compile sees the same targets; call it before compiles run in parallel.
void initializeTargets();

/// A target machine for the module's triple; PIC for hosts (Debian links PIE by default).
llvm::Expected<std::unique_ptr<llvm::TargetMachine>> createTargetMachine(const llvm::Module &module,
                                                                         llvm::StringRef cpu,
                                                                         llvm::StringRef features,
                                                                         unsigned optLevel);

/// Runs the standard -O<level> module pipeline, including the target's own passes.
void optimizeModule(llvm::Module &module, llvm::TargetMachine &tm, unsigned optLevel);

/// Emits assembly (PTX for NVPTX) or an object file into a string.
llvm::Expected<std::string> emitCode(llvm::Module &module, llvm::TargetMachine &tm,
                                     llvm::CodeGenFileType type);

} // namespace oxide

#endif
