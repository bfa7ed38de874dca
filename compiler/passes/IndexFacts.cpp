//===- IndexFacts.cpp - what bounds an index at a point of a function -----===//
//
// A bounds check `i <u S` is true when S == A * B (no overflow), i == k * A + r (mod 2^n),
// 0 <= k <= B - 1 and 0 <= r <= A - 1: then k * A + r lies in [0, A * B), so i is that number
// and below S. The facts about k and r are difference bounds between two values (x <u w,
// x != w - 1, y != 0), read from the branch conditions that dominate the check and from
// llvm.assume; everything is unsigned, as the values are. The same facts also bound a plain
// index (i <u S from i <u S on every edge into a loop), which LLVM leaves to the loop's test.
//
//===----------------------------------------------------------------------===//

#include "oxide/compiler/IndexFacts.h"
#include "IndexForms.h"

#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/Support/MathExtras.h"

using namespace llvm;
using namespace llvm::PatternMatch;
using oxide::index_facts::Affine;
using oxide::index_facts::Linear;
using oxide::index_facts::linearize;
using oxide::index_facts::sameValue;

namespace {

/// A known relation between two Affine values.
struct Fact {
  CmpInst::Predicate predicate; // ult, ule, eq or ne
  Affine lhs, rhs;
};

} // namespace

