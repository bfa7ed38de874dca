//===- SpanAccessToNVVM.cpp - span and witness element accesses to NVVM ----- ===//
//
// The element accessors of spans and of the thread's own witnesses (thread_index,
// grid_stride_next, disjoint_get, span_elem): the bounds test and the element address. Their
// user-computed indices are frozen first (freezeGuardedIndices), so that the test and the
// address see one value.
//
//===----------------------------------------------------------------------===//

#include "LoweringHelpers.h"
#include "Oxide/Conversion/LoweringPatterns.h"
#include "Oxide/IR/OxideOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace oxide::lowering;

namespace {

struct ThreadIndexLowering : OpConversionPattern<oxide::ThreadIndexOp> {
  using OpConversionPattern::OpConversionPattern;
  /// index = ctaid.d * ntid.d + tid.d as a widening 32x32->64 multiply-add: NVPTX selects
  /// mul.wide.u32, and the index cannot wrap even for 2^31 blocks of 1024 threads.
  LogicalResult matchAndRewrite(oxide::ThreadIndexOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    oxide::Dim dim = op.getDim();
    const auto block = exactBlock(op);
    Value tid =
        widen(rewriter, loc, readGeometry(rewriter, loc, oxide::GeometryKind::thread_idx, dim, block));
    Value ctaid = widen(rewriter, loc, readGeometry(rewriter, loc, oxide::GeometryKind::block_idx, dim));
    Value ntid =
        widen(rewriter, loc, readGeometry(rewriter, loc, oxide::GeometryKind::block_dim, dim, block));
    auto nuw = LLVM::IntegerOverflowFlags::nuw;
    Value base = LLVM::MulOp::create(rewriter, loc, ctaid, ntid, nuw);
    rewriter.replaceOpWithNewOp<LLVM::AddOp>(op, base, tid, nuw);
    return success();
  }
};

struct GridStrideNextLowering : OpConversionPattern<oxide::GridStrideNextOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::GridStrideNextOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value blocks =
        widen(rewriter, loc, readGeometry(rewriter, loc, oxide::GeometryKind::grid_dim, op.getDim()));
    Value threads =
        widen(rewriter, loc,
              readGeometry(rewriter, loc, oxide::GeometryKind::block_dim, op.getDim(), exactBlock(op)));
    Value stride = LLVM::MulOp::create(rewriter, loc, blocks, threads, LLVM::IntegerOverflowFlags::nuw);
    rewriter.replaceOpWithNewOp<LLVM::AddOp>(op, adaptor.getIndex(), stride);
    return success();
  }
};

struct DisjointGetLowering : OpConversionPattern<oxide::DisjointGetOp> {
  using OpConversionPattern::OpConversionPattern;
  /// in bounds = all(coord_d < extent_d); element = data + linear * elem_size, else null.
  LogicalResult matchAndRewrite(oxide::DisjointGetOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type();
    auto nuw = LLVM::IntegerOverflowFlags::nuw;
    auto coords = adaptor.getCoords();
    auto extents = adaptor.getExtents();
    auto within = adaptor.getWithin();
    Value inBounds, linear;
    // Per dimension, the element's coordinate: coordinate * tile extent + in-tile coordinate (1
    // and 0 without a tile). In bounds when the in-tile coordinate is below the tile's extent
    // inside the span: 0 past the last tile (coordinate >= ceil(extent / tile), computed without
    // overflow), else min(extent - coordinate * tile, tile). That is DisjointTile2D::rows() and
    // cols() term for term, so the element guards become `r < rows()`, which one value bounds
    // for every r: under the user's `if (tile.full())` LLVM replaces rows() by the tile's size
    // and each guard of an unrolled r folds (transpose_32x8_tile kept a branch between its
    // stores, at 0.91 of nvcc's speed).
    const int64_t tiles[3] = {static_cast<int64_t>(op.getTile()), static_cast<int64_t>(op.getTileRows()), 1};
    auto constant = [&](int64_t v) {
      return LLVM::ConstantOp::create(rewriter, loc, i64, rewriter.getI64IntegerAttr(v));
    };
    auto both = [&](Value a, Value b) -> Value {
      return a ? LLVM::AndOp::create(rewriter, loc, a, b).getResult() : b;
    };
    for (int d = static_cast<int>(coords.size()) - 1; d >= 0; --d) {
      Value coord = coords[d];
      if (tiles[d] != 1 && !within.empty()) {
        Value tile = constant(tiles[d]), extent = extents[d];
        Value count = LLVM::AddOp::create(
            rewriter, loc, LLVM::UDivOp::create(rewriter, loc, extent, tile),
            LLVM::ZExtOp::create(rewriter, loc, i64,
                                 LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ne,
                                                      LLVM::URemOp::create(rewriter, loc, extent, tile),
                                                      constant(0))));
        Value past = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::uge, coords[d], count);
        Value left =
            LLVM::SubOp::create(rewriter, loc, extent, LLVM::MulOp::create(rewriter, loc, coords[d], tile));
        Value cut = LLVM::SelectOp::create(
            rewriter, loc, LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ult, left, tile), left,
            tile);
        Value size = LLVM::SelectOp::create(rewriter, loc, past, constant(0), cut);
        inBounds =
            both(inBounds, LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ult, within[d], size));
        coord = LLVM::AddOp::create(rewriter, loc, LLVM::MulOp::create(rewriter, loc, coords[d], tile, nuw),
                                    within[d], nuw);
      } else {
        Value limit = extents[d];
        if (tiles[d] != 1) {
          limit = LLVM::UDivOp::create(
              rewriter, loc, LLVM::AddOp::create(rewriter, loc, extents[d], constant(tiles[d] - 1), nuw),
              constant(tiles[d]));
          coord = LLVM::MulOp::create(rewriter, loc, coords[d], constant(tiles[d]), nuw);
        } else if (!within.empty()) {
          // A tile one element long along d (tile_mut<1>): its only in-tile coordinate is 0.
          inBounds = both(
              inBounds, LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq, within[d], constant(0)));
        }
        inBounds =
            both(inBounds, LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ult, coords[d], limit));
      }
      // Horner's rule from the slowest dimension; nuw holds once every coordinate is in bounds.
      linear = linear ? LLVM::AddOp::create(rewriter, loc,
                                            LLVM::MulOp::create(rewriter, loc, linear, extents[d], nuw),
                                            coord, nuw)
                            .getResult()
                      : coord;
    }
    replaceWithCheckedElement(rewriter, op, adaptor.getData(), linear, op.getElemSize(), inBounds);
    return success();
  }
};

