//===- LoopBoundsChecks.h - bounds checks of a loop, once per loop -*- C++ -*-===//
#ifndef OXIDE_COMPILER_LOOPBOUNDSCHECKS_H
#define OXIDE_COMPILER_LOOPBOUNDSCHECKS_H

#include "llvm/IR/PassManager.h"

namespace oxide {

/// Takes the bounds checks of an index that grows by a constant step each iteration out of
/// the loop, where branches inside it keep the loop from being unrolled and the loads after
/// them from being issued together (the owned-elements loop of `row_mut`: layernorm's write
/// loop ran at 0.82 of nvcc's with three checks in it).
///
/// For a check `idx <u bound` in a loop whose latch runs `n` more times (its exit is `i == x`
/// for a 64-bit counter stepping by 1, so n is exact without no-wrap facts), idx = {start, +,
/// step} computed in 64 bits in the loop, bound invariant:
///
/// - **proved**: when n == (bound - s - 1) / d, the loop is entered only if s < bound (a branch
///   dominating it says so), step <= d and start is s or 0 (the count of an owned-elements set:
///   j < ceil((W - t) / B) for column t + B j, and j itself), then start + step * n <=
///   bound - 1 with no wrap, so every iteration passes. Skip checks (an element guard, also
///   joined as `j >= w || c >= w`) and failure checks alike become true.
/// - **hoisted** (failure checks only): when the check runs in every iteration and the loop
///   leaves only through its latch or through failure reports, the preheader tests the last
///   index once: start + step * n < bound, computed without wrapping. If it fails, some
///   iteration's check would fail (the indices rise by step < 2^32 and a span's bound is far
///   below 2^64 - 2^32, so the first index past the bound is below 2^64 and the check sees
///   it), and the kernel stops there, before the loop, reporting the last index; otherwise
///   every iteration passes, and the check in the loop becomes true. The loop's work before
///   that failing iteration no longer runs, which nothing observes: a failed check ends the
///   launch with an error. The first index is the check's own arithmetic at the loop's entry
///   values (frozen, without no-wrap flags), not an expansion of its SCEV, which would add an
///   induction variable to every enclosing loop.
struct LoopBoundsChecksPass : llvm::PassInfoMixin<LoopBoundsChecksPass> {
  llvm::PreservedAnalyses run(llvm::Function &function, llvm::FunctionAnalysisManager &analyses);
};

} // namespace oxide

#endif
