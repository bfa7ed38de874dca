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
#include "oxide/detail/owned_element.hpp"

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
    const oxide::detail::Contract *contract =
        oxide::getKernelContract(op->getParentOfType<LLVM::LLVMFuncOp>());
    return contract && contract->domain == 1;
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

/// oxide::detail::owned_element's arithmetic in the lowering: i64 values of the LLVM dialect (i1
/// for conditions), the launch quantities of the kernel, and `nuw` on the adds and multiplies the
/// formula says cannot wrap.
struct IRArithmetic {
  using Value = mlir::Value;
  LaunchQuantities &q;
  OpBuilder &b;
  Location loc;

  Value constant(std::uint64_t v) { return q.constant(static_cast<std::int64_t>(v)); }
  Value add(Value x, Value y) { return q.add(x, y); }
  Value mul(Value x, Value y) { return q.mul(x, y); }
  Value add_wrapping(Value x, Value y) { return LLVM::AddOp::create(b, loc, x, y); }
  Value mul_wrapping(Value x, Value y) { return LLVM::MulOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return LLVM::SubOp::create(b, loc, x, y); }
  Value udiv(Value x, Value y) { return LLVM::UDivOp::create(b, loc, x, y); }
  Value urem(Value x, Value y) { return LLVM::URemOp::create(b, loc, x, y); }
  Value ult(Value x, Value y) { return q.ult(x, y); }
  Value uge(Value x, Value y) { return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::uge, x, y); }
  Value eq(Value x, Value y) { return q.eq(x, y); }
  Value ne(Value x, Value y) { return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, x, y); }
  Value both(Value x, Value y) { return q.both(x, y); }
  Value negate(Value x) {
    return LLVM::XOrOp::create(b, loc, x,
                               LLVM::ConstantOp::create(b, loc, b.getI1Type(), b.getBoolAttr(true)));
  }
  Value select(Value c, Value x, Value y) { return LLVM::SelectOp::create(b, loc, c, x, y); }
  std::pair<Value, Value> mul_overflow(Value x, Value y) {
    auto pair = LLVM::LLVMStructType::getLiteral(b.getContext(), {b.getI64Type(), b.getI1Type()});
    Value product = LLVM::UMulWithOverflowOp::create(b, loc, pair, x, y);
    return {LLVM::ExtractValueOp::create(b, loc, product, 0),
            LLVM::ExtractValueOp::create(b, loc, product, 1)};
  }
  Value lane() { return widen(b, loc, NVVM::LaneIdOp::create(b, loc, b.getI32Type())); }
  Value thread_in_block() { return q.threadInBlock(); }
  Value block_threads() { return q.blockThreads(); }
  Value cluster_rank() { return q.sreg("cluster.ctarank"); }
  Value read(oxide::intrinsic::GeometryKind kind, oxide::intrinsic::Dim dim) {
    return q.read(static_cast<oxide::GeometryKind>(kind), static_cast<oxide::Dim>(dim));
  }
};

struct OwnedElemLowering : OpConversionPattern<oxide::OwnedElemOp> {
  using OpConversionPattern::OpConversionPattern;
  /// Each shape's element and the condition that the caller writes it: the formula of
  /// oxide/detail/owned_element.hpp, which the simulator runs too.
  LogicalResult matchAndRewrite(oxide::OwnedElemOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    LaunchQuantities q(op, rewriter);
    Location loc = op.getLoc();
    auto extents = adaptor.getExtents();
    auto owners = adaptor.getOwners();
    oxide::detail::OwnedElementOperands<Value> in{owners[0],
                                                  owners.size() > 1 ? owners[1] : Value(),
                                                  adaptor.getJ(),
                                                  extents[0],
                                                  extents.size() > 1 ? extents[1] : Value(),
                                                  extents.size() > 2 ? extents[2] : Value(),
                                                  adaptor.getUniform(),
                                                  static_cast<std::uint64_t>(op.getCount()),
                                                  op.warpgroupTile().value_or(oxide::detail::WarpgroupTile{}),
                                                  static_cast<std::int64_t>(op.getLanes())};
    IRArithmetic arithmetic{q, rewriter, loc};
    auto [element, ok] =
        oxide::detail::owned_element(arithmetic, static_cast<oxide::intrinsic::Ownership>(op.getShape()), in);
    if (op.getLanes() != 1) {
      // The lanes are one access: their first byte aligned to all of them (a power of two).
      Value address = LLVM::PtrToIntOp::create(rewriter, loc, rewriter.getI64Type(), adaptor.getData());
      address = LLVM::AddOp::create(rewriter, loc, address, q.mul(element, q.constant(op.getElemSize())));
      Value misaligned = LLVM::AndOp::create(rewriter, loc, address, q.constant(op.coveredBytes() - 1));
      ok = q.both(ok, q.eq(misaligned, q.constant(0)));
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
