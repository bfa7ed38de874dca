//===- WriteAddresses.cpp - a write and its address read back ------------===//
//
// See WriteAddresses.h.
//
//===----------------------------------------------------------------------===//

#include "WriteAddresses.h"

#include "llvm/IR/Attributes.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/Support/MathExtras.h"

using namespace llvm;
using namespace llvm::PatternMatch;
using oxide::index_facts::Linear;

namespace oxide::write_addresses {

namespace {

/// Adds scale * v to `address`, through the arithmetic InstCombine makes of an index, down to
/// values scaled by a multiple of `unit` (the element size: the facts name element indices).
bool addScaled(Address &address, Value *v, int64_t scale, int64_t unit, unsigned depth) {
  if (auto *c = dyn_cast<ConstantInt>(v)) {
    if (c->getBitWidth() > 64)
      return false;
    int64_t product;
    return !MulOverflow(c->getSExtValue(), scale, product) &&
           !AddOverflow(address.constant, product, address.constant);
  }
  Value *a, *b;
  const APInt *k;
  if (depth < 8 && v->getType()->isIntegerTy(64) && scale % unit != 0) {
    if (match(v, m_Add(m_Value(a), m_Value(b))) || match(v, m_DisjointOr(m_Value(a), m_Value(b))))
      return addScaled(address, a, scale, unit, depth + 1) && addScaled(address, b, scale, unit, depth + 1);
    if (match(v, m_Sub(m_Value(a), m_Value(b))))
      return addScaled(address, a, scale, unit, depth + 1) && addScaled(address, b, -scale, unit, depth + 1);
    int64_t scaled;
    if (match(v, m_Shl(m_Value(a), m_APInt(k))) && k->ult(62) &&
        !MulOverflow(scale, int64_t{1} << k->getZExtValue(), scaled))
      return addScaled(address, a, scaled, unit, depth + 1);
    if (match(v, m_Mul(m_Value(a), m_APInt(k))) && k->getSignificantBits() <= 63 &&
        !MulOverflow(scale, k->getSExtValue(), scaled))
      return addScaled(address, a, scaled, unit, depth + 1);
  }
  for (auto &[value, coefficient] : address.terms)
    if (value == v)
      return !AddOverflow(coefficient, scale, coefficient);
  address.terms.push_back({v, scale});
  return true;
}

} // namespace

std::optional<Write> asWrite(Instruction &inst, const DataLayout &layout) {
  auto bytesOf = [&](Type *type) {
    return std::optional<uint64_t>(layout.getTypeStoreSize(type).getFixedValue());
  };
  if (auto *store = dyn_cast<StoreInst>(&inst))
    return Write{store, store->getPointerOperand(), bytesOf(store->getValueOperand()->getType()),
                 store->isAtomic()};
  if (auto *rmw = dyn_cast<AtomicRMWInst>(&inst))
    return Write{rmw, rmw->getPointerOperand(), bytesOf(rmw->getValOperand()->getType()), true};
  if (auto *cas = dyn_cast<AtomicCmpXchgInst>(&inst))
    return Write{cas, cas->getPointerOperand(), bytesOf(cas->getNewValOperand()->getType()), true};
  if (auto *mem = dyn_cast<AnyMemIntrinsic>(&inst)) {
    std::optional<uint64_t> bytes;
    if (auto *length = dyn_cast<ConstantInt>(mem->getLength());
        length && length->getValue().getActiveBits() <= 63)
      bytes = length->getZExtValue();
    return Write{mem, mem->getRawDest(), bytes, false};
  }
  return std::nullopt;
}

std::optional<ParameterField> loadedFrom(const Value *object) {
  const auto *load = dyn_cast<LoadInst>(object);
  if (!load || load->isVolatile())
    return std::nullopt;
  APInt offset(64, 0);
  const DataLayout &layout = load->getModule()->getDataLayout();
  Value *base =
      const_cast<Value *>(load->getPointerOperand()->stripAndAccumulateConstantOffsets(layout, offset, true));
  auto *parameter = dyn_cast<Argument>(base);
  if (!parameter || !parameter->hasByValAttr())
    return std::nullopt;
  return ParameterField{parameter, offset.getSExtValue()};
}

std::optional<Address> decompose(Value *pointer, int64_t unit, const DataLayout &layout) {
  Address address;
  for (unsigned steps = 0; steps < 32; ++steps) {
    if (auto *cast = dyn_cast<AddrSpaceCastOperator>(pointer)) {
      pointer = cast->getPointerOperand();
      continue;
    }
    auto *gep = dyn_cast<GEPOperator>(pointer);
    if (!gep) {
      address.base = pointer;
      return address;
    }
    for (gep_type_iterator it = gep_type_begin(gep), end = gep_type_end(gep); it != end; ++it) {
      if (StructType *type = it.getStructTypeOrNull()) {
        const auto field = cast<ConstantInt>(it.getOperand())->getZExtValue();
        const auto offset = static_cast<int64_t>(layout.getStructLayout(type)->getElementOffset(field));
        if (AddOverflow(address.constant, offset, address.constant))
          return std::nullopt;
        continue;
      }
      const TypeSize stride = it.getSequentialElementStride(layout);
      if (stride.isScalable() ||
          !addScaled(address, it.getOperand(), static_cast<int64_t>(stride.getFixedValue()), unit, 0))
        return std::nullopt;
    }
    pointer = gep->getPointerOperand();
  }
  return std::nullopt;
}

std::optional<Linear> elementIndex(const Address &address, int64_t unit, bool whole) {
  Linear index;
  for (auto [value, scale] : address.terms) {
    if (scale % unit != 0)
      return std::nullopt;
    int64_t times = scale / unit;
    // value * times as the program's own `value << k` or `value * times`, which the facts name
    // (a tile's start, coordinate * tile, where the address scales the coordinate at once).
    if (times > 1)
      for (User *user : value->users()) {
        const bool named = isPowerOf2_64(static_cast<uint64_t>(times))
                               ? match(user, m_Shl(m_Specific(value), m_SpecificInt(Log2_64(times))))
                               : match(user, m_Mul(m_Specific(value), m_SpecificInt(times)));
        if (named && user->getType() == value->getType()) {
          value = user;
          times = 1;
          break;
        }
      }
    Linear term;
    term.terms.push_back({value, 1});
    std::optional<Linear> form = whole ? std::optional<Linear>(term) : oxide::index_facts::linearize(value);
    if (!form || !index.add(*form, times))
      return std::nullopt;
  }
  return index;
}

std::optional<SmallVector<Parameter, 8>> parameters(const Function &kernel) {
  SmallVector<StringRef, 8> described, sizes;
  kernel.getFnAttribute("oxide.params").getValueAsString().split(described, ',', -1, false);
  kernel.getFnAttribute("oxide.elem_sizes").getValueAsString().split(sizes, ',', -1, false);
  if (described.size() != kernel.arg_size())
    return std::nullopt;
  SmallVector<Parameter, 8> result;
  for (auto [i, text] : llvm::enumerate(described)) {
    auto [name, letter] = text.rsplit('=');
    std::optional<detail::ParamKind> kind =
        letter.size() == 1 ? oxide::detail::param_kind(letter[0]) : std::nullopt;
    if (!kind)
      return std::nullopt;
    uint64_t size = 0;
    if (i < sizes.size() && sizes[i].getAsInteger(10, size))
      return std::nullopt;
    result.push_back({name.str(), *kind, size});
  }
  return result;
}

} // namespace oxide::write_addresses
