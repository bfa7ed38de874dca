//===- ClimbingLoopChecks.cpp - checks of loops counted by next < limit --===//
//
// The bounds checks of a loop counted by `next <u limit` (a counter of any width stepping by a
// power of two: `for (uint32_t k = 0; k < n; k += 8)` once rotated), tested once before the
// loop; see LoopBoundsChecks.h.
//
//===----------------------------------------------------------------------===//

#include "LoopChecks.h"
#include "oxide/compiler/BoundsFailure.h"

#include "llvm/Analysis/DomTreeUpdater.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/Support/MathExtras.h"

using namespace llvm;
using namespace llvm::PatternMatch;
using namespace oxide::loop_checks;

namespace {

/// A loop that goes on while `next <u limit`, next = counter + step for the header phi `counter`
/// that next feeds back, step a power of two. Its counter is `start` first, then each value it
/// goes on with: values of start's class modulo step below limit, met climbing (past 2^w, in a
/// loop that never ends, the sum wraps into the same class, as step divides 2^w). So the largest
/// of them, last = limit - 1 - ((limit - 1 - start) mod step), is where it goes on last, and it
/// goes on at all exactly when start + step <u limit. Modular arithmetic throughout: no fact
/// comes from the counter's no-wrap flags.
///
/// A signed latch (`next <s limit`, an `int` counter stepping by blockDim.x) is counted the same
/// way in signed order, when its start is known not negative and start + step cannot wrap: the
/// counter is then start, then class values up to last, none negative, unless last + step wraps
/// past 2^(w-1) (the loop never ends, its counter going negative: tested before the loop as a
/// failure, which changes only a kernel that would never finish).
struct ClimbingLoop {
  PHINode *counter;
  Instruction *next;
  Value *limit;
  uint64_t step;
  Value *goesOn; // the latch's condition
  bool goesOnWhen;
  bool isSigned;

  /// Whether last + step wraps (the loop never ends), built before the preheader's end.
  Value *wraps(IRBuilder<> &b, Value *last) const {
    const Intrinsic::ID sum = isSigned ? Intrinsic::sadd_with_overflow : Intrinsic::uadd_with_overflow;
    return b.CreateExtractValue(b.CreateBinaryIntrinsic(sum, last, ConstantInt::get(last->getType(), step)),
                                1);
  }
  /// The counter's values as the index sees them: every value of its type, or, counted signed,
  /// those from 0 to the largest signed one.
  ConstantRange counterRange() const {
    const unsigned width = counter->getType()->getIntegerBitWidth();
    return isSigned ? ConstantRange(APInt::getZero(width), APInt::getSignedMinValue(width))
                    : ConstantRange::getFull(width);
  }

  /// Built before `preheader`'s end: whether the loop goes on at all, its first and last counter.
  struct Bounds {
    Value *goesOn, *start, *last;

