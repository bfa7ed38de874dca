//===- ColumnLoops.cpp - loops over a strided set counted by its elements -===//
//
// See ColumnLoops.h. The argument, in exact modular arithmetic (no fact from a no-wrap flag):
// the loop is entered only when f <u W (a dominating branch says so), so q = (W - 1 - f) / S is
// the last j with f + S j <= W - 1, and every c = f + S j the loop reaches (j <= q) is at most
// W - 1: none wraps. The latch goes on while j <u q (`j != q` is the same test, j never passing
// q), that is while f + S (j + 1) <= W - 1, that is while c <u W - S (and never if W < S),
// which is the new test. Values the body computes that are f + S j (SCEV's {f, +, S}) become
// the new counter c, the others of step S become c plus their distance from it.
//
//===----------------------------------------------------------------------===//

#include "oxide/compiler/ColumnLoops.h"
#include "LoopChecks.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/LoopUtils.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

#include <optional>

using namespace llvm;
using namespace llvm::PatternMatch;

namespace {

/// The least constant step rewritten: a block's threads, not a warp's lanes.
constexpr unsigned kMinStep = 128;

/// q = (W - 1 - f) / S: the index of the last of f, f + S, ... below W, when f <u W.
struct LastIndex {
  Value *first, *width, *step;
};

std::optional<LastIndex> matchLastIndex(Value *q) {
  Value *x, *step;
  const APInt *shift;
  if (match(q, m_LShr(m_Value(x), m_APInt(shift))) && shift->ult(q->getType()->getIntegerBitWidth()))
    step = ConstantInt::get(q->getType(), APInt::getOneBitSet(q->getType()->getIntegerBitWidth(),
                                                              static_cast<unsigned>(shift->getZExtValue())));
  else if (!match(q, m_UDiv(m_Value(x), m_Value(step))))
    return std::nullopt;
  // freeze(x) is x wherever x is not poison, and the count it gives is used only then.
  if (auto *frozen = dyn_cast<FreezeInst>(x))
    x = frozen->getOperand(0);
  Value *width, *first;
  if (match(x, m_c_Add(m_Value(width), m_Not(m_Value(first)))) ||            // W + ~f
      match(x, m_Sub(m_Value(width), m_c_Add(m_Value(first), m_One()))) ||   // W - (f + 1)
      match(x, m_Add(m_Sub(m_Value(width), m_Value(first)), m_AllOnes())) || // (W - f) - 1
      match(x, m_Sub(m_Sub(m_Value(width), m_Value(first)), m_One())))
    return LastIndex{first, width, step};
  return std::nullopt;
}

/// The loop's counter j (0, 1, 2...) and what its latch compares: whether it goes on while
/// `j <u q` for the last index q of a strided set, in one of the forms LLVM leaves it (`j != q`,
/// `j + 1 <u q + 1`, `j + 1 != q + 1`, either branch direction).
struct CountedLoop {
  PHINode *counter;
  ICmpInst *test;
  LastIndex last;
};

std::optional<CountedLoop> matchCountedLoop(Loop &loop) {
  BasicBlock *header = loop.getHeader(), *preheader = loop.getLoopPreheader(), *latch = loop.getLoopLatch();
  auto *branch = latch ? dyn_cast<BranchInst>(latch->getTerminator()) : nullptr;
  if (!preheader || !branch || !branch->isConditional())
    return std::nullopt;
  const bool backOnTrue = branch->getSuccessor(0) == header;
  if (!backOnTrue && branch->getSuccessor(1) != header)
    return std::nullopt;
  auto *test = dyn_cast<ICmpInst>(branch->getCondition());
  if (!test || !test->hasOneUse())
    return std::nullopt;
  const CmpInst::Predicate stays = backOnTrue ? test->getPredicate() : test->getInversePredicate();
  for (unsigned side = 0; side < 2; ++side) {
    Value *moving = test->getOperand(side), *bound = test->getOperand(1 - side);
    const CmpInst::Predicate p = side == 0 ? stays : CmpInst::getSwappedPredicate(stays);
    if ((p != CmpInst::ICMP_ULT && p != CmpInst::ICMP_NE) || !loop.isLoopInvariant(bound))
      continue;
    // moving is j or j + 1, bound is q or q + 1, the same offset on both sides.
    Value *q = bound;
    PHINode *counter = dyn_cast<PHINode>(moving);
    if (!counter) {
      Value *j;
      if (!match(moving, m_c_Add(m_Value(j), m_One())) || !match(bound, m_c_Add(m_Value(q), m_One())))
        continue;
      counter = dyn_cast<PHINode>(j);
    }
    if (!counter || counter->getParent() != header || counter->getNumIncomingValues() != 2 ||
        !match(counter->getIncomingValueForBlock(preheader), m_Zero()) ||
        !match(counter->getIncomingValueForBlock(latch), m_c_Add(m_Specific(counter), m_One())))
      continue;
    if (std::optional<LastIndex> last = matchLastIndex(q); last && q->getType() == counter->getType())
      return CountedLoop{counter, test, *last};
  }
  return std::nullopt;
}

bool rewrite(Loop &loop, ScalarEvolution &scev, DominatorTree &dominators) {
  std::optional<CountedLoop> counted = matchCountedLoop(loop);
  if (!counted)
    return false;
  const LastIndex &last = counted->last;
  // A step that is a value must be nonzero for q to be a count: S = 0 would divide by zero.
  const DataLayout &layout = loop.getHeader()->getDataLayout();
  if (!isa<ConstantInt>(last.step) && !isKnownNonZero(last.step, SimplifyQuery(layout)))
    return false;
  // A small constant step (a warp's 32 lanes) means many iterations a thread: the trip count is
  // paid once and the runtime-unrolled loop issues its loads back to back (layernorm with a
  // warp per row ran at 1.17 of nvcc's so). Such loops are left to LLVM.
  if (auto *step = dyn_cast<ConstantInt>(last.step); step && step->getValue().ult(kMinStep))
    return false;
  const SCEV *first = scev.getSCEV(last.first), *width = scev.getSCEV(last.width);
  if (!oxide::loop_checks::enteredOnlyBelow(loop, first, width, scev, dominators))
    return false;

  // The body's values {f + d, +, S}: the column itself (d = 0) and what is at a fixed distance.
  // Only those computed in the counter's width: SCEV widens a narrower value through the no-wrap
  // flags of the user's arithmetic, and such a value equals c + d only where that arithmetic does
  // not wrap. The others keep their own computation from j, which still counts.
  const SCEV *step = scev.getSCEV(last.step);
  const unsigned bits = counted->counter->getType()->getIntegerBitWidth();
  SmallVector<std::pair<Instruction *, const SCEV *>, 8> columns;
  for (BasicBlock *block : loop.blocks())
    for (Instruction &inst : *block) {
      if (&inst == counted->counter || inst.getType() != counted->counter->getType() ||
          !scev.isSCEVable(inst.getType()) || !oxide::loop_checks::computedInFullWidth(&inst, loop, bits))
        continue;
      const auto *r = dyn_cast<SCEVAddRecExpr>(scev.getSCEV(&inst));
      if (!r || r->getLoop() != &loop || !r->isAffine() || r->getStepRecurrence(scev) != step)
        continue;
      const SCEV *distance = scev.getMinusSCEV(r->getStart(), first);
      if (distance->isZero() ||
          (scev.isLoopInvariant(distance, &loop) && isa<SCEVUnknown, SCEVConstant>(distance)))
        columns.emplace_back(&inst, distance);
    }

  BasicBlock *header = loop.getHeader(), *preheader = loop.getLoopPreheader(), *latch = loop.getLoopLatch();
  Type *type = counted->counter->getType();
  IRBuilder<> b(preheader->getTerminator());
  // c <u W - S goes on exactly when c + S <u W, without computing c + S (which may wrap).
  Value *limit = b.CreateSelect(b.CreateICmpUGE(last.width, last.step, "column.wide"),
                                b.CreateSub(last.width, last.step, "column.room"), ConstantInt::get(type, 0),
                                "column.limit");
  PHINode *column = PHINode::Create(type, 2, "column", header->begin());
  b.SetInsertPoint(latch->getTerminator());
  Value *next = b.CreateAdd(column, last.step, "column.next");
  column->addIncoming(last.first, preheader);
  column->addIncoming(next, latch);
  auto *branch = cast<BranchInst>(latch->getTerminator());
  Value *goesOn = b.CreateICmpULT(column, limit, "column.goes_on");
  branch->setCondition(branch->getSuccessor(0) == header ? goesOn : b.CreateNot(goesOn, "column.ends"));
  RecursivelyDeleteTriviallyDeadInstructions(counted->test);

  SCEVExpander expander(scev, "column");
  for (auto [inst, distance] : columns) {
    Value *replacement = column;
    if (!distance->isZero()) {
      Value *offset = expander.expandCodeFor(distance, type, preheader->getTerminator());
      replacement = BinaryOperator::CreateAdd(column, offset, inst->getName() + ".column",
                                              header->getFirstInsertionPt());
    }
    inst->replaceAllUsesWith(replacement);
  }
  for (auto [inst, distance] : columns)
    RecursivelyDeleteTriviallyDeadInstructions(inst);
  // j stays where a value of the body was not replaced.
  RecursivelyDeleteDeadPHINode(counted->counter);
  // One element a row per thread is the common case; a runtime-unrolled copy only adds a test.
  addStringMetadataToLoop(&loop, "llvm.loop.unroll.runtime.disable");
  return true;
}

} // namespace

PreservedAnalyses oxide::ColumnLoopsPass::run(Function &function, FunctionAnalysisManager &analyses) {
  auto &loops = analyses.getResult<LoopAnalysis>(function);
  if (loops.empty())
    return PreservedAnalyses::all();
  auto &scev = analyses.getResult<ScalarEvolutionAnalysis>(function);
  auto &dominators = analyses.getResult<DominatorTreeAnalysis>(function);
  bool changed = false;
  for (Loop *loop : loops.getLoopsInPreorder())
    if (rewrite(*loop, scev, dominators)) {
      scev.forgetLoop(loop);
      changed = true;
    }
  if (!changed)
    return PreservedAnalyses::all();
  PreservedAnalyses preserved;
  preserved.preserveSet<CFGAnalyses>();
  return preserved;
}
