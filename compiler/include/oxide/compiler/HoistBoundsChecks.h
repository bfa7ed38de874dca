//===- HoistBoundsChecks.h - bounds checks ahead of the work ----*- C++ -*-===//
#ifndef OXIDE_COMPILER_HOISTBOUNDSCHECKS_H
#define OXIDE_COMPILER_HOISTBOUNDSCHECKS_H

#include "llvm/IR/PassManager.h"

namespace oxide {

/// Moves each bounds check (a branch to a block that only calls __oxide_bounds_failure) to
/// the start of its block, ahead of the loads and stores before it, so that consecutive checked
/// accesses become one run of checks followed by one straight-line block. Without this a checked
/// global load is separated from the shared-memory store before it by a branch, and ptxas cannot
/// issue the next load until the previous store has its data: an SGEMM tile loop then waits for
/// global memory twice per step where nvcc's code waits once.
///
/// SimplifyCFG shares one failure report among a function's checks with phis of their indices;
/// the pass reads each check's arguments through them.
///
/// A failing check stops the kernel, so the loads and stores it now skips had no observable
/// effect; the pass moves nothing past calls, atomics, volatile accesses or fences, and hoists
/// only what the check and its failure report compute (speculatable arithmetic and reads of
/// read-only by-value kernel parameters).
struct HoistBoundsChecksPass : llvm::PassInfoMixin<HoistBoundsChecksPass> {
  llvm::PreservedAnalyses run(llvm::Function &function, llvm::FunctionAnalysisManager &analyses);
};

/// Joins consecutive bounds checks that survive optimisation (an unrolled loop of checked reads:
/// transpose's tile load written with Span's subscript): a check whose successor holds nothing
/// but the next check takes that check too, as one branch on "either fails" to the report of the
/// first that fails; a block of work followed by a check-only block merges with it and its check
/// moves ahead (as HoistBoundsChecksPass moves it). The work the checks guard is then one block,
/// whose loads ptxas issues back to back: transposeCoalesced with four checked loads went from
/// 0.71 to 1.00 of nvcc's on the H200. It runs last in the pipeline: run earlier, the joined
/// conditions kept LLVM from simplifying the checks it later proves (SGEMM lost 5 %, a stencil
/// 4 %). Checks of indices that differ only by constants, against one size, join wherever they are
/// (an unrolled batch of reads whose data is then computed with), and three or more such tests
/// become two: the largest index against the size and the smallest against the wrap bound
/// (histogram_packed's eight reads a batch: eight compares and adds to two).
struct JoinBoundsChecksPass : llvm::PassInfoMixin<JoinBoundsChecksPass> {
  llvm::PreservedAnalyses run(llvm::Function &function, llvm::FunctionAnalysisManager &analyses);
};

} // namespace oxide

#endif
