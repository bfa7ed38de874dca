//===- ProveIndexBounds.cpp - 2-D index bounds from contracts -------------===//
//
// A bounds check `i <u S` is true when S == A * B (no overflow), i == k * A + r (mod 2^n),
// 0 <= k <= B - 1 and 0 <= r <= A - 1: then k * A + r lies in [0, A * B), so i is that number
// and below S. The facts about k and r are difference bounds between two values (x <u w,
// x != w - 1, y != 0), read from the branch conditions that dominate the check and from
// llvm.assume; everything is unsigned, as the values are. The same facts also bound a plain
// index (i <u S from i <u S on every edge into a loop), which LLVM leaves to the loop's test.
//
//===----------------------------------------------------------------------===//

#include "oxide/compiler/ProveIndexBounds.h"

#include "llvm/IR/Dominators.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/Support/MathExtras.h"

#include <optional>

using namespace llvm;
using namespace llvm::PatternMatch;

namespace {

/// The value a zero extension extends (an unsigned value is the same number either way).
Value *stripZExt(Value *v) {
  while (auto *ext = dyn_cast<ZExtInst>(v))
    v = ext->getOperand(0);
  return v;
}

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

/// `atom + offset`, or the constant `offset` when atom is null.
struct Affine {
  Value *atom = nullptr;
  int64_t offset = 0;
};

/// An integer expression as a sum of coefficient * atom, coefficient * (p * q) and a constant,
/// equal to the value modulo 2^64.
struct Linear {
  struct Term {
    Value *atom;
    int64_t coefficient;
  };
  struct Product {
    Value *p, *q;
    int64_t coefficient;
  };
  SmallVector<Term, 4> terms;
  SmallVector<Product, 1> products;
  int64_t constant = 0;

