//===- NarrowLoopCounters.cpp - 64-bit loop counters that fit 32 bits ----===//
//
// See NarrowLoopCounters.h. The argument: at the loop header the counter c is either its
// start, known below 2^32, or a next value n for which the latch's test n <u count held, count
// below 2^32; so c < 2^32 at every iteration and c == zext(trunc c). The narrow counter is that
// trunc, carried by a phi of its own; the next value is still computed and tested in 64 bits.
//
//===----------------------------------------------------------------------===//

#include "oxide/compiler/NarrowLoopCounters.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PatternMatch.h"

using namespace llvm;
using namespace llvm::PatternMatch;

namespace {

bool fits32(Value *value, const DataLayout &layout) {
  return computeKnownBits(value, layout).countMinLeadingZeros() >= 32;
}

/// Whether the latch of `loop` stays in the loop only when `next <u count`, count below 2^32.
bool continuesOnlyBelow32(Loop &loop, Value *next, const DataLayout &layout) {
  BasicBlock *latch = loop.getLoopLatch();
  auto *branch = latch ? dyn_cast<BranchInst>(latch->getTerminator()) : nullptr;
  if (!branch || !branch->isConditional())
    return false;
  CmpPredicate predicate;
  Value *lhs, *rhs;
  if (!match(branch->getCondition(), m_ICmp(predicate, m_Value(lhs), m_Value(rhs))))
    return false;
  // The predicate under which the branch goes back to the header.
  const bool backOnTrue = branch->getSuccessor(0) == loop.getHeader();
  if (!backOnTrue && branch->getSuccessor(1) != loop.getHeader())
    return false;
  CmpInst::Predicate stays =
      backOnTrue ? CmpInst::Predicate(predicate) : CmpInst::getInversePredicate(predicate);
  if (lhs != next) {
    std::swap(lhs, rhs);
    stays = CmpInst::getSwappedPredicate(stays);
  }
  return lhs == next && stays == CmpInst::ICMP_ULT && loop.isLoopInvariant(rhs) && fits32(rhs, layout);
}

bool narrow(Loop &loop, const DataLayout &layout) {
  BasicBlock *header = loop.getHeader(), *preheader = loop.getLoopPreheader(), *latch = loop.getLoopLatch();
  if (!preheader || !latch)
    return false;
  bool changed = false;
  for (PHINode &counter : llvm::make_early_inc_range(header->phis())) {
    if (!counter.getType()->isIntegerTy(64) || counter.getNumIncomingValues() != 2)
      continue;
    Value *start = counter.getIncomingValueForBlock(preheader);
    auto *next = dyn_cast<BinaryOperator>(counter.getIncomingValueForBlock(latch));
    Value *step;
    if (!next || !match(next, m_c_Add(m_Specific(&counter), m_Value(step))) || !loop.isLoopInvariant(step) ||
        !fits32(start, layout) || !continuesOnlyBelow32(loop, next, layout))
      continue;
    Type *i32 = Type::getInt32Ty(counter.getContext());
    IRBuilder<> b(preheader->getTerminator());
    Value *first = b.CreateTrunc(start, i32);
    b.SetInsertPoint(latch->getTerminator());
    Value *following = b.CreateTrunc(next, i32);
    PHINode *narrowCounter = PHINode::Create(i32, 2, counter.getName() + ".narrow", counter.getIterator());
    narrowCounter->addIncoming(first, preheader);
    narrowCounter->addIncoming(following, latch);
    b.SetInsertPoint(header, header->getFirstInsertionPt());
    // No nneg flag: a counter from 2^31 up is a negative i32.
    Value *wide = b.CreateZExt(narrowCounter, counter.getType(), counter.getName() + ".wide");
    counter.replaceAllUsesWith(wide);
    counter.eraseFromParent();
    changed = true;
  }
  return changed;
}

} // namespace

PreservedAnalyses oxide::NarrowLoopCountersPass::run(Function &function, FunctionAnalysisManager &analyses) {
  auto &loops = analyses.getResult<LoopAnalysis>(function);
  const DataLayout &layout = function.getParent()->getDataLayout();
  bool changed = false;
  for (Loop *loop : loops.getLoopsInPreorder())
    changed |= narrow(*loop, layout);
  if (!changed)
    return PreservedAnalyses::all();
  PreservedAnalyses preserved;
  preserved.preserveSet<CFGAnalyses>();
  return preserved;
}
