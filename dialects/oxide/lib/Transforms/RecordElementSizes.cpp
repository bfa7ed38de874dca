//===- RecordElementSizes.cpp - element sizes for the kernel table --------===//
//
// Records on each contracted kernel the element size its code uses for each span parameter
// (0: none), as `["oxide.elem_sizes", "S0,S1,..."]` in its passthrough, which
// compiler/host/KernelTable.cpp reads into the device image.
//
//===----------------------------------------------------------------------===//

#include "Oxide/Transforms/Passes.h"
#include "Oxide/Transforms/WriteProof.h"

namespace oxide {
#define GEN_PASS_DEF_OXIDERECORDELEMENTSIZES
#include "Oxide/Transforms/Passes.h.inc"
} // namespace oxide

using namespace mlir;

void oxide::recordElementSizes(const WriteProof &proof) {
  for (const WriteProof::ElementSizes &record : proof.elementSizes()) {
    std::string sizes;
    for (auto [i, size] : llvm::enumerate(record.sizes))
      sizes += (i ? "," : "") + std::to_string(size);
    LLVM::LLVMFuncOp kernel = record.kernel;
    MLIRContext *ctx = kernel.getContext();
    SmallVector<Attribute> passthrough;
    if (auto existing = kernel.getPassthroughAttr())
      passthrough.append(existing.begin(), existing.end());
    passthrough.push_back(
        ArrayAttr::get(ctx, {StringAttr::get(ctx, "oxide.elem_sizes"), StringAttr::get(ctx, sizes)}));
    kernel.setPassthroughAttr(ArrayAttr::get(ctx, passthrough));
  }
}

namespace {

struct OxideRecordElementSizesPass : oxide::impl::OxideRecordElementSizesBase<OxideRecordElementSizesPass> {
  void runOnOperation() override {
    const oxide::WriteProof &proof = getAnalysis<oxide::WriteProof>();
    if (proof.failed()) {
      signalPassFailure();
      return;
    }
    oxide::recordElementSizes(proof);
    // Only attributes changed: the proof's operations and values are all still there.
    markAllAnalysesPreserved();
  }
};

} // namespace
