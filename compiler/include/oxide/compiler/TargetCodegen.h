//===- TargetCodegen.h - LLVM optimisation and code emission ----*- C++ -*-===//
#ifndef OXIDE_COMPILER_TARGETCODEGEN_H
#define OXIDE_COMPILER_TARGETCODEGEN_H

#include "llvm/IR/Module.h"
#include "llvm/Passes/OptimizationLevel.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <string>

namespace llvm {
class PassBuilder;
}

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

/// Runs `builder`'s default module pipeline at `level` (O0's at O0) with freshly registered
/// analyses: what optimizeModule and the device frontend's target-independent pass share.
void runDefaultPipeline(llvm::Module &module, llvm::PassBuilder &builder, llvm::OptimizationLevel level);

/// Emits assembly (PTX for NVPTX) or an object file into a string.
llvm::Expected<std::string> emitCode(llvm::Module &module, llvm::TargetMachine &tm,
                                     llvm::CodeGenFileType type);

} // namespace oxide

#endif