namespace oxide::index_facts {
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
    noteTileExtents(l, r);
    if (p == CmpInst::ICMP_EQ) // both directions, for the products below
      equalities.push_back({l, r});
  }

  /// Records x <u bound.
  void addBelow(Value *x, Value *bound) {
    facts.push_back({CmpInst::ICMP_ULT, {x, 0}, {stripZExt(bound), 0}});
  }

  /// Records x <=u bound.
  void addAtMost(Value *x, Value *bound) {
    facts.push_back({CmpInst::ICMP_ULE, {x, 0}, {stripZExt(bound), 0}});
  }

  /// The atoms e with x + k != e known.
  SmallVector<Value *, 2> differentFrom(Value *x, int64_t k) const {
    SmallVector<Value *, 2> result;
    for (const Fact &f : facts)
      if (f.predicate == CmpInst::ICMP_NE)
        for (auto [mine, other] : {std::pair{f.lhs, f.rhs}, std::pair{f.rhs, f.lhs}})
          if (other.atom && other.offset == 0 && mine.offset == k && sameAtom(mine.atom, x) &&
              !llvm::is_contained(result, other.atom))
            result.push_back(other.atom);
    return result;
  }

  /// Whether v <=u bound follows.
  bool atMost(const Affine &v, Value *bound) const {
    if (!v.atom)
      return v.offset >= 0 && (v.offset == 0 || lowerBound(bound) >= v.offset);
    if (v.offset < 0 && lowerBound(v.atom) < -v.offset)
      return false;
    std::optional<int64_t> gap = upperGap(v.atom, bound);
    return gap && *gap <= -v.offset;
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
    // x <= c and e >= l: x <= e + (c - l).
    if (e)
      if (std::optional<int64_t> c = upperConstant(x))
        if (const int64_t u = *c - lowerBound(e); !best || u < *best)
          best = u;
    // x == trunc X to N bits, X <= e + u with u <= 0 and e at most N bits wide: X fits in N
    // bits, so x is X (a loop counter kept in 64 bits and narrowed for its uses).
    if (auto *narrow = dyn_cast_or_null<TruncInst>(x);
        narrow && e && stripZExt(e)->getType()->isIntegerTy() &&
        stripZExt(e)->getType()->getIntegerBitWidth() <= narrow->getType()->getIntegerBitWidth())
      if (std::optional<int64_t> wide = upperGap(stripZExt(narrow->getOperand(0)), e);
          wide && *wide <= 0 && (!best || *wide < *best))
        best = wide;
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

  /// The least constant c with x <= c known, if any.
  std::optional<int64_t> upperConstant(Value *x) const {
    std::optional<int64_t> best;
    for (const Fact &f : facts)
      if ((f.predicate == CmpInst::ICMP_ULT || f.predicate == CmpInst::ICMP_ULE) && !f.rhs.atom &&
          sameAtom(f.lhs.atom, x)) {
        // x + a < b  =>  x <= b - a - 1
        const int64_t c = f.rhs.offset - f.lhs.offset - (f.predicate == CmpInst::ICMP_ULT ? 1 : 0);
        if (!best || c < *best)
          best = c;
      }
    if (std::optional<int64_t> c = constantValue(x); c && (!best || *c < *best))
      best = c;
    return best;
  }

  /// The value of x if an equality with a constant gives it (x + a == b with b >= a).
  std::optional<int64_t> constantValue(Value *x) const {
    for (const Fact &f : facts) {
      if (f.predicate != CmpInst::ICMP_EQ)
        continue;
      for (auto [mine, other] : {std::pair{f.lhs, f.rhs}, std::pair{f.rhs, f.lhs}})
        if (!other.atom && sameAtom(mine.atom, x) && other.offset >= mine.offset)
          return other.offset - mine.offset;
    }
    return std::nullopt;
  }

  /// Whether start + within + offset <u size follows from within + offset <u e, e the extent of a tile at
  /// `start` inside a span of `size` (see TileExtent): e > 0, so the tile is not past the last
  /// one and start < size, and within < min(size - start, tile).
  bool withinTile(Value *start, Value *within, int64_t offset, Value *size) const {
    for (const Fact &f : facts) {
      if (f.predicate != CmpInst::ICMP_ULT && f.predicate != CmpInst::ICMP_ULE &&
          f.predicate != CmpInst::ICMP_NE)
        continue;
      for (Value *extent : {f.lhs.atom, f.rhs.atom}) {
        std::optional<TileExtent> e = extent ? tileExtent(extent) : std::nullopt;
        std::optional<int64_t> gap = e ? upperGap(within, extent) : std::nullopt;
        if (gap && *gap <= -1 - offset && sameValue(e->start, start) && sameValue(e->size, size) &&
            notPast(*e))
          return true;
      }
    }
    return false;
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
    if (std::optional<int64_t> c = constantValue(x))
      best = std::max(best, *c);
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
  /// A tile's extent along one dimension inside its span, as oxide-to-nvvm computes it
  /// (DisjointGetLowering): 0 past the last tile, else min(extent - start, tile), with start =
  /// coordinate * tile. Read in the forms InstCombine leaves: `umin` or a select for the
  /// minimum, the test against the tile count inverted, ceil(extent / tile) as a shift and a
  /// remainder test.
  struct TileExtent {
    Value *notPast; ///< the condition that the tile is not past the last one...
    bool notPastIs; ///< ...when it is this
    Value *size, *start;
    uint64_t tile; ///< 0: not a constant (an append span's reservation count)
  };
  static std::optional<TileExtent> tileExtent(Value *v) {
    Value *c = nullptr, *inner = v, *left, *size, *start;
    // size - start itself (what `tile.full()` leaves of the minimum, `size - start > N - 1`), for
    // a start that is a coordinate times the tile.
    if (match(v, m_Sub(m_Value(size), m_Value(start)))) {
      const APInt *k;
      uint64_t tile = 0;
      if (match(start, m_Shl(m_Value(), m_APInt(k))) && k->ult(32))
        tile = uint64_t{1} << k->getZExtValue();
      else if (match(start, m_Mul(m_Value(), m_APInt(k))) && k->getActiveBits() <= 32)
        tile = k->getZExtValue();
      return TileExtent{nullptr, true, size, start, tile};
    }
    bool pastWhenTrue = false;
    // Without the select: where LLVM knows the tile is not past the last one (the test of
    // that stays among the facts).
    if (match(v, m_Select(m_Value(c), m_Value(inner), m_Zero())))
      pastWhenTrue = false;
    else if (match(v, m_Select(m_Value(c), m_Zero(), m_Value(inner))))
      pastWhenTrue = true;
    const APInt *tile = nullptr, *tile2;
    Value *limit;
    if (!match(inner, m_UMin(m_Value(left), m_APInt(tile))) &&
        !match(inner, m_Select(m_ICmp(m_Value(left), m_APInt(tile)), m_Deferred(left), m_APInt(tile2))) &&
        !match(inner, m_c_UMin(m_Sub(m_Value(), m_Value()), m_Value(limit))))
      return std::nullopt;
    if (!tile && !match(inner, m_c_UMin(m_Value(left), m_Specific(limit))))
      return std::nullopt;
    if (!match(left, m_Sub(m_Value(size), m_Value(start))) ||
        (tile && (tile->isZero() || tile->getActiveBits() > 32)))
      return std::nullopt;
    return TileExtent{c, !pastWhenTrue, size, start, tile ? tile->getZExtValue() : 0};
  }

  /// Remembers tile extents that a comparison names, for addTileFacts.
  void noteTileExtents(Value *l, Value *r) {
    for (Value *v : {l, r})
      if (!llvm::is_contained(tileExtents, v) && tileExtent(v))
        tileExtents.push_back(v);
  }

public:
  /// For each tile extent e known to be at least w + 1: the tile is not past the last one, so
  /// start < size, and then start + w < size, in exact arithmetic (w is the last element of an
  /// unrolled tile loop that the guards let through).
  void addTileFacts() {
    for (size_t i = 0; i < tileExtents.size(); ++i) { // add() may note more
      Value *v = tileExtents[i];
      const TileExtent e = *tileExtent(v);
      const int64_t least = lowerBound(v);
      if (least < 1)
        continue;
      if (e.notPast)
        add(e.notPast, e.notPastIs);
      if (!notPast(e))
        continue;
      auto first = affine(e.start, /*modular=*/false), bound = affine(e.size, /*modular=*/false);
      if (first && bound && first->atom && first->offset == 0 && bound->offset == 0)
        facts.push_back({CmpInst::ICMP_ULT, {first->atom, least - 1}, *bound});
    }
  }

private:
  /// Whether the tile of `e` is known not to be past the last one: by its own select's
  /// condition, or by a fact coordinate <u ceil(size / tile).
  bool notPast(const TileExtent &e) const {
    // start < size, known directly (an append span's reserved start).
    if (std::optional<int64_t> gap = upperGap(e.start, e.size); gap && *gap <= -1)
      return true;
    if (!e.tile)
      return false;
    if (e.notPast)
      return withinTileCount(e.notPast, e.notPastIs, e.size, e.start, e.tile);
    return llvm::any_of(facts, [&](const Fact &f) {
      return f.predicate == CmpInst::ICMP_ULT && f.lhs.atom && f.rhs.atom && f.lhs.offset == 0 &&
             f.rhs.offset == 0 && belowTileCount(f.lhs.atom, f.rhs.atom, e.size, e.start, e.tile);
    });
  }

  /// Whether `condition` being `truth` says coordinate <u ceil(size / tile) for start ==
  /// coordinate * tile (then start <u size).
  static bool withinTileCount(Value *condition, bool truth, Value *size, Value *start, uint64_t tile) {
    auto *cmp = dyn_cast<ICmpInst>(condition);
    if (!cmp)
      return false;
    CmpInst::Predicate p = truth ? cmp->getPredicate() : cmp->getInversePredicate();
    Value *coordinate = cmp->getOperand(0), *count = cmp->getOperand(1);
    if (p == CmpInst::ICMP_UGT)
      std::swap(coordinate, count), p = CmpInst::ICMP_ULT;
    return p == CmpInst::ICMP_ULT && belowTileCount(coordinate, count, size, start, tile);
  }

  /// Whether coordinate <u count says start <u size: start == coordinate * tile and count ==
  /// ceil(size / tile).
  static bool belowTileCount(Value *coordinate, Value *count, Value *size, Value *start, uint64_t tile) {
    // start == coordinate * tile
    const APInt *k;
    Value *x;
    const bool scaled = (match(start, m_Mul(m_Value(x), m_APInt(k))) && *k == tile) ||
                        (match(start, m_Shl(m_Value(x), m_APInt(k))) && k->ult(63) &&
                         (uint64_t{1} << k->getZExtValue()) == tile);
    if (!scaled || !sameValue(x, coordinate))
      return false;
    // count == size / tile + (size % tile != 0)
    Value *quotient, *remainder;
    if (!match(count, m_c_Add(m_Value(quotient), m_Value(remainder))))
      return false;
    const bool divides =
        (match(quotient, m_UDiv(m_Specific(size), m_SpecificInt(tile)))) ||
        (isPowerOf2_64(tile) && match(quotient, m_LShr(m_Specific(size), m_SpecificInt(Log2_64(tile)))));
    if (!divides)
      return false;
    Value *rest;
    if (match(remainder, m_ZExt(m_SpecificICmp(ICmpInst::ICMP_NE, m_Value(rest), m_Zero()))))
      return match(rest, m_URem(m_Specific(size), m_SpecificInt(tile))) ||
             (isPowerOf2_64(tile) && match(rest, m_And(m_Specific(size), m_SpecificInt(tile - 1))));
    return tile == 2 && match(remainder, m_And(m_Specific(size), m_One()));
  }

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
  SmallVector<Value *, 2> tileExtents;
};
} // namespace oxide::index_facts

