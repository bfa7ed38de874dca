//===- HopperToNVVM.cpp - mbarriers, TMA, wgmma, setmaxnreg to NVVM -------===//
//
// Each Hopper op becomes NVVM's op for it: the mbarriers, the bulk tensor copy, the proxy
// fence, prefetch.tensormap and setmaxnreg through their LLVM intrinsics; wgmma.mma_async as
// the one inline-PTX statement NVVM's op builds (LLVM has no intrinsic for it), whose
// accumulator registers are tied operands ("+f"), so that they flow from one wgmma to the next
// without a copy. The work here is the pointer forms NVVM wants: mbarriers and copy
// destinations in shared memory (address space 3; the cluster window, 7, for a copy's
// destination and a remote arrival), the TensorMap a generic pointer to global memory.
//
//===----------------------------------------------------------------------===//

#include "Oxide/Conversion/LoweringPatterns.h"
#include "Oxide/IR/OxideOps.h"

#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace {

constexpr unsigned kGenericAddressSpace = 0, kSharedAddressSpace = 3, kSharedClusterAddressSpace = 7;

/// `pointer` in address space `space` (a cast when it is not).
Value inAddressSpace(OpBuilder &b, Location loc, Value pointer, unsigned space) {
  auto type = cast<LLVM::LLVMPointerType>(pointer.getType());
  if (type.getAddressSpace() == space)
    return pointer;
  return LLVM::AddrSpaceCastOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), space), pointer);
}

Value shared(OpBuilder &b, Location loc, Value pointer) {
  return inAddressSpace(b, loc, pointer, kSharedAddressSpace);
}

struct SharedAddressLowering : OpConversionPattern<oxide::SharedAddressOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::SharedAddressOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    // Shared pointers are 32 bits (nvptx-short-ptr): the window offset itself.
    rewriter.replaceOpWithNewOp<LLVM::PtrToIntOp>(op, rewriter.getI32Type(),
                                                  shared(rewriter, op.getLoc(), adaptor.getPtr()));
    return success();
  }
};

struct MbarrierInitLowering : OpConversionPattern<oxide::MbarrierInitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::MbarrierInitOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::MBarrierInitOp>(op, shared(rewriter, op.getLoc(), adaptor.getBar()),
                                                      adaptor.getCount(), Value());
    return success();
  }
};

struct MbarrierInitFenceLowering : OpConversionPattern<oxide::MbarrierInitFenceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::MbarrierInitFenceOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::FenceMbarrierInitOp>(op);
    return success();
  }
};

struct MbarrierArriveLowering : OpConversionPattern<oxide::MbarrierArriveOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::MbarrierArriveOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    // The state it returns is not needed: waits go by phase parity.
    rewriter.replaceOpWithNewOp<NVVM::MBarrierArriveOp>(
        op, Type(), shared(rewriter, op.getLoc(), adaptor.getBar()), Value(), NVVM::MemScopeKind::CTA, false);
    return success();
  }
};

struct MbarrierArriveExpectTxLowering : OpConversionPattern<oxide::MbarrierArriveExpectTxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::MbarrierArriveExpectTxOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::MBarrierArriveExpectTxOp>(
        op, Type(), shared(rewriter, op.getLoc(), adaptor.getBar()), adaptor.getBytes(),
        NVVM::MemScopeKind::CTA, false, Value());
    return success();
  }
};

struct MbarrierArriveClusterLowering : OpConversionPattern<oxide::MbarrierArriveClusterOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::MbarrierArriveClusterOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value remote = NVVM::MapaOp::create(rewriter, loc,
                                        LLVM::LLVMPointerType::get(getContext(), kSharedClusterAddressSpace),
                                        shared(rewriter, loc, adaptor.getBar()), adaptor.getRank());
    rewriter.replaceOpWithNewOp<NVVM::MBarrierArriveOp>(op, Type(), remote, Value(),
                                                        NVVM::MemScopeKind::CLUSTER, false);
    return success();
  }
};

struct MbarrierTryWaitParityLowering : OpConversionPattern<oxide::MbarrierTryWaitParityOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::MbarrierTryWaitParityOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // A 32-bit phase operand makes it the .parity form; no time limit: the system's.
    Value done = NVVM::MBarrierTryWaitOp::create(rewriter, loc, rewriter.getI1Type(),
                                                 shared(rewriter, loc, adaptor.getBar()), adaptor.getParity(),
                                                 Value(), NVVM::MemScopeKind::CTA, false);
    rewriter.replaceOpWithNewOp<LLVM::ZExtOp>(op, rewriter.getI32Type(), done);
    return success();
  }
};

struct MbarrierInvalLowering : OpConversionPattern<oxide::MbarrierInvalOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::MbarrierInvalOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::MBarrierInvalOp>(op, shared(rewriter, op.getLoc(), adaptor.getBar()));
    return success();
  }
};

struct FenceProxyAsyncSharedLowering : OpConversionPattern<oxide::FenceProxyAsyncSharedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::FenceProxyAsyncSharedOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::FenceProxyOp>(
        op, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(getContext(), NVVM::SharedSpace::shared_cta));
    return success();
  }
};

