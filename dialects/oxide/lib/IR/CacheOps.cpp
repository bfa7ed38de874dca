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
