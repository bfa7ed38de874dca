//===- Bounds.cpp - whether an access stays inside its root ---------------===//
//
// By constant offsets from a root of known size (an alloca, a shared array, a heap block of
// constant size, a global, a byval copy), or, for a device global, by the upper bounds that
// masks, remainders and dominating bounds checks give the variable indices of its GEPs.
//
//===----------------------------------------------------------------------===//

#include "WriteProofImpl.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace oxide::writeproof;

bool Bounds::dependsOnCaller(Value value) {
  llvm::DenseSet<Value> seen;
  SmallVector<Value> work = {value};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Block *block = arg.getOwner();
      if (block->isEntryBlock())
        return true;
      for (Block *pred : block->getPredecessors()) {
        auto branch = dyn_cast<BranchOpInterface>(pred->getTerminator());
        if (!branch)
          return true;
        for (unsigned s = 0; s < branch->getNumSuccessors(); ++s)
          if (branch->getSuccessor(s) == block) {
            Value incoming = branch.getSuccessorOperands(s)[arg.getArgNumber()];
            if (!incoming)
              return true;
            work.push_back(incoming);
          }
      }
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (isa<LLVM::GEPOp, LLVM::BitcastOp, LLVM::AddrSpaceCastOp, LLVM::PtrMaskOp>(def))
      work.push_back(def->getOperand(0));
    else if (auto select = dyn_cast<LLVM::SelectOp>(def))
      work.append({select.getTrueValue(), select.getFalseValue()});
    else if (!isa<LLVM::AllocaOp, oxide::SharedAllocOp, oxide::DynamicSharedOp, LLVM::AddressOfOp>(def))
      return true;
  }
  return false;
}

/// The size in bytes of the memory `root` names, where it is a constant.
std::optional<int64_t> Bounds::rootBytes(const Root &root) const {
  const DataLayout &layout = code.layout;
  if (auto alloca = root.source.getDefiningOp<LLVM::AllocaOp>()) {
    APInt count;
    if (matchPattern(alloca.getArraySize(), m_ConstantInt(&count)))
      return count.getSExtValue() *
             static_cast<int64_t>(layout.getTypeSize(alloca.getElemType()).getFixedValue());
  } else if (auto malloc = root.source.getDefiningOp<LLVM::CallOp>(); malloc && root.kind == RootKind::Heap) {
    if (!malloc.getArgOperands().empty())
      return constantLength(malloc.getArgOperands()[0]);
  } else if (auto shared = root.source.getDefiningOp<oxide::SharedAllocOp>()) {
    return shared.getBytes();
  } else if (auto remote = root.source.getDefiningOp<oxide::MapSharedOp>()) {
    if (auto mapped = remote.getPtr().getDefiningOp<oxide::SharedAllocOp>())
      return mapped.getBytes(); // the same variable in another block
  } else if (auto global = root.source.getDefiningOp<LLVM::AddressOfOp>()) {
    if (auto var = code.symbols.lookup<LLVM::GlobalOp>(global.getGlobalName()))
      return layout.getTypeSize(var.getGlobalType()).getFixedValue();
  } else if (auto arg = dyn_cast<BlockArgument>(root.source); arg && isByval(arg)) {
    auto fn = cast<LLVMFuncOp>(arg.getOwner()->getParentOp());
    auto type = cast<TypeAttr>(fn.getArgAttr(arg.getArgNumber(), LLVM::LLVMDialect::getByValAttrName()));
    return layout.getTypeSize(type.getValue()).getFixedValue();
  }
  return std::nullopt;
}

bool Bounds::provenInside(Value address, const Root &root, std::optional<int64_t> size) const {
  if (!size)
    return false;
  Offset offset = offsets.offsetFrom(address, root.source);
  if (offset.state != Offset::Known || offset.bytes < 0)
    return false;
  std::optional<int64_t> bytes = rootBytes(root);
  return bytes && offset.bytes + *size <= *bytes;
}

