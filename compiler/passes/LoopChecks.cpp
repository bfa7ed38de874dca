//===- LoopChecks.cpp - a loop's bounds checks, tested before it --------===//
//
// See LoopChecks.h.
//
//===----------------------------------------------------------------------===//

#include "LoopChecks.h"
#include "oxide/compiler/BoundsFailure.h"
#include "oxide/compiler/GuardedWrites.h"

#include "llvm/Analysis/DomTreeUpdater.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/Support/KnownBits.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

using namespace llvm;
using namespace llvm::PatternMatch;
using namespace oxide::loop_checks;

namespace {

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

} // namespace

void oxide::loop_checks::Check::fold(DomTreeUpdater &updater) const {
  for (auto [index, bound] : tests)
    oxide::markProvedWrites(index, bound, branch->getSuccessor(inBounds), updater.getDomTree());
  branch->setCondition(ConstantInt::getBool(branch->getContext(), inBounds == 0));
  ConstantFoldTerminator(branch->getParent(), /*DeleteDeadConditions=*/true, nullptr, &updater);
}

std::optional<Check> oxide::loop_checks::checkEnding(BasicBlock *block) {
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

bool oxide::loop_checks::impliesBelow(Value *condition, bool truth, const SCEV *a, const SCEV *b,
                                      ScalarEvolution &scev, unsigned depth) {
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

bool oxide::loop_checks::enteredOnlyBelow(Loop &loop, const SCEV *start, const SCEV *bound,
                                          ScalarEvolution &scev, DominatorTree &dominators) {
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

bool oxide::loop_checks::computedInFullWidth(Value *value, const Loop &loop, unsigned width) {
  SmallVector<Value *, 16> work{value};
  SmallPtrSet<Value *, 16> seen;
  while (!work.empty()) {
    auto *inst = dyn_cast<Instruction>(work.pop_back_val());
    if (!inst || !loop.contains(inst) || !seen.insert(inst).second)
      continue;
    if (isa<ZExtInst, SExtInst, TruncInst>(inst) || !inst->getType()->isIntegerTy(width))
      return false;
    if (isa<PHINode>(inst) && inst->getParent() != loop.getHeader())
      return false;
    if (!isa<PHINode>(inst))
      work.append(inst->op_begin(), inst->op_end());
  }
  return true;
}

ConstantRange oxide::loop_checks::rangeOf(Value *value, const DataLayout &layout, unsigned depth) {
  const ConstantRange known = ConstantRange::fromKnownBits(
      computeKnownBits(value, layout, nullptr, nullptr, nullptr, /*UseInstrInfo=*/false), /*IsSigned=*/false);
  auto *inst = dyn_cast<Instruction>(value);
  if (!inst || depth > 8)
    return known;
  if (auto *op = dyn_cast<BinaryOperator>(inst))
    return known.intersectWith(rangeOf(op->getOperand(0), layout, depth + 1)
                                   .binaryOp(op->getOpcode(), rangeOf(op->getOperand(1), layout, depth + 1)),
                               ConstantRange::Unsigned);
  if (auto *cast = dyn_cast<CastInst>(inst); cast && cast->getSrcTy()->isIntegerTy())
    return known.intersectWith(rangeOf(cast->getOperand(0), layout, depth + 1)
                                   .castOp(cast->getOpcode(), cast->getType()->getIntegerBitWidth()),
                               ConstantRange::Unsigned);
  return known;
}

std::optional<Recurrence> oxide::loop_checks::recurrenceOf(const Check &check, Loop &loop,
                                                           ScalarEvolution &scev) {
  if (check.tests.size() != 1)
    return std::nullopt;
  const auto *index = dyn_cast<SCEVAddRecExpr>(scev.getSCEV(check.tests[0].first));
  if (!index || index->getLoop() != &loop || !index->isAffine() ||
      !scev.isLoopInvariant(index->getStepRecurrence(scev), &loop))
    return std::nullopt;
  return Recurrence{index->getStart(), index->getStepRecurrence(scev)};
}

bool oxide::loop_checks::leavesOnlyAtLatchOrFailure(Loop &loop) {
  SmallVector<std::pair<BasicBlock *, BasicBlock *>, 8> exits;
  loop.getExitEdges(exits);
  return llvm::all_of(exits, [&](const auto &edge) {
    return edge.first == loop.getLoopLatch() || oxide::reportsBoundsFailure(edge.second);
  });
}

bool oxide::loop_checks::availableAt(Value *value, Instruction *at, DominatorTree &dominators) {
  auto *inst = dyn_cast<Instruction>(value);
  return !inst || dominators.dominates(inst, at);
}

Value *oxide::loop_checks::atFirstIteration(Value *value, Loop &loop, Instruction *at,
                                            DenseMap<Value *, Value *> &cloned, unsigned depth) {
  auto *inst = dyn_cast<Instruction>(value);
  if (!inst || !loop.contains(inst))
    return value;
  if (Value *done = cloned.lookup(inst))
    return done;
  if (auto *phi = dyn_cast<PHINode>(inst))
    return phi->getParent() == loop.getHeader() ? phi->getIncomingValueForBlock(loop.getLoopPreheader())
                                                : nullptr;
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

bool oxide::loop_checks::hoistCheck(const Check &check, const Recurrence &r, CountBuilder count, Loop &loop,
                                    ScalarEvolution &scev, DominatorTree &dominators, DomTreeUpdater &updater,
                                    LoopInfo &loops) {
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
  // The first index is the check's own arithmetic with the loop's phis at their entry values:
  // expanding its SCEV would give each enclosing loop a new induction variable, live across all
  // of it (layernorm's row loop went from 29 registers to 45).
  SCEVExpander expander(scev, "oxide.loopcheck");
  if (!expander.isSafeToExpandAt(r.step, at))
    return false;
  DenseMap<Value *, Value *> cloned;
  Value *start = atFirstIteration(check.tests[0].first, loop, at, cloned);
  if (!start)
    return false;
  Type *i64 = bound->getType();
  IRBuilder<> b(at);
  start = b.CreateFreeze(start);
  const Count counted = count(b);
  Value *step = expander.expandCodeFor(r.step, i64, at->getIterator());
  if (!isa<Constant>(step))
    step = b.CreateFreeze(step);
  // Rising: no index wraps and the last is below the bound (sound for any step; the test fails
  // only where some check would, since a step of at most 2^64 - bound cannot pass over [bound,
  // 2^64): always so for a step below 2^63, a span holding fewer than 2^63 elements). A step
  // that may be larger wraps as a fall by d = -step: the first index is below the bound and no
  // fall passes below zero (else the index wraps to at least 2^64 - d > bound).
  Value *product = b.CreateBinaryIntrinsic(Intrinsic::umul_with_overflow, step, counted.times);
  Value *sum =
      b.CreateBinaryIntrinsic(Intrinsic::uadd_with_overflow, start, b.CreateExtractValue(product, 0));
  Value *last = b.CreateExtractValue(sum, 0, "oxide.last.index");
  Value *fails = b.CreateOr(b.CreateOr(b.CreateExtractValue(product, 1), b.CreateExtractValue(sum, 1)),
                            b.CreateICmpUGE(last, bound));
  Value *reported = last;
  Value *firstFails = nullptr; // built where needed
  auto startFails = [&] { return firstFails ? firstFails : firstFails = b.CreateICmpUGE(start, bound); };
  if (scev.getUnsignedRangeMax(r.step).ugt(APInt::getSignedMinValue(64))) {
    Value *drop = b.CreateBinaryIntrinsic(Intrinsic::umul_with_overflow, b.CreateNeg(step), counted.times);
    Value *falls =
        b.CreateOr(startFails(), b.CreateOr(b.CreateExtractValue(drop, 1),
                                            b.CreateICmpUGT(b.CreateExtractValue(drop, 0), start)));
    fails = b.CreateSelect(b.CreateICmpUGT(step, b.CreateNeg(bound)), falls, fails);
    reported = b.CreateSelect(startFails(), start, last);
  }
  // Without end: some check fails unless the index never moves (the report then names the
  // first index, or the bound itself where a later one fails).
  if (counted.endless) {
    fails = b.CreateSelect(counted.endless, b.CreateOr(startFails(), b.CreateIsNotNull(step)), fails);
    reported = b.CreateSelect(counted.endless, b.CreateSelect(startFails(), start, bound), reported);
  }
  if (counted.runs)
    fails = b.CreateSelect(counted.runs, fails, b.getFalse());
  report[0] = reported;
  reportBefore(at, fails, failure, report, updater, loops);
  check.fold(updater);
  return true;
}

void oxide::loop_checks::reportBefore(Instruction *at, Value *fails, BasicBlock *failure,
                                      ArrayRef<Value *> arguments, DomTreeUpdater &updater, LoopInfo &loops) {
  Instruction *stop =
      SplitBlockAndInsertIfThen(fails, at->getIterator(), /*Unreachable=*/true,
                                MDBuilder(at->getContext()).createUnlikelyBranchWeights(), &updater, &loops);
  auto *call = cast<CallInst>(oxide::boundsFailureReport(failure)->clone());
  call->insertBefore(stop->getIterator());
  for (auto [i, argument] : llvm::enumerate(arguments))
    call->setArgOperand(i, argument);
}
