//===- OxideOps.cpp - oxide dialect operations ----------------------------===//

#include "Oxide/IR/OxideOps.h"
#include "oxide/detail/intrinsic_abi.hpp"

#include "mlir/IR/Matchers.h"

#include <limits>

using namespace mlir;
using namespace oxide;

/// A launch of rank `rank` has dimensions x up to the rank's: rank 1 has only x.
static LogicalResult verifyDimensionInRank(Operation *op, Dim dim, std::uint32_t rank) {
  if (static_cast<std::uint32_t>(dim) >= rank)
    return op->emitOpError() << "dimension " << stringifyDim(dim) << " does not exist in a rank-" << rank
                             << " launch";
  return success();
}

LogicalResult ThreadIndexOp::verify() {
  // Inside a function: the InFunction trait of every oxide op.
  return verifyDimensionInRank(*this, getDim(), getRank());
}

LogicalResult GridStrideNextOp::verify() {
  // The provenance check matches a step's rank and dimension with its witness's.
  return verifyDimensionInRank(*this, getDim(), getRank());
}

LogicalResult DisjointGetOp::verify() {
  if (getExtents().size() != getCoords().size())
    return emitOpError() << "has " << getExtents().size() << " extents but " << getCoords().size()
                         << " coordinates";
  if (getCoords().empty() || getCoords().size() > 3)
    return emitOpError() << "needs 1 to 3 coordinates, not " << getCoords().size();
  if (getTile() != 1 && getCoords().size() > 2)
    return emitOpError() << "tiles are 1-D or 2-D only";
  if (getTileRows() != 1 && getCoords().size() != 2)
    return emitOpError() << "tile_rows needs a 2-D output";
  if (!getWithin().empty() && getWithin().size() != getCoords().size())
    return emitOpError() << "has " << getWithin().size() << " in-tile coordinates but " << getCoords().size()
                         << " coordinates";
  return success();
}

std::optional<::oxide::detail::WarpgroupTile> OwnedElemOp::warpgroupTile() {
  auto tile = getTile();
  if (!tile)
    return std::nullopt;
  // A tile of the wrong length or with out-of-range fields is the all-zero tile, which is invalid.
  if (tile->size() != 4 && tile->size() != 5)
    return ::oxide::detail::WarpgroupTile{};
  for (std::int64_t v : *tile)
    if (v < 0 || v > std::int64_t{std::numeric_limits<std::uint32_t>::max()})
      return ::oxide::detail::WarpgroupTile{};
  auto field = [&](unsigned i) { return i < tile->size() ? static_cast<std::uint32_t>((*tile)[i]) : 0u; };
  return ::oxide::detail::WarpgroupTile{field(0), field(1), field(2), field(3), field(4)};
}

LogicalResult OwnedElemOp::verify() {
  const Ownership shape = getShape();
  const intrinsic::OwnershipShape &info = shapeInfo(shape);
  if (getExtents().size() != info.output_rank)
    return emitOpError() << "shape " << stringifyOwnership(shape) << " writes a rank-" << info.output_rank
                         << " output but has " << getExtents().size() << " extents";
  if (getOwners().size() != info.owner_rank)
    return emitOpError() << "shape " << stringifyOwnership(shape) << " takes " << info.owner_rank
                         << " owner coordinates, not " << getOwners().size();
  const auto shapeTile = shape == Ownership::warpgroup_tile ? warpgroupTile() : std::nullopt;
  const bool longestFirst = shapeTile && shapeTile->longest_first;
  const bool distance = info.param == intrinsic::OwnedParam::distance;
  if (static_cast<bool>(getUniform()) != (distance || longestFirst))
    return emitOpError() << (distance ? "shape pair needs its distance as 'uniform'"
                             : longestFirst
                                 ? "a longest-first warpgroup_tile needs its period as 'uniform'"
                                 : "only shape pair takes a 'uniform' operand (and a longest-first "
                                   "warpgroup_tile, its period)");
  if (info.param != intrinsic::OwnedParam::count && getCount() != 1)
    return emitOpError() << "only shapes block_strided and strided_rows take a 'count'";
  if (getCount() > static_cast<std::int64_t>(detail::kMaxStridedCount))
    return emitOpError() << "count " << getCount() << " is above " << detail::kMaxStridedCount
                         << ", past which the element index could wrap";
  if (getTile().has_value() != (info.param == intrinsic::OwnedParam::tile))
    return emitOpError()
           << (shape == Ownership::warpgroup_tile
                   ? "shape warpgroup_tile needs its 'tile' [n, consumers, first, group] (a fifth "
                     "field, longest_first, is optional)"
                   : "only shape warpgroup_tile takes a 'tile'");
  if (auto tile = warpgroupTile(); tile && !tile->valid())
    return emitOpError() << "tile [n, consumers, first, group] must have n a multiple of 8 in 8..256, 1..4 "
                            "consumer warpgroups with first + consumers <= 8, and 1.."
                         << ::oxide::detail::WarpgroupTile::kMaxGroup
                         << " tile rows per group; a fifth field, longest_first, is 0 or 1";
  if (getLanes() != 1 && (getLanes() != 2 || shape != Ownership::warpgroup_tile))
    return emitOpError() << "lanes " << getLanes()
                         << ": only shape warpgroup_tile names 2 adjacent elements at once (lanes 2)";
  if (getLanes() != 1 && !llvm::isPowerOf2_64(static_cast<std::uint64_t>(coveredBytes())))
    return emitOpError()
           << "lanes " << getLanes() << " of " << getElemSize()
           << "-byte elements: a pair is one aligned access, so its size must be a power of two";
  return success();
}

