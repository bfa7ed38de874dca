//===- LoopBoundsChecks.h - bounds checks of a loop, once per loop -*- C++ -*-===//
#ifndef OXIDE_COMPILER_LOOPBOUNDSCHECKS_H
#define OXIDE_COMPILER_LOOPBOUNDSCHECKS_H

#include "llvm/IR/PassManager.h"

namespace oxide {

/// Takes the bounds checks of an index that moves by a fixed step each iteration out of the
/// loop, where branches inside it keep the loop from being unrolled and the loads after them
/// from being issued together (the owned-elements loop of `row_mut`: layernorm's write loop ran
/// at 0.82 of nvcc's with three checks in it; a double-buffered GEMM's prefetch made ptxas wrap
/// its k loop in a convergence barrier). Every fact is exact modular arithmetic: none comes from
/// a no-wrap flag, which the user's signed arithmetic can put on the IR. A span holds fewer than
/// 2^63 elements.
///
/// **Loops with an exact count.** For a check `idx <u bound` in a loop whose latch runs `n` more
/// times (its exit is `i == x` for a 64-bit counter stepping by 1), idx = {start, +, step}
/// computed in 64 bits in the loop, step and bound fixed in it:
///
/// - **proved**: when n == (bound - s - 1) / d, the loop is entered only if s < bound (a branch
///   dominating it says so), step <= d and start is s or 0 (the count of an owned-elements set:
///   j < ceil((W - t) / B) for column t + B j, and j itself), then start + step * n <=
///   bound - 1 with no wrap, so every iteration passes. Skip checks (an element guard, also
///   joined as `j >= w || c >= w`) and failure checks alike become true.
/// - **hoisted** (failure checks only): when the check runs in every iteration and the loop
///   leaves only through its latch or through failure reports, the preheader tests the indices
///   once. Rising: start + step * n < bound, computed without wrapping. If that fails, some
///   iteration's check would fail: a step of at most 2^64 - bound (any step below 2^63) cannot
///   pass over [bound, 2^64), so the first index past the bound is one the check sees. A step
///   that may be larger (a size_t width) is tested as well as a fall by d = -step: start <
///   bound and d * n <= start, else some index wraps to at least 2^64 - d > bound. The kernel
///   stops before the loop, reporting the last index (the first, if that one fails); otherwise
///   every iteration passes, and the check in the loop becomes true. The loop's work before
///   that failing iteration no longer runs, which nothing observes: a failed check ends the
///   launch with an error. The first index is the check's own arithmetic at the loop's entry
///   values (frozen, without no-wrap flags), not an expansion of its SCEV, which would add an
///   induction variable to every enclosing loop.
/// - **exits on equality**: IndVarSimplify turns `base + i <u size` (i counting by 1) into an
///   exit on `i == umax(size, base) - base`; i takes first .. first + n once each, so that check
///   fails exactly when x - first <=u n, tested before the loop with the report's own
///   arguments (an index the loop computes from i, computed at i = x). Only in loops that write
///   nothing but shared memory: the audit of the optimised code needs a check's index and
///   bound as the proof of a write. (A report whose index LLVM computed in the failure block
///   still counts as one.)
///
/// **Loops counted by `next <u limit`** (next = counter + step, step a power of two, a counter
/// of any width: `for (uint32_t k = s; k < n; k += 8)` once rotated), where no exact count
/// exists without no-wrap facts: the counter is s, then values of s's class modulo step below
/// limit, climbing (a sum that wraps past 2^w stays in the class, step dividing 2^w), so the
/// largest it reaches is last = limit - 1 - ((limit - 1 - s) mod step), in the last iteration
/// that goes on, which happens exactly when s + step <u limit; past 2^w the loop never ends. A
/// failure check whose index is computed from the counter by operations that never decrease and
/// never wrap for any counter (zero extension, sums, products, shifts and quotients, their
/// ranges read without no-wrap flags) is tested before the loop at the largest counter it sees:
///
/// - a check in every iteration (it dominates the latch; the loop leaves only through the
///   latch or failure reports), at s and, when the loop goes on, at last;
/// - a check that runs exactly in the iterations after which the loop goes on, on the next
///   counter (the prefetch `if (k + 8 < n) next = a[k + 8]` of a double-buffered GEMM, met from
///   the edge that the latch's own condition takes to go on), at next = last when it goes on;
/// - a check in every iteration on a phi that lags the counter by an iteration (LLVM makes one
///   when it merges such a prefetch's test into the latch's), at its entry value, at last -
///   step when the loop goes on, and at last where last + step wraps.
///
/// A signed latch (`next <s limit`: an `int` counter that LLVM keeps in 32 bits, as in `for (int
/// c = t; c < cols; c += blockDim.x)`) is counted the same way in signed order, from a start
/// known not negative that the first step cannot wrap: the counter runs from start to last, none
/// negative, so a sign extension of it reads as a zero extension; where last + step wraps past
/// 2^(w-1) the loop would never end with its counter going negative, and the test before the
/// loop fails there (reporting the bound), which changes only a kernel that would never finish.
///
/// Otherwise, an index {start, +, step} in 64 bits is tested as in a loop with an exact count,
/// the count being the steps from s to last (one fewer for a check only when the loop goes
/// on); a loop that never ends fails some check unless its index never moves. Either way the
/// check in the loop becomes true.
struct LoopBoundsChecksPass : llvm::PassInfoMixin<LoopBoundsChecksPass> {
  llvm::PreservedAnalyses run(llvm::Function &function, llvm::FunctionAnalysisManager &analyses);
};

} // namespace oxide

#endif
