//===- HoistBoundsChecks.cpp - bounds checks ahead of the work ------------===//

#include "oxide/compiler/HoistBoundsChecks.h"
#include "oxide/compiler/BoundsFailure.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Local.h"

using namespace llvm;
using namespace llvm::PatternMatch;

namespace {

using oxide::boundsFailureArguments;
using oxide::boundsFailureReport;
using oxide::isBoundsFailureBlock;

/// Whether `inst` reads memory that nothing writes while the kernel runs: a field of a
/// read-only by-value parameter (a span's data pointer or size).
bool readsReadOnlyParameter(const Instruction *inst) {
  const auto *load = dyn_cast<LoadInst>(inst);
  if (!load || !load->isSimple())
    return false;
  const auto *argument = dyn_cast<Argument>(getUnderlyingObject(load->getPointerOperand()));
  return argument && argument->hasByValAttr() && argument->onlyReadsMemory();
}

/// Whether a failing check may skip `inst` (it runs before the check today): plain loads and
/// stores and pure arithmetic, nothing another thread or the host could observe after a trap.
bool skippable(const Instruction &inst) {
  if (const auto *load = dyn_cast<LoadInst>(&inst))
    return load->isSimple();
  if (const auto *store = dyn_cast<StoreInst>(&inst))
    return store->isSimple();
  if (isa<DbgInfoIntrinsic>(inst))
    return true;
  return !inst.mayHaveSideEffects() && !isa<CallBase>(inst);
}

/// The instructions of `block` that `roots` need, in block order, if every one may move to the
/// block's start; nullopt otherwise.
std::optional<SmallVector<Instruction *, 8>> hoistable(BasicBlock *block, ArrayRef<Value *> roots) {
  SetVector<Instruction *> needed;
  SmallVector<Value *, 8> work(roots.begin(), roots.end());
  while (!work.empty()) {
    auto *inst = dyn_cast<Instruction>(work.pop_back_val());
    if (!inst || inst->getParent() != block || needed.contains(inst))
      continue;
    // A load moves above the block's stores: only reads of memory nothing writes may.
    const bool readOnly = readsReadOnlyParameter(inst) || inst->hasMetadata(LLVMContext::MD_invariant_load);
    if (isa<PHINode>(inst) || (isa<LoadInst>(inst) && !readOnly) ||
        !(isSafeToSpeculativelyExecute(inst) || readOnly) || inst->mayHaveSideEffects())
      return std::nullopt;
    needed.insert(inst);
    work.append(inst->op_begin(), inst->op_end());
  }
  SmallVector<Instruction *, 8> ordered;
  for (Instruction &inst : *block)
    if (needed.contains(&inst))
      ordered.push_back(&inst);
  return ordered;
}

/// Whether every phi of `failure` is a report argument (what joining checks rewrites).
bool phisAreArguments(BasicBlock *failure) {
  CallInst *report = boundsFailureReport(failure);
  return llvm::all_of(failure->phis(),
                      [&](PHINode &phi) { return llvm::is_contained(report->args(), &phi); });
}

/// Hoists the check that ends `block`, if it is one and may move; returns whether it did.
bool hoistCheck(BasicBlock *block) {
  auto *branch = dyn_cast<BranchInst>(block->getTerminator());
  if (!branch || !branch->isConditional())
    return false;
  const unsigned failing = isBoundsFailureBlock(branch->getSuccessor(0)) ? 0 : 1;
  BasicBlock *failure = branch->getSuccessor(failing), *success = branch->getSuccessor(1 - failing);
  if (!isBoundsFailureBlock(failure) || isBoundsFailureBlock(success) || failure == success ||
      isa<PHINode>(block->front()) || !phisAreArguments(failure))
    return false;
  // What the check needs: its condition, and the failure report's arguments.
  SmallVector<Value *, 8> roots{branch->getCondition()};
  llvm::append_range(roots, boundsFailureArguments(failure, block));
  auto moved = hoistable(block, roots);
  if (!moved)
    return false;
  // Nothing to gain unless some work now precedes the check; and everything it would skip must
  // be skippable.
  bool work = false;
  SmallPtrSet<Instruction *, 8> movedSet(moved->begin(), moved->end());
  for (Instruction &inst : *block) {
    if (&inst == branch || movedSet.contains(&inst))
      continue;
    if (!skippable(inst))
      return false;
    work |= !isa<DbgInfoIntrinsic>(inst);
  }
  if (!work)
    return false;

  // block: [moved..., br cond] -> body: [the rest..., br success]; failure now hangs off block.
  BasicBlock *body = block->splitBasicBlock(block->getFirstNonPHIIt(), block->getName() + ".checked");
  Instruction *split = block->getTerminator();
  for (Instruction *inst : *moved)
    inst->moveBefore(split->getIterator());
  BranchInst::Create(failing == 0 ? failure : body, failing == 0 ? body : failure, branch->getCondition(),
                     split->getIterator());
  split->eraseFromParent();
  failure->replacePhiUsesWith(body, block); // splitBasicBlock made body its predecessor
  BranchInst::Create(success, branch->getIterator());
  branch->eraseFromParent();
  return true;
}

/// The check that ends `block`: a conditional branch whose one successor only reports a failure
/// (a report other checks may share, through phis of its arguments).
struct Check {
  BranchInst *branch;
  BasicBlock *failure, *success;
  unsigned failing; ///< the successor index of `failure`
};

std::optional<Check> checkOf(BasicBlock *block) {
  auto *branch = dyn_cast<BranchInst>(block->getTerminator());
  if (!branch || !branch->isConditional())
    return std::nullopt;
  const unsigned failing = isBoundsFailureBlock(branch->getSuccessor(0)) ? 0 : 1;
  BasicBlock *failure = branch->getSuccessor(failing), *success = branch->getSuccessor(1 - failing);
  if (!isBoundsFailureBlock(failure) || isBoundsFailureBlock(success) || failure == success ||
      !phisAreArguments(failure))
    return std::nullopt;
  return Check{branch, failure, success, failing};
}

/// Whether everything `block` does may run ahead of any code before it (what its check computes,
/// reads of read-only by-value parameters): a block that holds nothing but its check.
bool onlySpeculatable(BasicBlock *block) {
  if (isa<PHINode>(block->front()))
    return false;
  SmallVector<Value *, 8> roots;
  for (Instruction &inst : *block)
    if (!inst.isTerminator())
      roots.push_back(&inst);
  return hoistable(block, roots).has_value();
}

/// The condition under which `check` fails, built before `at`.
Value *failsWhen(const Check &check, Instruction *at) {
  Value *condition = check.branch->getCondition();
  if (check.failing == 0)
    return condition;
  return BinaryOperator::CreateNot(condition, condition->getName() + ".fails", at->getIterator());
}

/// Whether `block` loads data and does nothing but move it (a tile load: loads, stores and their
/// address arithmetic): what joining checks is for, loads issued back to back. Elsewhere it
/// gains nothing and costs registers: SGEMM's output checks joined kept every index live until
/// the one branch (5 % slower on the H200), and checks moved ahead of its multiply-adds changed
/// how ptxas scheduled them.
bool onlyMovesData(const BasicBlock &block) {
  return llvm::any_of(block,
                      [](const Instruction &inst) {
                        return isa<LoadInst>(inst) &&
                               !readsReadOnlyParameter(&inst); // not a span's own field
                      }) &&
         llvm::all_of(block, [](const Instruction &inst) {
           if (inst.isTerminator() ||
               isa<LoadInst, StoreInst, GetElementPtrInst, CastInst, ICmpInst, SelectInst, DbgInfoIntrinsic>(
                   inst))
             return true;
           const auto *binary = dyn_cast<BinaryOperator>(&inst);
           return binary && binary->getType()->isIntegerTy();
         });
}

/// Whether the straight-line code from `block` on (through blocks that only compute what may run
/// anywhere) reaches a block that moves data: the checks before it may join.
bool leadsToDataMoves(BasicBlock *block) {
  for (unsigned steps = 0; block && steps < 8; ++steps) {
    if (onlyMovesData(*block))
      return true;
    auto *branch = dyn_cast<BranchInst>(block->getTerminator());
    if (!branch || branch->isConditional() || !onlySpeculatable(block))
      return false;
    block = branch->getSuccessor(0)->getSinglePredecessor() ? branch->getSuccessor(0) : nullptr;
  }
  return false;
}

/// A test read as "fails when index >=u size": `condition` says the test fails (a joined check's
/// `not (index <u size)`, as failsWhen builds it), or, with `passes`, that it passes.
std::optional<std::pair<Value *, Value *>> failsAt(Value *condition, bool passes = false) {
  Value *compare = condition;
  const bool negated = match(condition, m_Not(m_Value(compare))) != passes;
  CmpPredicate predicate;
  Value *lhs, *rhs;
  if (!match(compare, m_ICmp(predicate, m_Value(lhs), m_Value(rhs))))
    return std::nullopt;
  const CmpInst::Predicate fails =
      negated ? CmpInst::getInversePredicate(predicate) : static_cast<CmpInst::Predicate>(predicate);
  if (fails == CmpInst::ICMP_UGE)
    return std::pair{lhs, rhs};
  if (fails == CmpInst::ICMP_ULE)
    return std::pair{rhs, lhs};
  return std::nullopt;
}

/// An index as a sum of values and a constant (through `add` and `or disjoint`), exact modulo
/// 2^n: indices that differ only in the constant differ by exactly its difference.
struct IndexSum {
  SmallVector<Value *, 4> terms; ///< sorted, so that equal sums compare equal
  APInt constant;
};

void addTerms(Value *v, IndexSum &sum, unsigned depth) {
  Value *lhs, *rhs;
  if (auto *c = dyn_cast<ConstantInt>(v))
    sum.constant += c->getValue();
  else if (depth < 8 && match(v, m_AddLike(m_Value(lhs), m_Value(rhs)))) {
    addTerms(lhs, sum, depth + 1);
    addTerms(rhs, sum, depth + 1);
  } else
    sum.terms.push_back(v);
}

IndexSum indexSum(Value *index) {
  IndexSum sum{{}, APInt(index->getType()->getIntegerBitWidth(), 0)};
  addTerms(index, sum, 0);
  llvm::sort(sum.terms);
  return sum;
}

/// The tests of a (joined) check's failing condition, its `or` operands.
SmallVector<Value *, 16> testsOf(Value *fails) {
  SmallVector<Value *, 16> tests, work{fails};
  while (!work.empty()) {
    Value *v = work.pop_back_val();
    Value *lhs, *rhs;
    if (match(v, m_Or(m_Value(lhs), m_Value(rhs)))) {
      work.push_back(rhs);
      work.push_back(lhs);
    } else
      tests.push_back(v);
  }
  return tests;
}

/// Whether `second`'s test is of an index that differs from one `first` tests only by a constant,
/// against the same size: the two join into a test of a range (foldJoinedChecks) that costs less
/// than two checks wherever they are.
bool testsSameRange(const Check &first, const Check &second) {
  auto secondTest = failsAt(second.branch->getCondition(), second.failing == 1);
  if (!secondTest)
    return false;
  const IndexSum secondSum = indexSum(secondTest->first);
  Value *firstCondition = first.branch->getCondition();
  // A joined check fails on any of its tests; a single one may be in either form.
  const SmallVector<Value *, 16> firstTests =
      first.failing == 0 ? testsOf(firstCondition) : SmallVector<Value *, 16>{firstCondition};
  return llvm::any_of(firstTests, [&](Value *test) {
    auto fails = failsAt(test, first.failing == 1);
    return fails && fails->second == secondTest->second && indexSum(fails->first).terms == secondSum.terms;
  });
}

/// Joins the check that ends `block` with the check of its successor `next` when `next` holds
/// nothing else and has no other predecessor: one branch on "either fails" to one failure report
/// (of the first check that fails, as before), so that the work after them is one block.
bool joinNextCheck(BasicBlock *block) {
  auto first = checkOf(block);
  if (!first || first->success->getSinglePredecessor() != block || first->success == block)
    return false;
  BasicBlock *next = first->success;
  auto second = checkOf(next);
  if (!second || second->success == block || second->success == next || !onlySpeculatable(next) ||
      !(leadsToDataMoves(second->success) || testsSameRange(*first, *second)))
    return false;
  CallInst *firstReport = boundsFailureReport(first->failure),
           *secondReport = boundsFailureReport(second->failure);
  if (firstReport->getCalledFunction() != secondReport->getCalledFunction() ||
      firstReport->arg_size() != secondReport->arg_size())
    return false;
  const SmallVector<Value *, 8> firstArgs = boundsFailureArguments(first->failure, block);
  const SmallVector<Value *, 8> secondArgs = boundsFailureArguments(second->failure, next);
  // Where the first report is shared with other checks, an argument that differs must be a phi.
  const bool firstShared = !first->failure->getSinglePredecessor();
  for (unsigned i = 0; i < firstArgs.size(); ++i) {
    auto *phi = dyn_cast<PHINode>(firstReport->getArgOperand(i));
    if (firstArgs[i] != secondArgs[i] && firstShared && !(phi && phi->getParent() == first->failure))
      return false;
  }

  // next's computations join block's, ahead of its branch.
  Instruction *branch = first->branch;
  block->splice(branch->getIterator(), next, next->begin(), second->branch->getIterator());
  Value *firstFails = failsWhen(*first, branch), *secondFails = failsWhen(*second, branch);
  Value *either = BinaryOperator::CreateOr(firstFails, secondFails, "checks.fail", branch->getIterator());
  // The report of the first failing check: its arguments where it fails, else the second's.
  for (unsigned i = 0; i < firstArgs.size(); ++i) {
    if (firstArgs[i] == secondArgs[i])
      continue;
    Value *chosen =
        SelectInst::Create(firstFails, firstArgs[i], secondArgs[i], "report.arg", branch->getIterator());
    auto *phi = dyn_cast<PHINode>(firstReport->getArgOperand(i));
    if (phi && phi->getParent() == first->failure)
      phi->setIncomingValueForBlock(block, chosen);
    else
      firstReport->setArgOperand(i, chosen);
  }
  BranchInst::Create(first->failure, second->success, either, branch->getIterator());
  branch->eraseFromParent();
  second->success->replacePhiUsesWith(next, block);
  // next goes: its report loses it as a predecessor (and is deleted if that was its last).
  BasicBlock *secondFailure = second->failure;
  second->branch->eraseFromParent();
  secondFailure->removePredecessor(next, /*KeepOneInputPHIs=*/true);
  next->eraseFromParent();
  if (pred_empty(secondFailure) && secondFailure != first->failure)
    secondFailure->eraseFromParent();
  return true;
}

/// Moves the check of `block`'s only successor up into `block` when `block` ends in plain work
/// (no check) and the successor holds nothing but its check: the two blocks become one, whose
/// check hoistCheck then puts ahead of the work.
bool pullNextCheck(BasicBlock *block) {
  auto *branch = dyn_cast<BranchInst>(block->getTerminator());
  if (!branch || branch->isConditional())
    return false;
  BasicBlock *next = branch->getSuccessor(0);
  if (next == block || next->getSinglePredecessor() != block)
    return false;
  auto check = checkOf(next);
  if (!check || check->success == block || !onlySpeculatable(next) ||
      !(onlyMovesData(*block) || onlySpeculatable(block)))
    return false;
  block->splice(branch->getIterator(), next);
  branch->eraseFromParent();
  for (BasicBlock *successor : successors(block))
    successor->replacePhiUsesWith(next, block);
  next->eraseFromParent();
  // Where the work may not be skipped (a call, an atomic...), the block keeps its order.
  hoistCheck(block);
  return true;
}

/// Folds a joined check's tests of indices x + c1 .. x + ck against one size (an unrolled loop of
/// reads, k >= 3) into two: the largest index against the size, and the smallest against the
/// last value from which the largest does not wrap. If both pass, every x + ci lies between them
/// in exact arithmetic, so every test passed; if a test would have failed, the largest index
/// fails too (or the smallest is past the wrap bound). A span's size is far below 2^64 - (ck - c1),
/// so no index that passed before fails now. The failure report still names the first index that
/// fails, from the tests themselves, which stay for it (LLVM sinks them into the report's block).
bool foldJoinedChecks(BasicBlock *block) {
  auto check = checkOf(block);
  if (!check || check->failing != 0)
    return false;
  const SmallVector<Value *, 16> leaves = testsOf(check->branch->getCondition());
  struct Group {
    Value *size;
    IndexSum sum;
    Value *smallest, *largest;
    APInt low, high;
    SmallVector<Value *, 8> leaves;
    /// Whether the group's tests become two: three or more, within 2^32 of each other.
    bool folds() const { return leaves.size() >= 3 && (high - low).ult(APInt(64, 1) << 32); }
  };
  SmallVector<Group, 4> groups;
  SmallVector<Value *, 16> others;
  for (Value *leaf : leaves) {
    auto fails = failsAt(leaf);
    if (!fails || !fails->first->getType()->isIntegerTy(64)) {
      others.push_back(leaf);
      continue;
    }
    auto [index, size] = *fails;
    IndexSum sum = indexSum(index);
    auto group =
        llvm::find_if(groups, [&](const Group &g) { return g.size == size && g.sum.terms == sum.terms; });
    if (group == groups.end()) {
      groups.push_back({size, sum, index, index, sum.constant, sum.constant, {leaf}});
      continue;
    }
    group->leaves.push_back(leaf);
    if (sum.constant.slt(group->low)) {
      group->low = sum.constant;
      group->smallest = index;
    }
    if (sum.constant.sgt(group->high)) {
      group->high = sum.constant;
      group->largest = index;
    }
  }
  if (llvm::none_of(groups, [](const Group &g) { return g.folds(); }))
    return false;
  auto *branch = check->branch;
  Value *old = branch->getCondition();
  IRBuilder<> builder(branch);
  Value *condition = nullptr;
  auto either = [&](Value *fails) {
    condition = condition ? builder.CreateOr(condition, fails, "checks.fail") : fails;
  };
  for (Value *other : others)
    either(other);
  for (const Group &g : groups) {
    if (!g.folds()) {
      llvm::for_each(g.leaves, either);
      continue;
    }
    either(builder.CreateICmpUGE(g.largest, g.size, "range.last.fails"));
    either(builder.CreateICmpUGT(
        g.smallest, ConstantInt::get(g.smallest->getType(), APInt::getMaxValue(64) - (g.high - g.low)),
        "range.wraps"));
  }
  branch->setCondition(condition);
  RecursivelyDeleteTriviallyDeadInstructions(old);
  return true;
}

} // namespace

