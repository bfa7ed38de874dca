//===- GeometryAndSyncToNVVM.cpp - geometry, clocks and barriers to NVVM --------- ===//
//
// Launch geometry and clocks (special registers), the block barrier and fences, the cluster
// registers, barrier and mapa, and the grid barrier of cooperative launches (one function per
// module, built before the conversion by buildGridBarrierFunction).
//
//===----------------------------------------------------------------------===//

#include "LoweringHelpers.h"
#include "Oxide/Conversion/LoweringPatterns.h"
#include "Oxide/IR/OxideOps.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace oxide::lowering;

namespace {

struct GeometryLowering : OpConversionPattern<oxide::GeometryOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::GeometryOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, readGeometry(rewriter, op.getLoc(), op.getKind(), op.getDim(), exactBlock(op)));
    return success();
  }
};

struct BarrierLowering : OpConversionPattern<oxide::BarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::BarrierOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::Barrier0Op>(op);
    return success();
  }
};

struct NamedBarrierLowering : OpConversionPattern<oxide::NamedBarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::NamedBarrierOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    // bar.sync / bar.arrive id, n: aligned, since every lane of a warp executes it together.
    StringRef intrinsic = op.getArrive() ? "llvm.nvvm.barrier.cta.arrive.aligned.count"
                                         : "llvm.nvvm.barrier.cta.sync.aligned.count";
    LLVM::CallIntrinsicOp::create(rewriter, op.getLoc(), rewriter.getStringAttr(intrinsic),
                                  ValueRange{adaptor.getId(), adaptor.getThreads()});
    rewriter.eraseOp(op);
    return success();
  }
};

struct FenceLowering : OpConversionPattern<oxide::FenceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::FenceOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::FenceOp>(op, LLVM::AtomicOrdering::seq_cst,
                                               oxide::llvmSyncScope(op.getScope()));
    return success();
  }
};

struct ClockLowering : OpConversionPattern<oxide::ClockOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::ClockOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    StringRef intrinsic = op.getKind() == oxide::ClockKind::clock64 ? "llvm.nvvm.read.ptx.sreg.clock64"
                                                                    : "llvm.nvvm.read.ptx.sreg.globaltimer";
    rewriter.replaceOp(op, readSpecialRegister(rewriter, op.getLoc(), rewriter.getI64Type(), intrinsic));
    return success();
  }
};

struct ClusterGeometryLowering : OpConversionPattern<oxide::ClusterGeometryOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::ClusterGeometryOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    StringRef suffix = op.getDim() == oxide::Dim::x ? ".x" : op.getDim() == oxide::Dim::y ? ".y" : ".z";
    std::string intrinsic = "llvm.nvvm.read.ptx.sreg.";
    switch (op.getKind()) {
    case oxide::ClusterGeometryKind::block_rank:
      intrinsic += "cluster.ctarank";
      break;
    case oxide::ClusterGeometryKind::block_count:
      intrinsic += "cluster.nctarank";
      break;
    case oxide::ClusterGeometryKind::block_idx:
      intrinsic += ("cluster.ctaid" + suffix).str();
      break;
    case oxide::ClusterGeometryKind::cluster_dim:
      intrinsic += ("cluster.nctaid" + suffix).str();
      break;
    case oxide::ClusterGeometryKind::cluster_idx:
      intrinsic += ("clusterid" + suffix).str();
      break;
    case oxide::ClusterGeometryKind::grid_clusters:
      intrinsic += ("nclusterid" + suffix).str();
      break;
    }
    rewriter.replaceOp(op, readSpecialRegister(rewriter, op.getLoc(), rewriter.getI32Type(), intrinsic));
    return success();
  }
};

struct ClusterSyncLowering : OpConversionPattern<oxide::ClusterSyncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::ClusterSyncOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    // The non-.aligned forms: correct even when the threads of a warp reach it apart.
    Location loc = op.getLoc();
    LLVM::CallIntrinsicOp::create(rewriter, loc, rewriter.getStringAttr("llvm.nvvm.barrier.cluster.arrive"),
                                  ValueRange{});
    rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
        op, rewriter.getStringAttr("llvm.nvvm.barrier.cluster.wait"), ValueRange{});
    return success();
  }
};

struct MapSharedLowering : OpConversionPattern<oxide::MapSharedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::MapSharedOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(op, op.getType(),
                                                       rewriter.getStringAttr("llvm.nvvm.mapa"),
                                                       ValueRange{adaptor.getPtr(), adaptor.getRank()});
    return success();
  }
};

/// The grid barrier of cooperative launches, as CUDA's cooperative groups implement it: the
/// driver passes a workspace in %envreg1/%envreg2 whose second word is the barrier. Thread 0
/// of each block adds 1 (block 0 adds 0x80000000 - (blocks - 1)) with release semantics, so
/// the top bit flips when the last block arrives; each then spins with acquire loads until it
/// sees the flip. Built once per module, before the conversion, as a function that every
/// grid_sync calls.
constexpr llvm::StringLiteral kGridBarrierName = "__oxide_grid_barrier";

} // namespace

