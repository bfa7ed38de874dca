//===- OwnershipToNVVM.cpp - group and ownership shapes to NVVM ------------ ===//
//
// The launch-wide ownership shapes (group_index, group_stride_next, owned_elem, reserve,
// reserved_elem, permuted_elem, claimed_elem): each element's owner is a formula over the launch's
// quantities (LaunchQuantities), tested before the element's address is formed.
//
//===----------------------------------------------------------------------===//

#include "LoweringHelpers.h"
#include "Oxide/Conversion/LoweringPatterns.h"
#include "Oxide/IR/KernelContract.h"
#include "Oxide/IR/OxideOps.h"
#include "mlir/IR/Matchers.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace oxide::lowering;

namespace {

/// The launch quantities the group and ownership shapes are written in, as i64, for the function
/// that contains `op`: with a 1-D contract (`domain = 1`, whose launches are 1-D) only the x
/// registers, else the linear forms over x, y and z (x fastest, as the hardware numbers threads).
class LaunchQuantities {
public:
  LaunchQuantities(Operation *op, OpBuilder &b)
      : b(b), loc(op->getLoc()), block(exactBlock(op)), oneDimensional(isOneDimensional(op)) {}

  Value constant(std::int64_t v) {
    return LLVM::ConstantOp::create(b, loc, b.getI64Type(), b.getI64IntegerAttr(v));
  }
  Value read(oxide::GeometryKind kind, oxide::Dim dim) {
    return widen(b, loc, readGeometry(b, loc, kind, dim, block));
  }
  Value sreg(StringRef name) {
    return widen(b, loc,
                 readSpecialRegister(b, loc, b.getI32Type(), ("llvm.nvvm.read.ptx.sreg." + name).str()));
  }
  Value add(Value x, Value y) { return LLVM::AddOp::create(b, loc, x, y, LLVM::IntegerOverflowFlags::nuw); }
  Value mul(Value x, Value y) { return LLVM::MulOp::create(b, loc, x, y, LLVM::IntegerOverflowFlags::nuw); }
  Value ult(Value x, Value y) { return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, x, y); }
  Value eq(Value x, Value y) { return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, x, y); }
  Value both(Value x, Value y) { return LLVM::AndOp::create(b, loc, x, y); }

  /// x + n.x * (y + n.y * z) over the registers of `index` sized by those of `extent`.
  Value linear(oxide::GeometryKind index, oxide::GeometryKind extent) {
    Value x = read(index, oxide::Dim::x);
    if (oneDimensional)
      return x;
    Value yz = add(read(index, oxide::Dim::y), mul(read(extent, oxide::Dim::y), read(index, oxide::Dim::z)));
    return add(x, mul(read(extent, oxide::Dim::x), yz));
  }
  Value product(oxide::GeometryKind extent) {
    Value x = read(extent, oxide::Dim::x);
    if (oneDimensional)
      return x;
    return mul(x, mul(read(extent, oxide::Dim::y), read(extent, oxide::Dim::z)));
  }
  Value threadInBlock() { return linear(oxide::GeometryKind::thread_idx, oxide::GeometryKind::block_dim); }
  Value blockThreads() { return product(oxide::GeometryKind::block_dim); }
  Value blockInGrid() { return linear(oxide::GeometryKind::block_idx, oxide::GeometryKind::grid_dim); }
  Value gridBlocks() { return product(oxide::GeometryKind::grid_dim); }
  Value warpsPerBlock() {
    return LLVM::LShrOp::create(b, loc, add(blockThreads(), constant(kWarpSize - 1)), constant(kWarpShift));
  }
  Value clusterInGrid() {
    Value yz = add(sreg("clusterid.y"), mul(sreg("nclusterid.y"), sreg("clusterid.z")));
    return add(sreg("clusterid.x"), mul(sreg("nclusterid.x"), yz));
  }
  Value gridClusters() { return mul(sreg("nclusterid.x"), mul(sreg("nclusterid.y"), sreg("nclusterid.z"))); }

  /// The group's index (oxide.group_index) and the number of such groups in the launch.
  Value groupIndex(oxide::Group group) {
    switch (group) {
    case oxide::Group::warp:
      return add(mul(blockInGrid(), warpsPerBlock()),
                 LLVM::LShrOp::create(b, loc, threadInBlock(), constant(kWarpShift)));
    case oxide::Group::block:
      return blockInGrid();
    case oxide::Group::cluster:
      return clusterInGrid();
    }
    llvm_unreachable("bad group");
  }
  Value groupCount(oxide::Group group) {
    switch (group) {
    case oxide::Group::warp:
      return mul(gridBlocks(), warpsPerBlock());
    case oxide::Group::block:
      return gridBlocks();
    case oxide::Group::cluster:
      return gridClusters();
    }
    llvm_unreachable("bad group");
  }

