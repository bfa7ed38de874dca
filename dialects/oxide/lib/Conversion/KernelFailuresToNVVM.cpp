//===- KernelFailuresToNVVM.cpp - traps and bounds failures to NVVM ------------- ===//
//
// How a kernel stops: oxide.trap as __assertfail with the user's file and line, and
// oxide.bounds_fail through one cold, out-of-line __oxide_bounds_failure per module.
//
//===----------------------------------------------------------------------===//

#include "LoweringHelpers.h"
#include "Oxide/Conversion/LoweringPatterns.h"
#include "Oxide/IR/OxideOps.h"
#include "oxide/detail/intrinsic_abi.hpp"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/Demangle/Demangle.h"

using namespace mlir;
using namespace oxide::lowering;

namespace {

struct TrapLowering : OpConversionPattern<oxide::TrapOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::TrapOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    emitAssertFail(op, rewriter, adaptor.getMessage());
    rewriter.replaceOpWithNewOp<LLVM::Trap>(op);
    return success();
  }
};

/// The report of a failed bounds check, out of line: one cold, noinline function per module
/// that prints the index and the size with vprintf and then fails like an assert. Inlined at
/// every check, the printf buffer took a stack frame and registers in the hot path of kernels
/// such as SGEMM; out of line, each check costs a compare and a call on its cold path.
constexpr llvm::StringLiteral kBoundsFailureName = oxide::detail::kBoundsFailureFunction;

} // namespace

void oxide::buildBoundsFailureFunction(ModuleOp module) {
  Location loc = module.getLoc();
  MLIRContext *ctx = module.getContext();
  OpBuilder b(ctx);
  b.setInsertionPointToStart(module.getBody());
  Type ptr = LLVM::LLVMPointerType::get(ctx), i32 = b.getI32Type(), i64 = b.getI64Type();
  auto voidType = LLVM::LLVMVoidType::get(ctx);
  // (index, size, file, line, function)
  auto fnType = LLVM::LLVMFunctionType::get(voidType, {i64, i64, ptr, i32, ptr});
  // External, so that no interprocedural pass drops or specialises an argument: the calls keep
  // the five arguments until oxide-write-failure-reports, which removes the function.
  auto fn = LLVM::LLVMFuncOp::create(b, loc, kBoundsFailureName, fnType, LLVM::Linkage::External);
  fn.setPassthroughAttr(
      b.getArrayAttr({b.getStringAttr("noinline"), b.getStringAttr("cold"), b.getStringAttr("noreturn")}));
  Block *entry = fn.addEntryBlock(b);
  b.setInsertionPointToStart(entry);
  auto argsType = LLVM::LLVMStructType::getLiteral(ctx, {i64, i64});
  Value args = LLVM::AllocaOp::create(b, loc, ptr, argsType, i32Constant(b, loc, 1), 8);
  for (std::int32_t i = 0; i < 2; ++i) {
    Value field = LLVM::GEPOp::create(b, loc, ptr, argsType, args, ArrayRef<LLVM::GEPArg>{0, i});
    LLVM::StoreOp::create(b, loc, entry->getArgument(i), field);
  }
  LLVM::LLVMFuncOp vprintf =
      declareFunction(module, b, "vprintf", LLVM::LLVMFunctionType::get(i32, {ptr, ptr}));
  Value format = globalString(module, b, loc, "__oxide_bounds",
                              "oxide: index %llu out of bounds for span of size %llu\n");
  LLVM::CallOp::create(b, loc, vprintf, ValueRange{format, args});
  LLVM::LLVMFuncOp assertFail = declareFunction(
      module, b, "__assertfail", LLVM::LLVMFunctionType::get(voidType, {ptr, ptr, i32, ptr, i64}));
  Value message = globalString(module, b, loc, "__oxide_bounds", "span index in bounds");
  LLVM::CallOp::create(b, loc, assertFail,
                       ValueRange{message, entry->getArgument(2), entry->getArgument(3),
                                  entry->getArgument(4),
                                  LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(1))});
  LLVM::Trap::create(b, loc);
  LLVM::UnreachableOp::create(b, loc);
}

namespace {

struct BoundsFailLowering : OpConversionPattern<oxide::BoundsFailOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::BoundsFailOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto module = op->getParentOfType<ModuleOp>();
    auto failure = module.lookupSymbol<LLVM::LLVMFuncOp>(kBoundsFailureName);
    if (!failure)
      return LogicalResult::failure();
    auto [file, line] = userSourceLocation(op);
    auto func = op->getParentOfType<LLVM::LLVMFuncOp>();
    std::string function = func ? llvm::demangle(func.getSymName()) : std::string("<kernel>");
    Value fileStr = globalString(module, rewriter, loc, "__oxide_file", file);
    Value functionStr = globalString(module, rewriter, loc, "__oxide_function", function);
    LLVM::CallOp::create(rewriter, loc, failure,
                         ValueRange{adaptor.getIndex(), adaptor.getSize(), fileStr,
                                    i32Constant(rewriter, loc, static_cast<std::int32_t>(line)),
                                    functionStr});
    rewriter.replaceOpWithNewOp<LLVM::Trap>(op);
    return success();
  }
};

} // namespace

void oxide::populateKernelFailuresToNVVMPatterns(RewritePatternSet &patterns) {
  patterns.add<TrapLowering, BoundsFailLowering>(patterns.getContext());
}