  bool add(const Linear &other, int64_t scale) {
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
};

/// `v` as a Linear over 64-bit arithmetic; narrower values and anything else are atoms (their
/// own arithmetic wraps at another width).
std::optional<Linear> linearize(Value *v, unsigned depth = 0) {
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
    auto la = linearize(a, depth + 1), lb = linearize(b, depth + 1);
    if (!la || !lb || !result.add(*la, sa) || !result.add(*lb, sb))
      return std::nullopt;
    return result;
  };
  Value *a, *b;
  if (match(v, m_Add(m_Value(a), m_Value(b))))
    return combine(a, 1, b, 1);
  if (match(v, m_Sub(m_Value(a), m_Value(b))))
    return combine(a, 1, b, -1);
  // Anything else (shifts, disjoint ors, constant multiples) stays whole: facts name those
  // values (the x of `x < w` is blockIdx.x * 32 | threadIdx.x), not their parts.
  if (match(v, m_Mul(m_Value(a), m_Value(b))) && !isa<Constant>(a) && !isa<Constant>(b)) {
    result.products.push_back({a, b, 1});
    return result;
  }
  return atom();
}

/// A known relation between two Affine values.
struct Fact {
  CmpInst::Predicate predicate; // ult, ule, eq or ne
  Affine lhs, rhs;
};

/// `v` as atom + constant. An offset is split off only for == and != facts (`modular`), which
/// hold modulo 2^n either way; for an ordering, `x + k` stays one atom: it equals x + k only if
/// it does not wrap, and the `nuw` that would say so may come from InstCombine reading a signed
/// `nsw` add of the user's, a fact of undefined behaviour.
std::optional<Affine> affine(Value *v, bool modular) {
  if (auto *c = dyn_cast<ConstantInt>(v)) {
    if (c->getValue().getActiveBits() > 63)
      return std::nullopt;
    return Affine{nullptr, static_cast<int64_t>(c->getZExtValue())};
  }
  Value *x;
  const APInt *k;
  if (modular && match(v, m_Add(m_Value(x), m_APInt(k))) && k->getSignificantBits() <= 63)
    return Affine{stripZExt(x), k->getSExtValue()};
  if (modular && match(v, m_Sub(m_Value(x), m_APInt(k))) && k->getSignificantBits() <= 63)
    return Affine{stripZExt(x), -k->getSExtValue()};
  return Affine{stripZExt(v), 0};
}

bool sameAtom(Value *a, Value *b) { return a && b && sameValue(a, b); }

/// Lane `lane` of an integer vector as atom + constant (modulo 2^n: for == and != facts),
/// through the insertelement/shufflevector/add-constant chains SLP vectorisation builds.
std::optional<Affine> laneAffine(Value *vector, int lane, unsigned depth = 0) {
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

class Facts {
public:
  /// Records that `condition` is `truth` (decomposing and/or/not).
  void add(Value *condition, bool truth, unsigned depth = 0) {
    if (depth > 6)
      return;
    Value *a, *b;
    if (match(condition, m_Not(m_Value(a))))
      return add(a, !truth, depth + 1);
    if (truth && match(condition, m_LogicalAnd(m_Value(a), m_Value(b)))) {
      add(a, true, depth + 1);
      return add(b, true, depth + 1);
    }
    if (!truth && match(condition, m_LogicalOr(m_Value(a), m_Value(b)))) {
      add(a, false, depth + 1);
      return add(b, false, depth + 1);
    }
    auto *cmp = dyn_cast<ICmpInst>(condition);
    if (!cmp)
      return;
    if (addVectorTest(cmp, truth))
      return;
    CmpInst::Predicate p = truth ? cmp->getPredicate() : cmp->getInversePredicate();
    Value *l = cmp->getOperand(0), *r = cmp->getOperand(1);
    if (p == CmpInst::ICMP_UGT || p == CmpInst::ICMP_UGE) {
      std::swap(l, r);
      p = CmpInst::getSwappedPredicate(p);
    }
    if (p != CmpInst::ICMP_ULT && p != CmpInst::ICMP_ULE && p != CmpInst::ICMP_EQ && p != CmpInst::ICMP_NE)
      return;
    const bool modular = p == CmpInst::ICMP_EQ || p == CmpInst::ICMP_NE;
    auto lhs = affine(l, modular), rhs = affine(r, modular);
    if (lhs && rhs)
      facts.push_back({p, *lhs, *rhs});
    if (p == CmpInst::ICMP_EQ) // both directions, for the products below
      equalities.push_back({l, r});
  }

  /// Records x <u bound.
  void addBelow(Value *x, Value *bound) {
    facts.push_back({CmpInst::ICMP_ULT, {x, 0}, {stripZExt(bound), 0}});
  }

  /// The atoms e with v <u e known, v + k <u e or v <=u e + k for some k (candidates to check).
  SmallVector<Value *, 2> upperBoundsOf(Value *v) const {
    SmallVector<Value *, 2> bounds;
    std::optional<Affine> value = affine(v, /*modular=*/false);
    if (!value || !value->atom)
      return bounds;
    for (const Fact &f : facts)
      if ((f.predicate == CmpInst::ICMP_ULT || f.predicate == CmpInst::ICMP_ULE) && f.rhs.atom &&
          sameAtom(f.lhs.atom, value->atom) && !llvm::is_contained(bounds, f.rhs.atom))
        bounds.push_back(f.rhs.atom);
    return bounds;
  }

  /// The least u with x <= e + u known (x, e atoms), if any.
  std::optional<int64_t> upperGap(Value *x, Value *e) const {
    std::optional<int64_t> best;
    for (const Fact &f : facts) {
      if ((f.predicate != CmpInst::ICMP_ULT && f.predicate != CmpInst::ICMP_ULE) ||
          !sameAtom(f.lhs.atom, x) || !sameAtom(f.rhs.atom, e))
        continue;
      // x + a < e + b  =>  x <= e + b - a - 1
      const int64_t u = f.rhs.offset - f.lhs.offset - (f.predicate == CmpInst::ICMP_ULT ? 1 : 0);
      if (!best || u < *best)
        best = u;
    }
    // x != e + u with x <= e + u, u <= 0: then x <= e + u - 1 (no other residue is in range).
    for (bool changed = best.has_value(); changed && *best <= 0;) {
      changed = false;
      for (const Fact &f : facts)
        if (f.predicate == CmpInst::ICMP_NE && differs(f, x, e, *best)) {
          --*best;
          changed = true;
        }
    }
    return best;
  }

  /// The greatest constant l with x >= l known (0 for any unsigned value).
  int64_t lowerBound(Value *x) const {
    int64_t best = 0;
    for (const Fact &f : facts) {
      if ((f.predicate != CmpInst::ICMP_ULT && f.predicate != CmpInst::ICMP_ULE) || f.lhs.atom ||
          !sameAtom(f.rhs.atom, x))
        continue;
      // c < x + b  =>  x >= c - b + 1
      const int64_t l = f.lhs.offset - f.rhs.offset + (f.predicate == CmpInst::ICMP_ULT ? 1 : 0);
      best = std::max(best, l);
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (const Fact &f : facts)
        if (f.predicate == CmpInst::ICMP_NE && differs(f, x, nullptr, best)) {
          ++best;
          changed = true;
        }
    }
    return best;
  }

  /// Pairs (a, b) with s == a * b exactly (a mul nuw, or an equality with one).
  SmallVector<std::pair<Value *, Value *>, 2> factorizations(Value *s) const {
    SmallVector<std::pair<Value *, Value *>, 2> result;
    auto addProduct = [&](Value *v) {
      Value *a, *b;
      if (match(v, m_NUWMul(m_Value(a), m_Value(b))))
        result.push_back({a, b});
    };
    addProduct(s);
    for (auto [l, r] : equalities) {
      if (sameValue(l, s))
        addProduct(r);
      if (sameValue(r, s))
        addProduct(l);
    }
    return result;
  }

private:
  /// `bitcast (icmp eq <N x iK> a, b) to iN == 0`: every lane differs (how SLP vectorisation
  /// writes `x == 0 || y == 0 || x == w - 1 || y == h - 1`); icmp ne lanes give equalities.
  bool addVectorTest(ICmpInst *cmp, bool truth) {
    Value *lanes;
    if (!match(cmp->getOperand(1), m_Zero()) || !match(cmp->getOperand(0), m_BitCast(m_Value(lanes))))
      return false;
    auto *vectorCmp = dyn_cast<ICmpInst>(lanes);
    auto *type = vectorCmp ? dyn_cast<FixedVectorType>(vectorCmp->getOperand(0)->getType()) : nullptr;
    if (!type)
      return false;
    // Known: no lane is true.
    const bool noneTrue = (cmp->getPredicate() == CmpInst::ICMP_EQ && truth) ||
                          (cmp->getPredicate() == CmpInst::ICMP_NE && !truth);
    if (!noneTrue)
      return true;
    CmpInst::Predicate lanePredicate;
    if (vectorCmp->getPredicate() == CmpInst::ICMP_EQ)
      lanePredicate = CmpInst::ICMP_NE;
    else if (vectorCmp->getPredicate() == CmpInst::ICMP_NE)
      lanePredicate = CmpInst::ICMP_EQ;
    else
      return true;
    for (int lane = 0; lane < static_cast<int>(type->getNumElements()); ++lane) {
      auto lhs = laneAffine(vectorCmp->getOperand(0), lane), rhs = laneAffine(vectorCmp->getOperand(1), lane);
      if (lhs && rhs)
        facts.push_back({lanePredicate, *lhs, *rhs});
    }
    return true;
  }

  /// Whether fact f (an inequality) says x != e + u (e null: x != u).
  static bool differs(const Fact &f, Value *x, Value *e, int64_t u) {
    auto matches = [&](const Affine &xs, const Affine &es) {
      if (!sameAtom(xs.atom, x))
        return false;
      if (e ? !sameAtom(es.atom, e) : es.atom != nullptr)
        return false;
      return es.offset - xs.offset == u; // x + a != e + b  <=>  x != e + (b - a)
    };
    return matches(f.lhs, f.rhs) || matches(f.rhs, f.lhs);
  }

  SmallVector<Fact, 16> facts;
  SmallVector<std::pair<Value *, Value *>, 4> equalities;
};

/// Whether 0 <= v <= bound - 1 follows from the facts.
bool withinExtent(const Affine &v, Value *bound, const Facts &facts) {
  if (!v.atom)
    return v.offset >= 0 && facts.lowerBound(bound) >= v.offset + 1;
  if (v.offset < 0 && facts.lowerBound(v.atom) < -v.offset)
    return false;
  std::optional<int64_t> gap = facts.upperGap(v.atom, bound);
  return gap && *gap <= -1 - v.offset;
}

/// `l` as atom + constant, if it is one (coefficient 1, no products).
std::optional<Affine> singleAtom(const Linear &l) {
  if (!l.products.empty() || l.terms.size() > 1 || (l.terms.size() == 1 && l.terms[0].coefficient != 1))
    return std::nullopt;
  return Affine{l.terms.empty() ? nullptr : l.terms[0].atom, l.constant};
}

/// Whether index <u size holds, by the argument at the top of this file.
bool provablyBelow(Value *index, Value *size, const Facts &facts) {
  std::optional<Linear> form = linearize(index);
  if (!form)
    return false;
  // A column below its row's length: the facts bound the index itself (a loop's induction
  // variable, which LLVM's own passes do not bound by the loop's test).
  if (std::optional<Affine> plain = singleAtom(*form); plain && plain->atom)
    return withinExtent(*plain, size, facts);
  if (form->products.size() != 1 || form->products[0].coefficient != 1)
    return false;
  const Linear::Product product = form->products[0];
  for (auto [a, b] : facts.factorizations(size)) {
    for (auto [row, rows] : {std::pair{a, b}, std::pair{b, a}}) {
      // index == k * row + (rest), k the other factor of the product.
      Value *k = sameValue(product.p, row) ? product.q : sameValue(product.q, row) ? product.p : nullptr;
      if (!k)
        continue;
      Linear rest;
      rest.constant = form->constant;
      int64_t rowMultiple = 0;
      for (const Linear::Term &t : form->terms) {
        if (sameValue(t.atom, row))
          rowMultiple += t.coefficient;
        else
          rest.terms.push_back(t);
      }
      std::optional<Linear> kForm = linearize(k);
      if (!kForm)
        continue;
      std::optional<Affine> kAffine = singleAtom(*kForm), restAffine = singleAtom(rest);
      int64_t kOffset;
      if (!kAffine || !restAffine || AddOverflow(kAffine->offset, rowMultiple, kOffset))
        continue;
      kAffine->offset = kOffset;
      if (withinExtent(*kAffine, rows, facts) && withinExtent(*restAffine, row, facts))
        return true;
    }
  }
  return false;
}

/// Adds the facts that the branches dominating `block` establish (the conditions of the edges
/// that dominate it), and with `edgeTo` also the condition of the edge block -> edgeTo.
void addBranchFacts(Facts &facts, BasicBlock *block, BasicBlock *edgeTo, DominatorTree &dominators) {
  if (edgeTo)
    if (auto *branch = dyn_cast<BranchInst>(block->getTerminator());
        branch && branch->isConditional() && branch->getSuccessor(0) != branch->getSuccessor(1))
      facts.add(branch->getCondition(), branch->getSuccessor(0) == edgeTo);
  for (DomTreeNode *node = dominators.getNode(block); node; node = node->getIDom()) {
    auto *branch = dyn_cast<BranchInst>(node->getBlock()->getTerminator());
    if (!branch || !branch->isConditional() || branch->getSuccessor(0) == branch->getSuccessor(1) ||
        node->getBlock() == block)
      continue;
    for (unsigned s = 0; s < 2; ++s)
      if (dominators.dominates(BasicBlockEdge(node->getBlock(), branch->getSuccessor(s)), block))
        facts.add(branch->getCondition(), s == 0);
  }
}

/// The facts on the edge `from` -> `to`: the branches dominating `from`, the edge's own
/// condition, the assumptions dominating `from`'s end and (`depth` levels) the induction facts
/// of the phis on `from`'s dominator chain.
Facts edgeFacts(BasicBlock *from, BasicBlock *to, DominatorTree &dominators,
                ArrayRef<IntrinsicInst *> assumptions, unsigned depth);

/// `phi <u bound` when every incoming value is below `bound` on its edge: a loop's induction
/// variable whose start is tested before the loop and whose next value is tested at the latch
/// (the shape of every rotated loop `for (i = start; i < n; i += step)`). `bound` must dominate
/// the phi, so it is the same value on every edge and at the phi.
void addInductionFacts(Facts &facts, BasicBlock *block, DominatorTree &dominators,
                       ArrayRef<IntrinsicInst *> assumptions, unsigned depth) {
  for (PHINode &phi : block->phis()) {
    if (!phi.getType()->isIntegerTy() || phi.getNumIncomingValues() < 2 || phi.getNumIncomingValues() > 4)
      continue;
    SmallVector<Facts, 4> incoming;
    for (unsigned i = 0; i < phi.getNumIncomingValues(); ++i)
      incoming.push_back(edgeFacts(phi.getIncomingBlock(i), block, dominators, assumptions, depth));
    // The candidate bounds: those the first incoming value is known to be below.
    for (Value *bound : incoming.front().upperBoundsOf(phi.getIncomingValue(0))) {
      auto *defined = dyn_cast<Instruction>(bound);
      if (defined && !dominators.properlyDominates(defined->getParent(), block))
        continue;
      const bool everyEdge = llvm::all_of(llvm::seq(phi.getNumIncomingValues()), [&](unsigned i) {
        std::optional<Affine> value = affine(phi.getIncomingValue(i), /*modular=*/false);
        return value && withinExtent(*value, bound, incoming[i]);
      });
      if (everyEdge)
        facts.addBelow(&phi, bound);
    }
  }
}

Facts edgeFacts(BasicBlock *from, BasicBlock *to, DominatorTree &dominators,
                ArrayRef<IntrinsicInst *> assumptions, unsigned depth) {
  Facts facts;
  addBranchFacts(facts, from, to, dominators);
  for (IntrinsicInst *assume : assumptions)
    if (dominators.dominates(assume, from->getTerminator()))
      facts.add(assume->getArgOperand(0), true);
  if (depth > 0)
    for (DomTreeNode *node = dominators.getNode(from); node; node = node->getIDom())
      addInductionFacts(facts, node->getBlock(), dominators, assumptions, depth - 1);
  return facts;
}

/// The facts that hold at `at`: dominating branch conditions, assumptions, and the bounds of
/// the induction variables of the loops around it (two loops deep).
Facts factsAt(Instruction *at, DominatorTree &dominators, ArrayRef<IntrinsicInst *> assumptions) {
  Facts facts;
  addBranchFacts(facts, at->getParent(), nullptr, dominators);
  for (IntrinsicInst *assume : assumptions)
    if (dominators.dominates(assume, at))
      facts.add(assume->getArgOperand(0), true);
  for (DomTreeNode *node = dominators.getNode(at->getParent()); node; node = node->getIDom())
    addInductionFacts(facts, node->getBlock(), dominators, assumptions, /*depth=*/1);
  return facts;
}

} // namespace

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
    if (!provablyBelow(index, size, factsAt(cmp, dominators, assumptions)))
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
