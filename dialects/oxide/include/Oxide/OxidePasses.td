//===- OxidePasses.td - oxide dialect passes ---------------*- tablegen -*-===//

#ifndef OXIDE_PASSES
#define OXIDE_PASSES

include "mlir/Pass/PassBase.td"

def OxideRaise : Pass<"oxide-raise", "::mlir::ModuleOp"> {
  let summary = "Raise __oxide_* intrinsic calls and kernel entry points into the oxide dialect";
  let description = [{
    Replaces each `llvm.call @__oxide_*` emitted by the C++ headers with the matching oxide
    op, marks every `ptx_kernel` function with `oxide.kernel`, and erases the now-unused
    intrinsic declarations. A call to an unknown `__oxide_*` function is an error.
  }];
  let dependentDialects = ["::oxide::OxideDialect"];
}

def OxideToNVVM : Pass<"oxide-to-nvvm", "::mlir::ModuleOp"> {
  let summary = "Lower oxide ops to the NVVM and LLVM dialects";
  let description = [{
    `oxide.thread_index` becomes PTX special-register reads combined with a widening
    multiply-add, `oxide.bounds_fail` a trap; `oxide.kernel` entry points keep the
    `ptx_kernel` calling convention and lose the marker.
  }];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect", "::mlir::LLVM::LLVMDialect"];
}

#endif // OXIDE_PASSES
