//===- CacheOps.cpp - verifiers of the cache-hinted loads and stores ------===//
//
// CacheOps.td: which cache operators PTX allows on a load and on a store, and that the pointer
// can be global memory.
//
//===----------------------------------------------------------------------===//

#include "Oxide/IR/OxideOps.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"

using namespace mlir;
using namespace oxide;

namespace {
constexpr unsigned kGeneric = 0, kGlobal = 1;

bool isLoadHint(CacheHint hint) { return hint != CacheHint::write_back && hint != CacheHint::write_through; }
bool isStoreHint(CacheHint hint) {
  return hint == CacheHint::write_back || hint == CacheHint::global_level || hint == CacheHint::streaming ||
         hint == CacheHint::write_through;
}

LogicalResult checkGlobal(Operation *op, Value pointer) {
  if (unsigned space = cast<LLVM::LLVMPointerType>(pointer.getType()).getAddressSpace();
      space != kGeneric && space != kGlobal)
    return op->emitOpError()
           << "accesses global memory: its address must be generic or in address space 1, not " << space;
  return success();
}
} // namespace

LogicalResult CachedLoadOp::verify() {
  if (!isLoadHint(getHint()))
    return emitOpError() << "cache operator '" << stringifyCacheHint(getHint())
                         << "' is a store's; a load takes nc, ca, cg, cs, lu or cv";
  return checkGlobal(*this, getPtr());
}

LogicalResult CachedStoreOp::verify() {
  if (!isStoreHint(getHint()))
    return emitOpError() << "cache operator '" << stringifyCacheHint(getHint())
                         << "' is a load's; a store takes wb, cg, cs or wt";
  return checkGlobal(*this, getPtr());
}

//===----------------------------------------------------------------------===//
// Memory accesses (OxideMemoryAccessOpInterface)
//===----------------------------------------------------------------------===//

/// A cache-hinted load reads global memory: never a local variable or shared memory.
void CachedLoadOp::getMemoryAccesses(SmallVectorImpl<MemoryAccess> &accesses) {
  accesses.push_back(
      {MemoryAccess::Kind::Read, getPtrMutable().getOperandNumber(), MemoryAccess::Place::Global,
       std::nullopt, "cache-hinted load (ld.global." + stringifyCacheHint(getHint()).str() + ")",
       "which ld.global cannot reach; hinted loads are for Span<const T> inputs in global memory"});
}

/// A cache-hinted store is a store: it must land in global memory, and is then judged by where
/// it lands exactly as a plain one (the thread's own output element, never an input).
void CachedStoreOp::getMemoryAccesses(SmallVectorImpl<MemoryAccess> &accesses) {
  Type value = getValue().getType();
  auto vector = dyn_cast<VectorType>(value);
  const int64_t bits = vector ? vector.getNumElements() * vector.getElementTypeBitWidth()
                              : static_cast<int64_t>(value.getIntOrFloatBitWidth());
  accesses.push_back({MemoryAccess::Kind::Write, getPtrMutable().getOperandNumber(),
                      MemoryAccess::Place::Global, bits / 8,
                      "cache-hinted store (st.global." + stringifyCacheHint(getHint()).str() + ")",
                      "which st.global cannot reach; store to the thread's own output element (the pointer "
                      "get_mut returns), or use a plain store"});
}
