//===- SmallCopy.h - a constant-length memcpy, as the optimiser reads one -*- C++ -*-===//
#ifndef OXIDE_TRANSFORMS_SMALLCOPY_H
#define OXIDE_TRANSFORMS_SMALLCOPY_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Matchers.h"

#include <cstdint>
#include <optional>

namespace oxide {

/// A constant-length, non-volatile memcpy: the LLVM dialect op, or the intrinsic call that the
/// LLVM IR import produces.
struct SmallCopy {
  mlir::Operation *op;
  mlir::Value dst, src;
  std::uint64_t bytes;
  mlir::ArrayAttr argAttrs;

  static std::optional<SmallCopy> match(mlir::Operation *op) {
    using namespace mlir;
    Value dst, src, len;
    ArrayAttr attrs;
    if (auto copy = dyn_cast<LLVM::MemcpyOp>(op)) {
      if (copy.getIsVolatile())
        return std::nullopt;
      dst = copy.getDst(), src = copy.getSrc(), len = copy.getLen(), attrs = copy.getArgAttrsAttr();
    } else if (auto call = dyn_cast<LLVM::CallIntrinsicOp>(op);
               call && call.getIntrin().starts_with("llvm.memcpy.") && call.getArgs().size() == 4) {
      APInt isVolatileValue;
      if (!matchPattern(call.getArgs()[3], m_ConstantInt(&isVolatileValue)) || !isVolatileValue.isZero())
        return std::nullopt;
      dst = call.getArgs()[0], src = call.getArgs()[1], len = call.getArgs()[2],
      attrs = call.getArgAttrsAttr();
    } else {
      return std::nullopt;
    }
    APInt length;
    if (!matchPattern(len, m_ConstantInt(&length)))
      return std::nullopt;
    return SmallCopy{op, dst, src, length.getZExtValue(), attrs};
  }

  /// The alignment operand `operand` (0 = dst, 1 = src) is known to have.
  std::uint64_t alignment(unsigned operand) const {
    using namespace mlir;
    if (argAttrs && operand < argAttrs.size())
      if (auto dict = dyn_cast<DictionaryAttr>(argAttrs[operand]))
        if (auto align = dict.getAs<IntegerAttr>(LLVM::LLVMDialect::getAlignAttrName()))
          return align.getInt();
    return 1;
  }
};

} // namespace oxide

#endif
