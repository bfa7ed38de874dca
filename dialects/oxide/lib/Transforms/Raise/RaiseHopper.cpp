//===- RaiseHopper.cpp - Hopper intrinsics ----------------------------------===//
//
// Hopper: mbarriers, TMA copies, wgmma and setmaxnreg.
//
//===----------------------------------------------------------------------===//

#include "CallRaiser.h"

namespace oxide::raise {

Operation *CallRaiser::sharedAddress() {
  return oxide::SharedAddressOp::create(rewriter, loc, i32, call.getOperand(0));
}

/// Operands: bar, count (1 .. 2^20 - 1, checked when it is a constant).
Operation *CallRaiser::mbarrierInit() {
  if (APInt count; matchPattern(call.getOperand(1), m_ConstantInt(&count)) &&
                   (count.isZero() || count.getZExtValue() > kMaxMbarrierCount)) {
    call.emitError() << "oxide intrinsic '" << name << "' expects 1 to " << kMaxMbarrierCount
                     << " arrivals per phase, not " << count.getZExtValue();
    return nullptr;
  }
  return oxide::MbarrierInitOp::create(rewriter, loc, call.getOperand(0), call.getOperand(1));
}

Operation *CallRaiser::mbarrierInitFence() { return oxide::MbarrierInitFenceOp::create(rewriter, loc); }

Operation *CallRaiser::mbarrierArrive() {
  return oxide::MbarrierArriveOp::create(rewriter, loc, call.getOperand(0));
}

Operation *CallRaiser::mbarrierArriveExpectTx() {
  return oxide::MbarrierArriveExpectTxOp::create(rewriter, loc, call.getOperand(0), call.getOperand(1));
}

Operation *CallRaiser::mbarrierArriveCluster() {
  return oxide::MbarrierArriveClusterOp::create(rewriter, loc, call.getOperand(0), call.getOperand(1));
}

Operation *CallRaiser::mbarrierTryWaitParity() {
  return oxide::MbarrierTryWaitParityOp::create(rewriter, loc, i32, call.getOperand(0), call.getOperand(1));
}

Operation *CallRaiser::mbarrierInval() {
  return oxide::MbarrierInvalOp::create(rewriter, loc, call.getOperand(0));
}

Operation *CallRaiser::fenceProxyAsyncShared() {
  return oxide::FenceProxyAsyncSharedOp::create(rewriter, loc);
}

/// Operands: dst, map, bar, rank (constant, 1..5), c0..c4 (the first `rank` are the box's
/// coordinates), and for the multicast form the 16-bit mask.
Operation *CallRaiser::tmaLoad(Value mask) {
  auto rank = constantOperand(3, kMaxTensorRank);
  if (!rank)
    return nullptr;
  if (*rank == 0) {
    call.emitError() << "oxide intrinsic '" << name << "' copies a box of rank 1 to " << kMaxTensorRank
                     << ", not 0";
    return nullptr;
  }
  return oxide::TmaLoadOp::create(rewriter, loc, call.getOperand(0), call.getOperand(1), call.getOperand(2),
                                  call.getOperands().slice(4, *rank), mask);
}

Operation *CallRaiser::tmaLoad() { return tmaLoad(nullptr); }

Operation *CallRaiser::tmaLoadMulticast() { return tmaLoad(call.getOperand(9)); }

Operation *CallRaiser::tmaPrefetch() {
  return oxide::TmaPrefetchOp::create(rewriter, loc, call.getOperand(0));
}

/// Operands: map, src, rank (constant, 1..5), c0..c4 (the first `rank` are the box's coordinates).
Operation *CallRaiser::tmaStore() {
  auto rank = constantOperand(2, kMaxTensorRank);
  if (!rank)
    return nullptr;
  if (*rank == 0) {
    call.emitError() << "oxide intrinsic '" << name << "' copies a box of rank 1 to " << kMaxTensorRank
                     << ", not 0";
    return nullptr;
  }
  return oxide::TmaStoreOp::create(rewriter, loc, call.getOperand(0), call.getOperand(1),
                                   call.getOperands().slice(3, *rank));
}

Operation *CallRaiser::tmaStoreCommit() { return oxide::TmaStoreCommitOp::create(rewriter, loc); }

Operation *CallRaiser::tmaStoreWait() {
  auto pending = constantOperand(0, 7);
  if (!pending)
    return nullptr;
  return oxide::TmaStoreWaitOp::create(rewriter, loc, *pending);
}

/// Operands: acc, desc_a, desc_b, n, type, accumulate, trans_a, trans_b. The accumulator's
/// n / 2 registers are loaded before the op and stored after it, as mma.sync's are.
Operation *CallRaiser::wgmma() {
  auto n = constantOperand(3, kMaxWgmmaN);
  auto type = n ? enumOperand<oxide::WgmmaType>(4, oxide::getMaxEnumValForWgmmaType()) : std::nullopt;
  auto accumulate = type ? constantOperand(5, 1) : std::nullopt;
  auto transA = accumulate ? constantOperand(6, 1) : std::nullopt;
  auto transB = transA ? constantOperand(7, 1) : std::nullopt;
  if (!transB)
    return nullptr;
  const std::uint32_t step = *type == oxide::WgmmaType::s8 ? 16 : 8;
  if (*n < step || *n % step != 0) {
    call.emitError() << "oxide intrinsic '" << name << "': n of a " << oxide::stringifyWgmmaType(*type)
                     << " wgmma is " << step << ".." << kMaxWgmmaN << " in steps of " << step << ", not "
                     << *n;
    return nullptr;
  }
  if ((*transA || *transB) && *type != oxide::WgmmaType::bf16 && *type != oxide::WgmmaType::f16) {
    call.emitError() << "oxide intrinsic '" << name << "' transposes only bf16 and f16 operands, not "
                     << oxide::stringifyWgmmaType(*type);
    return nullptr;
  }
  Type accumulator = oxide::WgmmaOp::accumulatorType(rewriter.getContext(), *type);
  SmallVector<Value> c = loadRegisters(call.getOperand(0), accumulator, *n / 2);
  auto op = oxide::WgmmaOp::create(rewriter, loc, SmallVector<Type>(*n / 2, accumulator), *type, *n,
                                   call.getOperand(1), call.getOperand(2), c, *accumulate != 0, *transA != 0,
                                   *transB != 0);
  return storeRegisters(call.getOperand(0), op.getD());
}

Operation *CallRaiser::wgmmaFence() { return oxide::WgmmaFenceOp::create(rewriter, loc); }

Operation *CallRaiser::wgmmaCommitGroup() { return oxide::WgmmaCommitGroupOp::create(rewriter, loc); }

Operation *CallRaiser::wgmmaWaitGroup() {
  auto pending = constantOperand(0, 7);
  if (!pending)
    return nullptr;
  return oxide::WgmmaWaitGroupOp::create(rewriter, loc, *pending);
}

/// Operands: count (a multiple of 8 in 24..256), increase (0 or 1).
Operation *CallRaiser::setmaxnreg() {
  auto count = constantOperand(0, 256);
  auto increase = count ? constantOperand(1, 1) : std::nullopt;
  if (!increase)
    return nullptr;
  if (*count < 24 || *count % 8 != 0) {
    call.emitError() << "oxide intrinsic '" << name
                     << "' sets a register count that is a multiple of 8 in 24..256, not " << *count;
    return nullptr;
  }
  return oxide::SetMaxNRegOp::create(rewriter, loc, *count, *increase != 0);
}

} // namespace oxide::raise
