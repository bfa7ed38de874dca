//===- FenceOrderedAtomics.cpp - fences for ordered atomicrmw -------------===//

#include "oxide/compiler/FenceOrderedAtomics.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

PreservedAnalyses oxide::FenceOrderedAtomicsPass::run(Function &function, FunctionAnalysisManager &) {
  SmallVector<AtomicRMWInst *> ordered;
  for (Instruction &inst : instructions(function))
    if (auto *rmw = dyn_cast<AtomicRMWInst>(&inst); rmw && rmw->getOrdering() != AtomicOrdering::Monotonic &&
                                                    rmw->getOrdering() != AtomicOrdering::Unordered)
      ordered.push_back(rmw);
  if (ordered.empty())
    return PreservedAnalyses::all();

  for (AtomicRMWInst *rmw : ordered) {
    const AtomicOrdering ordering = rmw->getOrdering();
    const SyncScope::ID scope = rmw->getSyncScopeID();
    IRBuilder<> builder(rmw);
    if (ordering == AtomicOrdering::SequentiallyConsistent)
      builder.CreateFence(AtomicOrdering::SequentiallyConsistent, scope);
    else if (isReleaseOrStronger(ordering))
      builder.CreateFence(AtomicOrdering::Release, scope);
    if (isAcquireOrStronger(ordering)) {
      builder.SetInsertPoint(rmw->getNextNode());
      builder.CreateFence(AtomicOrdering::Acquire, scope);
    }
    rmw->setOrdering(AtomicOrdering::Monotonic);
  }
  PreservedAnalyses preserved;
  preserved.preserveSet<CFGAnalyses>();
  return preserved;
}
