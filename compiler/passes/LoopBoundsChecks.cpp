//===- LoopBoundsChecks.cpp - bounds checks of a loop, once per loop ------===//
//
// See LoopBoundsChecks.h. Everything here is exact modular arithmetic: no fact comes from a
// no-wrap flag, which the user's signed arithmetic can put on the IR (an `int` counter that
// overflows would otherwise run the loop past the count the proof used).
//
//===----------------------------------------------------------------------===//

#include "oxide/compiler/LoopBoundsChecks.h"
#include "oxide/compiler/BoundsFailure.h"
#include "oxide/compiler/GuardedWrites.h"

#include "llvm/Analysis/DomTreeUpdater.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

#include <optional>

using namespace llvm;
using namespace llvm::PatternMatch;

namespace {

/// A branch that takes successor `inBounds` when every `index <u bound` of `tests` holds.
struct Check {
  BranchInst *branch;
  SmallVector<std::pair<Value *, Value *>, 2> tests;
  unsigned inBounds;

  BasicBlock *outOfBounds() const { return branch->getSuccessor(1 - inBounds); }
  /// Makes the branch always take its in-bounds successor; the writes at the indices it tested
  /// carry the proof to the audit of the optimised code (GuardedWrites.h).
  void fold(DomTreeUpdater &updater) const {
    for (auto [index, bound] : tests)
      oxide::markProvedWrites(index, bound, branch->getSuccessor(inBounds), updater.getDomTree());
    branch->setCondition(ConstantInt::getBool(branch->getContext(), inBounds == 0));
    ConstantFoldTerminator(branch->getParent(), /*DeleteDeadConditions=*/true, nullptr, &updater);
  }
};

/// Appends the tests `index <u bound` that `condition` is the conjunction of (when
/// `trueInBounds`) or whose conjunction it negates: instcombine joins an element guard's
/// `j < w && c < w` into one branch on `j >= w || c >= w`.
bool collectTests(Value *condition, bool trueInBounds, SmallVectorImpl<std::pair<Value *, Value *>> &tests,
                  unsigned depth = 0) {
  Value *a, *b;
  if (depth < 4 && (trueInBounds ? match(condition, m_LogicalAnd(m_Value(a), m_Value(b)))
                                 : match(condition, m_LogicalOr(m_Value(a), m_Value(b)))))
    return collectTests(a, trueInBounds, tests, depth + 1) && collectTests(b, trueInBounds, tests, depth + 1);
  auto *cmp = dyn_cast<ICmpInst>(condition);
  if (!cmp || !cmp->getOperand(0)->getType()->isIntegerTy(64))
    return false;
  const CmpInst::Predicate p = trueInBounds ? cmp->getPredicate() : cmp->getInversePredicate();
  if (p == CmpInst::ICMP_ULT)
    tests.push_back({cmp->getOperand(0), cmp->getOperand(1)});
  else if (p == CmpInst::ICMP_UGT)
    tests.push_back({cmp->getOperand(1), cmp->getOperand(0)});
  else
    return false;
  return true;
}

std::optional<Check> checkEnding(BasicBlock *block) {
  auto *branch = dyn_cast<BranchInst>(block->getTerminator());
  if (!branch || !branch->isConditional() || branch->getSuccessor(0) == branch->getSuccessor(1))
    return std::nullopt;
  for (unsigned inBounds : {0u, 1u}) {
    Check check{branch, {}, inBounds};
    if (collectTests(branch->getCondition(), inBounds == 0, check.tests))
      return check;
  }
  return std::nullopt;
}

/// Whether `value` is computed in 64 bits from the loop's values: no extension of a narrower
/// value that changes in `loop` (SCEV widens such a value through its no-wrap flags, which
/// signed arithmetic in the user's code sets without proof).
bool computedInFullWidth(Value *value, const Loop &loop) {
  SmallVector<Value *, 16> work{value};
  SmallPtrSet<Value *, 16> seen;
  while (!work.empty()) {
    auto *inst = dyn_cast<Instruction>(work.pop_back_val());
    if (!inst || !loop.contains(inst) || !seen.insert(inst).second)
      continue;
    if (isa<ZExtInst, SExtInst, TruncInst>(inst) || !inst->getType()->isIntegerTy(64))
      return false;
    if (isa<PHINode>(inst) && inst->getParent() != loop.getHeader())
      return false;
    if (!isa<PHINode>(inst))
      work.append(inst->op_begin(), inst->op_end());
  }
  return true;
}

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

/// The bounds check `check` as idx = {start, +, step} in `loop`, step in [1, 2^32).
struct Recurrence {
  const SCEV *start;
  uint64_t step;
};

std::optional<Recurrence> recurrenceOf(const Check &check, Loop &loop, ScalarEvolution &scev) {
  if (check.tests.size() != 1)
    return std::nullopt;
  const auto *index = dyn_cast<SCEVAddRecExpr>(scev.getSCEV(check.tests[0].first));
  if (!index || index->getLoop() != &loop || !index->isAffine())
    return std::nullopt;
  const auto *step = dyn_cast<SCEVConstant>(index->getStepRecurrence(scev));
  if (!step || step->getAPInt().isZero() || step->getAPInt().getActiveBits() > 32)
    return std::nullopt;
  return Recurrence{index->getStart(), step->getAPInt().getZExtValue()};
}

/// Whether `condition` being `truth` means `a <u b`, directly or as one side of a conjunction
/// (`x && y` true, `x || y` false).
bool impliesBelow(Value *condition, bool truth, const SCEV *a, const SCEV *b, ScalarEvolution &scev,
                  unsigned depth = 0) {
  Value *x, *y;
  if (depth < 4 && (truth ? match(condition, m_LogicalAnd(m_Value(x), m_Value(y)))
                          : match(condition, m_LogicalOr(m_Value(x), m_Value(y)))))
    return impliesBelow(x, truth, a, b, scev, depth + 1) || impliesBelow(y, truth, a, b, scev, depth + 1);
  auto *cmp = dyn_cast<ICmpInst>(condition);
  if (!cmp || !scev.isSCEVable(cmp->getOperand(0)->getType()))
    return false;
  const CmpInst::Predicate p = truth ? cmp->getPredicate() : cmp->getInversePredicate();
  Value *lhs = cmp->getOperand(0), *rhs = cmp->getOperand(1);
  if (p == CmpInst::ICMP_UGT)
    std::swap(lhs, rhs);
  else if (p != CmpInst::ICMP_ULT)
    return false;
  return scev.getSCEV(lhs) == a && scev.getSCEV(rhs) == b;
}

/// Whether `loop` is entered only when `start <u bound`: a branch whose edge dominates the
/// preheader tests it. Read from the branches themselves, not from SCEV's implication engine,
/// which reasons with no-wrap flags.
bool enteredOnlyBelow(Loop &loop, const SCEV *start, const SCEV *bound, ScalarEvolution &scev,
                      DominatorTree &dominators) {
  BasicBlock *preheader = loop.getLoopPreheader();
  for (DomTreeNode *node = dominators.getNode(preheader); node; node = node->getIDom()) {
    auto *branch = dyn_cast<BranchInst>(node->getBlock()->getTerminator());
    if (!branch || !branch->isConditional() || branch->getSuccessor(0) == branch->getSuccessor(1))
      continue;
    for (unsigned side = 0; side < 2; ++side)
      if (dominators.dominates(BasicBlockEdge(node->getBlock(), branch->getSuccessor(side)), preheader) &&
          impliesBelow(branch->getCondition(), side == 0, start, bound, scev))
        return true;
  }
  return false;
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

/// Whether the loop leaves only through its latch or through failure reports, so that a check
/// that runs in every iteration runs in the last one unless an earlier check stops the kernel.
bool leavesOnlyAtLatchOrFailure(Loop &loop) {
  SmallVector<std::pair<BasicBlock *, BasicBlock *>, 8> exits;
  loop.getExitEdges(exits);
  return llvm::all_of(exits, [&](const auto &edge) {
    return edge.first == loop.getLoopLatch() || oxide::isBoundsFailureBlock(edge.second);
  });
}

bool availableAt(Value *value, Instruction *at, DominatorTree &dominators) {
  auto *inst = dyn_cast<Instruction>(value);
  return !inst || dominators.dominates(inst, at);
}

/// `value` in the first iteration of `loop`, computed before `at` (the end of its preheader): the
/// loop's instructions it depends on, cloned with each header phi replaced by its entry value;
/// nullptr if one of them reads memory or may not run early.
Value *atFirstIteration(Value *value, Loop &loop, Instruction *at, DenseMap<Value *, Value *> &cloned,
                        unsigned depth = 0) {
  auto *inst = dyn_cast<Instruction>(value);
  if (!inst || !loop.contains(inst))
    return value;
  if (auto *phi = dyn_cast<PHINode>(inst))
    return phi->getParent() == loop.getHeader() ? phi->getIncomingValueForBlock(loop.getLoopPreheader())
                                                : nullptr;
  if (Value *done = cloned.lookup(inst))
    return done;
  if (depth > 16 || inst->mayReadOrWriteMemory() || !isSafeToSpeculativelyExecute(inst))
    return nullptr;
  // Without the no-wrap flags of the original: a poison first index would let the test of it
  // be folded away.
  Instruction *copy = inst->clone();
  copy->dropPoisonGeneratingAnnotations();
  for (Use &operand : copy->operands()) {
    Value *first = atFirstIteration(operand.get(), loop, at, cloned, depth + 1);
    if (!first) {
      copy->deleteValue();
      return nullptr;
    }
    operand.set(first);
  }
  copy->insertBefore(at->getIterator());
  cloned[inst] = copy;
  return copy;
}

/// Tests the check's last index in the preheader (see LoopBoundsChecks.h); false when it cannot.
bool hoistCheck(const Check &check, const Recurrence &r, const SCEV *count, Loop &loop, ScalarEvolution &scev,
                DominatorTree &dominators, DomTreeUpdater &updater, LoopInfo &loops) {
  BasicBlock *preheader = loop.getLoopPreheader();
  BasicBlock *failure = check.outOfBounds();
  Instruction *at = preheader->getTerminator();
  SmallVector<Value *, 8> report = oxide::boundsFailureArguments(failure, check.branch->getParent());
  Value *bound = check.tests[0].second;
  if (report.size() < 2 || report[1] != bound)
    return false;
  for (Value *argument : llvm::drop_begin(report))
    if (!availableAt(argument, at, dominators))
      return false;
  // The count is expanded (it does not change in any loop around this one); the first index is
  // the check's own arithmetic with the loop's phis at their entry values: expanding its SCEV
  // would give each enclosing loop a new induction variable, live across all of it (layernorm's
  // row loop went from 29 registers to 45).
  SCEVExpander expander(scev, "oxide.loopcheck");
  if (scev.containsAddRecurrence(count) || !expander.isSafeToExpand(count) ||
      !expander.isSafeToExpandAt(count, at))
    return false;
  DenseMap<Value *, Value *> cloned;
  Value *start = atFirstIteration(check.tests[0].first, loop, at, cloned);
  if (!start)
    return false;
  Type *i64 = bound->getType();
  IRBuilder<> b(at);
  start = b.CreateFreeze(start);
  Value *times = b.CreateFreeze(expander.expandCodeFor(count, i64, at->getIterator()));
  Value *product =
      b.CreateBinaryIntrinsic(Intrinsic::umul_with_overflow, ConstantInt::get(i64, r.step), times);
  Value *sum =
      b.CreateBinaryIntrinsic(Intrinsic::uadd_with_overflow, start, b.CreateExtractValue(product, 0));
  Value *last = b.CreateExtractValue(sum, 0, "oxide.last.index");
  Value *fails = b.CreateOr(b.CreateOr(b.CreateExtractValue(product, 1), b.CreateExtractValue(sum, 1)),
                            b.CreateICmpUGE(last, bound));
  Instruction *stop =
      SplitBlockAndInsertIfThen(fails, at->getIterator(), /*Unreachable=*/true,
                                MDBuilder(b.getContext()).createUnlikelyBranchWeights(), &updater, &loops);
  auto *call = cast<CallInst>(oxide::boundsFailureReport(failure)->clone());
  call->insertBefore(stop->getIterator());
  for (unsigned i = 0; i < report.size(); ++i)
    call->setArgOperand(i, i == 0 ? last : report[i]);
  check.fold(updater);
  return true;
}

bool processLoop(Loop &loop, ScalarEvolution &scev, DominatorTree &dominators, LoopInfo &loops) {
  if (!loop.getLoopPreheader() || !loop.getLoopLatch())
    return false;
  const SCEV *count = exactLatchCount(loop, scev);
  if (!count || !count->getType()->isIntegerTy(64))
    return false;
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
               r && oxide::isBoundsFailureBlock(check->outOfBounds())) {
      remaining.push_back({*check, *r});
    }
  }
  updater.flush();
  if (changed)
    scev.forgetLoop(&loop);
  if (remaining.empty() || !leavesOnlyAtLatchOrFailure(loop))
    return changed;
  for (auto &[check, r] : remaining) {
    // Only a check that every iteration reaches: one that some iterations skip might never fail.
    if (!dominators.dominates(check.branch->getParent(), loop.getLoopLatch()))
      continue;
    if (hoistCheck(check, r, count, loop, scev, dominators, updater, loops)) {
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
