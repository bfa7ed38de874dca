//===- StrideLoopChecks.h - a stride loop's checks, once per loop -*- C++ -*-===//
#ifndef OXIDE_COMPILER_STRIDELOOPCHECKS_H
#define OXIDE_COMPILER_STRIDELOOPCHECKS_H

#include "llvm/IR/PassManager.h"

namespace oxide {

/// Takes a bounds check out of a loop whose counter steps by a loop-invariant amount that is not
/// a constant: `block_stride(rows)` (p = blockIdx, blockIdx + gridDim... while p < rows) and the
/// grid-stride loops. oxide-loop-bounds-checks handles constant steps only, and a check left in
/// a loop that holds barriers and shuffles is a way out of it: ptxas then wraps the whole loop
/// in a convergence barrier and guards each shuffle (softmax with a block of 1024: 2.84 ms
/// against 2.62 without the check, session 27).
///
/// For a failure check in such a loop, `fails(p)` made of `a >= bound` and overflow bits of
/// values that do not decrease as p grows (additions and products of p and loop-invariant
/// values that provably do not wrap, masks of low bits, shifts), reached in an iteration
/// exactly when loop-invariant conditions and `p < X` (X invariant) hold (a search of the
/// loop's paths says so), in a loop that leaves only at its latch (`p + step < N`) or through
/// failure reports: the iterations that run the check have p <= p_last, the last value of the
/// sequence below min(N, X...), and fails(p) implies fails(p_last). The preheader tests
/// fails(p_last) once (with the invariant conditions and p's first value below each X): if it
/// fails, the iteration p_last would fail its check (the loop reaches it, and the check in it),
/// so the kernel stops earlier with the same report; otherwise no iteration fails, and the
/// check in the loop becomes false. A loop the thread would never leave before p_last stops
/// instead of running forever.
struct StrideLoopChecksPass : llvm::PassInfoMixin<StrideLoopChecksPass> {
  llvm::PreservedAnalyses run(llvm::Function &function, llvm::FunctionAnalysisManager &analyses);
};

} // namespace oxide

#endif