private:
  /// Whether the kernel that contains `op` has a 1-D contract: the runtime then launches it only
  /// with 1-D configurations (check_domain), so y and z are 0 and their extents 1.
  static bool isOneDimensional(Operation *op) {
    auto func = op->getParentOfType<LLVM::LLVMFuncOp>();
    if (!func || !func->hasAttr(oxide::OxideDialect::getKernelAttrName()))
      return false;
    auto contract = oxide::getKernelContract(func);
    return succeeded(contract) && *contract && (*contract)->contract.domain == 1;
  }

  OpBuilder &b;
  Location loc;
  std::optional<std::array<std::int32_t, 3>> block;
  bool oneDimensional;
};

struct GroupIndexLowering : OpConversionPattern<oxide::GroupIndexOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::GroupIndexOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, LaunchQuantities(op, rewriter).groupIndex(op.getGroup()));
    return success();
  }
};

struct GroupStrideNextLowering : OpConversionPattern<oxide::GroupStrideNextOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::GroupStrideNextOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    LaunchQuantities launch(op, rewriter);
    rewriter.replaceOpWithNewOp<LLVM::AddOp>(op, adaptor.getIndex(), launch.groupCount(op.getGroup()));
    return success();
  }
};

/// The element and the condition of Ownership::warpgroup_tile (oxide::detail::WarpgroupTile):
/// block b's tile in the grouped order, then the consumer warpgroup's rows and the accumulator
/// layout. Every quantity is below 2^40 (tiles below the output's extents, threads below 2^10),
/// so nothing wraps; blocks past the last tile, and threads outside the consumers, write nothing.
/// With `lanes` 2, j must be even and column + 1 inside the output too: elements j and j + 1 are
/// then the row's adjacent columns.
std::pair<Value, Value> warpgroupTileElement(LaunchQuantities &q, OpBuilder &b, Location loc,
                                             const oxide::detail::WarpgroupTile &tile, Value block, Value j,
                                             Value width, Value height, std::int64_t lanes, Value period) {
  auto div = [&](Value x, Value y) { return LLVM::UDivOp::create(b, loc, x, y).getResult(); };
  auto rem = [&](Value x, Value y) { return LLVM::URemOp::create(b, loc, x, y).getResult(); };
  auto sub = [&](Value x, Value y) { return LLVM::SubOp::create(b, loc, x, y).getResult(); };
  auto ceilDiv = [&](Value x, std::int64_t y) { return div(q.add(x, q.constant(y - 1)), q.constant(y)); };
  const std::int64_t tileRows = 64 * std::int64_t{tile.consumers};
  Value tilesM = ceilDiv(height, tileRows), tilesN = ceilDiv(width, tile.n);
  Value group = q.constant(tile.group);
  Value tiles = q.mul(tilesM, tilesN);
  Value inside = q.ult(block, tiles);
  // Outside the tiles the divisors below may be 0: use 1 there (the element is not written).
  Value one = q.constant(1);
  if (tile.longest_first) {
    // b' = (b % runs) period + period - 1 - b / runs, runs = tiles / period: with b < tiles and
    // period dividing tiles, b' < tiles and no step wraps.
    Value zero = q.constant(0);
    Value periodOk =
        q.both(LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, period, zero),
               q.eq(rem(tiles, LLVM::SelectOp::create(b, loc, q.eq(period, zero), one, period)), zero));
    inside = q.both(inside, periodOk);
    Value p = LLVM::SelectOp::create(b, loc, periodOk, period, one);
    Value runs = LLVM::SelectOp::create(b, loc, inside, div(tiles, p), one);
    Value reordered = q.add(q.mul(rem(block, runs), p), sub(sub(p, one), div(block, runs)));
    block = LLVM::SelectOp::create(b, loc, inside, reordered, zero);
  }
  Value per = LLVM::SelectOp::create(b, loc, inside, q.mul(group, tilesN), one);
  Value firstM = q.mul(div(block, per), group);
  Value left = LLVM::SelectOp::create(b, loc, inside, sub(tilesM, firstM), one);
  Value rows = LLVM::SelectOp::create(b, loc, q.ult(left, group), left, group);
  Value local = rem(block, per);
  Value bm = q.add(firstM, rem(local, rows)), bn = div(local, rows);
  Value t = q.threadInBlock();
  Value w = div(t, q.constant(128)), first = q.constant(tile.first);
  Value consumer = q.both(q.ult(w, q.constant(tile.first + tile.consumers)),
                          LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::uge, w, first));
  Value c = LLVM::SelectOp::create(b, loc, consumer, sub(w, first), q.constant(0));
  Value warp = div(rem(t, q.constant(128)), q.constant(32)), lane = rem(t, q.constant(32));
  Value half = rem(div(j, q.constant(2)), q.constant(2));
  Value row =
      q.add(q.add(q.mul(bm, q.constant(tileRows)), q.mul(c, q.constant(64))),
            q.add(q.add(q.mul(warp, q.constant(16)), div(lane, q.constant(4))), q.mul(half, q.constant(8))));
  Value column = q.add(q.add(q.mul(bn, q.constant(tile.n)), q.mul(div(j, q.constant(4)), q.constant(8))),
                       q.add(q.mul(rem(lane, q.constant(4)), q.constant(2)), rem(j, q.constant(2))));
  Value last = lanes == 1 ? column : q.add(column, q.constant(lanes - 1));
  Value ok = q.both(q.both(inside, consumer),
                    q.both(q.ult(j, q.constant(tile.n / 2)), q.both(q.ult(row, height), q.ult(last, width))));
  if (lanes != 1)
    ok = q.both(ok, q.eq(rem(j, q.constant(lanes)), q.constant(0)));
  return {q.add(q.mul(row, width), column), ok};
}