struct TmaLoadLowering : OpConversionPattern<oxide::TmaLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::TmaLoadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // The destination in the cluster's window (a block's own shared memory is part of it), so
    // that the copy is the .shared::cluster form, which multicast needs.
    Value dst =
        inAddressSpace(rewriter, loc, shared(rewriter, loc, adaptor.getDst()), kSharedClusterAddressSpace);
    Value map = inAddressSpace(rewriter, loc, adaptor.getMap(), kGenericAddressSpace);
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp>(
        op, dst, map, adaptor.getCoords(), shared(rewriter, loc, adaptor.getBar()), ValueRange{},
        adaptor.getMulticast(), Value(), NVVM::TMALoadMode::TILE, false, NVVM::CTAGroupKindAttr(), Value());
    return success();
  }
};

struct TmaPrefetchLowering : OpConversionPattern<oxide::TmaPrefetchOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::TmaPrefetchOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::PrefetchOp>(
        op, NVVM::PrefetchCacheLevelAttr(), NVVM::CacheEvictionPriorityAttr(),
        inAddressSpace(rewriter, op.getLoc(), adaptor.getMap(), kGenericAddressSpace), Value(),
        /*tensormap=*/true);
    return success();
  }
};

struct TmaStoreLowering : OpConversionPattern<oxide::TmaStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::TmaStoreOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // The .global.shared::cta.bulk_group form: no cache hint, no predicate (an LLVM intrinsic).
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp>(
        op, inAddressSpace(rewriter, loc, adaptor.getMap(), kGenericAddressSpace),
        shared(rewriter, loc, adaptor.getSrc()), adaptor.getCoords(), Value(), NVVM::TMAStoreMode::TILE,
        Value());
    return success();
  }
};

struct TmaStoreCommitLowering : OpConversionPattern<oxide::TmaStoreCommitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::TmaStoreCommitOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkCommitGroupOp>(op);
    return success();
  }
};

struct TmaStoreWaitLowering : OpConversionPattern<oxide::TmaStoreWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::TmaStoreWaitOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    // .read: the source may be reused once the copies have read it; the kernel's end waits for
    // the writes themselves.
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkWaitGroupOp>(op, op.getPending(), rewriter.getUnitAttr());
    return success();
  }
};

