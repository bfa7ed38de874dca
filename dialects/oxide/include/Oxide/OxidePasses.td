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

def OxideVerifySafety : Pass<"oxide-verify-safety", "::mlir::ModuleOp"> {
  let summary = "Check witness provenance and launch contracts";
  let description = [{
    * Every `oxide.disjoint_get` coordinate must be the calling thread's own
      `oxide.thread_index` value (followed through calls), so no two threads can obtain the
      same element of a disjoint output: a computed, loaded or forged index is an error.
    * In a kernel with a launch contract (`oxide.contract`), every thread index reachable
      from it must have the contract's rank (`domain`).
  }];
  let dependentDialects = ["::oxide::OxideDialect"];
}

def OxideOptimize : Pass<"oxide-optimize", "::mlir::ModuleOp"> {
  let summary = "Turn launch-contract facts into code-generation facts";
  let description = [{
    For kernels with a launch contract: an exact block becomes `nvvm.reqntid`, launch bounds
    become `nvvm.maxntid`/`nvvm.minctasm`, every `requires` relation becomes an `llvm.intr.assume`
    at entry (the runtime checks them before each launch), and loads through read-only span
    parameters are marked invariant (outputs cannot alias inputs, which the launch checks), so
    NVPTX emits `ld.global.nc`.
  }];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect", "::mlir::LLVM::LLVMDialect"];
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
