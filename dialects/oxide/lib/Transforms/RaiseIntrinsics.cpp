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

/// The frontend's "oxide.contract"/"oxide.params"/"oxide.launch_bounds" string function
/// attributes arrive in `passthrough`; the dialect's passes read them as discardable
/// attributes. Passthrough keeps its copy, which carries them on to the kernel table.
void copyContractAttributes(LLVM::LLVMFuncOp func) {
  auto passthrough = func.getPassthroughAttr();
  if (!passthrough)
    return;
  for (Attribute entry : passthrough) {
    auto pair = dyn_cast<ArrayAttr>(entry);
    if (!pair || pair.size() != 2)
      continue;
    auto key = dyn_cast<StringAttr>(pair[0]);
    auto value = dyn_cast<StringAttr>(pair[1]);
    if (key && value &&
        llvm::is_contained({oxide::kContractAttr, oxide::kParamsAttr, oxide::kLaunchBoundsAttr},
                           key.getValue()))
      func->setAttr(key, value);
  }
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

    auto kernelAttr = StringAttr::get(&getContext(), oxide::OxideDialect::getKernelAttrName());
    for (auto func : llvm::make_early_inc_range(module.getOps<LLVM::LLVMFuncOp>())) {
      if (func.getCConv() == LLVM::CConv::PTX_Kernel) {
        func->setAttr(kernelAttr, UnitAttr::get(&getContext()));
        copyContractAttributes(func);
      } else if (func.isExternal() && func.getSymName().starts_with(kIntrinsicPrefix) &&
                 SymbolTable::symbolKnownUseEmpty(func, module))
        func.erase();
    }
  }
};

} // namespace
