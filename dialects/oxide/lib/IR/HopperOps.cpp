//===- HopperOps.cpp - verifiers of the Hopper ops ------------------------===//
//
// mbarriers, TMA, wgmma and setmaxnreg (HopperOps.td): the address spaces each pointer may be
// in, and the shapes, register counts and immediates that PTX accepts.
//
//===----------------------------------------------------------------------===//

#include "Oxide/IR/OxideOps.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"

using namespace mlir;
using namespace oxide;

namespace {
constexpr unsigned kGeneric = 0, kGlobal = 1, kShared = 3;

unsigned addressSpaceOf(Value pointer) {
  return cast<LLVM::LLVMPointerType>(pointer.getType()).getAddressSpace();
}

/// `pointer` (what `what` names) must point into shared memory: generic or addrspace(3).
LogicalResult checkShared(Operation *op, Value pointer, llvm::StringRef what) {
  if (unsigned space = addressSpaceOf(pointer); space != kGeneric && space != kShared)
    return op->emitOpError()
           << what << " is in shared memory: its address must be generic or in address space 3, not "
           << space;
  return success();
}

/// `map` must be the address of a TensorMap in global memory: generic or addrspace(1).
LogicalResult checkTensorMap(Operation *op, Value map) {
  if (unsigned space = addressSpaceOf(map); space != kGeneric && space != kGlobal)
    return op->emitOpError() << "reads its TensorMap from global memory: the map's address must be generic "
                                "or in address space 1, not "
                             << space;
  return success();
}
} // namespace

LogicalResult SharedAddressOp::verify() { return checkShared(*this, getPtr(), "takes a pointer that"); }

LogicalResult MbarrierInitOp::verify() { return checkShared(*this, getBar(), "'s barrier"); }
LogicalResult MbarrierArriveOp::verify() { return checkShared(*this, getBar(), "'s barrier"); }
LogicalResult MbarrierArriveExpectTxOp::verify() { return checkShared(*this, getBar(), "'s barrier"); }
LogicalResult MbarrierArriveClusterOp::verify() { return checkShared(*this, getBar(), "'s barrier"); }
LogicalResult MbarrierTryWaitParityOp::verify() { return checkShared(*this, getBar(), "'s barrier"); }
LogicalResult MbarrierInvalOp::verify() { return checkShared(*this, getBar(), "'s barrier"); }

LogicalResult TmaLoadOp::verify() {
  const size_t rank = getCoords().size();
  if (rank < 1 || rank > 5)
    return emitOpError() << "copies a box of rank 1 to 5 (one coordinate per dimension), not " << rank;
  if (failed(checkShared(*this, getDst(), "'s destination")) ||
      failed(checkShared(*this, getBar(), "'s barrier")))
    return failure();
  return checkTensorMap(*this, getMap());
}

LogicalResult TmaPrefetchOp::verify() { return checkTensorMap(*this, getMap()); }

LogicalResult TmaStoreOp::verify() {
  const size_t rank = getCoords().size();
  if (rank < 1 || rank > 5)
    return emitOpError() << "copies a box of rank 1 to 5 (one coordinate per dimension), not " << rank;
  if (failed(checkShared(*this, getSrc(), "'s source")))
    return failure();
  return checkTensorMap(*this, getMap());
}

LogicalResult TmaStoreWaitOp::verify() {
  if (getPending() > 7)
    return emitOpError() << "waits for at most 7 pending groups, not " << getPending();
  return success();
}

unsigned WgmmaOp::shapeK(WgmmaType type) {
  switch (type) {
  case WgmmaType::bf16:
  case WgmmaType::f16:
    return 16;
  case WgmmaType::tf32:
    return 8;
  case WgmmaType::e4m3:
  case WgmmaType::e5m2:
  case WgmmaType::s8:
    return 32;
  }
  return 0;
}

Type WgmmaOp::accumulatorType(MLIRContext *context, WgmmaType type) {
  if (type == WgmmaType::s8)
    return IntegerType::get(context, 32);
  return Float32Type::get(context);
}

namespace {

/// What both wgmma forms check: N for the type, n/2 accumulator registers in and out of the
/// accumulator type, transposes only of 16-bit operands.
LogicalResult verifyWgmma(Operation *op, WgmmaType type, std::uint32_t n, ValueRange c, ValueRange d,
                          bool transposed) {
  const std::uint32_t step = type == WgmmaType::s8 ? 16 : 8;
  if (n < step || n > 256 || n % step != 0)
    return op->emitOpError() << "n of a " << stringifyWgmmaType(type) << " wgmma is " << step
                             << "..256 in steps of " << step << ", not " << n;
  if (c.size() != n / 2 || d.size() != n / 2)
    return op->emitOpError() << "m64n" << n << " takes and gives n/2 = " << n / 2
                             << " accumulator registers per thread, not " << c.size() << " and " << d.size();
  Type accumulator = WgmmaOp::accumulatorType(op->getContext(), type);
  for (Value v : c)
    if (v.getType() != accumulator)
      return op->emitOpError() << "accumulates " << stringifyWgmmaType(type) << " products in " << accumulator
                               << ", not " << v.getType();
  for (Value v : d)
    if (v.getType() != accumulator)
      return op->emitOpError() << "gives " << accumulator << " results for " << stringifyWgmmaType(type)
                               << ", not " << v.getType();
  if (transposed && type != WgmmaType::bf16 && type != WgmmaType::f16)
    return op->emitOpError() << "transposes only bf16 and f16 operands (the others are K-major), not "
                             << stringifyWgmmaType(type);
  return success();
}

} // namespace

