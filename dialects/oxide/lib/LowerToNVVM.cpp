//===- LowerToNVVM.cpp - oxide ops to NVVM/LLVM ---------------------------===//

#include "Oxide/OxideOps.h"
#include "Oxide/OxidePasses.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace oxide {
#define GEN_PASS_DEF_OXIDETONVVM
#include "Oxide/OxidePasses.h.inc"
} // namespace oxide

using namespace mlir;

namespace {

/// index = ctaid.x * ntid.x + tid.x, computed as a widening 32x32->64 multiply-add: NVPTX
/// selects mul.wide.u32 + add, and the index cannot wrap even for 2^31 blocks of 1024 threads.
struct ThreadIndexLowering : OpConversionPattern<oxide::ThreadIndexOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::ThreadIndexOp op, OpAdaptor, ConversionPatternRewriter &rewriter) const override {
    if (op.getRank() != 1)
      return rewriter.notifyMatchFailure(op, "only 1-D thread indices are supported");
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
    auto widen = [&](Value v) { return LLVM::ZExtOp::create(rewriter, loc, i64, v, /*nonNeg=*/true).getResult(); };
    Value tid = widen(NVVM::ThreadIdXOp::create(rewriter, loc, i32));
    Value ctaid = widen(NVVM::BlockIdXOp::create(rewriter, loc, i32));
    Value ntid = widen(NVVM::BlockDimXOp::create(rewriter, loc, i32));
    auto nuw = LLVM::IntegerOverflowFlags::nuw;
    Value base = LLVM::MulOp::create(rewriter, loc, ctaid, ntid, nuw);
    rewriter.replaceOpWithNewOp<LLVM::AddOp>(op, base, tid, nuw);
    return success();
  }
};

struct BoundsFailLowering : OpConversionPattern<oxide::BoundsFailOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::BoundsFailOp op, OpAdaptor, ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::Trap>(op);
    return success();
  }
};

struct OxideToNVVMPass : oxide::impl::OxideToNVVMBase<OxideToNVVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    ConversionTarget target(getContext());
    target.addLegalDialect<LLVM::LLVMDialect, NVVM::NVVMDialect>();
    target.addIllegalDialect<oxide::OxideDialect>();
    RewritePatternSet patterns(&getContext());
    patterns.add<ThreadIndexLowering, BoundsFailLowering>(&getContext());
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();

    // Entry points keep the ptx_kernel calling convention; the marker has served its purpose.
    for (auto func : module.getOps<LLVM::LLVMFuncOp>())
      if (func->removeAttr(oxide::OxideDialect::getKernelAttrName()))
        func.setCConv(LLVM::CConv::PTX_Kernel);
  }
};

} // namespace