struct OwnedElemLowering : OpConversionPattern<oxide::OwnedElemOp> {
  using OpConversionPattern::OpConversionPattern;
  /// Each shape's element and the condition that the caller writes it, as in the Ownership enum.
  /// Every comparison is made before the arithmetic it guards could wrap: a wrapped index could
  /// name another owner's element.
  LogicalResult matchAndRewrite(oxide::OwnedElemOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    LaunchQuantities q(op, rewriter);
    Location loc = op.getLoc();
    auto extents = adaptor.getExtents();
    auto owners = adaptor.getOwners();
    Value j = adaptor.getJ(), width = extents[0], owner = owners[0];
    Value zero = q.constant(0), element, ok;
    auto lane = [&] {
      return widen(rewriter, loc, NVVM::LaneIdOp::create(rewriter, loc, rewriter.getI32Type()));
    };
    // Row `row` of a 2-D output, column `first + step * j`, with j < width so that it cannot wrap.
    auto rowColumn = [&](Value row, Value first, Value step) {
      Value column = q.add(first, q.mul(step, j));
      ok = q.both(q.both(q.ult(row, extents[1]), q.ult(j, width)), q.ult(column, width));
      element = q.add(q.mul(row, width), column);
    };
    switch (op.getShape()) {
    case oxide::Ownership::warp_leader:
      ok = q.both(q.eq(lane(), zero), q.ult(owner, width));
      element = owner;
      break;
    case oxide::Ownership::warp_lanes:
      rowColumn(owner, lane(), q.constant(kWarpSize));
      break;
    case oxide::Ownership::block_leader:
      ok = q.both(q.eq(q.threadInBlock(), zero), q.ult(owner, width));
      element = owner;
      break;
    case oxide::Ownership::block_threads:
      rowColumn(owner, q.threadInBlock(), q.blockThreads());
      break;
    case oxide::Ownership::cluster_leader:
      ok = q.both(q.both(q.eq(q.sreg("cluster.ctarank"), zero), q.eq(q.threadInBlock(), zero)),
                  q.ult(owner, width));
      element = owner;
      break;
    case oxide::Ownership::launch_strided: {
      // owner + T * j, in bounds only if the product does not wrap and the sum stays below width.
      Value threads = LLVM::MulOp::create(rewriter, loc, q.read(oxide::GeometryKind::grid_dim, oxide::Dim::x),
                                          q.read(oxide::GeometryKind::block_dim, oxide::Dim::x),
                                          LLVM::IntegerOverflowFlags::nuw);
      auto i1 = rewriter.getI1Type(), i64 = rewriter.getI64Type();
      auto pair = LLVM::LLVMStructType::getLiteral(rewriter.getContext(), {i64, i1});
      Value mul = LLVM::UMulWithOverflowOp::create(rewriter, loc, pair, threads, j);
      Value offset = LLVM::ExtractValueOp::create(rewriter, loc, mul, 0);
      Value wrapped = LLVM::ExtractValueOp::create(rewriter, loc, mul, 1);
      Value fits = LLVM::XOrOp::create(
          rewriter, loc, wrapped, LLVM::ConstantOp::create(rewriter, loc, i1, rewriter.getBoolAttr(true)));
      Value room = LLVM::SubOp::create(rewriter, loc, width, offset); // used only when offset < width
      ok = q.both(q.both(fits, q.ult(offset, width)), q.ult(owner, room));
      element = LLVM::AddOp::create(rewriter, loc, owner, offset);
      break;
    }
    case oxide::Ownership::block_strided: {
      // (b K + j) B + t; K <= 2^16 (the verifier), so with j < K nothing wraps.
      Value k = q.constant(op.getCount());
      Value chunk = q.add(q.mul(q.read(oxide::GeometryKind::block_idx, oxide::Dim::x), k), j);
      element = q.add(q.mul(chunk, q.read(oxide::GeometryKind::block_dim, oxide::Dim::x)),
                      q.read(oxide::GeometryKind::thread_idx, oxide::Dim::x));
      ok = q.both(q.ult(j, k), q.ult(element, width));
      break;
    }
    case oxide::Ownership::strided_rows: {
      Value k = q.constant(op.getCount());
      Value chunk = q.add(q.mul(q.read(oxide::GeometryKind::block_idx, oxide::Dim::y), k), j);
      Value row = q.add(q.mul(chunk, q.read(oxide::GeometryKind::block_dim, oxide::Dim::y)),
                        q.read(oxide::GeometryKind::thread_idx, oxide::Dim::y));
      ok = q.both(q.both(q.ult(j, k), q.ult(owner, width)), q.ult(row, extents[1]));
      element = q.add(q.mul(row, width), owner);
      break;
    }
    case oxide::Ownership::pair: {
      // element lo + h j with lo = (i / h) 2h + i % h; h < width and lo < width keep the sum from wrapping.
      Value h = adaptor.getUniform();
      Value one = q.constant(1);
      Value safeH = LLVM::SelectOp::create(rewriter, loc, q.eq(h, zero), one, h); // no division by zero
      Value quotient = LLVM::UDivOp::create(rewriter, loc, owner, safeH);
      // (i / h) 2h + i % h == (i / h) h + i.
      Value lo =
          LLVM::AddOp::create(rewriter, loc, LLVM::MulOp::create(rewriter, loc, quotient, safeH), owner);
      Value valid =
          q.both(q.both(q.ult(zero, h), q.ult(h, width)), q.both(q.ult(j, q.constant(2)), q.ult(lo, width)));
      element = LLVM::AddOp::create(rewriter, loc, lo, LLVM::MulOp::create(rewriter, loc, h, j));
      ok = q.both(valid, q.ult(element, width));
      break;
    }
    case oxide::Ownership::z_column:
      ok = q.both(q.both(q.ult(owner, width), q.ult(owners[1], extents[1])), q.ult(j, extents[2]));
      element = q.add(q.mul(q.add(q.mul(j, extents[1]), owners[1]), width), owner);
      break;
    case oxide::Ownership::warpgroup_tile:
      std::tie(element, ok) = warpgroupTileElement(q, rewriter, loc, *op.warpgroupTile(), owner, j, width,
                                                   extents[1], op.getLanes(), adaptor.getUniform());
      break;
    }
    if (op.getLanes() != 1) {
      // The lanes are one access: their first byte aligned to all of them (a power of two).
      Value address = LLVM::PtrToIntOp::create(rewriter, loc, rewriter.getI64Type(), adaptor.getData());
      address = LLVM::AddOp::create(rewriter, loc, address, q.mul(element, q.constant(op.getElemSize())));
      Value misaligned = LLVM::AndOp::create(rewriter, loc, address, q.constant(op.coveredBytes() - 1));
      ok = q.both(ok, q.eq(misaligned, zero));
    }
    replaceWithCheckedElement(rewriter, op, adaptor.getData(), element, op.getElemSize(), ok);
    return success();
  }
};

