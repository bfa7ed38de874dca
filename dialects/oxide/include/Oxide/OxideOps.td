//===- OxideOps.td - oxide dialect operations --------------*- tablegen -*-===//

#ifndef OXIDE_OPS
#define OXIDE_OPS

include "Oxide/OxideDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Oxide_ThreadIndexOp : Oxide_Op<"thread_index", [Pure]> {
  let summary = "the calling thread's global index (a thread-index witness)";
  let description = [{
    Produces the calling thread's global linear index in a launch of rank `rank`
    (`blockIdx * blockDim + threadIdx`, row-major over the dimensions). Every
    `oxide::thread::index_*()` witness in C++ originates here, which is what the provenance
    checks trace disjoint writes back to.

    ```mlir
    %i = oxide.thread_index rank 1 : i64
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<1>, IntMaxValue<3>]>:$rank);
  let results = (outs I64:$index);
  let assemblyFormat = "`rank` $rank attr-dict `:` type($index)";
  let hasVerifier = 1;
}

def Oxide_BoundsFailOp : Oxide_Op<"bounds_fail"> {
  let summary = "an out-of-bounds span access: stop the kernel";
  let description = [{
    Reached when a bounds-checked span access fails. Lowered to a trap, so the launch fails
    with a clear driver error instead of writing out of bounds.

    ```mlir
    oxide.bounds_fail %index, %size : i64
    ```
  }];
  let arguments = (ins I64:$index, I64:$size);
  let assemblyFormat = "$index `,` $size attr-dict `:` type($index)";
}

#endif // OXIDE_OPS
