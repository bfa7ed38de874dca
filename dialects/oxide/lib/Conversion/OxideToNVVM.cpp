//===- OxideToNVVM.cpp - oxide ops to NVVM/LLVM ---------------------------===//
//
// The oxide-to-nvvm pass: the module-level preparations, then one partial conversion with the
// patterns of every op family (Oxide/Conversion/LoweringPatterns.h; one file each in this
// folder), then the kernels' calling convention.
//
//===----------------------------------------------------------------------===//

#include "Oxide/Conversion/LoweringPatterns.h"
#include "Oxide/Conversion/Passes.h"
#include "Oxide/IR/KernelContract.h"
#include "Oxide/IR/OxideOps.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace oxide {
#define GEN_PASS_DEF_OXIDETONVVM
#include "Oxide/Conversion/Passes.h.inc"
} // namespace oxide

using namespace mlir;

namespace {

struct OxideToNVVMPass : oxide::impl::OxideToNVVMBase<OxideToNVVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    oxide::freezeGuardedIndices(module);
    if (module.walk([](oxide::GridSyncOp) { return WalkResult::interrupt(); }).wasInterrupted())
      oxide::buildGridBarrierFunction(module);
    if (module.walk([](oxide::BoundsFailOp) { return WalkResult::interrupt(); }).wasInterrupted())
      oxide::buildBoundsFailureFunction(module);
    ConversionTarget target(getContext());
    target.addLegalDialect<LLVM::LLVMDialect, NVVM::NVVMDialect>();
    target.addIllegalDialect<oxide::OxideDialect>();
    RewritePatternSet patterns(&getContext());
    oxide::populateSpanAccessToNVVMPatterns(patterns);
    oxide::populateOwnershipToNVVMPatterns(patterns);
    oxide::populateGeometryAndSyncToNVVMPatterns(patterns);
    oxide::populateSharedMemoryToNVVMPatterns(patterns);
    oxide::populateWarpToNVVMPatterns(patterns);
    oxide::populateKernelFailuresToNVVMPatterns(patterns);
    oxide::populateTensorCoreToNVVMPatterns(patterns);
    oxide::populateHopperToNVVMPatterns(patterns);
    oxide::populateCacheToNVVMPatterns(patterns);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    if (failed(oxide::lowerPtxBuilderOps(module)))
      return signalPassFailure();

    // Entry points keep the ptx_kernel calling convention; what the kernel attribute says goes
    // back to the frontend's strings, in passthrough, for the kernel table.
    for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
      oxide::KernelAttr kernel = oxide::getKernelAttr(func);
      if (!kernel)
        continue;
      func->removeAttr(oxide::OxideDialect::getKernelAttrName());
      func.setCConv(LLVM::CConv::PTX_Kernel);
      SmallVector<Attribute> passthrough;
      if (ArrayAttr existing = func.getPassthroughAttr())
        llvm::append_range(passthrough, existing);
      llvm::append_range(passthrough, oxide::kernelStrings(kernel));
      if (!passthrough.empty())
        func.setPassthroughAttr(ArrayAttr::get(func.getContext(), passthrough));
    }
  }
};

} // namespace
