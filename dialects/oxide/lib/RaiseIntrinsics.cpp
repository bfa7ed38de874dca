//===- RaiseIntrinsics.cpp - __oxide_* calls to oxide ops -----------------===//
//
// The C++ headers express kernel semantics as calls to undefined `__oxide_*` functions; this
// pass turns them into oxide ops so later passes reason about ops, not symbol names.
//
//===----------------------------------------------------------------------===//

#include "Oxide/OxideOps.h"
#include "Oxide/OxidePasses.h"

#include "mlir/IR/PatternMatch.h"

namespace oxide {
#define GEN_PASS_DEF_OXIDERAISE
#include "Oxide/OxidePasses.h.inc"
} // namespace oxide

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kIntrinsicPrefix = "__oxide_";

/// Checks that a call has the operand and result types its intrinsic is declared with in
/// include/oxide/device/intrinsics.hpp; anything else means headers and compiler disagree.
LogicalResult checkSignature(LLVM::CallOp call, unsigned numOperands, bool returnsI64) {
  auto i64 = IntegerType::get(call.getContext(), 64);
  if (call.getNumOperands() != numOperands ||
      llvm::any_of(call.getOperandTypes(), [&](Type t) { return t != i64; }))
    return call.emitError() << "oxide intrinsic '" << *call.getCallee() << "' called with unexpected operands";
  if (returnsI64 != (call.getNumResults() == 1 && call.getResult().getType() == i64))
    return call.emitError() << "oxide intrinsic '" << *call.getCallee() << "' has an unexpected result type";
  return success();
}

LogicalResult raiseCall(LLVM::CallOp call, IRRewriter &rewriter) {
  StringRef name = *call.getCallee();
  rewriter.setInsertionPoint(call);
  if (name == "__oxide_index_1d") {
    if (failed(checkSignature(call, 0, /*returnsI64=*/true)))
      return failure();
    rewriter.replaceOpWithNewOp<oxide::ThreadIndexOp>(call, rewriter.getI64Type(), 1);
    return success();
  }
  if (name == "__oxide_bounds_fail") {
    if (failed(checkSignature(call, 2, /*returnsI64=*/false)))
      return failure();
    rewriter.replaceOpWithNewOp<oxide::BoundsFailOp>(call, call.getOperand(0), call.getOperand(1));
    return success();
  }
  return call.emitError() << "unknown oxide intrinsic '" << name
                          << "': the oxide headers and the compiler are from different versions";
}

struct OxideRaisePass : oxide::impl::OxideRaiseBase<OxideRaisePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    IRRewriter rewriter(&getContext());

    SmallVector<LLVM::CallOp> calls;
    module.walk([&](LLVM::CallOp call) {
      if (auto callee = call.getCallee(); callee && callee->starts_with(kIntrinsicPrefix))
        calls.push_back(call);
    });
    bool failed = false;
    for (LLVM::CallOp call : calls)
      failed |= mlir::failed(raiseCall(call, rewriter));
    if (failed)
      return signalPassFailure();

    auto kernelAttr = StringAttr::get(&getContext(), oxide::OxideDialect::getKernelAttrName());
    for (auto func : llvm::make_early_inc_range(module.getOps<LLVM::LLVMFuncOp>())) {
      if (func.getCConv() == LLVM::CConv::PTX_Kernel)
        func->setAttr(kernelAttr, UnitAttr::get(&getContext()));
      else if (func.isExternal() && func.getSymName().starts_with(kIntrinsicPrefix) &&
               func.getSymbolUses(module).value_or(SymbolTable::UseRange({})).empty())
        func.erase();
    }
  }
};

} // namespace