struct WgmmaLowering : OpConversionPattern<oxide::WgmmaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::WgmmaOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    using NVVM::WGMMATypes;
    WGMMATypes type = WGMMATypes::bf16, accumulator = WGMMATypes::f32;
    switch (op.getType()) {
    case oxide::WgmmaType::bf16:
      type = WGMMATypes::bf16;
      break;
    case oxide::WgmmaType::f16:
      type = WGMMATypes::f16;
      break;
    case oxide::WgmmaType::tf32:
      type = WGMMATypes::tf32;
      break;
    case oxide::WgmmaType::e4m3:
      type = WGMMATypes::e4m3;
      break;
    case oxide::WgmmaType::e5m2:
      type = WGMMATypes::e5m2;
      break;
    case oxide::WgmmaType::s8:
      type = WGMMATypes::s8;
      accumulator = WGMMATypes::s32;
      break;
    }
    const unsigned n = op.getN(), registers = n / 2;
    Type element = oxide::WgmmaOp::accumulatorType(getContext(), op.getType());
    auto structType = LLVM::LLVMStructType::getLiteral(getContext(), SmallVector<Type>(registers, element));
    Value inouts = LLVM::PoisonOp::create(rewriter, loc, structType);
    for (auto [i, v] : llvm::enumerate(adaptor.getC()))
      inouts = LLVM::InsertValueOp::create(rewriter, loc, inouts, v,
                                           ArrayRef<std::int64_t>{static_cast<std::int64_t>(i)});
    // NVVM's layouts: row (K-major) for A and col (K-major) for B unless transposed.
    auto mma = NVVM::WgmmaMmaAsyncOp::create(
        rewriter, loc, structType, inouts, adaptor.getDescA(), adaptor.getDescB(),
        NVVM::MMAShapeAttr::get(getContext(), 64, n, oxide::WgmmaOp::shapeK(op.getType())), type, type,
        accumulator, op.getAccumulate() ? NVVM::WGMMAScaleOut::one : NVVM::WGMMAScaleOut::zero,
        NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
        op.getTransA() ? NVVM::MMALayout::col : NVVM::MMALayout::row,
        op.getTransB() ? NVVM::MMALayout::row : NVVM::MMALayout::col, NVVM::MMAIntOverflowAttr());
    SmallVector<Value> results;
    for (unsigned i = 0; i < registers; ++i)
      results.push_back(
          LLVM::ExtractValueOp::create(rewriter, loc, mma.getResults(), ArrayRef<std::int64_t>{i}));
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// NVVM's wgmma op takes A only through a descriptor, so the register-A form is written out as
/// PTX: outputs the accumulator registers (tied to their inputs), then A's four registers and
/// B's descriptor. scale-d is a predicate made from the accumulate constant, as NVVM's does.
struct WgmmaRegisterALowering : OpConversionPattern<oxide::WgmmaRegisterAOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::WgmmaRegisterAOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    const oxide::WgmmaType type = op.getType();
    const bool integer = type == oxide::WgmmaType::s8,
               sixteenBit = type == oxide::WgmmaType::bf16 || type == oxide::WgmmaType::f16;
    const unsigned n = op.getN(), registers = n / 2;
    const std::string multiplicand = oxide::stringifyWgmmaType(type).str();
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "{\n.reg .pred p;\nsetp.ne.b32 p, " << (op.getAccumulate() ? 1 : 0)
       << ", 0;\nwgmma.mma_async.sync.aligned.m64n" << n << "k" << oxide::WgmmaOp::shapeK(type) << "."
       << (integer ? "s32" : "f32") << "." << multiplicand << "." << multiplicand << " {";
    for (unsigned i = 0; i < registers; ++i)
      os << (i ? ", $" : "$") << i;
    os << "}, {$" << registers << ", $" << registers + 1 << ", $" << registers + 2 << ", $" << registers + 3
       << "}, $" << registers + 4 << ", p";
    if (!integer)
      os << ", 1, 1";
    if (sixteenBit)
      os << ", " << (op.getTransB() ? 1 : 0);
    os << ";\n}";
    std::string constraints;
    for (unsigned i = 0; i < registers; ++i)
      constraints += integer ? "=r," : "=f,";
    constraints += "r,r,r,r,l";
    for (unsigned i = 0; i < registers; ++i)
      constraints += "," + std::to_string(i);
    SmallVector<Value> operands(adaptor.getA());
    operands.push_back(adaptor.getDescB());
    llvm::append_range(operands, adaptor.getC());
    Type element = oxide::WgmmaOp::accumulatorType(getContext(), type);
    auto structType = LLVM::LLVMStructType::getLiteral(getContext(), SmallVector<Type>(registers, element));
    auto asmOp = LLVM::InlineAsmOp::create(rewriter, loc, TypeRange{structType}, operands, text, constraints,
                                           /*has_side_effects=*/true, /*is_align_stack=*/false,
                                           LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
                                           ArrayAttr());
    SmallVector<Value> results;
    for (unsigned i = 0; i < registers; ++i)
      results.push_back(
          LLVM::ExtractValueOp::create(rewriter, loc, asmOp.getResult(0), ArrayRef<std::int64_t>{i}));
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct WgmmaFenceLowering : OpConversionPattern<oxide::WgmmaFenceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::WgmmaFenceOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::WgmmaFenceAlignedOp>(op);
    return success();
  }
};

struct WgmmaCommitGroupLowering : OpConversionPattern<oxide::WgmmaCommitGroupOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::WgmmaCommitGroupOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::WgmmaGroupSyncAlignedOp>(op);
    return success();
  }
};

struct WgmmaWaitGroupLowering : OpConversionPattern<oxide::WgmmaWaitGroupOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::WgmmaWaitGroupOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::WgmmaWaitGroupSyncOp>(op, op.getPending());
    return success();
  }
};

struct SetMaxNRegLowering : OpConversionPattern<oxide::SetMaxNRegOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::SetMaxNRegOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::SetMaxRegisterOp>(
        op, op.getCount(),
        op.getIncrease() ? NVVM::SetMaxRegisterAction::increase : NVVM::SetMaxRegisterAction::decrease);
    return success();
  }
};

} // namespace

void oxide::populateHopperToNVVMPatterns(RewritePatternSet &patterns) {
  patterns.add<SharedAddressLowering, MbarrierInitLowering, MbarrierInitFenceLowering, MbarrierArriveLowering,
               MbarrierArriveExpectTxLowering, MbarrierArriveClusterLowering, MbarrierTryWaitParityLowering,
               MbarrierInvalLowering, FenceProxyAsyncSharedLowering, TmaLoadLowering, TmaPrefetchLowering,
               TmaStoreLowering, TmaStoreCommitLowering, TmaStoreWaitLowering, WgmmaLowering,
               WgmmaRegisterALowering, WgmmaFenceLowering, WgmmaCommitGroupLowering, WgmmaWaitGroupLowering,
               SetMaxNRegLowering>(patterns.getContext());
}

LogicalResult oxide::lowerPtxBuilderOps(ModuleOp module) {
  SmallVector<Operation *> ops;
  module.walk([&](NVVM::WgmmaMmaAsyncOp op) { ops.push_back(op); });
  if (ops.empty())
    return success();
  RewritePatternSet patterns(module.getContext());
  populateNVVMToLLVMConversionPatterns(patterns);
  bool allErased = false;
  if (failed(applyOpPatternsGreedily(ops, std::move(patterns), GreedyRewriteConfig(), nullptr, &allErased)) ||
      !allErased)
    return module.emitError() << "cannot lower wgmma.mma_async to inline PTX";
  return success();
}