// Reservations add oxide::detail::reserve_increment(counter, count) (intrinsic_abi.hpp), so that
// the counter cannot wrap.
constexpr auto kMaxAppendSlots = static_cast<std::int64_t>(oxide::detail::kMaxAppendSlots);

struct ReserveLowering : OpConversionPattern<oxide::ReserveOp> {
  using OpConversionPattern::OpConversionPattern;
  /// A relaxed device-scope atomic add: the slots only need to be distinct, not ordered. A count
  /// above kSmallReserve first reads the counter (reserve_increment), on a branch of its own, so
  /// that the small counts of ordinary appends (a constant, or one LLVM bounds) cost nothing more.
  LogicalResult matchAndRewrite(oxide::ReserveOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value add = adaptor.getCount();
    APInt constantCount;
    if (!matchPattern(add, m_ConstantInt(&constantCount)) ||
        constantCount.ugt(oxide::detail::kSmallReserve)) {
      LaunchQuantities q(op, rewriter);
      Type i64 = rewriter.getI64Type();
      Block *before = op->getBlock();
      Block *atomic = rewriter.splitBlock(before, op->getIterator());
      add = atomic->addArgument(i64, loc);
      Block *large = rewriter.createBlock(atomic);
      rewriter.setInsertionPointToEnd(before);
      Value count = adaptor.getCount();
      Value small = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ule, count,
                                         q.constant(static_cast<std::int64_t>(oxide::detail::kSmallReserve)));
      LLVM::CondBrOp::create(rewriter, loc, small, atomic, ValueRange{count}, large, ValueRange{});
      rewriter.setInsertionPointToEnd(large);
      Value limit = q.constant(kMaxAppendSlots);
      Value counter = LLVM::LoadOp::create(rewriter, loc, i64, adaptor.getCounter(), 8, false, false, false,
                                           false, LLVM::AtomicOrdering::monotonic, "device");
      Value clamped = LLVM::UMinOp::create(rewriter, loc, count, limit);
      Value increment = LLVM::SelectOp::create(rewriter, loc, q.ult(counter, limit), clamped, q.constant(0));
      LLVM::BrOp::create(rewriter, loc, ValueRange{increment}, atomic);
      rewriter.setInsertionPoint(op);
    }
    rewriter.replaceOpWithNewOp<LLVM::AtomicRMWOp>(op, LLVM::AtomicBinOp::add, adaptor.getCounter(), add,
                                                   LLVM::AtomicOrdering::monotonic,
                                                   /*syncscope=*/"device", /*alignment=*/8);
    return success();
  }
};

