//===- LoopBoundsChecks.cpp - bounds checks of a loop, once per loop ------===//
//
// See LoopBoundsChecks.h. Everything here is exact modular arithmetic: no fact comes from a
// no-wrap flag, which the user's signed arithmetic can put on the IR (an `int` counter that
// overflows would otherwise run the loop past the count the proof used).
//
//===----------------------------------------------------------------------===//

#include "oxide/compiler/LoopBoundsChecks.h"
#include "LoopChecks.h"
#include "oxide/compiler/BoundsFailure.h"

#include "llvm/Analysis/DomTreeUpdater.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

#include <optional>

using namespace llvm;
using namespace llvm::PatternMatch;
using namespace oxide::loop_checks;

namespace {

/// How many more times the latch of `loop` runs after the first iteration, when its exit is
/// exact without no-wrap facts: the latch leaves on `i == x` (or stays on `i != x`) for a
/// 64-bit induction variable i that steps by 1.
const SCEV *exactLatchCount(Loop &loop, ScalarEvolution &scev) {
  BasicBlock *latch = loop.getLoopLatch();
  auto *branch = latch ? dyn_cast<BranchInst>(latch->getTerminator()) : nullptr;
  auto *cmp = branch && branch->isConditional() ? dyn_cast<ICmpInst>(branch->getCondition()) : nullptr;
  if (!cmp || !cmp->isEquality() || !cmp->getOperand(0)->getType()->isIntegerTy(64))
    return nullptr;
  for (Value *side : cmp->operands()) {
    const auto *iv = dyn_cast<SCEVAddRecExpr>(scev.getSCEV(side));
    if (iv && iv->getLoop() == &loop && iv->isAffine() && iv->getStepRecurrence(scev)->isOne() &&
        computedInFullWidth(side, loop)) {
      const SCEV *count = scev.getExitCount(&loop, latch);
      return isa<SCEVCouldNotCompute>(count) ? nullptr : count;
    }
  }
  return nullptr;
}

/// Whether every k <= count keeps each recurrence {start, +, step} of `index` (one, or the
/// operands of an unsigned max: instcombine folds `j < w && t + B j < w` into
/// `umax(j, t + B j) < w`) below `bound`. The count of an owned-elements set is
/// (bound - s - 1) / d, the loop running only when s <u bound; then d * count <= bound - s - 1
/// exactly, and a recurrence that starts at s or 0 and steps by at most d stays at or below
/// s + d * count <= bound - 1 without wrapping.
bool provedInBounds(const SCEV *index, const SCEV *count, const SCEV *bound, Loop &loop,
                    ScalarEvolution &scev, DominatorTree &dominators) {
  Type *type = bound->getType();
  const SCEV *span = count;
  uint64_t d = 1;
  if (const auto *division = dyn_cast<SCEVUDivExpr>(count)) {
    const auto *divisor = dyn_cast<SCEVConstant>(division->getRHS());
    if (!divisor || divisor->getAPInt().isZero() || divisor->getAPInt().getActiveBits() > 32)
      return false;
    span = division->getLHS(), d = divisor->getAPInt().getZExtValue();
  }
  const SCEV *s = scev.getMinusSCEV(scev.getMinusSCEV(bound, scev.getOne(type)), span);
  auto within = [&](const SCEV *operand) {
    const auto *r = dyn_cast<SCEVAddRecExpr>(operand);
    const auto *step = r && r->getLoop() == &loop && r->isAffine()
                           ? dyn_cast<SCEVConstant>(r->getStepRecurrence(scev))
                           : nullptr;
    return step && step->getAPInt().ule(d) && (r->getStart() == s || r->getStart()->isZero());
  };
  const bool each =
      isa<SCEVUMaxExpr>(index) ? llvm::all_of(cast<SCEVUMaxExpr>(index)->operands(), within) : within(index);
  return each && enteredOnlyBelow(loop, s, bound, scev, dominators);
}

/// Whether `loop` may write memory other than shared memory (or call what may).
bool writesBeyondShared(Loop &loop) {
  for (BasicBlock *block : loop.blocks())
    for (Instruction &inst : *block) {
      if (auto *store = dyn_cast<StoreInst>(&inst); store && store->getPointerAddressSpace() == 3)
        continue;
      // Barriers and the like write nothing a check guards; memcpy and memset do.
      if (inst.mayWriteToMemory() && (!isa<IntrinsicInst>(inst) || isa<AnyMemIntrinsic>(inst)))
        return true;
    }
  return false;
}

/// Whether `value` is computed in `loop` from `phi` and values from outside the loop alone, by
/// a few operations that atFirstIteration can compute before the loop.
bool computedEarlyFrom(Value *value, PHINode *phi, Loop &loop) {
  SmallVector<Value *, 8> work{value};
  SmallPtrSet<Value *, 8> seen;
  while (!work.empty()) {
    auto *inst = dyn_cast<Instruction>(work.pop_back_val());
    if (!inst || inst == phi || !loop.contains(inst) || !seen.insert(inst).second)
      continue;
    if (isa<PHINode>(inst) || seen.size() > 8 || inst->mayReadOrWriteMemory() ||
        !isSafeToSpeculativelyExecute(inst))
      return false;
    work.append(inst->op_begin(), inst->op_end());
  }
  return true;
}

/// A check that IndVarSimplify turned into an exit on `i == x`: `base + i <u size` with i
/// counting by 1 first fails where i == umax(size, base) - base, the index it reports computed
/// before the loop. For i = {first, +, 1} in 64 bits and a loop whose latch runs `count` more
/// times, i takes each of first .. first + count (mod 2^64) once, so the check fails exactly when
/// x - first <=u count: tested before the loop with the report's own arguments (an index the
/// loop computes from i, at i = x). Only in loops
/// that write no memory but shared memory: the check's index and bound are gone, so the audit
/// of the optimised code could not take it as the proof of a write (it would guard the write
/// again, and others it proved with the same facts).
bool hoistEqualityExit(BasicBlock *block, const SCEV *count, Loop &loop, ScalarEvolution &scev,
                       DominatorTree &dominators, DomTreeUpdater &updater, LoopInfo &loops) {
  auto *branch = dyn_cast<BranchInst>(block->getTerminator());
  auto *cmp = branch && branch->isConditional() ? dyn_cast<ICmpInst>(branch->getCondition()) : nullptr;
  if (!cmp || !cmp->isEquality() || !cmp->getOperand(0)->getType()->isIntegerTy(64))
    return false;
  const unsigned failing = cmp->getPredicate() == CmpInst::ICMP_EQ ? 0 : 1;
  BasicBlock *failure = branch->getSuccessor(failing);
  if (!oxide::reportsBoundsFailure(failure) || oxide::reportsBoundsFailure(branch->getSuccessor(1 - failing)))
    return false;
  Value *counter = cmp->getOperand(0), *x = cmp->getOperand(1);
  if (!loop.isLoopInvariant(x))
    std::swap(counter, x);
  const auto *iv = dyn_cast<SCEVAddRecExpr>(scev.getSCEV(counter));
  if (!loop.isLoopInvariant(x) || !iv || iv->getLoop() != &loop || !iv->isAffine() ||
      !iv->getStepRecurrence(scev)->isOne() || !computedInFullWidth(counter, loop) ||
      writesBeyondShared(loop))
    return false;
  Instruction *at = loop.getLoopPreheader()->getTerminator();
  SmallVector<Value *, 8> report = oxide::boundsFailureArguments(failure, block);
  SCEVExpander expander(scev, "oxide.loopcheck");
  // The reported index may be the loop's own arithmetic on the counter (a header phi): it is
  // reported as it is where the counter is x.
  auto *phi = dyn_cast<PHINode>(counter);
  const bool indexInLoop = !report.empty() && !availableAt(report[0], at, dominators);
  if (!llvm::all_of(llvm::drop_begin(report),
                    [&](Value *argument) { return availableAt(argument, at, dominators); }) ||
      (indexInLoop &&
       !(phi && phi->getParent() == loop.getHeader() && computedEarlyFrom(report[0], phi, loop))) ||
      scev.containsAddRecurrence(count) || !expander.isSafeToExpand(count) ||
      !expander.isSafeToExpandAt(count, at))
    return false;
  DenseMap<Value *, Value *> cloned;
  Value *first = atFirstIteration(counter, loop, at, cloned);
  if (!first)
    return false;
  IRBuilder<> b(at);
  if (indexInLoop) {
    DenseMap<Value *, Value *> atX{{phi, b.CreateFreeze(x)}};
    report[0] = atFirstIteration(report[0], loop, at, atX);
  }
  Value *times = b.CreateFreeze(expander.expandCodeFor(count, b.getInt64Ty(), at->getIterator()));
  Value *fails = b.CreateICmpULE(b.CreateSub(b.CreateFreeze(x), b.CreateFreeze(first)), times);
  reportBefore(at, fails, failure, report, updater, loops);
  branch->setCondition(ConstantInt::getBool(branch->getContext(), failing == 1));
  ConstantFoldTerminator(block, /*DeleteDeadConditions=*/true, nullptr, &updater);
  RecursivelyDeleteTriviallyDeadInstructions(cmp);
  return true;
}

bool processLoop(Loop &loop, ScalarEvolution &scev, DominatorTree &dominators, LoopInfo &loops) {
  if (!loop.getLoopPreheader() || !loop.getLoopLatch())
    return false;
  const SCEV *count = exactLatchCount(loop, scev);
  if (!count || !count->getType()->isIntegerTy(64)) {
    const bool changed = processClimbingLoop(loop, scev, dominators, loops);
    if (changed)
      scev.forgetLoop(&loop);
    return changed;
  }
  DomTreeUpdater updater(dominators, DomTreeUpdater::UpdateStrategy::Lazy);
  bool changed = false;
  SmallVector<std::pair<Check, Recurrence>, 4> remaining;
  for (BasicBlock *block : loop.blocks()) {
    if (loops.getLoopFor(block) != &loop)
      continue;
    std::optional<Check> check = checkEnding(block);
    if (!check || !llvm::all_of(check->tests, [&](const auto &test) {
          return computedInFullWidth(test.first, loop) && loop.isLoopInvariant(test.second);
        }))
      continue;
    if (llvm::all_of(check->tests, [&](const auto &test) {
          return provedInBounds(scev.getSCEV(test.first), count, scev.getSCEV(test.second), loop, scev,
                                dominators);
        })) {
      check->fold(updater);
      changed = true;
    } else if (std::optional<Recurrence> r = recurrenceOf(*check, loop, scev);
               r && oxide::reportsBoundsFailure(check->outOfBounds())) {
      remaining.push_back({*check, *r});
    }
  }
  updater.flush();
  if (changed)
    scev.forgetLoop(&loop);
  if (!leavesOnlyAtLatchOrFailure(loop))
    return changed;
  for (BasicBlock *block : loop.blocks())
    if (loops.getLoopFor(block) == &loop && dominators.dominates(block, loop.getLoopLatch()) &&
        hoistEqualityExit(block, count, loop, scev, dominators, updater, loops)) {
      updater.flush();
      changed = true;
    }
  for (auto &[check, r] : remaining) {
    // Only a check that every iteration reaches: one that some iterations skip might never fail.
    if (!dominators.dominates(check.branch->getParent(), loop.getLoopLatch()))
      continue;
    // The count is expanded: it does not change in any loop around this one.
    SCEVExpander expander(scev, "oxide.loopcheck");
    Instruction *at = loop.getLoopPreheader()->getTerminator();
    if (scev.containsAddRecurrence(count) || !expander.isSafeToExpand(count) ||
        !expander.isSafeToExpandAt(count, at))
      break;
    auto latchCount = [&](IRBuilder<> &b) {
      return Count{nullptr, b.CreateFreeze(expander.expandCodeFor(count, b.getInt64Ty(), at->getIterator())),
                   nullptr};
    };
    if (hoistCheck(check, r, latchCount, loop, scev, dominators, updater, loops)) {
      updater.flush();
      changed = true;
    }
  }
  if (changed)
    scev.forgetLoop(&loop);
  return changed;
}

} // namespace

PreservedAnalyses oxide::LoopBoundsChecksPass::run(Function &function, FunctionAnalysisManager &analyses) {
  auto &loops = analyses.getResult<LoopAnalysis>(function);
  if (loops.empty())
    return PreservedAnalyses::all();
  auto &scev = analyses.getResult<ScalarEvolutionAnalysis>(function);
  auto &dominators = analyses.getResult<DominatorTreeAnalysis>(function);
  bool changed = false;
  for (Loop *loop : loops.getLoopsInPreorder())
    changed |= processLoop(*loop, scev, dominators, loops);
  if (!changed)
    return PreservedAnalyses::all();
  PreservedAnalyses preserved;
  preserved.preserve<DominatorTreeAnalysis>();
  preserved.preserve<LoopAnalysis>();
  return preserved;
}
