//===- ProvedWrites.cpp - writes a dominating bounds check proves ---------===//
//
// See oxide::markProvedWrites in GuardedWrites.h: the writes that one of Oxide's own passes
// proved by a check it then removed carry metadata the audit reads.
//
//===----------------------------------------------------------------------===//

#include "oxide/compiler/GuardedWrites.h"
#include "oxide/detail/intrinsic_abi.hpp"

#include "WriteAddresses.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;
using oxide::index_facts::Linear;
using oxide::write_addresses::Address;
using oxide::write_addresses::asWrite;
using oxide::write_addresses::decompose;
using oxide::write_addresses::elementIndex;
using oxide::write_addresses::loadedFrom;
using oxide::write_addresses::Parameter;
using oxide::write_addresses::ParameterField;
using oxide::write_addresses::parameters;
using oxide::write_addresses::Write;

namespace {

/// Whether a check that `index` is below `bound` bounds `write`: its address is a span's data
/// plus E * index (a 1-D span of size `bound`), or plus E * (k * bound + index) (a 2-D span of
/// width `bound`), and an offset inside the element.
bool checkedBy(const Write &write, Value *index, Value *bound, ArrayRef<Parameter> params,
               const DataLayout &layout) {
  std::optional<ParameterField> field = loadedFrom(getUnderlyingObject(write.pointer, 0));
  if (!field || !write.bytes || field->offset != static_cast<int64_t>(oxide::detail::kSpanDataOffset))
    return false;
  const Parameter &param = params[field->parameter->getArgNo()];
  const auto unit = static_cast<int64_t>(param.elementSize);
  const unsigned extents = oxide::detail::span_extents(param.kind);
  std::optional<Address> address = unit > 0 ? decompose(write.pointer, unit, layout) : std::nullopt;
  if (!address || address->constant < 0 || address->constant + static_cast<int64_t>(*write.bytes) > unit)
    return false;
  std::optional<Linear> rest = elementIndex(*address, unit, /*whole=*/false);
  std::optional<Linear> checked = oxide::index_facts::linearize(index);
  if (!rest || !checked || !rest->add(*checked, -1) || !rest->terms.empty() || rest->constant != 0)
    return false;
  // The extent the check compared with, as the audit will read it.
  auto isExtent = [&](unsigned axis) {
    Value *value = bound;
    if (auto *frozen = dyn_cast<FreezeInst>(value))
      value = frozen->getOperand(0);
    std::optional<ParameterField> extent = loadedFrom(value);
    return extent && extent->parameter == field->parameter &&
           extent->offset == static_cast<int64_t>(oxide::detail::kSpanExtentOffset +
                                                  axis * oxide::detail::kSpanExtentStride);
  };
  if (extents == 1)
    return rest->products.empty() && isExtent(0);
  return extents == 2 && !rest->products.empty() && isExtent(0);
}

} // namespace

void oxide::markProvedWrites(Value *index, Value *bound, BasicBlock *from, DominatorTree &dominators) {
  Function &function = *from->getParent();
  std::optional<SmallVector<Parameter, 8>> params =
      function.hasFnAttribute("oxide.contract") ? parameters(function) : std::nullopt;
  if (!params)
    return;
  const DataLayout &layout = function.getDataLayout();
  LLVMContext &context = function.getContext();
  for (BasicBlock &block : function) {
    if (!dominators.dominates(from, &block))
      continue;
    for (Instruction &inst : block)
      if (std::optional<Write> write = asWrite(inst, layout);
          write && checkedBy(*write, index, bound, *params, layout))
        inst.setMetadata(oxide::kProvedWriteMetadata, MDNode::get(context, {}));
  }
}