struct SpanElemLowering : OpConversionPattern<oxide::SpanElemOp> {
  using OpConversionPattern::OpConversionPattern;
  /// index < size ? data + index * elem_size : null.
  LogicalResult matchAndRewrite(oxide::SpanElemOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value inBounds = LLVM::ICmpOp::create(rewriter, op.getLoc(), LLVM::ICmpPredicate::ult, adaptor.getIndex(),
                                          adaptor.getSize());
    replaceWithCheckedElement(rewriter, op, adaptor.getData(), adaptor.getIndex(), op.getElemSize(),
                              inBounds);
    return success();
  }
};

/// Replaces the uses of the index `value` by one `llvm.freeze` of it. The user's code computes
/// these indices; one that is poison (a signed overflow) or undef (an uninitialised variable)
/// would let LLVM pick one value for the bounds test and another for the address. Frozen once
/// at the definition, every test and every address sees the same value (docs/safety.md). A
/// poison or undef constant is frozen too, but only where the accessors (`guarded`) use it: the
/// importer shares one such constant among every use in a function (aggregates built over
/// poison among them), which must stay free to optimise.
void freezeAtDefinition(Value value, const llvm::SmallPtrSetImpl<Operation *> &guarded) {
  if (!value || value.getDefiningOp<LLVM::FreezeOp>())
    return;
  const bool undefined = value.getDefiningOp<LLVM::PoisonOp>() || value.getDefiningOp<LLVM::UndefOp>();
  if (matchPattern(value, m_Constant()) && !undefined)
    return;
  OpBuilder b(value.getContext());
  if (Operation *def = value.getDefiningOp())
    b.setInsertionPointAfter(def);
  else
    b.setInsertionPointToStart(cast<BlockArgument>(value).getOwner());
  auto frozen = LLVM::FreezeOp::create(b, value.getLoc(), value);
  value.replaceUsesWithIf(frozen.getResult(), [&](OpOperand &use) {
    return use.getOwner() != frozen && (!undefined || guarded.contains(use.getOwner()));
  });
}

} // namespace

/// The operands of the element accessors that the user's code computes (not witnesses, not
/// the launch's sizes), frozen before their guards are built.
void oxide::freezeGuardedIndices(ModuleOp module) {
  SmallVector<Value> indices;
  llvm::SmallPtrSet<Operation *, 16> guarded;
  module.walk([&](Operation *op) {
    if (isa<oxide::DisjointGetOp, oxide::SpanElemOp, oxide::OwnedElemOp, oxide::ReserveOp,
            oxide::ReservedElemOp, oxide::PermutedElemOp, oxide::ClaimedElemOp>(op))
      guarded.insert(op);
    llvm::TypeSwitch<Operation *>(op)
        .Case<oxide::DisjointGetOp>([&](auto get) { llvm::append_range(indices, get.getWithin()); })
        .Case<oxide::SpanElemOp>([&](auto elem) { indices.push_back(elem.getIndex()); })
        .Case<oxide::OwnedElemOp>([&](auto elem) {
          indices.push_back(elem.getJ());
          indices.push_back(elem.getUniform());
        })
        .Case<oxide::ReserveOp>([&](auto reserve) { indices.push_back(reserve.getCount()); })
        .Case<oxide::ReservedElemOp>([&](auto elem) {
          indices.push_back(elem.getJ());
          indices.push_back(elem.getCount());
        })
        .Case<oxide::PermutedElemOp>([&](auto elem) { indices.push_back(elem.getI()); })
        .Case<oxide::ClaimedElemOp>([&](auto elem) { indices.push_back(elem.getJ()); });
  });
  llvm::SmallPtrSet<Value, 16> done;
  for (Value index : indices)
    if (index && done.insert(index).second)
      freezeAtDefinition(index, guarded);
}

namespace {} // namespace

void oxide::populateSpanAccessToNVVMPatterns(RewritePatternSet &patterns) {
  patterns.add<ThreadIndexLowering, GridStrideNextLowering, DisjointGetLowering, SpanElemLowering>(
      patterns.getContext());
}
