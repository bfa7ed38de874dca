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

/// The constant operands both wgmma forms share, from `first` on: n, type, accumulate, then
/// `transposes` transpose flags; nullopt (with the error emitted) when one is not a constant in
/// range or the combination is not an instruction.
std::optional<CallRaiser::WgmmaForm> CallRaiser::wgmmaForm(unsigned first, unsigned transposes) {
  auto n = constantOperand(first, kMaxWgmmaN);
  auto type = n ? enumOperand<oxide::WgmmaType>(first + 1, oxide::getMaxEnumValForWgmmaType()) : std::nullopt;
  auto accumulate = type ? constantOperand(first + 2, 1) : std::nullopt;
  if (!accumulate)
    return std::nullopt;
  WgmmaForm form{*n, *type, *accumulate != 0, {}};
  for (unsigned i = 0; i < transposes; ++i) {
    auto transpose = constantOperand(first + 3 + i, 1);
    if (!transpose)
      return std::nullopt;
    form.transpose[i] = *transpose != 0;
  }
  const std::uint32_t step = *type == oxide::WgmmaType::s8 ? 16 : 8;
  if (*n < step || *n % step != 0) {
    call.emitError() << "oxide intrinsic '" << name << "': n of a " << oxide::stringifyWgmmaType(*type)
                     << " wgmma is " << step << ".." << kMaxWgmmaN << " in steps of " << step << ", not "
                     << *n;
    return std::nullopt;
  }
  if ((form.transpose[0] || form.transpose[1]) && *type != oxide::WgmmaType::bf16 &&
      *type != oxide::WgmmaType::f16) {
    call.emitError() << "oxide intrinsic '" << name << "' transposes only bf16 and f16 operands, not "
                     << oxide::stringifyWgmmaType(*type);
    return std::nullopt;
  }
  return form;
}

/// Operands: acc, desc_a, desc_b, n, type, accumulate, trans_a, trans_b. The accumulator's
/// n / 2 registers are loaded before the op and stored after it, as mma.sync's are.
Operation *CallRaiser::wgmma() {
  auto form = wgmmaForm(3, 2);
  if (!form)
    return nullptr;
  Type accumulator = oxide::WgmmaOp::accumulatorType(rewriter.getContext(), form->type);
  SmallVector<Value> c = loadRegisters(call.getOperand(0), accumulator, form->n / 2);
  auto op = oxide::WgmmaOp::create(rewriter, loc, SmallVector<Type>(form->n / 2, accumulator), form->type,
                                   form->n, call.getOperand(1), call.getOperand(2), c, form->accumulate,
                                   form->transpose[0], form->transpose[1]);
  return storeRegisters(call.getOperand(0), op.getD());
}

/// Operands: acc, a, desc_b, n, type, accumulate, trans_b.
Operation *CallRaiser::wgmmaRegisterA() {
  auto form = wgmmaForm(3, 1);
  if (!form)
    return nullptr;
  Type accumulator = oxide::WgmmaOp::accumulatorType(rewriter.getContext(), form->type);
  SmallVector<Value> a = loadRegisters(call.getOperand(1), rewriter.getI32Type(), 4);
  SmallVector<Value> c = loadRegisters(call.getOperand(0), accumulator, form->n / 2);
  auto op = oxide::WgmmaRegisterAOp::create(rewriter, loc, SmallVector<Type>(form->n / 2, accumulator),
                                            form->type, form->n, a, call.getOperand(2), c, form->accumulate,
                                            form->transpose[0]);
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
