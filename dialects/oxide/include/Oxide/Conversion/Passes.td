//===- Passes.td - lowering out of the oxide dialect -------*- tablegen -*-===//

#ifndef OXIDE_CONVERSION_PASSES
#define OXIDE_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def OxideToNVVM : Pass<"oxide-to-nvvm", "::mlir::ModuleOp"> {
  let summary = "Lower oxide ops to the NVVM and LLVM dialects";
  let description = [{
    * `oxide.thread_index`: `ctaid * ntid + tid` as a widening (nuw) multiply-add of the
      special registers; `oxide.grid_stride_next`: `index + nctaid * ntid`; `oxide.geometry`:
      one special-register read. With the kernel's `nvvm.reqntid` (from oxide-optimize),
      blockDim is a constant and threadIdx carries the range [0, blockDim).
    * `oxide.disjoint_get` and `oxide.span_elem`: the bounds test (per dimension, over tiles
      when there are), the row-major element address, and a select of it or null.
    * `oxide.barrier`: `bar.sync 0`; `oxide.fence`: a seq_cst `llvm.fence` at the block,
      device or system scope.
    * `oxide.shared_alloc`: one internal addrspace(3) global per site (two sizes for one site
      are an error); `oxide.dynamic_shared`: the external addrspace(3) array
      `__oxide_dynamic_shared`; both as generic addresses. `oxide.dynamic_shared_size`:
      `%dynamic_smem_size`.
    * `oxide.lane_id`, `oxide.warp_shuffle`, `oxide.warp_vote`, `oxide.warp_sync`,
      `oxide.warp_redux`, `oxide.warp_match`: `%laneid`, `shfl.sync` (clamped to the whole
      warp), `vote.sync`, `bar.warp.sync`, `redux.sync`, `match.sync`.
    * `oxide.clock`: `%clock64` or `%globaltimer`; `oxide.cluster_geometry`: the cluster
      registers; `oxide.cluster_sync`: `barrier.cluster.arrive` then `.wait` (not aligned);
      `oxide.map_shared`: `mapa`.
    * `oxide.grid_sync`: a convergent call of `__oxide_grid_barrier`, built once per module:
      CUDA's grid barrier on the cooperative launch's workspace in `%envreg1`/`%envreg2`.
    * `oxide.trap`: `__assertfail` with the message and the user's file, line and function
      (from the inlined call-site locations), then `llvm.trap`. `oxide.bounds_fail`: a call of
      `__oxide_bounds_failure`, built once per module as a cold, noinline function that prints
      the index and size with `vprintf` and calls `__assertfail`, then `llvm.trap`.
    * `oxide.kernel` entry points get the `ptx_kernel` calling convention; their
      `#oxide.kernel` goes back to the strings the kernel table reads (`oxide.contract`,
      `oxide.params`, `oxide.launch_bounds`, `oxide.elem_sizes`, in `passthrough`).
  }];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect", "::mlir::LLVM::LLVMDialect"];
}

#endif // OXIDE_CONVERSION_PASSES
