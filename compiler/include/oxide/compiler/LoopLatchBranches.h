//===- LoopLatchBranches.h - loops in the form ptxas unrolls ----*- C++ -*-===//
#ifndef OXIDE_COMPILER_LOOPLATCHBRANCHES_H
#define OXIDE_COMPILER_LOOPLATCHBRANCHES_H

#include "llvm/IR/PassManager.h"

namespace oxide {

/// Makes the latch of each single-block loop branch back to itself when its condition holds:
/// `br i1 (icmp eq %i, %n), %exit, %loop` becomes `br i1 (icmp ne %i, %n), %loop, %exit`.
///
/// The NVPTX back end cannot invert a conditional branch: a latch whose true edge leaves the
/// loop comes out as `@%p bra EXIT; bra.uni LOOP;`, with EXIT the next block, and ptxas does
/// not unroll a loop of that form further, as it does the `@%p bra LOOP;` that nvcc writes.
/// matmul_naive's k loop, unrolled 4 times by LLVM: 10 global loads in the SASS instead of
/// nvcc's 66, and 0.61 of nvcc's speed at 4096 (H100, session 39). Only the orientation of the
/// branch changes; it runs last, just before the back end (nothing after it undoes it).
struct LoopLatchBranchesPass : llvm::PassInfoMixin<LoopLatchBranchesPass> {
  llvm::PreservedAnalyses run(llvm::Function &function, llvm::FunctionAnalysisManager &);
};

/// LoopLatchBranchesPass on every function of `module` (generatePtx, before the back end).
void orientLoopLatchBranches(llvm::Module &module);

} // namespace oxide

#endif
