//===- IndexForms.cpp - an index as arithmetic over named values ----------===//
//
// The forms the prover reads an index and a fact in: a sum of atoms, products and a constant
// (Linear), one atom plus a constant (Affine), and when two values are one number (sameValue).
// IndexFacts.cpp reasons about them.
//
//===----------------------------------------------------------------------===//

#include "IndexForms.h"

#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/Support/MathExtras.h"

using namespace llvm;
using namespace llvm::PatternMatch;

namespace oxide::index_facts {
namespace {

/// A field of a read-only by-value kernel parameter (a span's size or width): the parameter,
/// the byte offset and the width in bits of a scalar load of it, or of a lane of a vector load.
struct ParameterField {
  const Argument *parameter;
  int64_t offset;
  unsigned bits;
  friend bool operator==(const ParameterField &, const ParameterField &) = default;
};

std::optional<ParameterField> parameterField(Value *v) {
  int64_t lane = 0;
  if (auto *extract = dyn_cast<ExtractElementInst>(v)) {
    auto *index = dyn_cast<ConstantInt>(extract->getIndexOperand());
    if (!index || index->getValue().getActiveBits() > 16)
      return std::nullopt;
    lane = static_cast<int64_t>(index->getZExtValue());
    v = extract->getVectorOperand();
  }
  // A frozen field is the field: the launch's copy of the parameters is initialised whole.
  if (auto *frozen = dyn_cast<FreezeInst>(v))
    v = frozen->getOperand(0);
  auto *load = dyn_cast<LoadInst>(v);
  if (!load || load->isVolatile())
    return std::nullopt;
  Type *element = load->getType()->getScalarType();
  if (!element->isIntegerTy() || (lane != 0 && !load->getType()->isVectorTy()))
    return std::nullopt;
  const DataLayout &layout = load->getModule()->getDataLayout();
  APInt offset(64, 0);
  const Value *base = load->getPointerOperand()->stripAndAccumulateConstantOffsets(layout, offset, true);
  auto *parameter = dyn_cast<Argument>(base);
  if (!parameter || !parameter->hasByValAttr() || !parameter->onlyReadsMemory())
    return std::nullopt;
  const unsigned bits = element->getIntegerBitWidth();
  return ParameterField{parameter, offset.getSExtValue() + lane * (bits / 8), bits};
}

/// `v` as the low `bits` bits of a wider value: `trunc x` or `and x, 2^bits - 1` (what
/// `zext(trunc x)` becomes).
std::optional<std::pair<Value *, unsigned>> lowBits(Value *v) {
  Value *x;
  const APInt *mask;
  if (match(v, m_Trunc(m_Value(x))))
    return std::pair{x, v->getType()->getIntegerBitWidth()};
  if (match(v, m_And(m_Value(x), m_APInt(mask))) && mask->isMask())
    return std::pair{x, mask->countr_one()};
  return std::nullopt;
}

/// linearize, `depth` levels deep.
std::optional<Linear> linearizeAt(Value *v, unsigned depth) {
  Linear result;
  if (auto *c = dyn_cast<ConstantInt>(v)) {
    if (c->getBitWidth() > 64)
      return std::nullopt;
    result.constant = c->getBitWidth() == 64 ? c->getSExtValue() : static_cast<int64_t>(c->getZExtValue());
    return result;
  }
  auto atom = [&] {
    result.terms.push_back({stripZExt(v), 1});
    return result;
  };
  auto *inst = dyn_cast<Instruction>(v);
  if (!inst || !v->getType()->isIntegerTy(64) || depth > 8)
    return atom();
  auto combine = [&](Value *a, int64_t sa, Value *b, int64_t sb) -> std::optional<Linear> {
    auto la = linearizeAt(a, depth + 1), lb = linearizeAt(b, depth + 1);
    if (!la || !lb || !result.add(*la, sa) || !result.add(*lb, sb))
      return std::nullopt;
    return result;
  };
  Value *a, *b;
  const APInt *k;
  if (match(v, m_Add(m_Value(a), m_Value(b))) || (match(v, m_DisjointOr(m_Value(a), m_APInt(k))) &&
                                                  k->getActiveBits() <= 62 && (b = inst->getOperand(1))))
    return combine(a, 1, b, 1);
  if (match(v, m_Sub(m_Value(a), m_Value(b))))
    return combine(a, 1, b, -1);
  // Anything else (shifts, disjoint ors of values, constant multiples) stays whole: facts name those
  // values (the x of `x < w` is blockIdx.x * 32 | threadIdx.x), not their parts.
  if (match(v, m_Mul(m_Value(a), m_Value(b))) && !isa<Constant>(a) && !isa<Constant>(b)) {
    result.products.push_back({a, b, 1});
    return result;
  }
  return atom();
}

} // namespace

Value *stripZExt(Value *v) {
  while (auto *ext = dyn_cast<ZExtInst>(v))
    v = ext->getOperand(0);
  return v;
}

/// Whether `a` and `b` are the same number: the same value up to zero extension, the same low
/// bits of one value, or two reads of the same field of a read-only by-value kernel parameter.
bool sameValue(Value *a, Value *b) {
  a = stripZExt(a), b = stripZExt(b);
  if (a == b)
    return true;
  if (auto la = lowBits(a); la && la == lowBits(b))
    return true;
  std::optional<ParameterField> fa = parameterField(a);
  return fa && fa == parameterField(b);
}

std::optional<Affine> affine(Value *v, bool modular) {
  if (auto *c = dyn_cast<ConstantInt>(v)) {
    if (c->getValue().getActiveBits() > 63)
      return std::nullopt;
    return Affine{nullptr, static_cast<int64_t>(c->getZExtValue())};
  }
  Value *x;
  const APInt *k;
  // (64-bit only, as linearize reads it: an index and a fact must name the same atoms.)
  if (v->getType()->isIntegerTy(64) && match(v, m_DisjointOr(m_Value(x), m_APInt(k))) &&
      k->getActiveBits() <= 62)
    return Affine{stripZExt(x), static_cast<int64_t>(k->getZExtValue())};
  if (modular && match(v, m_Add(m_Value(x), m_APInt(k))) && k->getSignificantBits() <= 63)
    return Affine{stripZExt(x), k->getSExtValue()};
  if (modular && match(v, m_Sub(m_Value(x), m_APInt(k))) && k->getSignificantBits() <= 63)
    return Affine{stripZExt(x), -k->getSExtValue()};
  return Affine{stripZExt(v), 0};
}

bool sameAtom(Value *a, Value *b) { return a && b && sameValue(a, b); }

std::optional<Affine> laneAffine(Value *vector, int lane, unsigned depth) {
  if (lane < 0 || depth > 8)
    return std::nullopt;
  if (auto *constant = dyn_cast<Constant>(vector)) {
    auto *element = dyn_cast_or_null<ConstantInt>(constant->getAggregateElement(static_cast<unsigned>(lane)));
    if (!element || element->getValue().getActiveBits() > 63)
      return std::nullopt;
    return Affine{nullptr, static_cast<int64_t>(element->getZExtValue())};
  }
  if (auto *insert = dyn_cast<InsertElementInst>(vector)) {
    auto *index = dyn_cast<ConstantInt>(insert->getOperand(2));
    if (!index)
      return std::nullopt;
    if (index->getZExtValue() == static_cast<uint64_t>(lane))
      return affine(insert->getOperand(1), /*modular=*/true);
    return laneAffine(insert->getOperand(0), lane, depth + 1);
  }
  if (auto *shuffle = dyn_cast<ShuffleVectorInst>(vector)) {
    const int picked = shuffle->getMaskValue(static_cast<unsigned>(lane));
    const int width =
        static_cast<int>(cast<FixedVectorType>(shuffle->getOperand(0)->getType())->getNumElements());
    if (picked < 0)
      return std::nullopt;
    return picked < width ? laneAffine(shuffle->getOperand(0), picked, depth + 1)
                          : laneAffine(shuffle->getOperand(1), picked - width, depth + 1);
  }
  Value *operand;
  Constant *addend;
  if (match(vector, m_Add(m_Value(operand), m_Constant(addend)))) {
    auto base = laneAffine(operand, lane, depth + 1);
    auto *element = dyn_cast_or_null<ConstantInt>(addend->getAggregateElement(static_cast<unsigned>(lane)));
    if (!base || !element || element->getValue().getSignificantBits() > 63 ||
        AddOverflow(base->offset, element->getSExtValue(), base->offset))
      return std::nullopt;
    return base;
  }
  // A lane of some other vector (a load of two span extents): the extractelement that reads it.
  for (User *user : vector->users())
    if (auto *extract = dyn_cast<ExtractElementInst>(user))
      if (auto *index = dyn_cast<ConstantInt>(extract->getIndexOperand());
          index && index->getZExtValue() == static_cast<uint64_t>(lane))
        return Affine{stripZExt(extract), 0};
  return std::nullopt;
}

bool Linear::add(const Linear &other, int64_t scale) {
  int64_t c;
  if (MulOverflow(other.constant, scale, c) || AddOverflow(constant, c, constant))
    return false;
  for (const Term &t : other.terms) {
    if (MulOverflow(t.coefficient, scale, c))
      return false;
    auto it = llvm::find_if(terms, [&](const Term &mine) { return sameValue(mine.atom, t.atom); });
    if (it == terms.end())
      terms.push_back({t.atom, c});
    else if (AddOverflow(it->coefficient, c, it->coefficient))
      return false;
  }
  for (const Product &p : other.products) {
    if (MulOverflow(p.coefficient, scale, c))
      return false;
    products.push_back({p.p, p.q, c});
  }
  llvm::erase_if(terms, [](const Term &t) { return t.coefficient == 0; });
  return true;
}

std::optional<Linear> linearize(Value *v) { return linearizeAt(v, 0); }

} // namespace oxide::index_facts