    /// How many steps lead from start to last, 64 bits wide (if the loop goes on and ends:
    /// last - start wraps at most once, and by a multiple of step).
    Value *steps(IRBuilder<> &b, uint64_t step) const {
      return b.CreateZExt(b.CreateLShr(b.CreateSub(last, start), Log2_64(step)), b.getInt64Ty());
    }
  };
  Bounds bounds(IRBuilder<> &b, BasicBlock *preheader) const {
    Type *type = counter->getType();
    Value *start = b.CreateFreeze(counter->getIncomingValueForBlock(preheader));
    Value *frozenLimit = b.CreateFreeze(limit);
    Value *second = b.CreateAdd(start, ConstantInt::get(type, step));
    Value *goes = isSigned ? b.CreateICmpSLT(second, frozenLimit) : b.CreateICmpULT(second, frozenLimit);
    Value *top = b.CreateSub(frozenLimit, ConstantInt::get(type, 1));
    Value *last = b.CreateSub(top, b.CreateAnd(b.CreateSub(top, start), ConstantInt::get(type, step - 1)),
                              "oxide.last.counter");
    return {goes, start, last};
  }
};

std::optional<ClimbingLoop> climbingLoop(Loop &loop) {
  BasicBlock *latch = loop.getLoopLatch();
  auto *branch = dyn_cast<BranchInst>(latch->getTerminator());
  if (!branch || !branch->isConditional() || branch->getSuccessor(0) == branch->getSuccessor(1))
    return std::nullopt;
  const bool goesOnWhen = branch->getSuccessor(0) == loop.getHeader();
  auto *cmp = dyn_cast<ICmpInst>(branch->getCondition());
  if (!cmp || (!goesOnWhen && branch->getSuccessor(1) != loop.getHeader()))
    return std::nullopt;
  const CmpInst::Predicate p = goesOnWhen ? cmp->getPredicate() : cmp->getInversePredicate();
  Value *next = cmp->getOperand(0), *limit = cmp->getOperand(1);
  if (p == CmpInst::ICMP_UGT || p == CmpInst::ICMP_SGT)
    std::swap(next, limit);
  else if (p != CmpInst::ICMP_ULT && p != CmpInst::ICMP_SLT)
    return std::nullopt;
  const bool isSigned = CmpInst::isSigned(p);
  Value *counter = nullptr;
  const APInt *step = nullptr;
  PHINode *phi = nullptr;
  if (!match(next, m_Add(m_Value(counter), m_APInt(step))) || !(phi = dyn_cast<PHINode>(counter)) ||
      phi->getParent() != loop.getHeader() || phi->getNumIncomingValues() != 2 ||
      phi->getIncomingValueForBlock(latch) != next || !loop.isLoopInvariant(limit) || !step->isPowerOf2() ||
      step->getBitWidth() > 64 || (isSigned && step->isSignMask()))
    return std::nullopt;
  // Signed: a start that is not negative and does not wrap when the step is added to it.
  const unsigned width = step->getBitWidth();
  if (isSigned) {
    const APInt start =
        rangeOf(phi->getIncomingValueForBlock(loop.getLoopPreheader()), latch->getDataLayout())
            .getUnsignedMax();
    if (start.uge(APInt::getSignedMinValue(width) - *step))
      return std::nullopt;
  }
  return ClimbingLoop{phi, cast<Instruction>(next), limit, step->getZExtValue(), cmp, goesOnWhen, isSigned};
}

/// The unsigned values `value` takes while `leaf` ranges over `leafRange`, when `value` is
/// computed from leaf and from values fixed during `loop` by operations that never decrease as
/// leaf grows and never wrap (extension, a sign extension of values that are not negative,
/// sums, products, shifts and quotients, the ranges of the values from outside the loop from
/// rangeOf): then value is largest where leaf is.
/// nullopt otherwise.
std::optional<ConstantRange> monotoneRange(Value *value, Value *leaf, const ConstantRange &leafRange,
                                           Loop &loop, const DataLayout &layout, unsigned depth = 0) {
  if (value == leaf)
    return leafRange;
  auto *inst = dyn_cast<Instruction>(value);
  if (!inst || !loop.contains(inst))
    return rangeOf(value, layout);
  // What atFirstIteration can compute before the loop (a divisor known not to be zero).
  if (depth > 16 || !inst->getType()->isIntegerTy() || isa<PHINode>(inst) ||
      !isSafeToSpeculativelyExecute(inst))
    return std::nullopt;
  auto operand = [&](unsigned i) {
    return monotoneRange(inst->getOperand(i), leaf, leafRange, loop, layout, depth + 1);
  };
  // A divisor or shift: a constant or a value from before the loop.
  auto fixed = [&](unsigned i) {
    auto *defined = dyn_cast<Instruction>(inst->getOperand(i));
    return !defined || !loop.contains(defined) ? operand(i) : std::nullopt;
  };
  using Overflow = ConstantRange::OverflowResult;
  std::optional<ConstantRange> a = operand(0);
  if (!a)
    return std::nullopt;
  switch (inst->getOpcode()) {
  case Instruction::ZExt:
    return a->zeroExtend(inst->getType()->getIntegerBitWidth());
  case Instruction::SExt: // of values that are not negative: a zero extension
    if (a->isWrappedSet() || a->getUnsignedMax().isNegative())
      return std::nullopt;
    return a->zeroExtend(inst->getType()->getIntegerBitWidth());
  case Instruction::Freeze:
    return a;
  case Instruction::Add:
  case Instruction::Mul: {
    std::optional<ConstantRange> b = operand(1);
    const bool add = inst->getOpcode() == Instruction::Add;
    if (!b ||
        (add ? a->unsignedAddMayOverflow(*b) : a->unsignedMulMayOverflow(*b)) != Overflow::NeverOverflows)
      return std::nullopt;
    return add ? a->add(*b) : a->multiply(*b);
  }
  case Instruction::Sub: {
    std::optional<ConstantRange> b = fixed(1);
    if (!b || a->unsignedSubMayOverflow(*b) != Overflow::NeverOverflows)
      return std::nullopt;
    return a->sub(*b);
  }
  case Instruction::Shl: {
    const APInt *k = nullptr;
    if (!match(inst->getOperand(1), m_APInt(k)) || k->uge(a->getBitWidth()) ||
        a->getUnsignedMax().countl_zero() < k->getZExtValue())
      return std::nullopt;
    return a->shl(ConstantRange(*k));
  }
  case Instruction::LShr:
  case Instruction::UDiv: {
    std::optional<ConstantRange> b = fixed(1);
    if (!b)
      return std::nullopt;
    return inst->getOpcode() == Instruction::LShr ? a->lshr(*b) : a->udiv(*b);
  }
  default:
    break;
  }
  auto *minMax = dyn_cast<MinMaxIntrinsic>(inst);
  if (!minMax || minMax->isSigned())
    return std::nullopt;
  std::optional<ConstantRange> b = operand(1);
  if (!b)
    return std::nullopt;
  return minMax->getIntrinsicID() == Intrinsic::umin ? a->umin(*b) : a->umax(*b);
}

/// The checks of `loop` that run exactly in the iterations after which it goes on: those met
/// from the edge that a block running in every iteration takes when the latch's condition says
/// go on (the prefetch of `if (k + 8 < n) next = in[k + 8]`), through checks that pass and
/// blocks with one way in and out.
SmallVector<Check, 2> checksWhenGoingOn(Loop &loop, const ClimbingLoop &climbing, DominatorTree &dominators) {
  SmallVector<Check, 2> found;
  for (BasicBlock *block : loop.blocks()) {
    auto *branch = dyn_cast<BranchInst>(block->getTerminator());
    if (!branch || !branch->isConditional() || branch->getCondition() != climbing.goesOn ||
        block == loop.getLoopLatch() || !dominators.dominates(block, loop.getLoopLatch()))
      continue;
    BasicBlock *at = branch->getSuccessor(climbing.goesOnWhen ? 0 : 1);
    for (unsigned steps = 0; steps < 8 && at->getSinglePredecessor() && loop.contains(at); ++steps) {
      if (std::optional<Check> check = checkEnding(at);
          check && oxide::reportsBoundsFailure(check->outOfBounds())) {
        found.push_back(*check);
        at = check->branch->getSuccessor(check->inBounds);
      } else if (BasicBlock *successor = at->getSingleSuccessor()) {
        at = successor;
      } else {
        break;
      }
    }
  }
  return found;
}

/// The value of the loop an index is computed from, and which of its values a check sees.
struct Leaf {
  enum Kind {
    Counter,        ///< the counter, in every iteration: start, then the values it goes on with
    Next,           ///< counter + step, only in the iterations after which the loop goes on
    Lagging,        ///< a header phi that takes the counter's value of the iteration before (LLVM
                    ///< makes one when it merges a prefetch's `k + 8 < n` into the latch's test)
    CounterGoingOn, ///< the counter, only in the iterations after which the loop goes on
  } kind;
  Value *value;
};

/// Tests before `loop` the largest index check `check` (one test) can see, and folds it. The
/// index is its own arithmetic with the leaf replaced (frozen, without no-wrap flags), and
/// monotoneRange says that no smaller leaf gives a larger index; so the indices tested, each
/// where the check does see it, are: for the counter, at start and, if the loop goes on, at
/// last; for the next counter, at last if the loop goes on; for a lagging phi, at its entry
/// value, at last - step if the loop goes on (the counter's value in the iteration before the
/// last), and at last as well if last + step wraps (the loop then never ends and goes on past
/// last, still in the class); for the counter only when the loop goes on, the same but its
/// first value only if the loop goes on (start may lie past last if start + step wraps).
bool hoistClimbingCheck(const Check &check, const ClimbingLoop &climbing, Leaf leaf, Loop &loop,
                        DominatorTree &dominators, DomTreeUpdater &updater, LoopInfo &loops) {
  BasicBlock *preheader = loop.getLoopPreheader();
  BasicBlock *failure = check.outOfBounds();
  Instruction *at = preheader->getTerminator();
  if (check.tests.size() != 1)
    return false;
  auto [index, bound] = check.tests[0];
  SmallVector<Value *, 8> report = oxide::boundsFailureArguments(failure, check.branch->getParent());
  if (report.size() < 2 || report[1] != bound || !loop.isLoopInvariant(bound) ||
      !monotoneRange(index, leaf.value, climbing.counterRange(), loop, at->getDataLayout()))
    return false;
  for (Value *argument : llvm::drop_begin(report))
    if (!availableAt(argument, at, dominators))
      return false;
  IRBuilder<> b(at);
  auto [goesOn, start, last] = climbing.bounds(b, preheader);
  Value *step = ConstantInt::get(last->getType(), climbing.step);
  // The index where the leaf is `value` (nullptr: at the loop's entry values).
  auto indexAt = [&](Value *value) -> Value * {
    DenseMap<Value *, Value *> cloned;
    if (value)
      cloned[leaf.value] = value;
    Value *computed = atFirstIteration(index, loop, at, cloned);
    return computed ? b.CreateFreeze(computed) : nullptr;
  };
  SmallVector<std::pair<Value *, Value *>, 3> tested; // (when the check sees it, or always; index)
  if (leaf.kind != Leaf::Next)
    tested.push_back({leaf.kind == Leaf::CounterGoingOn ? goesOn : nullptr, indexAt(nullptr)});
  auto endless = [&] { return b.CreateAnd(goesOn, climbing.wraps(b, last)); };
  if (leaf.kind == Leaf::Lagging || leaf.kind == Leaf::CounterGoingOn) {
    tested.push_back({goesOn, indexAt(b.CreateSub(last, step))});
    if (!climbing.isSigned)
      tested.push_back({endless(), indexAt(last)});
  } else {
    tested.push_back({goesOn, indexAt(last)});
  }
  if (climbing.isSigned) // the counter would go negative: the bound itself stands for what fails
    tested.push_back({endless(), bound});
  // The report names the first index that fails.
  Value *fails = nullptr, *reported = nullptr;
  for (auto [sees, value] : llvm::reverse(tested)) {
    if (!value)
      return false; // not reached: monotoneRange admits only what atFirstIteration computes
    Value *past = b.CreateICmpUGE(value, bound);
    if (sees)
      past = b.CreateSelect(sees, past, b.getFalse());
    reported = reported ? b.CreateSelect(past, value, reported) : value;
    fails = fails ? b.CreateOr(past, fails) : past;
  }
  reported->setName("oxide.last.index");
  report[0] = reported;
  reportBefore(at, fails, failure, report, updater, loops);
  check.fold(updater);
  return true;
}

} // namespace

