//===- PointerOffsets.cpp - where a pointer points inside its root --------===//
//
// Constant byte offsets of pointers from the roots they point into (through GEPs, casts,
// selects, phis, helper arguments and helper returns), and the kernel-parameter fields that
// values were loaded from (a span's data pointer and extents).
//
//===----------------------------------------------------------------------===//

#include "WriteProofImpl.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"

using namespace mlir;
using namespace oxide::writeproof;

namespace {

Offset merge(Offset a, Offset b) {
  if (a.state == Offset::NotDerived)
    return b;
  if (b.state == Offset::NotDerived)
    return a;
  if (a.state == Offset::Known && b.state == Offset::Known && a.bytes == b.bytes)
    return a;
  return {Offset::Unknown};
}

} // namespace

std::optional<int64_t> PointerOffsets::constantGepOffset(LLVM::GEPOp gep) const {
  const DataLayout &layout = code.layout;
  int64_t offset = 0;
  Type type = gep.getElemType();
  bool first = true;
  for (auto index : gep.getIndices()) {
    int64_t i;
    if (auto attr = llvm::dyn_cast_if_present<IntegerAttr>(index)) {
      i = attr.getInt();
    } else {
      APInt value;
      if (!matchPattern(llvm::cast<Value>(index), m_ConstantInt(&value)) || value.getSignificantBits() > 63)
        return std::nullopt;
      i = value.getSExtValue();
    }
    if (first) {
      offset += i * static_cast<int64_t>(layout.getTypeSize(type).getFixedValue());
      first = false;
      continue;
    }
    if (auto s = dyn_cast<LLVM::LLVMStructType>(type)) {
      if (i < 0 || static_cast<size_t>(i) >= s.getBody().size())
        return std::nullopt;
      int64_t field = 0;
      for (int64_t f = 0; f <= i; ++f) {
        Type member = s.getBody()[f];
        if (!s.isPacked())
          field = llvm::alignTo(field, layout.getTypeABIAlignment(member));
        if (f < i)
          field += layout.getTypeSize(member).getFixedValue();
      }
      offset += field;
      type = s.getBody()[i];
    } else if (auto a = dyn_cast<LLVM::LLVMArrayType>(type)) {
      type = a.getElementType();
      offset += i * static_cast<int64_t>(layout.getTypeSize(type).getFixedValue());
    } else if (auto v = dyn_cast<VectorType>(type)) {
      type = v.getElementType();
      offset += i * static_cast<int64_t>(layout.getTypeSize(type).getFixedValue());
    } else {
      return std::nullopt;
    }
  }
  return offset;
}

bool PointerOffsets::derivedFrom(Value value, Value origin) const {
  return llvm::any_of(roots.rootsOf(value), [&](const Root &r) { return r.source == origin; });
}

Offset PointerOffsets::offsetFrom(Value value, Value origin) const {
  llvm::DenseSet<Value> visiting;
  return offsetFrom(value, origin, visiting, 0);
}

Offset PointerOffsets::offsetFrom(Value value, Value origin, llvm::DenseSet<Value> &visiting,
                                  unsigned depth) const {
  if (value == origin)
    return {Offset::Known, 0};
  if (!derivedFrom(value, origin))
    return {Offset::NotDerived};
  if (depth > 256 || !visiting.insert(value).second)
    return {Offset::Unknown};
  Operation *def = value.getDefiningOp();
  if (auto extract = dyn_cast_or_null<LLVM::ExtractValueOp>(def))
    return fieldOffsetFrom(extract.getContainer(), extract.getPosition(), origin, visiting, depth + 1);
  if (auto gep = dyn_cast_or_null<LLVM::GEPOp>(def)) {
    Offset base = offsetFrom(gep.getBase(), origin, visiting, depth + 1);
    std::optional<int64_t> step = constantGepOffset(gep);
    if (base.state != Offset::Known)
      return base;
    return step ? Offset{Offset::Known, base.bytes + *step} : Offset{Offset::Unknown};
  }
  if (isa_and_nonnull<LLVM::BitcastOp, LLVM::AddrSpaceCastOp>(def))
    return offsetFrom(def->getOperand(0), origin, visiting, depth + 1);
  if (auto select = dyn_cast_or_null<LLVM::SelectOp>(def))
    return merge(offsetFrom(select.getTrueValue(), origin, visiting, depth + 1),
                 offsetFrom(select.getFalseValue(), origin, visiting, depth + 1));
  // A helper that is not inlined and returns the element pointer (get_mut's result, or null):
  // the offset of each value it returns.
  if (auto call = dyn_cast_or_null<LLVM::CallOp>(def); call && call.getCalleeAttr()) {
    auto fn = code.symbols.lookup<LLVMFuncOp>(call.getCalleeAttr().getValue());
    if (!fn || fn.isExternal() || !code.checked.contains(fn))
      return {Offset::Unknown};
    Offset result{Offset::NotDerived};
    fn.walk([&](LLVM::ReturnOp ret) {
      if (ret.getArg())
        result = merge(result, offsetFrom(ret.getArg(), origin, visiting, depth + 1));
    });
    return result;
  }
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg)
    return {Offset::Unknown};
  return offsetFromArgument(arg, origin, visiting, depth);
}

