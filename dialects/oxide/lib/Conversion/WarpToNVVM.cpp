//===- WarpToNVVM.cpp - warp operations to NVVM ------------------------- ===//
//
// The warp-level ops: %laneid, shfl.sync, vote.sync, bar.warp.sync, redux.sync, match.sync,
// activemask and the lane masks.
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

struct LaneIdLowering : OpConversionPattern<oxide::LaneIdOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::LaneIdOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::LaneIdOp>(op, rewriter.getI32Type());
    return success();
  }
};

struct WarpShuffleLowering : OpConversionPattern<oxide::WarpShuffleOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::WarpShuffleOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    // The c operand of shfl.sync: the segment mask (32 - width) in bits 8..12, over the clamp:
    // 0 for `up` (the segment's first lane bounds it), 31 for the others (its last lane).
    NVVM::ShflKind kind;
    std::int32_t clamp = 0x1f;
    const std::int32_t segment = static_cast<std::int32_t>(32 - op.getWidth()) << 8;
    switch (op.getMode()) {
    case oxide::ShuffleMode::idx:
      kind = NVVM::ShflKind::idx;
      break;
    case oxide::ShuffleMode::up:
      kind = NVVM::ShflKind::up;
      clamp = 0;
      break;
    case oxide::ShuffleMode::down:
      kind = NVVM::ShflKind::down;
      break;
    case oxide::ShuffleMode::bfly:
      kind = NVVM::ShflKind::bfly;
      break;
    }
    Location loc = op.getLoc();
    rewriter.replaceOpWithNewOp<NVVM::ShflOp>(op, rewriter.getI32Type(), adaptor.getMask(),
                                              adaptor.getValue(), adaptor.getArg(),
                                              i32Constant(rewriter, loc, segment | clamp), kind, UnitAttr());
    return success();
  }
};

struct WarpVoteLowering : OpConversionPattern<oxide::WarpVoteOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::WarpVoteOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i1 = rewriter.getI1Type(), i32 = rewriter.getI32Type();
    Value predicate = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ne, adaptor.getPredicate(),
                                           i32Constant(rewriter, loc, 0));
    if (op.getMode() == oxide::VoteMode::ballot) {
      rewriter.replaceOpWithNewOp<NVVM::VoteSyncOp>(op, i32, adaptor.getMask(), predicate,
                                                    NVVM::VoteSyncKind::ballot);
      return success();
    }
    auto kind = op.getMode() == oxide::VoteMode::all ? NVVM::VoteSyncKind::all : NVVM::VoteSyncKind::any;
    Value vote = NVVM::VoteSyncOp::create(rewriter, loc, i1, adaptor.getMask(), predicate, kind);
    rewriter.replaceOpWithNewOp<LLVM::ZExtOp>(op, i32, vote);
    return success();
  }
};

struct WarpSyncLowering : OpConversionPattern<oxide::WarpSyncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::WarpSyncOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::SyncWarpOp>(op, adaptor.getMask());
    return success();
  }
};

struct WarpReduxLowering : OpConversionPattern<oxide::WarpReduxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::WarpReduxOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    NVVM::ReduxKind kind = NVVM::ReduxKind::ADD;
    switch (op.getKind()) {
    case oxide::ReduxKind::add:
      kind = NVVM::ReduxKind::ADD;
      break;
    case oxide::ReduxKind::min:
      kind = NVVM::ReduxKind::MIN;
      break;
    case oxide::ReduxKind::max:
      kind = NVVM::ReduxKind::MAX;
      break;
    case oxide::ReduxKind::umin:
      kind = NVVM::ReduxKind::UMIN;
      break;
    case oxide::ReduxKind::umax:
      kind = NVVM::ReduxKind::UMAX;
      break;
    case oxide::ReduxKind::and_:
      kind = NVVM::ReduxKind::AND;
      break;
    case oxide::ReduxKind::or_:
      kind = NVVM::ReduxKind::OR;
      break;
    case oxide::ReduxKind::xor_:
      kind = NVVM::ReduxKind::XOR;
      break;
    }
    rewriter.replaceOpWithNewOp<NVVM::ReduxOp>(op, rewriter.getI32Type(), adaptor.getValue(), kind,
                                               adaptor.getMask());
    return success();
  }
};

struct WarpMatchLowering : OpConversionPattern<oxide::WarpMatchOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::WarpMatchOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    if (op.getKind() == oxide::MatchKind::any) {
      rewriter.replaceOpWithNewOp<NVVM::MatchSyncOp>(op, i32, adaptor.getMask(), adaptor.getValue(),
                                                     NVVM::MatchSyncKind::any);
      return success();
    }
    // match.sync.all gives {mask, all-equal}; the op's result is the mask (0 when not all equal,
    // which the instruction already returns).
    auto pair = LLVM::LLVMStructType::getLiteral(getContext(), {i32, rewriter.getI1Type()});
    Value both = NVVM::MatchSyncOp::create(rewriter, loc, pair, adaptor.getMask(), adaptor.getValue(),
                                           NVVM::MatchSyncKind::all);
    rewriter.replaceOpWithNewOp<LLVM::ExtractValueOp>(op, both, ArrayRef<std::int64_t>{0});
    return success();
  }
};

struct ActiveMaskLowering : OpConversionPattern<oxide::ActiveMaskOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::ActiveMaskOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    // The NVVM dialect has no op for it; llvm.nvvm.activemask is convergent and not readnone,
    // so LLVM neither merges nor moves it either.
    rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
        op, rewriter.getI32Type(), rewriter.getStringAttr("llvm.nvvm.activemask"), ValueRange{});
    return success();
  }
};

struct LaneMaskLowering : OpConversionPattern<oxide::LaneMaskOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::LaneMaskOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    switch (op.getKind()) {
    case oxide::LaneMaskKind::lt:
      rewriter.replaceOpWithNewOp<NVVM::LaneMaskLtOp>(op, i32);
      break;
    case oxide::LaneMaskKind::le:
      rewriter.replaceOpWithNewOp<NVVM::LaneMaskLeOp>(op, i32);
      break;
    case oxide::LaneMaskKind::eq:
      rewriter.replaceOpWithNewOp<NVVM::LaneMaskEqOp>(op, i32);
      break;
    case oxide::LaneMaskKind::ge:
      rewriter.replaceOpWithNewOp<NVVM::LaneMaskGeOp>(op, i32);
      break;
    case oxide::LaneMaskKind::gt:
      rewriter.replaceOpWithNewOp<NVVM::LaneMaskGtOp>(op, i32);
      break;
    }
    return success();
  }
};

} // namespace

void oxide::populateWarpToNVVMPatterns(RewritePatternSet &patterns) {
  patterns.add<LaneIdLowering, WarpShuffleLowering, WarpVoteLowering, WarpSyncLowering, WarpReduxLowering,
               WarpMatchLowering, ActiveMaskLowering, LaneMaskLowering>(patterns.getContext());
}
