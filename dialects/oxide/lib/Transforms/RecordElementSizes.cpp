//===- RecordElementSizes.cpp - element sizes for the kernel table --------===//
//
// Records on each contracted kernel the element size its code uses for each span parameter
// (0: none), in its #oxide.kernel attribute; oxide-to-nvvm writes them out for
// compiler/host/KernelTable.cpp, which reads them into the device image.
//
//===----------------------------------------------------------------------===//

#include "Oxide/IR/KernelContract.h"
#include "Oxide/IR/OxideDialect.h"
#include "Oxide/Transforms/Passes.h"
#include "Oxide/Transforms/WriteProof.h"

namespace oxide {
#define GEN_PASS_DEF_OXIDERECORDELEMENTSIZES
#include "Oxide/Transforms/Passes.h.inc"
} // namespace oxide

using namespace mlir;

void oxide::recordElementSizes(const WriteProof &proof) {
  for (const WriteProof::ElementSizes &record : proof.elementSizes()) {
    LLVM::LLVMFuncOp kernel = record.kernel;
    SmallVector<uint32_t> sizes;
    for (int64_t size : record.sizes)
      sizes.push_back(static_cast<uint32_t>(size));
    kernel->setAttr(OxideDialect::getKernelAttrName(), getKernelAttr(kernel).withElementSizes(sizes));
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