/// The offset of a block argument: the same at every call site (a function's) or every
/// predecessor (a phi's).
Offset PointerOffsets::offsetFromArgument(BlockArgument arg, Value origin, llvm::DenseSet<Value> &visiting,
                                          unsigned depth) const {
  Block *block = arg.getOwner();
  Offset result{Offset::NotDerived};
  if (block->isEntryBlock()) {
    auto fn = dyn_cast<LLVMFuncOp>(block->getParentOp());
    auto it = fn ? code.callers.find(fn) : code.callers.end();
    if (it == code.callers.end())
      return {Offset::Unknown};
    for (LLVM::CallOp call : it->second)
      result =
          merge(result, offsetFrom(call.getArgOperands()[arg.getArgNumber()], origin, visiting, depth + 1));
    return result;
  }
  for (Block *pred : block->getPredecessors()) {
    auto branch = dyn_cast<BranchOpInterface>(pred->getTerminator());
    if (!branch)
      return {Offset::Unknown};
    for (unsigned s = 0; s < branch->getNumSuccessors(); ++s)
      if (branch->getSuccessor(s) == block) {
        Value incoming = branch.getSuccessorOperands(s)[arg.getArgNumber()];
        if (!incoming)
          return {Offset::Unknown};
        result = merge(result, offsetFrom(incoming, origin, visiting, depth + 1));
      }
  }
  return result;
}

/// Where the pointer at `position` of aggregate `aggregate` points relative to `origin`: the
/// value an insert put there, or what each return of the called function has there (a helper
/// that returns a struct holding a pointer, such as AtomicSpan::operator[] when not inlined).
Offset PointerOffsets::fieldOffsetFrom(Value aggregate, ArrayRef<int64_t> position, Value origin,
                                       llvm::DenseSet<Value> &visiting, unsigned depth) const {
  if (!derivedFrom(aggregate, origin))
    return {Offset::NotDerived};
  if (depth > 256)
    return {Offset::Unknown};
  Operation *def = aggregate.getDefiningOp();
  if (auto insert = dyn_cast_or_null<LLVM::InsertValueOp>(def)) {
    ArrayRef<int64_t> at = insert.getPosition();
    const size_t common = std::min(at.size(), position.size());
    if (!llvm::equal(at.take_front(common), position.take_front(common))) // another part
      return fieldOffsetFrom(insert.getContainer(), position, origin, visiting, depth + 1);
    if (at.size() == position.size())
      return offsetFrom(insert.getValue(), origin, visiting, depth + 1);
    if (at.size() < position.size())
      return fieldOffsetFrom(insert.getValue(), position.drop_front(at.size()), origin, visiting, depth + 1);
    return {Offset::Unknown}; // the insert replaced a part of the aggregate asked for
  }
  if (auto extract = dyn_cast_or_null<LLVM::ExtractValueOp>(def)) {
    SmallVector<int64_t> outer(extract.getPosition());
    outer.append(position.begin(), position.end());
    return fieldOffsetFrom(extract.getContainer(), outer, origin, visiting, depth + 1);
  }
  auto call = dyn_cast_or_null<LLVM::CallOp>(def);
  auto callee = call ? call.getCalleeAttr() : nullptr;
  auto fn = callee ? code.symbols.lookup<LLVMFuncOp>(callee.getValue()) : nullptr;
  if (!fn || fn.isExternal() || !code.checked.contains(fn))
    return {Offset::Unknown};
  Offset result{Offset::NotDerived};
  fn.walk([&](LLVM::ReturnOp ret) {
    if (ret.getArg())
      result = merge(result, fieldOffsetFrom(ret.getArg(), position, origin, visiting, depth + 1));
  });
  return result;
}

std::optional<std::pair<Value, int64_t>> PointerOffsets::paramField(Value value, unsigned depth) const {
  if (depth > 64)
    return std::nullopt;
  // The optimiser may load neighbouring fields together, as a vector.
  if (auto extract = value.getDefiningOp<LLVM::ExtractElementOp>()) {
    APInt lane;
    auto field = paramField(extract.getVector(), depth + 1);
    if (!field || !matchPattern(extract.getPosition(), m_ConstantInt(&lane)))
      return std::nullopt;
    field->second +=
        lane.getSExtValue() * static_cast<int64_t>(code.layout.getTypeSize(value.getType()).getFixedValue());
    return field;
  }
  if (auto load = value.getDefiningOp<LLVM::LoadOp>()) {
    Value param = roots.paramArgument(load.getAddr());
    if (!param)
      return std::nullopt;
    Offset offset = offsetFrom(load.getAddr(), param);
    if (offset.state != Offset::Known)
      return std::nullopt;
    return std::make_pair(param, offset.bytes);
  }
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg || !arg.getOwner()->isEntryBlock())
    return std::nullopt;
  auto fn = dyn_cast<LLVMFuncOp>(arg.getOwner()->getParentOp());
  auto it = fn ? code.callers.find(fn) : code.callers.end();
  if (it == code.callers.end() || code.addressTaken.contains(fn))
    return std::nullopt;
  std::optional<std::pair<Value, int64_t>> field;
  for (LLVM::CallOp call : it->second) {
    auto f = paramField(call.getArgOperands()[arg.getArgNumber()], depth + 1);
    if (!f || (field && *field != *f))
      return std::nullopt;
    field = f;
  }
  return field;
}