PreservedAnalyses oxide::HoistBoundsChecksPass::run(Function &function, FunctionAnalysisManager &) {
  if (function.isDeclaration())
    return PreservedAnalyses::all();
  SmallVector<BasicBlock *, 16> blocks;
  for (BasicBlock &block : function)
    blocks.push_back(&block);
  bool changed = false;
  for (BasicBlock *block : blocks)
    changed |= hoistCheck(block);
  return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

PreservedAnalyses oxide::JoinBoundsChecksPass::run(Function &function, FunctionAnalysisManager &) {
  if (function.isDeclaration())
    return PreservedAnalyses::all();
  // Consecutive checked accesses (an unrolled loop): every check first, in one branch, then the
  // work in one block. The optimisations since HoistBoundsChecksPass merged each check back
  // behind the work before it: it moves ahead again (a block that ends in work and a check
  // becomes a check, then the work), then joins the check before it. Each step removes a
  // check's block or moves work after a check, so this ends.
  bool changed = false;
  for (bool again = true; again;) {
    again = false;
    for (BasicBlock &block : function)
      if ((onlyMovesData(block) && hoistCheck(&block)) || joinNextCheck(&block) || pullNextCheck(&block)) {
        again = changed = true;
        break;
      }
  }
  // The work the joined checks guard, split at each former check, is one block again.
  if (changed)
    for (BasicBlock &block : make_early_inc_range(function))
      MergeBlockIntoPredecessor(&block);
  for (BasicBlock &block : function)
    changed |= foldJoinedChecks(&block);
  return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}
