//===- RaiseIndicesAndWitnesses.cpp - indices and witnesses -----------------===//
//
// The thread's indices and the witnesses of what it may write: geometry registers, thread_index,
// grid-stride steps, disjoint_get and its tiles, the group and ownership shapes, span elements.
//
//===----------------------------------------------------------------------===//

#include "CallRaiser.h"

namespace oxide::raise {

Operation *CallRaiser::index1d() {
  return oxide::ThreadIndexOp::create(rewriter, loc, i64, 1, oxide::Dim::x);
}

Operation *CallRaiser::threadIndex() {
  auto rankDim = rankAndDimension(0);
  if (!rankDim)
    return nullptr;
  return oxide::ThreadIndexOp::create(rewriter, loc, i64, rankDim->first, rankDim->second);
}

Operation *CallRaiser::gridStrideNext() {
  auto rankDim = rankAndDimension(1);
  if (!rankDim)
    return nullptr;
  return oxide::GridStrideNextOp::create(rewriter, loc, i64, call.getOperand(0), rankDim->first,
                                         rankDim->second);
}

Operation *CallRaiser::disjointTile() {
  APInt elemSize, tile;
  if (!matchPattern(call.getOperand(2), m_ConstantInt(&elemSize)) ||
      !matchPattern(call.getOperand(3), m_ConstantInt(&tile)) || elemSize.isZero() || tile.isZero()) {
    call.emitError() << "the element size and tile length of oxide intrinsic '" << name
                     << "' must be non-zero constants";
    return nullptr;
  }
  auto op = oxide::DisjointGetOp::create(
      rewriter, loc, ptr, call.getOperand(0), ValueRange{call.getOperand(1)}, ValueRange{call.getOperand(4)},
      ValueRange{call.getOperand(5)}, rewriter.getI64IntegerAttr(elemSize.getZExtValue()));
  op.setTile(tile.getZExtValue());
  return op;
}

Operation *CallRaiser::disjointTile2D() {
  APInt elemSize, cols, rows;
  if (!matchPattern(call.getOperand(3), m_ConstantInt(&elemSize)) ||
      !matchPattern(call.getOperand(4), m_ConstantInt(&cols)) ||
      !matchPattern(call.getOperand(5), m_ConstantInt(&rows)) || elemSize.isZero() || cols.isZero() ||
      rows.isZero()) {
    call.emitError() << "the element size and tile extents of oxide intrinsic '" << name
                     << "' must be non-zero constants";
    return nullptr;
  }
  auto op = oxide::DisjointGetOp::create(
      rewriter, loc, ptr, call.getOperand(0), ValueRange{call.getOperand(1), call.getOperand(2)},
      ValueRange{call.getOperand(6), call.getOperand(7)}, ValueRange{call.getOperand(8), call.getOperand(9)},
      rewriter.getI64IntegerAttr(elemSize.getZExtValue()));
  op.setTile(cols.getZExtValue());
  op.setTileRows(rows.getZExtValue());
  return op;
}

Operation *CallRaiser::groupIndex() {
  auto group = enumOperand<oxide::Group>(0, oxide::getMaxEnumValForGroup());
  if (!group)
    return nullptr;
  return oxide::GroupIndexOp::create(rewriter, loc, i64, *group);
}

Operation *CallRaiser::groupStrideNext() {
  auto group = enumOperand<oxide::Group>(1, oxide::getMaxEnumValForGroup());
  if (!group)
    return nullptr;
  return oxide::GroupStrideNextOp::create(rewriter, loc, i64, call.getOperand(0), *group);
}

/// Operands: data, width, height, depth, the element size, the shape, its parameter, the owner's
/// x and y, j. The shape decides how many extents and owner coordinates the op keeps.
Operation *CallRaiser::ownedElements(std::int64_t lanes) {
  std::optional<std::uint64_t> elemSize = elementSize(4);
  if (!elemSize)
    return nullptr;
  auto shape = enumOperand<oxide::Ownership>(5, oxide::getMaxEnumValForOwnership());
  if (!shape)
    return nullptr;
  const oxide::intrinsic::OwnershipShape &info = oxide::OwnedElemOp::shapeInfo(*shape);
  const unsigned rank = info.output_rank;
  const unsigned owners = info.owner_rank;
  Value param = call.getOperand(6), uniform;
  std::int64_t count = 1;
  if (info.param == oxide::intrinsic::OwnedParam::distance) {
    uniform = param;
  } else if (info.param == oxide::intrinsic::OwnedParam::count) {
    APInt k;
    if (!matchPattern(param, m_ConstantInt(&k)) || k.isZero() || k.ugt(kMaxStridedCount)) {
      call.emitError() << "the element count of oxide intrinsic '" << name
                       << "' must be a constant between 1 and " << kMaxStridedCount;
      return nullptr;
    }
    count = k.getZExtValue();
  }
  DenseI64ArrayAttr tile;
  if (info.param == oxide::intrinsic::OwnedParam::tile) {
    APInt packed;
    const auto fields = matchPattern(param, m_ConstantInt(&packed))
                            ? oxide::detail::WarpgroupTile::unpack(packed.getZExtValue())
                            : oxide::detail::WarpgroupTile{};
    if (!fields.valid()) {
      call.emitError() << "the tile of oxide intrinsic '" << name
                       << "' must be a constant oxide::detail::WarpgroupTile that is valid()";
      return nullptr;
    }
    if (fields.longest_first) {
      tile = rewriter.getDenseI64ArrayAttr({fields.n, fields.consumers, fields.first, fields.group, 1});
      uniform = call.getOperand(8); // the period, passed as the owner's y
    } else {
      tile = rewriter.getDenseI64ArrayAttr({fields.n, fields.consumers, fields.first, fields.group});
    }
  }
  auto operands = call.getOperands();
  auto op = oxide::OwnedElemOp::create(rewriter, loc, ptr, operands[0], operands.slice(1, rank),
                                       operands.slice(7, owners), operands[9], uniform, *elemSize, *shape,
                                       count, tile, lanes);
  return op;
}

Operation *CallRaiser::reserve() {
  return oxide::ReserveOp::create(rewriter, loc, i64, call.getOperand(0), call.getOperand(1));
}

std::optional<std::uint64_t> CallRaiser::elementSize(unsigned i) {
  APInt elemSize;
  if (!matchPattern(call.getOperand(i), m_ConstantInt(&elemSize)) || elemSize.isZero()) {
    call.emitError() << "the element size of oxide intrinsic '" << name << "' must be a non-zero constant";
    return std::nullopt;
  }
  return elemSize.getZExtValue();
}

Operation *CallRaiser::spanElem() {
  std::optional<std::uint64_t> elemSize = elementSize(2);
  if (!elemSize)
    return nullptr;
  return oxide::SpanElemOp::create(rewriter, loc, ptr, call.getOperand(0), call.getOperand(1),
                                   call.getOperand(3), rewriter.getI64IntegerAttr(*elemSize));
}

} // namespace oxide::raise
