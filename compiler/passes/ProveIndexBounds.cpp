//===- ProveIndexBounds.cpp - 2-D index bounds from contracts -------------===//
//
// A bounds check `i <u S` is true when S == A * B (no overflow), i == k * A + r (mod 2^n),
// 0 <= k <= B - 1 and 0 <= r <= A - 1: then k * A + r lies in [0, A * B), so i is that number
// and below S. The facts about k and r are difference bounds between two values (x <u w,
// x != w - 1, y != 0), read from the branch conditions that dominate the check and from
// llvm.assume; everything is unsigned, as the values are. The same facts also bound a plain
// index (i <u S from i <u S on every edge into a loop), which LLVM leaves to the loop's test.
// The prover is IndexFacts (shared with the audit of guarded writes).
//
//===----------------------------------------------------------------------===//

#include "oxide/compiler/ProveIndexBounds.h"
#include "oxide/compiler/IndexFacts.h"

#include "llvm/IR/Dominators.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;
using oxide::index_facts::FunctionFacts;

PreservedAnalyses oxide::ProveIndexBoundsPass::run(Function &function, FunctionAnalysisManager &analyses) {
  SmallVector<IntrinsicInst *, 8> assumptions;
  SmallVector<ICmpInst *, 16> candidates;
  for (Instruction &inst : instructions(function)) {
    if (auto *call = dyn_cast<IntrinsicInst>(&inst); call && call->getIntrinsicID() == Intrinsic::assume)
      assumptions.push_back(call);
    else if (auto *cmp = dyn_cast<ICmpInst>(&inst); cmp && cmp->getOperand(0)->getType()->isIntegerTy(64))
      candidates.push_back(cmp);
  }
  if (candidates.empty())
    return PreservedAnalyses::all();
  auto &dominators = analyses.getResult<DominatorTreeAnalysis>(function);
  // Replacing a proven test by a constant changes no block or edge, so the facts stay valid.
  FunctionFacts facts(dominators, assumptions);
  bool changed = false;
  for (ICmpInst *cmp : candidates) {
    // i <u s is true; s <=u i (its negation, as the branch may test it) is false.
    Value *index, *size;
    bool value;
    switch (cmp->getPredicate()) {
    case CmpInst::ICMP_ULT:
      index = cmp->getOperand(0), size = cmp->getOperand(1), value = true;
      break;
    case CmpInst::ICMP_UGT:
      index = cmp->getOperand(1), size = cmp->getOperand(0), value = true;
      break;
    case CmpInst::ICMP_UGE:
      index = cmp->getOperand(0), size = cmp->getOperand(1), value = false;
      break;
    case CmpInst::ICMP_ULE:
      index = cmp->getOperand(1), size = cmp->getOperand(0), value = false;
      break;
    default:
      continue;
    }
    if (!facts.at(cmp).below(index, size))
      continue;
    cmp->replaceAllUsesWith(ConstantInt::getBool(cmp->getType(), value));
    changed = true;
  }
  if (!changed)
    return PreservedAnalyses::all();
  PreservedAnalyses preserved;
  preserved.preserveSet<CFGAnalyses>();
  return preserved;
}