struct ReservedElemLowering : OpConversionPattern<oxide::ReservedElemOp> {
  using OpConversionPattern::OpConversionPattern;
  /// j < count && start < size && j < size - start && size <= 2^40: the slot is reserved and in
  /// the output, start + j cannot wrap, and the output is no larger than ReserveLowering assumes.
  LogicalResult matchAndRewrite(oxide::ReservedElemOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    LaunchQuantities q(op, rewriter);
    Value room = LLVM::SubOp::create(rewriter, op.getLoc(), adaptor.getSize(), adaptor.getStart());
    Value ok = q.both(
        q.both(q.ult(adaptor.getJ(), adaptor.getCount()), q.ult(adaptor.getStart(), adaptor.getSize())),
        q.both(q.ult(adaptor.getJ(), room), q.ult(adaptor.getSize(), q.constant(kMaxAppendSlots + 1))));
    Value slot = LLVM::AddOp::create(rewriter, op.getLoc(), adaptor.getStart(), adaptor.getJ());
    replaceWithCheckedElement(rewriter, op, adaptor.getData(), slot, op.getElemSize(), ok);
    return success();
  }
};

struct PermutedElemLowering : OpConversionPattern<oxide::PermutedElemOp> {
  using OpConversionPattern::OpConversionPattern;
  /// p = perm[i < perm_size ? i : 0] (index 0 always exists: an invariant load, since no thread
  /// writes a permutation during the launch), then i < perm_size && p < size ? data + p : null.
  LogicalResult matchAndRewrite(oxide::PermutedElemOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    LaunchQuantities q(op, rewriter);
    Value inPerm = q.ult(adaptor.getI(), adaptor.getPermSize());
    Value at = LLVM::SelectOp::create(rewriter, loc, inPerm, adaptor.getI(), q.constant(0));
    Value address = LLVM::GEPOp::create(rewriter, loc, adaptor.getPerm().getType(), rewriter.getI32Type(),
                                        adaptor.getPerm(), ValueRange{at}, LLVM::GEPNoWrapFlags::inbounds);
    auto load = LLVM::LoadOp::create(rewriter, loc, rewriter.getI32Type(), address, /*alignment=*/4);
    load.setInvariant(true);
    // Not zext nneg: an index may have its top bit set.
    Value index = LLVM::ZExtOp::create(rewriter, loc, rewriter.getI64Type(), load.getResult());
    Value ok = q.both(inPerm, q.ult(index, adaptor.getSize()));
    replaceWithCheckedElement(rewriter, op, adaptor.getData(), index, op.getElemSize(), ok);
    return success();
  }
};

