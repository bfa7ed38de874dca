//===- Passes.td - lowering out of the oxide dialect -------*- tablegen -*-===//

#ifndef OXIDE_CONVERSION_PASSES
#define OXIDE_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def OxideToNVVM : Pass<"oxide-to-nvvm", "::mlir::ModuleOp"> {
  let summary = "Lower oxide ops to the NVVM and LLVM dialects";
  let description = [{
    `oxide.thread_index` becomes PTX special-register reads combined with a widening
    multiply-add, `oxide.bounds_fail` a trap; `oxide.kernel` entry points keep the
    `ptx_kernel` calling convention and lose the marker.
  }];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect", "::mlir::LLVM::LLVMDialect"];
}

#endif // OXIDE_CONVERSION_PASSES