bool Bounds::provenInsideByBounds(Operation *op, Value address, const Root &root,
                                  std::optional<int64_t> size) {
  auto global = root.source.getDefiningOp<LLVM::AddressOfOp>();
  auto var = global ? code.symbols.lookup<LLVM::GlobalOp>(global.getGlobalName()) : nullptr;
  if (!size || !var)
    return false;
  const int64_t bytes = code.layout.getTypeSize(var.getGlobalType()).getFixedValue();
  int64_t low = 0, high = 0; // the offset's range: low + [0, high - low]
  for (Value v = address; v != root.source;) {
    Operation *def = v.getDefiningOp();
    if (isa_and_nonnull<LLVM::BitcastOp, LLVM::AddrSpaceCastOp>(def)) {
      v = def->getOperand(0);
      continue;
    }
    auto gep = dyn_cast_or_null<LLVM::GEPOp>(def);
    if (!gep || !addGepRange(op, gep, bytes, low, high))
      return false;
    v = gep.getBase();
    if (low < -bytes || high > bytes)
      return false;
  }
  return low >= 0 && high + *size <= bytes;
}

/// Adds the range of the byte offset `gep` adds to [low, high], its variable indices bounded
/// where `op` runs; false when an index has no bound (or a field is not constant).
bool Bounds::addGepRange(Operation *op, LLVM::GEPOp gep, int64_t bytes, int64_t &low, int64_t &high) {
  const DataLayout &layout = code.layout;
  Type type = gep.getElemType();
  bool first = true;
  for (auto index : gep.getIndices()) {
    std::optional<int64_t> fixed;
    if (auto attr = llvm::dyn_cast_if_present<IntegerAttr>(index))
      fixed = attr.getInt();
    else if (APInt c;
             matchPattern(llvm::cast<Value>(index), m_ConstantInt(&c)) && c.getSignificantBits() <= 32)
      fixed = c.getSExtValue();
    Type step = type;
    if (!first) {
      if (auto s = dyn_cast<LLVM::LLVMStructType>(type)) {
        if (!fixed || *fixed < 0 || static_cast<size_t>(*fixed) >= s.getBody().size())
          return false;
        int64_t field = 0;
        for (int64_t f = 0; f <= *fixed; ++f) {
          Type member = s.getBody()[f];
          if (!s.isPacked())
            field = llvm::alignTo(field, layout.getTypeABIAlignment(member));
          if (f < *fixed)
            field += layout.getTypeSize(member).getFixedValue();
        }
        low += field, high += field;
        type = s.getBody()[*fixed];
        continue;
      }
      if (auto a = dyn_cast<LLVM::LLVMArrayType>(type))
        step = type = a.getElementType();
      else
        return false;
    }
    first = false;
    const int64_t scale = layout.getTypeSize(step).getFixedValue();
    int64_t added;
    if (fixed) {
      if (llvm::MulOverflow(*fixed, scale, added) || llvm::AddOverflow(low, added, low) ||
          llvm::AddOverflow(high, added, high))
        return false;
      continue;
    }
    // A GEP sign-extends its index: the bound must keep it non-negative.
    Value dynamic = llvm::cast<Value>(index);
    std::optional<uint64_t> bound = upperBound(dynamic, op);
    const unsigned width = dynamic.getType().getIntOrFloatBitWidth();
    if (!bound || *bound > static_cast<uint64_t>(bytes) || (width < 64 && *bound >> (width - 1)) ||
        llvm::MulOverflow(static_cast<int64_t>(*bound), scale, added) || llvm::AddOverflow(high, added, high))
      return false;
  }
  return true;
}