struct ClaimedElemLowering : OpConversionPattern<oxide::ClaimedElemOp> {
  using OpConversionPattern::OpConversionPattern;
  /// in = j < size && j < claims_size; before = atomicrmw or claims[in ? j / 32 : 0], (in ? bit : 0)
  /// (word 0 always exists; or-ing 0 changes nothing); in && !(before & bit) ? data + j : null.
  /// One relaxed device-scope atomic, no branch.
  LogicalResult matchAndRewrite(oxide::ClaimedElemOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    LaunchQuantities q(op, rewriter);
    Type i32 = rewriter.getI32Type();
    Value j = adaptor.getJ();
    Value in = q.both(q.ult(j, adaptor.getSize()), q.ult(j, adaptor.getClaimsSize()));
    Value word = LLVM::SelectOp::create(rewriter, loc, in,
                                        LLVM::LShrOp::create(rewriter, loc, j, q.constant(5)), q.constant(0));
    Value shift =
        LLVM::TruncOp::create(rewriter, loc, i32, LLVM::AndOp::create(rewriter, loc, j, q.constant(31)));
    Value one = LLVM::ConstantOp::create(rewriter, loc, i32, rewriter.getI32IntegerAttr(1));
    Value zero = LLVM::ConstantOp::create(rewriter, loc, i32, rewriter.getI32IntegerAttr(0));
    Value bit =
        LLVM::SelectOp::create(rewriter, loc, in, LLVM::ShlOp::create(rewriter, loc, one, shift), zero);
    Value address =
        LLVM::GEPOp::create(rewriter, loc, adaptor.getClaims().getType(), i32, adaptor.getClaims(),
                            ValueRange{word}, LLVM::GEPNoWrapFlags::inbounds);
    Value before = LLVM::AtomicRMWOp::create(rewriter, loc, LLVM::AtomicBinOp::_or, address, bit,
                                             LLVM::AtomicOrdering::monotonic, /*syncscope=*/"device",
                                             /*alignment=*/4);
    Value taken = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ne,
                                       LLVM::AndOp::create(rewriter, loc, before, bit), zero);
    Value ok = q.both(in, LLVM::XOrOp::create(rewriter, loc, taken,
                                              LLVM::ConstantOp::create(rewriter, loc, rewriter.getI1Type(),
                                                                       rewriter.getBoolAttr(true))));
    replaceWithCheckedElement(rewriter, op, adaptor.getData(), j, op.getElemSize(), ok);
    return success();
  }
};

} // namespace

void oxide::populateOwnershipToNVVMPatterns(RewritePatternSet &patterns) {
  patterns.add<GroupIndexLowering, GroupStrideNextLowering, OwnedElemLowering, ReserveLowering,
               ReservedElemLowering, PermutedElemLowering, ClaimedElemLowering>(patterns.getContext());
}
