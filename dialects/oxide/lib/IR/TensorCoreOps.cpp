//===- TensorCoreOps.cpp - verifiers of the tensor-core ops ---------------===//
//
// mma_sync, ldmatrix, stmatrix and cp_async (OxideOps.td, "Tensor cores"): the register counts and
// types each shape has, and the address spaces each pointer may be in.
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
} // namespace

unsigned MmaSyncOp::shapeK(Type multiplicand) {
  if (multiplicand.isBF16() || multiplicand.isF16())
    return 16;
  if (multiplicand.isTF32())
    return 8;
  if (multiplicand.isSignlessInteger(8))
    return 32;
  return 0;
}

LogicalResult MmaSyncOp::verify() {
  Type type = getMultiplicand();
  if (!shapeK(type))
    return emitOpError() << "multiplicand type must be bf16, f16, tf32 or i8, not " << type;
  if (getA().size() != 4 || getB().size() != 2 || getC().size() != 4 || getD().size() != 4)
    return emitOpError() << "takes 4 registers of A, 2 of B and 4 of C and gives 4 of D, not "
                         << getA().size() << ", " << getB().size() << ", " << getC().size() << " and "
                         << getD().size();
  Type accumulator = type.isSignlessInteger(8) ? Type(IntegerType::get(getContext(), 32))
                                               : Type(Float32Type::get(getContext()));
  for (Value v : getC())
    if (v.getType() != accumulator)
      return emitOpError() << "accumulates " << type << " products in " << accumulator << ", not "
                           << v.getType();
  for (Value v : getD())
    if (v.getType() != accumulator)
      return emitOpError() << "gives " << accumulator << " results for " << type << ", not " << v.getType();
  return success();
}

LogicalResult LdMatrixOp::verify() {
  const std::uint32_t count = getCount();
  if (count != 1 && count != 2 && count != 4)
    return emitOpError() << "loads 1, 2 or 4 matrices, not " << count;
  if (getFragment().size() != count)
    return emitOpError() << "gives one register per matrix: " << count << ", not " << getFragment().size();
  if (unsigned space = addressSpaceOf(getRow()); space != kGeneric && space != kShared)
    return emitOpError() << "reads shared memory: its address must be generic or in address space 3, not "
                         << space;
  return success();
}

LogicalResult StMatrixOp::verify() {
  const size_t count = getFragment().size();
  if (count != 1 && count != 2 && count != 4)
    return emitOpError() << "stores 1, 2 or 4 matrices (one register each), not " << count;
  if (unsigned space = addressSpaceOf(getRow()); space != kGeneric && space != kShared)
    return emitOpError() << "writes shared memory: its address must be generic or in address space 3, not "
                         << space;
  return success();
}

LogicalResult CpAsyncOp::verify() {
  const std::uint32_t bytes = getBytes();
  if (bytes != 4 && bytes != 8 && bytes != 16)
    return emitOpError() << "copies 4, 8 or 16 bytes, not " << bytes;
  if (unsigned space = addressSpaceOf(getDst()); space != kGeneric && space != kShared)
    return emitOpError()
           << "writes shared memory: its destination must be generic or in address space 3, not " << space;
  if (unsigned space = addressSpaceOf(getSrc()); space != kGeneric && space != kGlobal)
    return emitOpError() << "reads global memory: its source must be generic or in address space 1, not "
                         << space;
  return success();
}

//===----------------------------------------------------------------------===//
// Memory accesses (OxideMemoryAccessOpInterface)
//===----------------------------------------------------------------------===//

/// stmatrix writes 16 bytes at each lane's row address, which must be shared memory (then in
/// bounds, or confined to shared memory).
void StMatrixOp::getMemoryAccesses(SmallVectorImpl<MemoryAccess> &accesses) {
  accesses.push_back({MemoryAccess::Kind::Write, getRowMutable().getOperandNumber(),
                      MemoryAccess::Place::Shared, 16, "warp matrix store (stmatrix)",
                      "its rows must be in a shared array (oxide::shared_array or oxide::dynamic_shared)"});
}

/// A cp.async writes its `bytes` into shared memory only (then in bounds, or confined to shared
/// memory), and reads them from a Span<const T> input, which no thread writes during the launch.
void CpAsyncOp::getMemoryAccesses(SmallVectorImpl<MemoryAccess> &accesses) {
  accesses.push_back(
      {MemoryAccess::Kind::Write, getDstMutable().getOperandNumber(), MemoryAccess::Place::Shared, getBytes(),
       "asynchronous copy (cp_async)",
       "its destination must be a shared array (oxide::shared_array or oxide::dynamic_shared)"});
  accesses.push_back(
      {MemoryAccess::Kind::Read, getSrcMutable().getOperandNumber(), MemoryAccess::Place::InputSpan,
       std::nullopt, "asynchronous copy (cp_async)",
       "copy from an input span (cp_async::copy(dst, input, i)), whose memory no thread writes"});
}
