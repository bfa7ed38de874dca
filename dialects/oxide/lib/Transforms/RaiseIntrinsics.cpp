//===- RaiseIntrinsics.cpp - __oxide_* calls to oxide ops -----------------===//
//
// The C++ headers express kernel semantics as calls to undefined `__oxide_*` functions
// (include/oxide/device/intrinsics.hpp); this pass turns them into oxide ops so later passes
// reason about ops, not symbol names. It takes each intrinsic's signature from that header's
// declaration, and the range of each enumerated operand from the dialect's enums, whose cases
// are the catalog's (include/oxide/detail/intrinsic_abi.hpp).
//
//===----------------------------------------------------------------------===//

#include "Raise/CallRaiser.h"

#include "Oxide/IR/KernelContract.h"
#include "Oxide/IR/OxideOps.h"
#include "Oxide/Transforms/Passes.h"

namespace oxide {
#define GEN_PASS_DEF_OXIDERAISE
#include "Oxide/Transforms/Passes.h.inc"
} // namespace oxide

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kIntrinsicPrefix = "__oxide_";

/// Marks `func` a kernel: its #oxide.kernel holds what the frontend's "oxide.contract",
/// "oxide.params" and "oxide.launch_bounds" strings say, which arrive in `passthrough` and leave
/// it here (oxide-to-nvvm writes them back for the kernel table).
LogicalResult markKernel(LLVM::LLVMFuncOp func) {
  StringAttr strings[3];
  const llvm::StringLiteral keys[3] = {oxide::kContractAttr, oxide::kParamsAttr, oxide::kLaunchBoundsAttr};
  SmallVector<Attribute> rest;
  if (auto passthrough = func.getPassthroughAttr())
    for (Attribute entry : passthrough) {
      auto pair = dyn_cast<ArrayAttr>(entry);
      auto key = pair && pair.size() == 2 ? dyn_cast<StringAttr>(pair[0]) : nullptr;
      auto value = pair && pair.size() == 2 ? dyn_cast<StringAttr>(pair[1]) : nullptr;
      auto *known = key && value ? llvm::find(keys, key.getValue()) : std::end(keys);
      if (known == std::end(keys))
        rest.push_back(entry);
      else
        strings[known - std::begin(keys)] = value;
    }
  FailureOr<oxide::KernelAttr> kernel =
      oxide::kernelAttrFromStrings(func, strings[0], strings[1], strings[2]);
  if (failed(kernel))
    return failure();
  func->setAttr(oxide::OxideDialect::getKernelAttrName(), *kernel);
  if (rest.empty())
    func->removeAttr(func.getPassthroughAttrName());
  else
    func.setPassthroughAttr(ArrayAttr::get(func.getContext(), rest));
  return success();
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
      failed |= mlir::failed(oxide::raise::CallRaiser(call, rewriter).raise());
    if (failed)
      return signalPassFailure();

    for (auto func : llvm::make_early_inc_range(module.getOps<LLVM::LLVMFuncOp>())) {
      if (func.getCConv() == LLVM::CConv::PTX_Kernel)
        failed |= mlir::failed(markKernel(func));
      else if (func.isExternal() && func.getSymName().starts_with(kIntrinsicPrefix) &&
               SymbolTable::symbolKnownUseEmpty(func, module))
        func.erase();
    }
    if (failed)
      signalPassFailure();
  }
};

} // namespace
