//===- FenceOrderedAtomics.h - fences for ordered atomicrmw -----*- C++ -*-===//
#ifndef OXIDE_COMPILER_FENCEORDEREDATOMICS_H
#define OXIDE_COMPILER_FENCEORDEREDATOMICS_H

#include "llvm/IR/PassManager.h"

namespace oxide {

/// Gives each acquire, release, acq_rel or seq_cst atomicrmw its ordering as fences of its own
/// sync scope around a relaxed (monotonic) atomicrmw. LLVM 22's NVPTX back end emits every
/// atomicrmw as a relaxed atom, dropping its ordering (cmpxchg, loads and stores keep theirs);
/// in the PTX memory model a fence.acq_rel before a relaxed atom makes it a release, one after
/// it an acquire, and a fence.sc before an acquire makes it sequentially consistent (the
/// mapping CUDA's libcu++ uses).
struct FenceOrderedAtomicsPass : llvm::PassInfoMixin<FenceOrderedAtomicsPass> {
  llvm::PreservedAnalyses run(llvm::Function &function, llvm::FunctionAnalysisManager &);
  /// Correctness, not optimisation: runs at -O0 too.
  static bool isRequired() { return true; }
};

} // namespace oxide

#endif