void oxide::buildGridBarrierFunction(ModuleOp module) {
  Location loc = module.getLoc();
  OpBuilder builder(module.getContext());
  builder.setInsertionPointToStart(module.getBody());
  MLIRContext *ctx = module.getContext();
  auto fnType = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {});
  auto fn = LLVM::LLVMFuncOp::create(builder, loc, kGridBarrierName, fnType, LLVM::Linkage::Internal);
  // Convergent: the optimiser must not duplicate calls into divergent paths, where the copies'
  // bar.sync (aligned) would be reached by the threads of one warp at different places.
  fn.setConvergent(true);
  Type i32 = builder.getI32Type(), i64 = builder.getI64Type(), i8 = builder.getI8Type(),
       ptr = LLVM::LLVMPointerType::get(ctx);

  Block *entry = fn.addEntryBlock(builder);
  Block *arrive = builder.createBlock(&fn.getBody());
  Block *spin = builder.createBlock(&fn.getBody(), fn.getBody().end(), {i32}, {loc});
  Block *done = builder.createBlock(&fn.getBody());

  OpBuilder b(ctx);
  auto sum3 = [&](oxide::GeometryKind kind) {
    Value x = readGeometry(b, loc, kind, oxide::Dim::x), y = readGeometry(b, loc, kind, oxide::Dim::y),
          z = readGeometry(b, loc, kind, oxide::Dim::z);
    return LLVM::AddOp::create(b, loc, LLVM::AddOp::create(b, loc, x, y), z).getResult();
  };
  auto isZero = [&](Value v) {
    return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, v, i32Constant(b, loc, 0)).getResult();
  };

  b.setInsertionPointToStart(entry);
  NVVM::Barrier0Op::create(b, loc);
  LLVM::CondBrOp::create(b, loc, isZero(sum3(oxide::GeometryKind::thread_idx)), arrive, done);

  b.setInsertionPointToStart(arrive);
  // The workspace address: %envreg1 holds its high half, %envreg2 its low half.
  Value hi =
      LLVM::ZExtOp::create(b, loc, i64, readSpecialRegister(b, loc, i32, "llvm.nvvm.read.ptx.sreg.envreg1"));
  Value lo =
      LLVM::ZExtOp::create(b, loc, i64, readSpecialRegister(b, loc, i32, "llvm.nvvm.read.ptx.sreg.envreg2"));
  Value shift = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(32));
  Value address = LLVM::OrOp::create(b, loc, LLVM::ShlOp::create(b, loc, hi, shift), lo);
  Value workspace = LLVM::IntToPtrOp::create(b, loc, ptr, address);
  Value barrier = LLVM::GEPOp::create(b, loc, ptr, i8, workspace, ArrayRef<LLVM::GEPArg>{4});
  Value nx = readGeometry(b, loc, oxide::GeometryKind::grid_dim, oxide::Dim::x),
        ny = readGeometry(b, loc, oxide::GeometryKind::grid_dim, oxide::Dim::y),
        nz = readGeometry(b, loc, oxide::GeometryKind::grid_dim, oxide::Dim::z);
  Value blocks = LLVM::MulOp::create(b, loc, LLVM::MulOp::create(b, loc, nx, ny), nz);
  Value masterAdd =
      LLVM::SubOp::create(b, loc, i32Constant(b, loc, static_cast<std::int32_t>(0x80000001u)), blocks);
  Value add = LLVM::SelectOp::create(b, loc, isZero(sum3(oxide::GeometryKind::block_idx)), masterAdd,
                                     i32Constant(b, loc, 1));
  // A release fence and a relaxed add: NVPTX (LLVM 22) drops the release of an atomicrmw.
  LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::release, "device");
  Value old = LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::add, barrier, add,
                                        LLVM::AtomicOrdering::monotonic, "device", 4);
  LLVM::BrOp::create(b, loc, ValueRange{old}, spin);

  b.setInsertionPointToStart(spin);
  Value current = LLVM::LoadOp::create(b, loc, i32, barrier, 4, false, false, false, false,
                                       LLVM::AtomicOrdering::acquire, "device");
  Value flipped = LLVM::AndOp::create(b, loc, LLVM::XOrOp::create(b, loc, spin->getArgument(0), current),
                                      i32Constant(b, loc, static_cast<std::int32_t>(0x80000000u)));
  LLVM::CondBrOp::create(b, loc, isZero(flipped), spin, ValueRange{spin->getArgument(0)}, done, ValueRange{});

  b.setInsertionPointToStart(done);
  NVVM::Barrier0Op::create(b, loc);
  LLVM::ReturnOp::create(b, loc, ValueRange{});
}

namespace {

struct GridSyncLowering : OpConversionPattern<oxide::GridSyncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::GridSyncOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto barrier = op->getParentOfType<ModuleOp>().lookupSymbol<LLVM::LLVMFuncOp>(kGridBarrierName);
    if (!barrier)
      return failure();
    auto call = rewriter.replaceOpWithNewOp<LLVM::CallOp>(op, barrier, ValueRange{});
    call.setConvergent(true);
    return success();
  }
};

} // namespace

void oxide::populateGeometryAndSyncToNVVMPatterns(RewritePatternSet &patterns) {
  patterns.add<GeometryLowering, BarrierLowering, NamedBarrierLowering, FenceLowering, ClockLowering,
               ClusterGeometryLowering, ClusterSyncLowering, MapSharedLowering, GridSyncLowering>(
      patterns.getContext());
}