using oxide::index_facts::Facts;

namespace {

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
/// Whether the exact sum `l` lies in [0, bound): one value plus a constant, or a tile's start
/// plus a position inside the tile.
bool linearWithin(const Linear &l, Value *bound, const Facts &facts) {
  if (std::optional<Affine> plain = singleAtom(l); plain && (plain->atom || bound))
    return withinExtent(*plain, bound, facts);
  if (!bound || !l.products.empty() || l.constant < 0 || l.terms.size() != 2 || l.terms[0].coefficient != 1 ||
      l.terms[1].coefficient != 1)
    return false;
  Value *a = l.terms[0].atom, *b = l.terms[1].atom;
  return facts.withinTile(a, b, l.constant, bound) || facts.withinTile(b, a, l.constant, bound);
}

/// `index` as k * row + rest, for the one product of `index` that has `row` as a factor: k's
/// form (with the multiples of `row` among the terms) and the rest.
std::optional<std::pair<Linear, Linear>> splitRow(const Linear &index, Value *row) {
  if (index.products.size() != 1 || index.products[0].coefficient != 1)
    return std::nullopt;
  const Linear::Product product = index.products[0];
  Value *k = sameValue(product.p, row) ? product.q : sameValue(product.q, row) ? product.p : nullptr;
  std::optional<Linear> kForm = k ? linearize(k) : std::nullopt;
  if (!kForm)
    return std::nullopt;
  Linear rest;
  rest.constant = index.constant;
  for (const Linear::Term &t : index.terms) {
    if (sameValue(t.atom, row)) {
      if (AddOverflow(kForm->constant, t.coefficient, kForm->constant))
        return std::nullopt;
    } else {
      rest.terms.push_back(t);
    }
  }
  return std::pair{*kForm, rest};
}

/// Whether index <u size holds, by the argument at the top of this file; with `restKnown`, the
/// caller knows the part of a row-major index below the first factor's extent.
bool provablyBelow(const Linear &index, Value *size, const Facts &facts,
                   ArrayRef<std::pair<Value *, Value *>> factorizations, bool restKnown = false) {
  // A column below its row's length: the facts bound the index itself (a loop's induction
  // variable, which LLVM's own passes do not bound by the loop's test).
  if (linearWithin(index, size, facts))
    return true;
  for (auto [a, b] : factorizations)
    for (auto [row, rows] : {std::pair{a, b}, std::pair{b, a}}) {
      // A rest known below the width fixes which factor is the row's length.
      if (restKnown && row != a)
        continue;
      // Below one factor, the other at least 1: below their product (the first row).
      if (!restKnown && facts.lowerBound(rows) >= 1 && linearWithin(index, row, facts))
        return true;
      if (auto split = splitRow(index, row); split && linearWithin(split->first, rows, facts) &&
                                             (restKnown || linearWithin(split->second, row, facts)))
        return true;
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

/// The bounds a block's phis are known to satisfy by induction (phi <u bound, or <=u).
struct PhiBound {
  PHINode *phi;
  Value *bound;
  bool strict;
};

} // namespace

namespace oxide::index_facts {
/// What FunctionFacts gathers once: the facts of each edge into a block with phis (its branches,
/// edge condition, assumptions and tiles) and the bounds of each block's phis. Every point a
/// prover asks about shares them, so its facts cost one walk up its dominators.
struct FunctionFacts::Cache {
  Cache(DominatorTree &dominators, ArrayRef<IntrinsicInst *> assumptions)
      : dominators(dominators), assumptions(assumptions) {}

  DominatorTree &dominators;
  SmallVector<IntrinsicInst *, 8> assumptions;
  DenseMap<std::pair<BasicBlock *, BasicBlock *>, std::unique_ptr<Facts>> edges;
  DenseMap<BasicBlock *, SmallVector<PhiBound, 2>> phiBounds;

  /// The facts on the edge `from` -> `to`: the branches dominating `from`, the edge's own
  /// condition and the assumptions dominating `from`'s end.
  const Facts &edge(BasicBlock *from, BasicBlock *to) {
    std::unique_ptr<Facts> &known = edges[{from, to}];
    if (!known) {
      known = std::make_unique<Facts>();
      addBranchFacts(*known, from, to, dominators);
      for (IntrinsicInst *assume : assumptions)
        if (dominators.dominates(assume, from->getTerminator()))
          known->add(assume->getArgOperand(0), true);
      known->addTileFacts();
    }
    return *known;
  }

  /// `phi <u bound` when every incoming value is below `bound` on its edge: a loop's induction
  /// variable whose start is tested before the loop and whose next value is tested at the latch
  /// (the shape of every rotated loop `for (i = start; i < n; i += step)`). `bound` must
  /// dominate the phi, so it is the same value on every edge and at the phi.
  ArrayRef<PhiBound> boundsOfPhis(BasicBlock *block) {
    if (auto known = phiBounds.find(block); known != phiBounds.end())
      return known->second;
    SmallVector<PhiBound, 2> bounds;
    for (PHINode &phi : block->phis()) {
      if (!phi.getType()->isIntegerTy() || phi.getNumIncomingValues() < 2 || phi.getNumIncomingValues() > 4)
        continue;
      SmallVector<const Facts *, 4> incoming;
      for (unsigned i = 0; i < phi.getNumIncomingValues(); ++i)
        incoming.push_back(&edge(phi.getIncomingBlock(i), block));
      // The candidate bounds: those the first incoming value is known to be below.
      for (Value *bound : incoming.front()->upperBoundsOf(phi.getIncomingValue(0))) {
        auto *defined = dyn_cast<Instruction>(bound);
        if (defined && !dominators.properlyDominates(defined->getParent(), block))
          continue;
        const bool everyEdge = llvm::all_of(llvm::seq(phi.getNumIncomingValues()), [&](unsigned i) {
          std::optional<Affine> value = affine(phi.getIncomingValue(i), /*modular=*/false);
          return value && withinExtent(*value, bound, *incoming[i]);
        });
        if (everyEdge)
          bounds.push_back({&phi, bound, /*strict=*/true});
      }
      // Counters that step by one, by induction over the iterations (the forms LLVM gives a test
      // `i < n` of each iteration once it knows i never passes n):
      //  - phi starts at most n and steps only where phi != n is known: phi <= n (phi < n, so
      //    phi + 1 <= n);
      //  - phi starts below n and steps only where phi + 1 != n is known: phi < n (phi + 1 <= n).
      if (phi.getNumIncomingValues() != 2)
        continue;
      for (unsigned step : {0u, 1u}) {
        Value *next = phi.getIncomingValue(step);
        std::optional<Affine> first = affine(phi.getIncomingValue(1 - step), /*modular=*/false);
        if (!first || !match(next, m_Add(m_Specific(&phi), m_One())))
          continue;
        auto invariant = [&](Value *bound) {
          auto *defined = dyn_cast<Instruction>(bound);
          return !defined || dominators.properlyDominates(defined->getParent(), block);
        };
        for (Value *bound : incoming[step]->differentFrom(&phi, 0))
          if (invariant(bound) && incoming[1 - step]->atMost(*first, bound))
            bounds.push_back({&phi, bound, /*strict=*/false});
        for (Value *bound : incoming[step]->differentFrom(&phi, 1))
          if (invariant(bound) && withinExtent(*first, bound, *incoming[1 - step]))
            bounds.push_back({&phi, bound, /*strict=*/true});
      }
    }
    return phiBounds[block] = std::move(bounds);
  }

  /// The facts that hold at `at`: dominating branch conditions, assumptions, and the bounds of
  /// the induction variables of the loops around it.
  Facts at(Instruction *at) {
    Facts facts;
    addBranchFacts(facts, at->getParent(), nullptr, dominators);
    for (IntrinsicInst *assume : assumptions)
      if (dominators.dominates(assume, at))
        facts.add(assume->getArgOperand(0), true);
    for (DomTreeNode *node = dominators.getNode(at->getParent()); node; node = node->getIDom())
      for (const PhiBound &b : boundsOfPhis(node->getBlock())) {
        if (b.strict)
          facts.addBelow(b.phi, b.bound);
        else
          facts.addAtMost(b.phi, b.bound);
      }
    facts.addTileFacts();
    return facts;
  }
};

FunctionFacts::FunctionFacts(DominatorTree &dominators, ArrayRef<IntrinsicInst *> assumptions)
    : cache(std::make_unique<Cache>(dominators, assumptions)) {}
FunctionFacts::~FunctionFacts() = default;

IndexFacts FunctionFacts::at(Instruction *at) { return IndexFacts(std::make_unique<Facts>(cache->at(at))); }

IndexFacts::IndexFacts(std::unique_ptr<Facts> facts) : facts(std::move(facts)) {}
IndexFacts::IndexFacts(IndexFacts &&) noexcept = default;
IndexFacts &IndexFacts::operator=(IndexFacts &&) noexcept = default;
IndexFacts::~IndexFacts() = default;

bool IndexFacts::below(const Linear &index, Value *size) const {
  return provablyBelow(index, size, *facts, facts->factorizations(size));
}

bool IndexFacts::below(Value *index, Value *size) const {
  std::optional<Linear> form = linearize(index);
  return form && below(*form, size);
}

bool IndexFacts::belowProduct(const Linear &index, Value *a, Value *b) const {
  const std::pair<Value *, Value *> product{a, b};
  return provablyBelow(index, nullptr, *facts, product);
}

bool IndexFacts::belowProduct(const Linear &index, Value *width, Value *height, Value *depth) const {
  // index == k * width + rest, rest < width and k < height * depth (k row-major in height x depth)
  const std::pair<Value *, Value *> plane{height, depth};
  auto split = splitRow(index, width);
  return split && linearWithin(split->second, width, *facts) &&
         provablyBelow(split->first, nullptr, *facts, plane);
}

bool IndexFacts::rowBelow(const Linear &index, Value *width, Value *height) const {
  const std::pair<Value *, Value *> product{width, height};
  return provablyBelow(index, nullptr, *facts, product, /*restKnown=*/true);
}

} // namespace oxide::index_facts