/// An unsigned upper bound of integer `value` where `at` runs: a constant, `x & C`, `x urem C`,
/// a zero extension, or a value that a branch dominating `at` compared with a constant (a
/// bounds check whose failing side does not reach `at`).
std::optional<uint64_t> Bounds::upperBound(Value value, Operation *at, unsigned depth) {
  if (depth > 8 || !isa<IntegerType>(value.getType()))
    return std::nullopt;
  if (APInt c; matchPattern(value, m_ConstantInt(&c)))
    return c.getActiveBits() <= 63 ? std::optional<uint64_t>(c.getZExtValue()) : std::nullopt;
  std::optional<uint64_t> best;
  auto tighten = [&](std::optional<uint64_t> b) {
    if (b && (!best || *b < *best))
      best = b;
  };
  Operation *def = value.getDefiningOp();
  if (auto zext = dyn_cast_or_null<LLVM::ZExtOp>(def))
    tighten(upperBound(zext.getArg(), at, depth + 1));
  if (auto mask = dyn_cast_or_null<LLVM::AndOp>(def)) {
    tighten(upperBound(mask.getLhs(), at, depth + 1));
    tighten(upperBound(mask.getRhs(), at, depth + 1));
  }
  if (isa_and_nonnull<LLVM::AddOp, LLVM::OrOp>(def)) { // x | y <= x + y; no wrap below half the width
    std::optional<uint64_t> a = upperBound(def->getOperand(0), at, depth + 1);
    std::optional<uint64_t> b = upperBound(def->getOperand(1), at, depth + 1);
    const unsigned width = value.getType().getIntOrFloatBitWidth();
    if (a && b && width >= 2 && *a < (uint64_t(1) << (std::min(width, 62u) - 2)) &&
        *b < (uint64_t(1) << (std::min(width, 62u) - 2)))
      tighten(*a + *b);
  }
  if (auto rem = dyn_cast_or_null<LLVM::URemOp>(def))
    if (APInt c; matchPattern(rem.getRhs(), m_ConstantInt(&c)) && !c.isZero() && c.getActiveBits() <= 63)
      tighten(c.getZExtValue() - 1);
  tightenByBranches(value, at, best);
  return best;
}

/// Tightens `best` by the comparisons of `value` with constants whose branch dominates `at` on
/// the side where the value is in bounds.
void Bounds::tightenByBranches(Value value, Operation *at, std::optional<uint64_t> &best) {
  llvm::SmallDenseSet<uint64_t, 4> excluded; // values a dominating `!=` rules out
  for (Operation *user : value.getUsers()) {
    auto cmp = dyn_cast<LLVM::ICmpOp>(user);
    APInt c;
    if (!cmp || cmp.getLhs() != value || !matchPattern(cmp.getRhs(), m_ConstantInt(&c)) ||
        c.getActiveBits() > 63)
      continue;
    const uint64_t k = c.getZExtValue();
    // Which side of the branch has value <= bound.
    std::optional<std::pair<bool, uint64_t>> side;
    switch (cmp.getPredicate()) {
    case LLVM::ICmpPredicate::ugt:
      side = {false, k};
      break;
    case LLVM::ICmpPredicate::uge:
      if (k > 0)
        side = {false, k - 1};
      break;
    case LLVM::ICmpPredicate::ult:
      if (k > 0)
        side = {true, k - 1};
      break;
    case LLVM::ICmpPredicate::ule:
      side = {true, k};
      break;
    case LLVM::ICmpPredicate::eq:
    case LLVM::ICmpPredicate::ne:
      side = {cmp.getPredicate() == LLVM::ICmpPredicate::ne, k}; // value != k on this side
      break;
    default:
      break;
    }
    if (!side)
      continue;
    const bool exclusion =
        cmp.getPredicate() == LLVM::ICmpPredicate::eq || cmp.getPredicate() == LLVM::ICmpPredicate::ne;
    for (Operation *branchUser : cmp->getUsers()) {
      auto branch = dyn_cast<LLVM::CondBrOp>(branchUser);
      if (!branch || branch.getCondition() != cmp.getResult() ||
          branch.getTrueDest() == branch.getFalseDest())
        continue;
      Block *taken = side->first ? branch.getTrueDest() : branch.getFalseDest();
      if (taken->getSinglePredecessor() != branch->getBlock() || !dominance.dominates(taken, at->getBlock()))
        continue;
      if (exclusion)
        excluded.insert(side->second);
      else if (!best || side->second < *best)
        best = side->second;
    }
  }
  // `v < 17` then `v != 16` (how LLVM writes a nested `v <= 15`) bounds v by 15.
  while (best && *best > 0 && excluded.contains(*best))
    best = *best - 1;
}
