//===- DebugKernelParameters.h - kernel parameters a debugger can read -*- C++ -*-===//
#ifndef OXIDE_COMPILER_DEBUGKERNELPARAMETERS_H
#define OXIDE_COMPILER_DEBUGKERNELPARAMETERS_H

#include "llvm/IR/PassManager.h"

namespace oxide {

/// For -G: gives each by-value kernel parameter (an `oxide::Span`, a struct) a local copy and
/// declares the variable there, as nvcc -G does (DWARF: local address class, frame-relative).
/// The front end declares such a parameter at its byval pointer, which the NVPTX back end
/// turns into an offset in the `.param` window; the DWARF then gave that offset as an address
/// of the register space, and cuda-gdb read memory at 0x8 ("Cannot access memory"). Scalar
/// parameters are values, described in registers, and need nothing.
struct DebugKernelParametersPass : llvm::PassInfoMixin<DebugKernelParametersPass> {
  llvm::PreservedAnalyses run(llvm::Function &function, llvm::FunctionAnalysisManager &);
  /// Only -G runs it, which optimises nothing.
  static bool isRequired() { return true; }
};

} // namespace oxide

#endif