/// Whether `pointer` may address device memory the runtime allocated: global or generic.
static bool isGlobalOrGeneric(Value pointer) {
  constexpr unsigned kGenericSpace = 0, kGlobalSpace = 1;
  const unsigned space = cast<LLVM::LLVMPointerType>(pointer.getType()).getAddressSpace();
  return space == kGenericSpace || space == kGlobalSpace;
}

LogicalResult NamedBarrierOp::verify() {
  APInt id, threads;
  if (matchPattern(getId(), m_ConstantInt(&id)) && (id.isZero() || id.ugt(15)))
    return emitOpError() << "barrier id " << id.getZExtValue()
                         << " is not 1..15: a block has 16 barriers and 0 is sync_threads'";
  if (matchPattern(getThreads(), m_ConstantInt(&threads)) &&
      (threads.isZero() || threads.ugt(1024) || threads.urem(32) != 0))
    return emitOpError()
           << threads.getZExtValue()
           << " threads at a named barrier: whole warps of one block, a multiple of 32 up to 1024";
  return success();
}

LogicalResult PermutedElemOp::verify() {
  // A PermutationSpan's indices are device memory the runtime allocated.
  if (!isGlobalOrGeneric(getPerm()))
    return emitOpError() << "reads its permutation from address space "
                         << cast<LLVM::LLVMPointerType>(getPerm().getType()).getAddressSpace()
                         << "; a permutation is in global memory (address space 0 or 1)";
  return success();
}

LogicalResult ClaimedElemOp::verify() {
  // A ClaimSet's bits are device memory the runtime allocated.
  if (!isGlobalOrGeneric(getClaims()))
    return emitOpError() << "sets claim bits in address space "
                         << cast<LLVM::LLVMPointerType>(getClaims().getType()).getAddressSpace()
                         << "; a ClaimSet is in global memory (address space 0 or 1)";
  return success();
}

LogicalResult SharedAllocOp::verify() {
  // The GPU's per-block limit for static shared memory without opt-in.
  constexpr std::int64_t kMaxStaticShared = 48 * 1024;
  if (getBytes() > kMaxStaticShared)
    return emitOpError() << "allocates " << getBytes() << " bytes of shared memory; at most "
                         << kMaxStaticShared
                         << " bytes of static shared memory fit in a block (use dynamic shared memory)";
  return success();
}

#include "Oxide/IR/OxideEnums.cpp.inc"
#include "Oxide/IR/OxideInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "Oxide/IR/OxideOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Memory accesses (OxideMemoryAccessOpInterface)
//===----------------------------------------------------------------------===//

/// A reservation adds to the counter of one of the kernel's AppendSpan parameters, which the
/// runtime binds to memory no other argument names.
void ReserveOp::getMemoryAccesses(SmallVectorImpl<MemoryAccess> &accesses) {
  accesses.push_back({MemoryAccess::Kind::Write, getCounterMutable().getOperandNumber(),
                      MemoryAccess::Place::AppendCounter, 8, "reservation",
                      "reserve slots only through an AppendSpan parameter's reserve()"});
}

//===----------------------------------------------------------------------===//
// Target requirements (OxideTargetRequirementOpInterface)
//===----------------------------------------------------------------------===//

namespace {
constexpr ArchNeed kClusterWitness{90, "uses a cluster witness (oxide::cluster::index)"};
} // namespace

ArchNeed GroupIndexOp::getArchNeed() { return getGroup() == Group::cluster ? kClusterWitness : ArchNeed{}; }
/// A cluster witness is a block of the cluster: the cluster launch is what makes it one.
bool GroupIndexOp::needsClusterLaunch() { return getGroup() == Group::cluster; }

ArchNeed GroupStrideNextOp::getArchNeed() {
  return getGroup() == Group::cluster ? kClusterWitness : ArchNeed{};
}
bool GroupStrideNextOp::needsClusterLaunch() { return false; }

ArchNeed OwnedElemOp::getArchNeed() {
  return getShape() == Ownership::cluster_leader ? kClusterWitness : ArchNeed{};
}
bool OwnedElemOp::needsClusterLaunch() { return false; }
