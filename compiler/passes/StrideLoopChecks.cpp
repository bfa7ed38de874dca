//===- StrideLoopChecks.cpp - a stride loop's checks, once per loop -------===//
//
// See StrideLoopChecks.h. No fact comes from a no-wrap flag: the widths of the values (known
// bits) show that nothing the argument adds or multiplies wraps.
//
//===----------------------------------------------------------------------===//

#include "oxide/compiler/StrideLoopChecks.h"
#include "oxide/compiler/BoundsFailure.h"

#include "llvm/Analysis/DomTreeUpdater.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/Support/KnownBits.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Local.h"

#include <optional>

using namespace llvm;
using namespace llvm::PatternMatch;

namespace {

/// p = start, start + step, ... while p + step <u limit (in 64 bits): the header phi and its
/// values; p may be narrower (a 32-bit phi the latch extends).
struct StrideLoop {
  PHINode *phi;
  Value *start, *step, *limit;
  APInt max; // the largest value p takes (64 bits)
};

bool availableAt(Value *value, Instruction *at, DominatorTree &dominators) {
  auto *inst = dyn_cast<Instruction>(value);
  return !inst || dominators.dominates(inst, at);
}

/// The largest value `value` may have, from its known bits, as a 64-bit number; nullopt for a
/// wider type.
std::optional<APInt> maxValue(Value *value, const DataLayout &layout) {
  if (value->getType()->getScalarSizeInBits() > 64)
    return std::nullopt;
  return computeKnownBits(value, layout).getMaxValue().zext(64);
}

/// Whether `value` is p: the phi or its zero extension.
bool isCounter(Value *value, const StrideLoop &s) {
  Value *inner;
  return value == s.phi || (match(value, m_ZExt(m_Value(inner))) && inner == s.phi);
}

std::optional<StrideLoop> strideLoopOf(Loop &loop, DominatorTree &dominators) {
  BasicBlock *header = loop.getHeader(), *latch = loop.getLoopLatch(), *preheader = loop.getLoopPreheader();
  if (!latch || !preheader)
    return std::nullopt;
  auto *branch = dyn_cast<BranchInst>(latch->getTerminator());
  Value *next, *limit;
  CmpPredicate predicate;
  if (!branch || !branch->isConditional() ||
      !match(branch->getCondition(), m_ICmp(predicate, m_Value(next), m_Value(limit))))
    return std::nullopt;
  // Staying in the loop exactly when next <u limit.
  const unsigned stay = branch->getSuccessor(0) == header ? 0 : 1;
  if (branch->getSuccessor(stay) != header)
    return std::nullopt;
  CmpInst::Predicate p =
      stay == 0 ? static_cast<CmpInst::Predicate>(predicate) : CmpInst::getInversePredicate(predicate);
  if (p == CmpInst::ICMP_UGT) {
    std::swap(next, limit);
    p = CmpInst::ICMP_ULT;
  }
  if (p != CmpInst::ICMP_ULT || !next->getType()->isIntegerTy(64) || !loop.isLoopInvariant(limit))
    return std::nullopt;
  Value *counter, *step;
  if (!match(next, m_Add(m_Value(counter), m_Value(step))))
    return std::nullopt;
  if (!loop.isLoopInvariant(step))
    std::swap(counter, step);
  if (!loop.isLoopInvariant(step))
    return std::nullopt;
  Value *narrow = counter;
  match(counter, m_ZExt(m_Value(narrow)));
  auto *phi = dyn_cast<PHINode>(narrow);
  if (!phi || phi->getParent() != header || phi->getNumIncomingValues() != 2)
    return std::nullopt;
  Value *back = phi->getIncomingValueForBlock(latch);
  if (back != next && !(match(back, m_Trunc(m_Specific(next))) && narrow != counter))
    return std::nullopt;
  Value *start = phi->getIncomingValueForBlock(preheader);
  Instruction *at = preheader->getTerminator();
  if (!availableAt(start, at, dominators) || !availableAt(step, at, dominators) ||
      !availableAt(limit, at, dominators))
    return std::nullopt;
  const DataLayout &layout = header->getDataLayout();
  // p is start, or below limit; p + step must not wrap: then the latch's test sees every value.
  std::optional<APInt> maxStart = maxValue(start, layout), maxLimit = maxValue(limit, layout),
                       maxStep = maxValue(step, layout);
  if (!maxStart || !maxLimit || !maxStep)
    return std::nullopt;
  // A narrower phi takes `next` truncated: exact only when every next below the limit fits.
  const unsigned width = phi->getType()->getIntegerBitWidth();
  if (width < 64 && maxLimit->ugt(APInt::getMaxValue(width).zext(64)))
    return std::nullopt;
  APInt max = APIntOps::umax(*maxStart, maxLimit->isZero() ? *maxLimit : *maxLimit - 1);
  bool overflow = false;
  (void)max.uadd_ov(*maxStep, overflow);
  if (overflow)
    return std::nullopt;
  return StrideLoop{phi, start, step, limit, max};
}

/// What gates a check in an iteration: loop-invariant conditions and `p <u X` bounds.
struct Gates {
  SmallVector<std::pair<Value *, bool>, 4> invariant; // condition, the truth that lets it run
  SmallVector<Value *, 2> below;                      // the X of p <u X
};

/// Adds the atoms of `condition` being `truth` to `gates`; false if one is neither kind.
bool addGate(Value *condition, bool truth, const StrideLoop &s, Loop &loop, Gates &gates, Instruction *at,
             DominatorTree &dominators, unsigned depth = 0) {
  Value *a, *b;
  if (depth < 4 && (truth ? match(condition, m_LogicalAnd(m_Value(a), m_Value(b)))
                          : match(condition, m_LogicalOr(m_Value(a), m_Value(b)))))
    return addGate(a, truth, s, loop, gates, at, dominators, depth + 1) &&
           addGate(b, truth, s, loop, gates, at, dominators, depth + 1);
  if (loop.isLoopInvariant(condition) && availableAt(condition, at, dominators)) {
    gates.invariant.push_back({condition, truth});
    return true;
  }
  CmpPredicate predicate;
  if (!match(condition, m_ICmp(predicate, m_Value(a), m_Value(b))))
    return false;
  CmpInst::Predicate p =
      truth ? static_cast<CmpInst::Predicate>(predicate) : CmpInst::getInversePredicate(predicate);
  if (p == CmpInst::ICMP_UGT) {
    std::swap(a, b);
    p = CmpInst::ICMP_ULT;
  }
  if (p != CmpInst::ICMP_ULT || !isCounter(a, s) || !loop.isLoopInvariant(b) ||
      !availableAt(b, at, dominators))
    return false;
  gates.below.push_back(b);
  return true;
}

/// The gates of `block` in `loop`: the conditions of the branch edges inside the loop that
/// dominate it; nullopt if one is neither kind, or if some path through an iteration passes the
/// gates and still misses `block` (then an iteration that passes them might not run the check).
std::optional<Gates> gatesOf(BasicBlock *block, const StrideLoop &s, Loop &loop, DominatorTree &dominators) {
  Gates gates;
  Instruction *at = loop.getLoopPreheader()->getTerminator();
  DenseMap<BasicBlock *, unsigned> gateEdge; // the successor a gate's branch must take
  for (DomTreeNode *node = dominators.getNode(block)->getIDom(); node && loop.contains(node->getBlock());
       node = node->getIDom()) {
    BasicBlock *d = node->getBlock();
    auto *branch = dyn_cast<BranchInst>(d->getTerminator());
    if (!branch || !branch->isConditional() || branch->getSuccessor(0) == branch->getSuccessor(1))
      continue;
    for (unsigned side = 0; side < 2; ++side)
      if (dominators.dominates(BasicBlockEdge(d, branch->getSuccessor(side)), block)) {
        if (!addGate(branch->getCondition(), side == 0, s, loop, gates, at, dominators))
          return std::nullopt;
        gateEdge[d] = side;
      }
  }
  // Every path from the header that takes the gates' edges reaches `block` before the latch
  // loops back or the loop is left (inner loops are passed through; failure reports end).
  SmallVector<BasicBlock *, 16> work{loop.getHeader()};
  SmallPtrSet<BasicBlock *, 32> seen{loop.getHeader()};
  while (!work.empty()) {
    BasicBlock *b = work.pop_back_val();
    if (b == block)
      continue;
    if (b == loop.getLoopLatch() || !loop.contains(b))
      return std::nullopt;
    auto *branch = dyn_cast<BranchInst>(b->getTerminator());
    auto edge = gateEdge.find(b);
    for (unsigned i = 0; i < b->getTerminator()->getNumSuccessors(); ++i) {
      if (edge != gateEdge.end() && branch && i != edge->second)
        continue;
      BasicBlock *next = b->getTerminator()->getSuccessor(i);
      if (oxide::isBoundsFailureBlock(next) || next == loop.getHeader())
        continue;
      if (seen.insert(next).second)
        work.push_back(next);
    }
  }
  return gates;
}

/// Whether `value` does not decrease as p grows, without wrapping; `max` receives the largest
/// value it takes (for the values p takes). `flagged` collects the with-overflow intrinsics whose
/// wrapped result it uses: their overflow bits must be failures too.
bool monotone(Value *value, const StrideLoop &s, Loop &loop, const DataLayout &layout, APInt &max,
              SmallPtrSetImpl<Value *> &flagged, unsigned depth = 0) {
  if (depth > 12 || value->getType()->getScalarSizeInBits() > 64)
    return false;
  if (loop.isLoopInvariant(value)) {
    max = *maxValue(value, layout);
    return true;
  }
  if (isCounter(value, s)) {
    max = s.max;
    return true;
  }
  const unsigned width = value->getType()->getScalarSizeInBits();
  const APInt typeMax = APInt::getMaxValue(width).zext(64);
  Value *a, *b;
  const APInt *k;
  APInt ma(64, 0), mb(64, 0);
  bool overflow = false;
  auto both = [&] {
    return monotone(a, s, loop, layout, ma, flagged, depth + 1) &&
           monotone(b, s, loop, layout, mb, flagged, depth + 1);
  };
  if (match(value, m_Freeze(m_Value(a))) || match(value, m_ZExt(m_Value(a))))
    return monotone(a, s, loop, layout, max, flagged, depth + 1);
  if (match(value, m_Add(m_Value(a), m_Value(b)))) {
    if (!both())
      return false;
    max = ma.uadd_ov(mb, overflow);
    return !overflow && max.ule(typeMax);
  }
  if (match(value, m_Mul(m_Value(a), m_Value(b)))) {
    if (!both())
      return false;
    max = ma.umul_ov(mb, overflow);
    return !overflow && max.ule(typeMax);
  }
  if (match(value, m_And(m_Value(a), m_APInt(k))) && k->isNegatedPowerOf2())
    return monotone(a, s, loop, layout, max, flagged, depth + 1);
  if (match(value, m_LShr(m_Value(a), m_APInt(k))) && k->ult(width)) {
    if (!monotone(a, s, loop, layout, max, flagged, depth + 1))
      return false;
    max = max.lshr(static_cast<unsigned>(k->getZExtValue()));
    return true;
  }
  if (match(value, m_Shl(m_Value(a), m_APInt(k))) && k->ult(width)) {
    if (!monotone(a, s, loop, layout, max, flagged, depth + 1))
      return false;
    max = max.ushl_ov(static_cast<unsigned>(k->getZExtValue()), overflow);
    return !overflow && max.ule(typeMax);
  }
  // The wrapped sum or product of a with-overflow intrinsic: monotone while it does not wrap,
  // and a wrap is a failure (its overflow bit is one of the check's).
  auto *extract = dyn_cast<ExtractValueInst>(value);
  auto *op = extract ? dyn_cast<WithOverflowInst>(extract->getAggregateOperand()) : nullptr;
  if (op && extract->getIndices()[0] == 0 && !op->isSigned() &&
      (op->getBinaryOp() == Instruction::Add || op->getBinaryOp() == Instruction::Mul)) {
    a = op->getLHS(), b = op->getRHS();
    if (!both())
      return false;
    flagged.insert(op);
    max = typeMax;
    return true;
  }
  return false;
}

/// Whether `a <failWhen> b` (true when the check fails) grows with p: `a >=u bound` or
/// `a >u bound` (either side), a monotone and bound invariant.
bool monotoneComparison(CmpInst::Predicate failWhen, Value *a, Value *b, const StrideLoop &s, Loop &loop,
                        const DataLayout &layout, SmallPtrSetImpl<Value *> &flagged) {
  if (failWhen == CmpInst::ICMP_ULE || failWhen == CmpInst::ICMP_ULT) {
    std::swap(a, b);
    failWhen = CmpInst::getSwappedPredicate(failWhen);
  }
  APInt max(64, 0);
  return (failWhen == CmpInst::ICMP_UGE || failWhen == CmpInst::ICMP_UGT) && loop.isLoopInvariant(b) &&
         monotone(a, s, loop, layout, max, flagged);
}

/// Whether `fails` (true when the check fails) grows with p: an `or` of `a >=u bound` with a
/// monotone and bound invariant, and of the overflow bits of monotone with-overflow intrinsics.
bool monotoneFailure(Value *fails, const StrideLoop &s, Loop &loop, const DataLayout &layout,
                     SmallPtrSetImpl<Value *> &flagged, SmallPtrSetImpl<Value *> &overflows,
                     unsigned depth = 0) {
  Value *a, *b;
  if (depth < 6 && match(fails, m_LogicalOr(m_Value(a), m_Value(b))))
    return monotoneFailure(a, s, loop, layout, flagged, overflows, depth + 1) &&
           monotoneFailure(b, s, loop, layout, flagged, overflows, depth + 1);
  if (auto *extract = dyn_cast<ExtractValueInst>(fails)) {
    auto *op = dyn_cast<WithOverflowInst>(extract->getAggregateOperand());
    if (!op || extract->getIndices()[0] != 1 || op->isSigned() ||
        (op->getBinaryOp() != Instruction::Add && op->getBinaryOp() != Instruction::Mul))
      return false;
    APInt ma(64, 0), mb(64, 0);
    overflows.insert(op);
    return monotone(op->getLHS(), s, loop, layout, ma, flagged, depth + 1) &&
           monotone(op->getRHS(), s, loop, layout, mb, flagged, depth + 1);
  }
  auto *cmp = dyn_cast<ICmpInst>(fails);
  return cmp && monotoneComparison(cmp->getPredicate(), cmp->getOperand(0), cmp->getOperand(1), s, loop,
                                   layout, flagged);
}

/// `value` with p replaced by `last` (a 64-bit value), computed before `at`; nullptr if a part
/// of it may not run there.
Value *atLast(Value *value, const StrideLoop &s, Value *last, Loop &loop, Instruction *at,
              DominatorTree &dominators, DenseMap<Value *, Value *> &cloned, unsigned depth = 0) {
  if (loop.isLoopInvariant(value))
    return availableAt(value, at, dominators) ? value : nullptr;
  if (value == s.phi)
    return IRBuilder<>(at).CreateTrunc(last, s.phi->getType());
  if (isCounter(value, s))
    return IRBuilder<>(at).CreateZExt(last, value->getType());
  if (Value *done = cloned.lookup(value))
    return done;
  auto *inst = dyn_cast<Instruction>(value);
  if (!inst || depth > 16 || inst->mayReadOrWriteMemory() || !isSafeToSpeculativelyExecute(inst) ||
      isa<PHINode>(inst))
    return nullptr;
  Instruction *copy = inst->clone();
  copy->dropPoisonGeneratingAnnotations();
  for (Use &operand : copy->operands()) {
    Value *moved = atLast(operand.get(), s, last, loop, at, dominators, cloned, depth + 1);
    if (!moved) {
      copy->deleteValue();
      return nullptr;
    }
    operand.set(moved);
  }
  copy->insertBefore(at->getIterator());
  cloned[value] = copy;
  return copy;
}

/// Whether the loop leaves only through its latch or through failure reports.
bool leavesOnlyAtLatchOrFailure(Loop &loop) {
  SmallVector<std::pair<BasicBlock *, BasicBlock *>, 8> exits;
  loop.getExitEdges(exits);
  return llvm::all_of(exits, [&](const auto &edge) {
    return edge.first == loop.getLoopLatch() || oxide::isBoundsFailureBlock(edge.second);
  });
}

/// Hoists the failure check ending `block` (see StrideLoopChecks.h); false when it cannot.
bool hoistCheck(BasicBlock *block, const StrideLoop &s, Loop &loop, DominatorTree &dominators,
                LoopInfo &loops, DomTreeUpdater &updater) {
  auto *branch = dyn_cast<BranchInst>(block->getTerminator());
  if (!branch || !branch->isConditional())
    return false;
  unsigned failSide = 0;
  if (!oxide::isBoundsFailureBlock(branch->getSuccessor(0))) {
    if (!oxide::isBoundsFailureBlock(branch->getSuccessor(1)))
      return false;
    failSide = 1;
  }
  BasicBlock *failure = branch->getSuccessor(failSide);
  const DataLayout &layout = block->getDataLayout();
  Value *original = branch->getCondition();
  SmallPtrSet<Value *, 4> flagged, overflows;
  // A branch to the failure on `false` fails on the negation: that of one comparison.
  auto *cmp = dyn_cast<ICmpInst>(original);
  const bool grows = failSide == 0 ? monotoneFailure(original, s, loop, layout, flagged, overflows)
                                   : cmp && monotoneComparison(cmp->getInversePredicate(), cmp->getOperand(0),
                                                               cmp->getOperand(1), s, loop, layout, flagged);
  if (!grows)
    return false;
  for (Value *op : flagged)
    if (!overflows.contains(op))
      return false;
  std::optional<Gates> gates = gatesOf(block, s, loop, dominators);
  if (!gates)
    return false;
  BasicBlock *preheader = loop.getLoopPreheader();
  Instruction *at = preheader->getTerminator();
  SmallVector<Value *, 8> report = oxide::boundsFailureArguments(failure, block);
  for (Value *argument : llvm::drop_begin(report))
    if (!availableAt(argument, at, dominators))
      return false;

  IRBuilder<> b(at);
  Type *i64 = b.getInt64Ty();
  auto wide = [&](Value *v) { return b.CreateFreeze(b.CreateZExtOrTrunc(v, i64)); };
  // p_last: the last value of start, start + step... below min(limit, X...), or start.
  Value *start = wide(s.start), *step = wide(s.step);
  Value *bound = wide(s.limit);
  Value *runs = b.getTrue();
  for (Value *x : gates->below) {
    bound = b.CreateBinaryIntrinsic(Intrinsic::umin, bound, wide(x));
    runs = b.CreateAnd(runs, b.CreateICmpULT(start, wide(x)));
  }
  Value *room = b.CreateSelect(b.CreateICmpUGT(bound, start),
                               b.CreateSub(b.CreateSub(bound, start), b.getInt64(1)), b.getInt64(0));
  // room / step, divided only when the loop runs more than once: a grid of a block per row
  // (step > room) pays no division, which the GPU does in software.
  Value *again = b.CreateICmpUGE(room, step);
  Instruction *divide =
      SplitBlockAndInsertIfThen(again, at->getIterator(), /*Unreachable=*/false, nullptr, &updater, &loops);
  b.SetInsertPoint(divide);
  Value *quotient = b.CreateUDiv(room, b.CreateBinaryIntrinsic(Intrinsic::umax, step, b.getInt64(1)));
  b.SetInsertPoint(at);
  PHINode *steps = b.CreatePHI(i64, 2);
  steps->addIncoming(quotient, divide->getParent());
  steps->addIncoming(b.getInt64(0), divide->getParent()->getSinglePredecessor());
  Value *last = b.CreateAdd(start, b.CreateMul(step, steps), "oxide.stride.last");
  for (auto [condition, truth] : gates->invariant) {
    Value *c = b.CreateFreeze(condition);
    runs = b.CreateAnd(runs, truth ? c : b.CreateNot(c));
  }
  DenseMap<Value *, Value *> cloned;
  Value *failsAtLast = atLast(original, s, last, loop, at, dominators, cloned);
  Value *indexAtLast = atLast(report[0], s, last, loop, at, dominators, cloned);
  if (!failsAtLast || !indexAtLast)
    return false; // the clones made so far are dead: later passes delete them
  failsAtLast = b.CreateFreeze(failsAtLast);
  if (failSide == 1)
    failsAtLast = b.CreateNot(failsAtLast);
  Value *stops = b.CreateAnd(runs, failsAtLast);
  Instruction *stop =
      SplitBlockAndInsertIfThen(stops, at->getIterator(), /*Unreachable=*/true,
                                MDBuilder(b.getContext()).createUnlikelyBranchWeights(), &updater, &loops);
  auto *call = cast<CallInst>(oxide::boundsFailureReport(failure)->clone());
  call->insertBefore(stop->getIterator());
  for (unsigned i = 0; i < report.size(); ++i)
    call->setArgOperand(i, i == 0 ? indexAtLast : report[i]);
  branch->setCondition(ConstantInt::getBool(branch->getContext(), failSide == 1));
  ConstantFoldTerminator(block, /*DeleteDeadConditions=*/true, nullptr, &updater);
  return true;
}

bool processLoop(Loop &loop, DominatorTree &dominators, LoopInfo &loops) {
  std::optional<StrideLoop> s = strideLoopOf(loop, dominators);
  if (!s || !leavesOnlyAtLatchOrFailure(loop))
    return false;
  SmallVector<BasicBlock *, 4> candidates;
  for (BasicBlock *block : loop.blocks())
    if (loops.getLoopFor(block) == &loop && block != loop.getHeader())
      if (auto *branch = dyn_cast<BranchInst>(block->getTerminator());
          branch && branch->isConditional() &&
          (oxide::isBoundsFailureBlock(branch->getSuccessor(0)) ||
           oxide::isBoundsFailureBlock(branch->getSuccessor(1))))
        candidates.push_back(block);
  DomTreeUpdater updater(dominators, DomTreeUpdater::UpdateStrategy::Lazy);
  bool changed = false;
  for (BasicBlock *block : candidates) {
    if (hoistCheck(block, *s, loop, dominators, loops, updater)) {
      updater.flush();
      changed = true;
    }
  }
  return changed;
}

} // namespace

PreservedAnalyses oxide::StrideLoopChecksPass::run(Function &function, FunctionAnalysisManager &analyses) {
  auto &loops = analyses.getResult<LoopAnalysis>(function);
  if (loops.empty())
    return PreservedAnalyses::all();
  auto &dominators = analyses.getResult<DominatorTreeAnalysis>(function);
  bool changed = false;
  for (Loop *loop : loops.getLoopsInPreorder())
    changed |= processLoop(*loop, dominators, loops);
  if (!changed)
    return PreservedAnalyses::all();
  PreservedAnalyses preserved;
  preserved.preserve<DominatorTreeAnalysis>();
  preserved.preserve<LoopAnalysis>();
  return preserved;
}