LogicalResult WgmmaOp::verify() {
  return verifyWgmma(*this, getType(), getN(), getC(), getD(), getTransA() || getTransB());
}

LogicalResult WgmmaRegisterAOp::verify() {
  if (getA().size() != 4)
    return emitOpError() << "takes A as 4 32-bit registers per thread, not " << getA().size();
  return verifyWgmma(*this, getType(), getN(), getC(), getD(), getTransB());
}

LogicalResult WgmmaWaitGroupOp::verify() {
  if (getPending() > 7)
    return emitOpError() << "waits for at most 7 pending groups, not " << getPending();
  return success();
}

LogicalResult SetMaxNRegOp::verify() {
  const std::uint32_t count = getCount();
  if (count < 24 || count > 256 || count % 8 != 0)
    return emitOpError() << "sets a register count that is a multiple of 8 in 24..256, not " << count;
  return success();
}

//===----------------------------------------------------------------------===//
// Memory accesses (OxideMemoryAccessOpInterface)
//===----------------------------------------------------------------------===//

namespace {

/// An mbarrier is an object in shared memory: the hardware updates it (arrivals, the copy
/// engine's transactions) where the op says, so a barrier anywhere else would be written by
/// operations Oxide cannot see.
MemoryAccess barrierAccess(Operation *op, OpOperand &bar) {
  return {MemoryAccess::Kind::Write,
          bar.getOperandNumber(),
          MemoryAccess::Place::Barrier,
          8,
          "mbarrier operation (" + op->getName().stripDialect().str() + ") takes a barrier",
          ""};
}

} // namespace

void MbarrierInitOp::getMemoryAccesses(SmallVectorImpl<MemoryAccess> &accesses) {
  accesses.push_back(barrierAccess(*this, getBarMutable()));
}
void MbarrierArriveOp::getMemoryAccesses(SmallVectorImpl<MemoryAccess> &accesses) {
  accesses.push_back(barrierAccess(*this, getBarMutable()));
}
void MbarrierArriveExpectTxOp::getMemoryAccesses(SmallVectorImpl<MemoryAccess> &accesses) {
  accesses.push_back(barrierAccess(*this, getBarMutable()));
}
void MbarrierArriveClusterOp::getMemoryAccesses(SmallVectorImpl<MemoryAccess> &accesses) {
  accesses.push_back(barrierAccess(*this, getBarMutable()));
}
void MbarrierTryWaitParityOp::getMemoryAccesses(SmallVectorImpl<MemoryAccess> &accesses) {
  accesses.push_back(barrierAccess(*this, getBarMutable()));
}
void MbarrierInvalOp::getMemoryAccesses(SmallVectorImpl<MemoryAccess> &accesses) {
  accesses.push_back(barrierAccess(*this, getBarMutable()));
}

/// A bulk tensor copy writes its box into shared memory only (lowered through the shared
/// window, so it cannot land elsewhere); with a multicast mask, at the same offset in other
/// blocks of the cluster, which distributed shared memory allows (the cluster launch is
/// oxide-verify-safety's check). Its barrier is shared memory and its map a parameter's.
void TmaLoadOp::getMemoryAccesses(SmallVectorImpl<MemoryAccess> &accesses) {
  accesses.push_back(
      {MemoryAccess::Kind::Write, getDstMutable().getOperandNumber(), MemoryAccess::Place::SharedWindow,
       std::nullopt, "bulk tensor copy (TMA)",
       "its destination must be a shared array (oxide::shared_array or oxide::dynamic_shared)"});
  accesses.push_back({MemoryAccess::Kind::Write, getBarMutable().getOperandNumber(),
                      MemoryAccess::Place::Barrier, 8,
                      "bulk tensor copy (TMA) completes its bytes on an mbarrier", ""});
  accesses.push_back({MemoryAccess::Kind::Read, getMapMutable().getOperandNumber(),
                      MemoryAccess::Place::TensorMap, std::nullopt, "bulk tensor copy (TMA)", ""});
}

void TmaPrefetchOp::getMemoryAccesses(SmallVectorImpl<MemoryAccess> &accesses) {
  accesses.push_back({MemoryAccess::Kind::Read, getMapMutable().getOperandNumber(),
                      MemoryAccess::Place::TensorMap, std::nullopt, "bulk tensor copy (TMA)", ""});
}

/// A TMA store writes the box into global memory through its TensorMap's descriptor: where it
/// lands is the map's (and the coordinates'), which the ownership of DisjointSpan2D cannot see.
void TmaStoreOp::getMemoryAccesses(SmallVectorImpl<MemoryAccess> &accesses) {
  accesses.push_back(
      {MemoryAccess::Kind::Write, getMapMutable().getOperandNumber(), MemoryAccess::Place::Unconfinable,
       std::nullopt, "TMA store",
       "write the block's tile from registers with DisjointSpan2D::warpgroup_tile_mut / tile_mut, "
       "or launch the kernel with oxide::unsafe_launch"});
  accesses.push_back({MemoryAccess::Kind::Read, getSrcMutable().getOperandNumber(),
                      MemoryAccess::Place::Anywhere, std::nullopt, "TMA store", ""});
}

//===----------------------------------------------------------------------===//
// Target requirements (OxideTargetRequirementOpInterface)
//===----------------------------------------------------------------------===//

ArchNeed TmaLoadOp::getArchNeed() { return {90, "uses bulk tensor copies (TMA, cp.async.bulk.tensor)"}; }
/// A multicast copy lands in other blocks of the cluster, as cluster::map_shared reaches them.
bool TmaLoadOp::needsClusterLaunch() { return bool(getMulticast()); }
