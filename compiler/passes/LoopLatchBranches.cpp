//===- LoopLatchBranches.cpp - loops in the form ptxas unrolls ------------===//

#include "oxide/compiler/LoopLatchBranches.h"

#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

using namespace llvm;

PreservedAnalyses oxide::LoopLatchBranchesPass::run(Function &function, FunctionAnalysisManager &) {
  bool changed = false;
  for (BasicBlock &block : function) {
    // A single-block loop whose branch back is its false edge.
    auto *branch = dyn_cast<BranchInst>(block.getTerminator());
    if (!branch || !branch->isConditional() || branch->getSuccessor(1) != &block ||
        branch->getSuccessor(0) == &block)
      continue;
    // The compare is inverted in place: it must have no other user.
    auto *compare = dyn_cast<CmpInst>(branch->getCondition());
    if (!compare || !compare->hasOneUse())
      continue;
    compare->setPredicate(compare->getInversePredicate());
    branch->swapSuccessors(); // the branch weights too
    changed = true;
  }
  if (!changed)
    return PreservedAnalyses::all();
  PreservedAnalyses kept;
  kept.preserveSet<CFGAnalyses>();
  return kept;
}

void oxide::orientLoopLatchBranches(Module &module) {
  FunctionAnalysisManager unused;
  for (Function &function : module)
    if (!function.isDeclaration())
      (void)LoopLatchBranchesPass().run(function, unused);
}
