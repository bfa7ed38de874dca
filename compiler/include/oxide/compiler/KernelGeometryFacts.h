//===- KernelGeometryFacts.h - block-shape facts after inlining -*- C++ -*-===//
#ifndef OXIDE_COMPILER_KERNELGEOMETRYFACTS_H
#define OXIDE_COMPILER_KERNELGEOMETRYFACTS_H

#include "llvm/IR/PassManager.h"

namespace oxide {

/// Gives the thread-geometry reads of a kernel what its launch contract or launch bounds say
/// about the block, once helpers are inlined into it (LLVM's NVVMIntrRange runs before
/// inlining, so a threadIdx read inside an inlined helper keeps no range):
///  - "nvvm.reqntid" (exact block x, y, z): blockDim is a constant, threadIdx.d in [0, d), and
///    the lane id is threadIdx.x % 32 when x is a multiple of 32 or the block is 1-D;
///  - "nvvm.maxntid" (at most N threads): threadIdx.d in [0, N), blockDim.d in [1, N].
struct KernelGeometryFactsPass : llvm::PassInfoMixin<KernelGeometryFactsPass> {
  llvm::PreservedAnalyses run(llvm::Function &function, llvm::FunctionAnalysisManager &);
  static bool isRequired() { return false; }
};

} // namespace oxide

#endif