/// Each check is tested by the largest index it sees where its index grows with a counter
/// (hoistClimbingCheck), else, where the index is {start, +, step} in 64 bits, by its last value
/// (hoistCheck): in the last iteration, or (a check only when the loop goes on) in the one
/// before; past 2^w the loop never ends.
bool oxide::loop_checks::processClimbingLoop(Loop &loop, ScalarEvolution &scev, DominatorTree &dominators,
                                             LoopInfo &loops) {
  std::optional<ClimbingLoop> climbing = climbingLoop(loop);
  if (!climbing || !leavesOnlyAtLatchOrFailure(loop))
    return false;
  SmallVector<Leaf, 4> everyIteration{{Leaf::Counter, climbing->counter}};
  for (PHINode &phi : loop.getHeader()->phis())
    if (phi.getNumIncomingValues() == 2 &&
        phi.getIncomingValueForBlock(loop.getLoopLatch()) == climbing->counter)
      everyIteration.push_back({Leaf::Lagging, &phi});
  DomTreeUpdater updater(dominators, DomTreeUpdater::UpdateStrategy::Lazy);
  bool changed = false;
  auto hoist = [&](const Check &check, ArrayRef<Leaf> leaves) {
    bool hoisted = llvm::any_of(leaves, [&](Leaf leaf) {
      return hoistClimbingCheck(check, *climbing, leaf, loop, dominators, updater, loops);
    });
    std::optional<Recurrence> r = hoisted ? std::nullopt : recurrenceOf(check, loop, scev);
    if (r && computedInFullWidth(check.tests[0].first, loop) && loop.isLoopInvariant(check.tests[0].second)) {
      const bool onlyGoingOn = leaves.front().kind == Leaf::Next; // else every iteration
      auto count = [&](IRBuilder<> &b) {
        const ClimbingLoop::Bounds bounds = climbing->bounds(b, loop.getLoopPreheader());
        Value *goesOn = bounds.goesOn, *last = bounds.last, *steps = bounds.steps(b, climbing->step);
        Value *wraps = climbing->wraps(b, last);
        if (onlyGoingOn)
          return Count{goesOn, b.CreateSub(steps, b.getInt64(1)), wraps};
        return Count{nullptr, b.CreateSelect(goesOn, steps, b.getInt64(0)), b.CreateAnd(goesOn, wraps)};
      };
      hoisted = hoistCheck(check, *r, count, loop, scev, dominators, updater, loops);
    }
    if (hoisted) {
      updater.flush();
      changed = true;
    }
  };
  SmallVector<Check, 4> checks;
  for (BasicBlock *block : loop.blocks())
    if (std::optional<Check> check = checkEnding(block); check && loops.getLoopFor(block) == &loop &&
                                                         oxide::reportsBoundsFailure(check->outOfBounds()) &&
                                                         dominators.dominates(block, loop.getLoopLatch()))
      checks.push_back(*check);
  for (const Check &check : checks)
    hoist(check, everyIteration);
  for (const Check &check : checksWhenGoingOn(loop, *climbing, dominators))
    hoist(check, {{Leaf::Next, climbing->next}, {Leaf::CounterGoingOn, climbing->counter}});
  return changed;
}
