//===- ValueRanges.cpp - the values an index may take, flags unread ---------===//
//
// See ValueRanges.h. Every rule reads the operation itself (an and with a constant, a
// remainder, a select, a sum of bounded values) and none reads a no-wrap flag, `exact`,
// `inbounds` or `nneg`: each range holds of the bits the emitted code computes, even where
// the user's code has undefined behaviour. Ranges stay below 2^(width - 1), where a signed and
// an unsigned reading of a value agree, so that the back end's choices for flagged operations
// (a `zext nneg` emitted as a sign extension, an `or disjoint` as an add) give the same number.
//
//===----------------------------------------------------------------------===//

#include "ValueRanges.h"

#include "llvm/IR/DataLayout.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/PatternMatch.h"

#include <algorithm>
#include <array>

using namespace llvm;
using namespace llvm::PatternMatch;
using oxide::index_facts::Linear;

namespace oxide::value_ranges {

std::optional<std::pair<uint64_t, uint64_t>> counterRange(const PHINode *phi);

namespace {

/// The union of the ranges `of` gives each of `values`; nullopt when one is unbounded.
template <class Values, class Of> std::optional<Range> joined(const Values &values, Of of) {
  std::optional<Range> result;
  for (const Value *value : values) {
    std::optional<Range> x = of(value);
    if (!x)
      return std::nullopt;
    result = result ? Range{std::min(result->lo, x->lo), std::max(result->hi, x->hi)} : *x;
  }
  return result;
}

std::optional<Range> rangeOf(const Value *v, SmallPtrSetImpl<const Value *> &visiting, unsigned depth) {
  auto *type = dyn_cast<IntegerType>(v->getType());
  if (!type || type->getBitWidth() > 64 || depth > 12)
    return std::nullopt;
  const unsigned width = type->getBitWidth();
  auto fits = [&](std::optional<Range> r) -> std::optional<Range> {
    const int64_t limit = width >= 63 ? kLimit : int64_t{1} << (width - 1);
    if (!r || r->lo < 0 || r->hi >= limit || r->hi >= kLimit)
      return std::nullopt;
    return r;
  };
  if (const auto *c = dyn_cast<ConstantInt>(v))
    return c->getValue().isNegative() || c->getValue().getActiveBits() > 62
               ? std::nullopt
               : fits(
                     Range{static_cast<int64_t>(c->getZExtValue()), static_cast<int64_t>(c->getZExtValue())});
  if (width == 1)
    return Range{0, 1};
  if (!visiting.insert(v).second)
    return std::nullopt; // a cycle other than a counter's
  auto of = [&](const Value *operand) { return rangeOf(operand, visiting, depth + 1); };
  const Value *a, *b;
  const APInt *k;
  std::optional<Range> result;
  if (match(v, m_ZExt(m_Value(a))) || match(v, m_Trunc(m_Value(a)))) {
    result = a->getType()->isIntegerTy(1) && isa<ZExtInst>(v) ? std::optional<Range>(Range{0, 1}) : of(a);
  } else if (const auto *select = dyn_cast<SelectInst>(v)) {
    result = joined(std::array<const Value *, 2>{select->getTrueValue(), select->getFalseValue()}, of);
  } else if (match(v, m_Add(m_Value(a), m_Value(b))) || match(v, m_Or(m_Value(a), m_Value(b)))) {
    std::optional<Range> x = of(a), y = of(b);
    if (x && y && x->hi < kLimit / 2 && y->hi < kLimit / 2) // a | b <= a + b
      result = Range{isa<BinaryOperator>(v) && cast<BinaryOperator>(v)->getOpcode() == Instruction::Or
                         ? std::max(x->lo, y->lo)
                         : x->lo + y->lo,
                     x->hi + y->hi};
  } else if (match(v, m_And(m_Value(a), m_APInt(k))) && !k->isNegative() && k->getActiveBits() <= 62) {
    result = Range{0, static_cast<int64_t>(k->getZExtValue())};
  } else if (match(v, m_URem(m_Value(a), m_APInt(k))) && !k->isZero() && !k->isNegative() &&
             k->getActiveBits() <= 62) {
    result = Range{0, static_cast<int64_t>(k->getZExtValue()) - 1};
  } else if ((match(v, m_Shl(m_Value(a), m_APInt(k))) || match(v, m_Mul(m_Value(a), m_APInt(k)))) &&
             k->getActiveBits() <= 20) {
    const int64_t factor = isa<BinaryOperator>(v) && cast<BinaryOperator>(v)->getOpcode() == Instruction::Shl
                               ? int64_t{1} << k->getZExtValue()
                               : static_cast<int64_t>(k->getZExtValue());
    if (std::optional<Range> x = of(a); x && factor > 0 && x->hi < kLimit / factor)
      result = Range{x->lo * factor, x->hi * factor};
  } else if (match(v, m_LShr(m_Value(a), m_APInt(k))) && k->ult(width)) {
    if (std::optional<Range> x = of(a))
      result = Range{x->lo >> k->getZExtValue(), x->hi >> k->getZExtValue()};
  } else if (const auto *phi = dyn_cast<PHINode>(v)) {
    if (std::optional<std::pair<uint64_t, uint64_t>> counter = counterRange(phi);
        counter && counter->second < static_cast<uint64_t>(kLimit))
      result = Range{static_cast<int64_t>(counter->first), static_cast<int64_t>(counter->second)};
    else
      result = joined(phi->incoming_values(), of);
  }
  visiting.erase(v);
  return fits(result);
}

std::optional<Range> offsetOf(const Value *pointer, const Value *array, const DataLayout &layout,
                              SmallPtrSetImpl<const Value *> &visiting, unsigned depth) {
  if (pointer == array)
    return Range{0, 0};
  if (depth > 12 || !visiting.insert(pointer).second)
    return std::nullopt;
  auto of = [&](const Value *p) { return offsetOf(p, array, layout, visiting, depth + 1); };
  std::optional<Range> result;
  if (const auto *spaceCast = dyn_cast<AddrSpaceCastOperator>(pointer)) {
    result = of(spaceCast->getPointerOperand());
  } else if (const auto *gep = dyn_cast<GEPOperator>(pointer)) {
    result = of(gep->getPointerOperand());
    for (gep_type_iterator it = gep_type_begin(gep), end = gep_type_end(gep); it != end && result; ++it) {
      int64_t lo = 0, hi = 0;
      if (StructType *type = it.getStructTypeOrNull()) {
        lo = hi = static_cast<int64_t>(layout.getStructLayout(type)->getElementOffset(
            cast<ConstantInt>(it.getOperand())->getZExtValue()));
      } else {
        const TypeSize stride = it.getSequentialElementStride(layout);
        std::optional<Range> index = rangeOf(it.getOperand(), visiting, 0);
        if (stride.isScalable() || stride.getFixedValue() > (1u << 20) || !index ||
            index->hi >= kLimit / static_cast<int64_t>(std::max<uint64_t>(1, stride.getFixedValue()))) {
          result = std::nullopt;
          break;
        }
        lo = index->lo * static_cast<int64_t>(stride.getFixedValue());
        hi = index->hi * static_cast<int64_t>(stride.getFixedValue());
      }
      result = Range{result->lo + lo, result->hi + hi};
      if (result->hi >= kLimit)
        result = std::nullopt;
    }
  } else if (isa<PHINode>(pointer) || isa<SelectInst>(pointer)) {
    const auto *user = cast<Instruction>(pointer);
    result = joined(isa<SelectInst>(user) ? ArrayRef<Use>(user->op_begin() + 1, user->op_end())
                                          : ArrayRef<Use>(user->op_begin(), user->op_end()),
                    of);
  }
  visiting.erase(pointer);
  return result;
}

} // namespace

std::optional<std::pair<uint64_t, uint64_t>> counterRange(const PHINode *phi) {
  if (phi->getNumIncomingValues() != 2 || phi->getType()->getIntegerBitWidth() > 64)
    return std::nullopt;
  for (unsigned back : {0u, 1u}) {
    const APInt *start, *step, *end;
    Value *next = phi->getIncomingValue(back);
    if (!match(phi->getIncomingValue(1 - back), m_APInt(start)) ||
        !match(next, m_Add(m_Specific(phi), m_APInt(step))) || step->isZero() || step->isNegative())
      continue;
    auto *latch = dyn_cast<BranchInst>(phi->getIncomingBlock(back)->getTerminator());
    CmpPredicate predicate;
    if (!latch || !latch->isConditional() || latch->getSuccessor(0) == latch->getSuccessor(1) ||
        !match(latch->getCondition(), m_ICmp(predicate, m_Specific(next), m_APInt(end))))
      continue;
    // The predicate under which the back edge is taken.
    if (latch->getSuccessor(1) == phi->getParent())
      predicate = CmpInst::getInversePredicate(predicate);
    else if (latch->getSuccessor(0) != phi->getParent())
      continue;
    const uint64_t s = start->getZExtValue(), d = step->getZExtValue(), e = end->getZExtValue();
    if (predicate == ICmpInst::ICMP_NE && s < e && (e - s) % d == 0)
      return std::pair{s, e - d};
    if (predicate == ICmpInst::ICMP_ULT && e > 0)
      return std::pair{uint64_t{0}, std::max(s, e - 1)};
  }
  return std::nullopt;
}

std::optional<Range> valueRange(const Value *v) {
  SmallPtrSet<const Value *, 8> visiting;
  return rangeOf(v, visiting, 0);
}

std::optional<Range> linearRange(const Linear &index) {
  if (!index.products.empty())
    return std::nullopt;
  Range sum{index.constant, index.constant};
  for (const Linear::Term &term : index.terms) {
    SmallPtrSet<const Value *, 8> visiting;
    std::optional<Range> r = rangeOf(term.atom, visiting, 0);
    if (!r || term.coefficient < -1024 || term.coefficient > 1024)
      return std::nullopt;
    const int64_t a = r->lo * term.coefficient, b = r->hi * term.coefficient;
    sum.lo += std::min(a, b);
    sum.hi += std::max(a, b);
    if (sum.lo <= -kLimit || sum.hi >= kLimit)
      return std::nullopt;
  }
  return sum;
}

std::optional<Range> offsetRange(const Value *pointer, const Value *base, const DataLayout &layout) {
  SmallPtrSet<const Value *, 8> visiting;
  return offsetOf(pointer, base, layout, visiting, 0);
}

} // namespace oxide::value_ranges
