//===- HoistBoundsChecks.cpp - bounds checks ahead of the work ------------===//

#include "oxide/compiler/HoistBoundsChecks.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LLVMContext.h"

using namespace llvm;

namespace {

constexpr StringLiteral kBoundsFailure = "__oxide_bounds_failure";

/// A block that only reports a failed bounds check: a call to __oxide_bounds_failure, then
/// unreachable.
bool isFailureBlock(const BasicBlock *block) {
  const Instruction *first = &*block->getFirstNonPHIOrDbg();
  const auto *call = dyn_cast_or_null<CallInst>(first);
  const Function *callee = call ? call->getCalledFunction() : nullptr;
  return callee && callee->getName() == kBoundsFailure && isa<UnreachableInst>(call->getNextNode());
}

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

/// Hoists the check that ends `block`, if it is one and may move; returns whether it did.
bool hoistCheck(BasicBlock *block) {
  auto *branch = dyn_cast<BranchInst>(block->getTerminator());
  if (!branch || !branch->isConditional())
    return false;
  const unsigned failing = isFailureBlock(branch->getSuccessor(0)) ? 0 : 1;
  BasicBlock *failure = branch->getSuccessor(failing), *success = branch->getSuccessor(1 - failing);
  if (!isFailureBlock(failure) || isFailureBlock(success) || failure->getSinglePredecessor() != block ||
      isa<PHINode>(block->front()))
    return false;
  // What the check needs: its condition, and the failure report's arguments.
  SmallVector<Value *, 8> roots{branch->getCondition()};
  for (Value *argument : cast<CallInst>(&*failure->getFirstNonPHIOrDbg())->args())
    roots.push_back(argument);
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
