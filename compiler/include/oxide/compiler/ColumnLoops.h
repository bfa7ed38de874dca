//===- ColumnLoops.h - loops over a strided set counted by its elements -*- C++ -*-===//
#ifndef OXIDE_COMPILER_COLUMNLOOPS_H
#define OXIDE_COMPILER_COLUMNLOOPS_H

#include "llvm/IR/PassManager.h"

namespace oxide {

/// Rewrites a loop over the elements of a strided set, `for (j = 0; j < count; ++j)` with
/// count = (W - 1 - f) / S + 1 under f < W (OwnedElements::size() of a block's row: columns f,
/// f + S, ... below W, S the block's threads), into the column loop it stands for:
/// `for (c = f; c < W; c += S)`, the values the body computes as f + S * j replaced by c. The
/// exit tests the same iterations (j + 1 <= (W - 1 - f) / S exactly when f + S (j + 1) < W),
/// but the loop no longer needs its trip count: no division or shift in the prologue, no
/// multiply in the address, and no runtime unrolling (LLVM's, which a loop that runs once or a
/// few times a row pays for in a remainder loop and a second test; nvcc does not unroll these
/// loops either). Softmax with a block of 1024 per row, whose write loop LLVM unrolled by two
/// around a 64-bit counter, spent 8 % of its time in that skeleton (session 35,
/// docs/performance.md). Steps below 128 (a warp's lanes: many iterations a thread, where
/// unrolling pays) are left alone.
struct ColumnLoopsPass : llvm::PassInfoMixin<ColumnLoopsPass> {
  llvm::PreservedAnalyses run(llvm::Function &function, llvm::FunctionAnalysisManager &analyses);
};

} // namespace oxide

#endif
