//===- RaiseCacheHints.cpp - cache-hinted loads and stores ------------------===//
//
// Cache-hinted global loads and stores: the element passes by address.
//
//===----------------------------------------------------------------------===//

#include "CallRaiser.h"

namespace oxide::raise {

/// The bits of an element of `bytes` bytes, as the cache ops move them: 8 and 16 bytes as
/// vectors of 32-bit words (ld.v2.b32, ld.v4.b32); null (after an error) for another size.
Type CallRaiser::cachedType(unsigned operand) {
  auto bytes = constantOperand(operand, 16);
  if (!bytes)
    return nullptr;
  switch (*bytes) {
  case 1:
  case 2:
  case 4:
    return rewriter.getIntegerType(8 * *bytes);
  case 8:
  case 16:
    return VectorType::get({static_cast<std::int64_t>(*bytes / 4)}, i32);
  default:
    call.emitError() << "oxide intrinsic '" << name << "' moves 1, 2, 4, 8 or 16 bytes, not " << *bytes;
    return nullptr;
  }
}

/// Operands: dst (the thread's copy), src (global), bytes, hint. The op's verifier rejects a
/// store's hint.
Operation *CallRaiser::cachedLoad() {
  Type type = cachedType(2);
  auto hint = type ? enumOperand<oxide::CacheHint>(3, oxide::getMaxEnumValForCacheHint()) : std::nullopt;
  if (!hint)
    return nullptr;
  auto load = oxide::CachedLoadOp::create(rewriter, loc, type, *hint, call.getOperand(1));
  return LLVM::StoreOp::create(rewriter, loc, load.getValue(), call.getOperand(0), alignmentOf(type));
}

/// Operands: dst (global), src (the thread's copy), bytes, hint.
Operation *CallRaiser::cachedStore() {
  Type type = cachedType(2);
  auto hint = type ? enumOperand<oxide::CacheHint>(3, oxide::getMaxEnumValForCacheHint()) : std::nullopt;
  if (!hint)
    return nullptr;
  Value value = LLVM::LoadOp::create(rewriter, loc, type, call.getOperand(1), alignmentOf(type));
  return oxide::CachedStoreOp::create(rewriter, loc, *hint, value, call.getOperand(0));
}

/// The headers align an element of a cache op to its size (oxide/device/cache.hpp).
unsigned CallRaiser::alignmentOf(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return 4 * vector.getNumElements();
  return type.getIntOrFloatBitWidth() / 8;
}

} // namespace oxide::raise
