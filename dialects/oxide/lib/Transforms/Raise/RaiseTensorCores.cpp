//===- RaiseTensorCores.cpp - tensor cores, cp.async ------------------------===//
//
// Tensor cores (mma.sync, ldmatrix, stmatrix) and cp.async: fragments pass by address; the ops
// take and give their registers.
//
//===----------------------------------------------------------------------===//

#include "CallRaiser.h"

namespace oxide::raise {

/// The `count` 32-bit registers of `type` of the fragment at `base`.
SmallVector<Value> CallRaiser::loadRegisters(Value base, Type type, unsigned count) {
  SmallVector<Value> values;
  for (unsigned i = 0; i < count; ++i) {
    Value at = LLVM::GEPOp::create(rewriter, loc, ptr, type, base,
                                   ArrayRef<LLVM::GEPArg>{static_cast<std::int32_t>(i)});
    values.push_back(LLVM::LoadOp::create(rewriter, loc, type, at, /*alignment=*/4));
  }
  return values;
}

/// Stores `values` as the registers of the fragment at `base`; the last store stands for the
/// call, which has no result.
Operation *CallRaiser::storeRegisters(Value base, ValueRange values) {
  Operation *last = nullptr;
  for (auto [i, value] : llvm::enumerate(values)) {
    Value at = LLVM::GEPOp::create(rewriter, loc, ptr, value.getType(), base,
                                   ArrayRef<LLVM::GEPArg>{static_cast<std::int32_t>(i)});
    last = LLVM::StoreOp::create(rewriter, loc, value, at, /*alignment=*/4);
  }
  return last;
}

/// Operands: d, a, b, c.
Operation *CallRaiser::mma(Type multiplicand, Type accumulator) {
  SmallVector<Value> a = loadRegisters(call.getOperand(1), i32, 4);
  SmallVector<Value> b = loadRegisters(call.getOperand(2), i32, 2);
  SmallVector<Value> c = loadRegisters(call.getOperand(3), accumulator, 4);
  auto op = oxide::MmaSyncOp::create(rewriter, loc, SmallVector<Type>(4, accumulator),
                                     TypeAttr::get(multiplicand), a, b, c);
  return storeRegisters(call.getOperand(0), op.getD());
}

Operation *CallRaiser::mmaBf16() { return mma(rewriter.getBF16Type(), rewriter.getF32Type()); }

Operation *CallRaiser::mmaF16() { return mma(rewriter.getF16Type(), rewriter.getF32Type()); }

Operation *CallRaiser::mmaTf32() { return mma(rewriter.getTF32Type(), rewriter.getF32Type()); }

Operation *CallRaiser::mmaS8() { return mma(rewriter.getI8Type(), i32); }

/// Operands: fragment, row, count, transpose.
Operation *CallRaiser::ldmatrix() {
  auto count = constantOperand(2, 4);
  auto transpose = count ? constantOperand(3, 1) : std::nullopt;
  if (!count || !transpose)
    return nullptr;
  if (*count != 1 && *count != 2 && *count != 4) {
    call.emitError() << "oxide intrinsic '" << name << "' loads 1, 2 or 4 matrices, not " << *count;
    return nullptr;
  }
  auto op = oxide::LdMatrixOp::create(rewriter, loc, SmallVector<Type>(*count, i32), call.getOperand(1),
                                      *count, *transpose != 0);
  return storeRegisters(call.getOperand(0), op.getFragment());
}

/// Operands: row, fragment, count, transpose. The fragment's registers are loaded before the op.
Operation *CallRaiser::stmatrix() {
  auto count = constantOperand(2, 4);
  auto transpose = count ? constantOperand(3, 1) : std::nullopt;
  if (!count || !transpose)
    return nullptr;
  if (*count != 1 && *count != 2 && *count != 4) {
    call.emitError() << "oxide intrinsic '" << name << "' stores 1, 2 or 4 matrices, not " << *count;
    return nullptr;
  }
  SmallVector<Value> fragment = loadRegisters(call.getOperand(1), i32, *count);
  return oxide::StMatrixOp::create(rewriter, loc, call.getOperand(0), fragment, *transpose != 0);
}

/// Operands: dst, src, bytes, src_bytes (dropped when it is `bytes`: a whole copy).
Operation *CallRaiser::cpAsync() {
  auto bytes = constantOperand(2, 16);
  if (!bytes)
    return nullptr;
  if (*bytes != 4 && *bytes != 8 && *bytes != 16) {
    call.emitError() << "oxide intrinsic '" << name << "' copies 4, 8 or 16 bytes, not " << *bytes;
    return nullptr;
  }
  Value srcBytes = call.getOperand(3);
  if (APInt whole; matchPattern(srcBytes, m_ConstantInt(&whole)) && whole == *bytes)
    srcBytes = nullptr;
  return oxide::CpAsyncOp::create(rewriter, loc, call.getOperand(0), call.getOperand(1), *bytes, srcBytes);
}

Operation *CallRaiser::cpAsyncCommit() { return oxide::CpAsyncCommitOp::create(rewriter, loc); }

Operation *CallRaiser::cpAsyncWait() {
  auto pending = constantOperand(0, 7);
  if (!pending)
    return nullptr;
  return oxide::CpAsyncWaitOp::create(rewriter, loc, *pending);
}

} // namespace oxide::raise
