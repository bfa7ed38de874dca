//===- TensorCoreToNVVM.cpp - mma.sync, ld/stmatrix, cp.async to NVVM -----===//
//
// The tensor-core ops map one to one onto NVVM's: the work here is the operand forms NVVM wants
// (f16 pairs as vector<2xf16>, pointers in their own address spaces) and the cache mode of
// cp.async (16-byte copies bypass L1: .cg; smaller ones must go through it: .ca).
//
//===----------------------------------------------------------------------===//

#include "Oxide/Conversion/LoweringPatterns.h"
#include "Oxide/IR/OxideOps.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace {

constexpr unsigned kGlobalAddressSpace = 1, kSharedAddressSpace = 3;

/// `pointer` in address space `space` (a cast when it is generic).
Value inAddressSpace(OpBuilder &b, Location loc, Value pointer, unsigned space) {
  auto type = cast<LLVM::LLVMPointerType>(pointer.getType());
  if (type.getAddressSpace() == space)
    return pointer;
  return LLVM::AddrSpaceCastOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), space), pointer);
}

/// The elements of an LLVM struct (or the value itself, when `count` is 1).
SmallVector<Value> unpack(OpBuilder &b, Location loc, Value value, unsigned count) {
  if (count == 1 && !isa<LLVM::LLVMStructType>(value.getType()))
    return {value};
  SmallVector<Value> values;
  for (unsigned i = 0; i < count; ++i)
    values.push_back(LLVM::ExtractValueOp::create(b, loc, value, ArrayRef<std::int64_t>{i}));
  return values;
}

struct MmaSyncLowering : OpConversionPattern<oxide::MmaSyncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::MmaSyncOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type multiplicand = op.getMultiplicand();
    NVVM::MMATypes type = multiplicand.isBF16()   ? NVVM::MMATypes::bf16
                          : multiplicand.isF16()  ? NVVM::MMATypes::f16
                          : multiplicand.isTF32() ? NVVM::MMATypes::tf32
                                                  : NVVM::MMATypes::s8;
    SmallVector<Value> a(adaptor.getA()), b(adaptor.getB());
    // NVVM takes f16 pairs as vector<2xf16>; the other multiplicands as the i32 registers.
    if (type == NVVM::MMATypes::f16) {
      auto pair = VectorType::get({2}, rewriter.getF16Type());
      for (Value *v : {&a[0], &a[1], &a[2], &a[3], &b[0], &b[1]})
        *v = LLVM::BitcastOp::create(rewriter, loc, pair, *v);
    }
    Type accumulator = op.getD().front().getType();
    auto result = LLVM::LLVMStructType::getLiteral(getContext(), SmallVector<Type>(4, accumulator));
    std::optional<NVVM::MMAIntOverflow> overflow;
    if (type == NVVM::MMATypes::s8)
      overflow = NVVM::MMAIntOverflow::satfinite;
    auto mma =
        NVVM::MmaOp::create(rewriter, loc, result, a, b, adaptor.getC(),
                            ArrayRef<std::int64_t>{16, 8, oxide::MmaSyncOp::shapeK(multiplicand)},
                            std::nullopt, overflow, std::array<NVVM::MMATypes, 2>{type, type},
                            std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col});
    rewriter.replaceOp(op, unpack(rewriter, loc, mma.getRes(), 4));
    return success();
  }
};

struct LdMatrixLowering : OpConversionPattern<oxide::LdMatrixOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::LdMatrixOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    const unsigned count = op.getCount();
    Type i32 = rewriter.getI32Type();
    Type result =
        count == 1 ? i32 : LLVM::LLVMStructType::getLiteral(getContext(), SmallVector<Type>(count, i32));
    // NVVM spells .trans as the column layout.
    auto load = NVVM::LdMatrixOp::create(
        rewriter, loc, result, inAddressSpace(rewriter, loc, adaptor.getRow(), kSharedAddressSpace), count,
        op.getTrans() ? NVVM::MMALayout::col : NVVM::MMALayout::row,
        NVVM::LdStMatrixShapeAttr::get(getContext(), 8, 8), NVVM::LdStMatrixEltType::B16);
    rewriter.replaceOp(op, unpack(rewriter, loc, load.getRes(), count));
    return success();
  }
};

struct StMatrixLowering : OpConversionPattern<oxide::StMatrixOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::StMatrixOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    // NVVM spells .trans as the column layout, as for ldmatrix.
    rewriter.replaceOpWithNewOp<NVVM::StMatrixOp>(
        op, inAddressSpace(rewriter, op.getLoc(), adaptor.getRow(), kSharedAddressSpace),
        adaptor.getFragment(),
        NVVM::MMALayoutAttr::get(getContext(), op.getTrans() ? NVVM::MMALayout::col : NVVM::MMALayout::row),
        NVVM::LdStMatrixShapeAttr::get(getContext(), 8, 8),
        NVVM::LdStMatrixEltTypeAttr::get(getContext(), NVVM::LdStMatrixEltType::B16));
    return success();
  }
};

struct CpAsyncLowering : OpConversionPattern<oxide::CpAsyncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::CpAsyncOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // .cg (L2 only) exists for 16-byte copies alone; tiles streamed through shared memory gain
    // nothing from L1.
    auto cache = op.getBytes() == 16 ? NVVM::LoadCacheModifierKind::CG : NVVM::LoadCacheModifierKind::CA;
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncOp>(
        op, inAddressSpace(rewriter, loc, adaptor.getDst(), kSharedAddressSpace),
        inAddressSpace(rewriter, loc, adaptor.getSrc(), kGlobalAddressSpace), op.getBytes(), cache,
        adaptor.getSrcBytes());
    return success();
  }
};

struct CpAsyncCommitLowering : OpConversionPattern<oxide::CpAsyncCommitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::CpAsyncCommitOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncCommitGroupOp>(op);
    return success();
  }
};

struct CpAsyncWaitLowering : OpConversionPattern<oxide::CpAsyncWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::CpAsyncWaitOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncWaitGroupOp>(op, op.getPending());
    return success();
  }
};

} // namespace

void oxide::populateTensorCoreToNVVMPatterns(RewritePatternSet &patterns) {
  patterns.add<MmaSyncLowering, LdMatrixLowering, StMatrixLowering, CpAsyncLowering, CpAsyncCommitLowering,
               CpAsyncWaitLowering>(patterns.getContext());
}
