//===- SharedMemoryToNVVM.cpp - shared memory to NVVM ------------------------- ===//
//
// Static shared memory (one internal addrspace(3) global per site), the dynamic shared array
// and its size register.
//
//===----------------------------------------------------------------------===//

#include "LoweringHelpers.h"
#include "Oxide/Conversion/LoweringPatterns.h"
#include "Oxide/IR/KernelContract.h"
#include "Oxide/IR/OxideOps.h"
#include "mlir/IR/SymbolTable.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace oxide::lowering;

namespace {

constexpr llvm::StringLiteral kDynamicSharedName = "__oxide_dynamic_shared";

struct SharedAllocLowering : OpConversionPattern<oxide::SharedAllocOp> {
  using OpConversionPattern::OpConversionPattern;
  /// One addrspace(3) global per site, so every use of a declaration shares its memory.
  LogicalResult matchAndRewrite(oxide::SharedAllocOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto module = op->getParentOfType<ModuleOp>();
    std::string name = ("__oxide_shared_" + op.getSite()).str();
    auto arrayType = LLVM::LLVMArrayType::get(rewriter.getI8Type(), op.getBytes());
    auto global = module.lookupSymbol<LLVM::GlobalOp>(name);
    if (!global) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      global = LLVM::GlobalOp::create(rewriter, op.getLoc(), arrayType, /*isConstant=*/false,
                                      LLVM::Linkage::Internal, name, Attribute(), op.getAlignment(),
                                      kSharedAddressSpace);
      // Shared memory has no initial value: an undef initializer, as NVPTX requires.
      Block *init = rewriter.createBlock(&global.getInitializerRegion());
      rewriter.setInsertionPointToStart(init);
      Value undef = LLVM::UndefOp::create(rewriter, op.getLoc(), arrayType);
      LLVM::ReturnOp::create(rewriter, op.getLoc(), undef);
    } else if (global.getType() != arrayType) {
      return op.emitOpError() << "site '" << op.getSite() << "' is used with two different sizes";
    }
    auto sharedPtr = LLVM::LLVMPointerType::get(op.getContext(), kSharedAddressSpace);
    Value address = LLVM::AddressOfOp::create(rewriter, op.getLoc(), sharedPtr, global.getSymName());
    rewriter.replaceOpWithNewOp<LLVM::AddrSpaceCastOp>(op, op.getType(), address);
    return success();
  }
};

struct DynamicSharedLowering : OpConversionPattern<oxide::DynamicSharedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::DynamicSharedOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto module = op->getParentOfType<ModuleOp>();
    auto arrayType = LLVM::LLVMArrayType::get(rewriter.getI8Type(), 0);
    if (!module.lookupSymbol<LLVM::GlobalOp>(kDynamicSharedName)) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      LLVM::GlobalOp::create(rewriter, op.getLoc(), arrayType, false, LLVM::Linkage::External,
                             kDynamicSharedName, Attribute(), /*alignment=*/16, kSharedAddressSpace);
    }
    auto sharedPtr = LLVM::LLVMPointerType::get(op.getContext(), kSharedAddressSpace);
    Value address = LLVM::AddressOfOp::create(rewriter, op.getLoc(), sharedPtr, kDynamicSharedName);
    rewriter.replaceOpWithNewOp<LLVM::AddrSpaceCastOp>(op, op.getType(), address);
    return success();
  }
};

struct DynamicSharedSizeLowering : OpConversionPattern<oxide::DynamicSharedSizeOp> {
  using OpConversionPattern::OpConversionPattern;
  /// The register, and in a contracted kernel the contract's dynamic_shared range as assumptions
  /// (the runtime launches it only within the range): a kernel's check that it got enough then
  /// folds away, which matters where any call (the check's failure report) would make ptxas
  /// serialise wgmma.
  LogicalResult matchAndRewrite(oxide::DynamicSharedSizeOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value size = LLVM::CallIntrinsicOp::create(
                     rewriter, loc, rewriter.getI32Type(),
                     rewriter.getStringAttr("llvm.nvvm.read.ptx.sreg.dynamic_smem_size"), ValueRange{})
                     .getResult(0);
    if (const oxide::detail::Contract *c =
            oxide::getKernelContract(op->getParentOfType<LLVM::LLVMFuncOp>())) {
      auto assume = [&](LLVM::ICmpPredicate predicate, std::uint32_t bound) {
        Value limit = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI32Type(), bound);
        LLVM::AssumeOp::create(rewriter, loc, LLVM::ICmpOp::create(rewriter, loc, predicate, size, limit));
      };
      if (c->dynamic_shared_min > 0)
        assume(LLVM::ICmpPredicate::uge, c->dynamic_shared_min);
      assume(LLVM::ICmpPredicate::ule, c->dynamic_shared_max);
    }
    rewriter.replaceOp(op, size);
    return success();
  }
};

} // namespace

void oxide::populateSharedMemoryToNVVMPatterns(RewritePatternSet &patterns) {
  patterns.add<SharedAllocLowering, DynamicSharedLowering, DynamicSharedSizeLowering>(patterns.getContext());
}
