//===- HopperOps.td - mbarriers, TMA, wgmma, setmaxnreg ----*- tablegen -*-===//
//
// The Hopper operations of the intrinsic catalog (include/oxide/device/intrinsics.hpp,
// "Hopper"): mbarriers and bulk tensor copies (sm_90), warpgroup MMA and setmaxnreg (sm_90a).
// Included from OxideOps.td. None is pure: each is an event of the thread (or of its warpgroup)
// that must stay where the program put it. Their memory effects are left unknown (the most
// conservative); each states its memory accesses through OxideMemoryAccessOpInterface, which the
// write proof of oxide-verify-safety checks.
//
//===----------------------------------------------------------------------===//

#ifndef OXIDE_HOPPER_OPS
#define OXIDE_HOPPER_OPS

def Oxide_SharedAddressOp : Oxide_Op<"shared_address", [Pure]> {
  let summary = "the 32-bit shared-window address of a pointer into the block's shared memory";
  let description = [{
    What PTX's shared-state-space instructions take (and a wgmma matrix descriptor encodes):
    the offset of `ptr` in the shared window. `ptr` is generic (pointing into shared memory)
    or already in address space 3.

    ```mlir
    %a = oxide.shared_address %p : !llvm.ptr -> i32
    ```
  }];
  let arguments = (ins LLVM_AnyPointer:$ptr);
  let results = (outs I32:$address);
  let assemblyFormat = "$ptr attr-dict `:` qualified(type($ptr)) `->` type($address)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// mbarriers (sm_80 for the arrivals; transaction counts, cluster arrivals and try_wait sm_90).
// A barrier is a 64-bit object in shared memory: each op takes a generic or addrspace(3)
// pointer to it.
//===----------------------------------------------------------------------===//

// Each states its barrier as a memory access (an mbarrier must be in shared memory).
class Oxide_MbarrierOp<string mnemonic, list<Trait> traits = []>
    : Oxide_Op<mnemonic, !listconcat(traits, [Oxide_DeclaresMemoryAccess])> {
  let hasVerifier = 1;
}

def Oxide_MbarrierInitOp : Oxide_MbarrierOp<"mbarrier_init", [Oxide_RequiresSM<90, "uses an mbarrier (oxide::mbarrier)">]> {
  let summary = "initialise an mbarrier to expect `count` arrivals per phase";
  let description = [{
    `count` is in 1 .. 2^20 - 1 (checked by oxide-raise when it is a constant); phase 0 is
    current and no transactions are expected.

    ```mlir
    oxide.mbarrier_init %bar, %count : !llvm.ptr
    ```
  }];
  let arguments = (ins LLVM_AnyPointer:$bar, I32:$count);
  let assemblyFormat = "$bar `,` $count attr-dict `:` qualified(type($bar))";
}

def Oxide_MbarrierInitFenceOp : Oxide_Op<"mbarrier_init_fence", [Oxide_MemoryAccessOpInterface, Oxide_RequiresSM<90, "orders shared memory for the async proxy (fence.mbarrier_init, fence.proxy.async)">]> {
  let summary = "make this thread's mbarrier initialisations visible to the async proxy and the cluster";
  let description = [{
    fence.mbarrier_init.release.cluster.

    ```mlir
    oxide.mbarrier_init_fence
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Oxide_MbarrierArriveOp : Oxide_MbarrierOp<"mbarrier_arrive", [Oxide_RequiresSM<90, "uses an mbarrier (oxide::mbarrier)">]> {
  let summary = "one arrival on the current phase of an mbarrier (release, CTA scope)";
  let description = [{
    ```mlir
    oxide.mbarrier_arrive %bar : !llvm.ptr
    ```
  }];
  let arguments = (ins LLVM_AnyPointer:$bar);
  let assemblyFormat = "$bar attr-dict `:` qualified(type($bar))";
}

def Oxide_MbarrierArriveExpectTxOp : Oxide_MbarrierOp<"mbarrier_arrive_expect_tx", [Oxide_RequiresSM<90, "waits for transactions on an mbarrier (mbarrier expect_tx / try_wait)">]> {
  let summary = "one arrival that also makes the phase expect `bytes` more transaction bytes";
  let description = [{
    The phase completes once every expected arrival has happened and the bulk copies that
    complete transactions on the barrier (oxide.tma_load) have delivered `bytes` bytes.

    ```mlir
    oxide.mbarrier_arrive_expect_tx %bar, %bytes : !llvm.ptr
    ```
  }];
  let arguments = (ins LLVM_AnyPointer:$bar, I32:$bytes);
  let assemblyFormat = "$bar `,` $bytes attr-dict `:` qualified(type($bar))";
}

def Oxide_MbarrierArriveClusterOp : Oxide_MbarrierOp<"mbarrier_arrive_cluster", [Oxide_RequiresSM<90, "arrives on an mbarrier of another block of its cluster">, Oxide_NeedsCluster]> {
  let summary = "one arrival on the barrier at the same offset in another block of the cluster";
  let description = [{
    `bar` points to a barrier in this block's shared memory; the arrival (release, cluster
    scope) goes to the barrier at the same shared offset in the block of rank `rank` of the
    cluster (mapa, then mbarrier.arrive.shared::cluster).

    ```mlir
    oxide.mbarrier_arrive_cluster %bar, %rank : !llvm.ptr
    ```
  }];
  let arguments = (ins LLVM_AnyPointer:$bar, I32:$rank);
  let assemblyFormat = "$bar `,` $rank attr-dict `:` qualified(type($bar))";
}

def Oxide_MbarrierTryWaitParityOp : Oxide_MbarrierOp<"mbarrier_try_wait_parity", [Oxide_RequiresSM<90, "waits for transactions on an mbarrier (mbarrier expect_tx / try_wait)">]> {
  let summary = "1 once the phase of parity `parity` has completed, else 0 after a bounded wait";
  let description = [{
    mbarrier.try_wait.parity (acquire, CTA scope): callers loop until it gives 1.

    ```mlir
    %done = oxide.mbarrier_try_wait_parity %bar, %parity : !llvm.ptr -> i32
    ```
  }];
  let arguments = (ins LLVM_AnyPointer:$bar, I32:$parity);
  let results = (outs I32:$done);
  let assemblyFormat = "$bar `,` $parity attr-dict `:` qualified(type($bar)) `->` type($done)";
}

def Oxide_MbarrierInvalOp : Oxide_MbarrierOp<"mbarrier_inval", [Oxide_RequiresSM<90, "uses an mbarrier (oxide::mbarrier)">]> {
  let summary = "end the life of an mbarrier: its shared memory may be reused";
  let description = [{
    ```mlir
    oxide.mbarrier_inval %bar : !llvm.ptr
    ```
  }];
  let arguments = (ins LLVM_AnyPointer:$bar);
  let assemblyFormat = "$bar attr-dict `:` qualified(type($bar))";
}

def Oxide_FenceProxyAsyncSharedOp : Oxide_Op<"fence_proxy_async_shared", [Oxide_MemoryAccessOpInterface, Oxide_RequiresSM<90, "orders shared memory for the async proxy (fence.mbarrier_init, fence.proxy.async)">]> {
  let summary = "order this thread's shared-memory stores before the async proxy's accesses";
  let description = [{
    fence.proxy.async.shared::cta: ordinary stores to shared memory become visible to wgmma and
    the bulk copies for what follows a barrier.

    ```mlir
    oxide.fence_proxy_async_shared
    ```
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// TMA: bulk tensor copies (sm_90)
//===----------------------------------------------------------------------===//

def Oxide_TmaLoadOp : Oxide_Op<"tma_load", [Oxide_DeclaresMemoryAccess, AttrSizedOperandSegments, Oxide_DeclaresTargetRequirement]> {
  let summary = "start a bulk tensor copy (TMA) of a box from global into shared memory";
  let description = [{
    Copies the box at `coords` (1 to 5 of them, the innermost first: their number is the
    tensor's rank) of the tensor that the TensorMap at `map` describes into shared memory at
    `dst` (128-byte aligned); the box's bytes complete transactions on the mbarrier `bar`.
    With `multicast`, the box lands at `dst`'s offset in every block of the cluster whose bit
    is set in the 16-bit mask, completing each one's barrier at `bar`'s offset. `dst` and `bar`
    are generic or addrspace(3) pointers into shared memory; `map` is the generic address of the
    TensorMap (a kernel parameter's, checked by oxide-verify-safety).

    ```mlir
    oxide.tma_load %dst, %map, %bar box [%x, %y] : !llvm.ptr, !llvm.ptr, !llvm.ptr
    oxide.tma_load %dst, %map, %bar box [%x, %y] multicast %mask : !llvm.ptr, !llvm.ptr, !llvm.ptr
    ```
  }];
  let arguments = (ins LLVM_AnyPointer:$dst, LLVM_AnyPointer:$map, LLVM_AnyPointer:$bar,
                       Variadic<I32>:$coords, Optional<I16>:$multicast);
  let assemblyFormat = [{
    $dst `,` $map `,` $bar `box` ` ` `[` $coords `]` (`multicast` $multicast^)? attr-dict
    `:` qualified(type($dst)) `,` qualified(type($map)) `,` qualified(type($bar))
  }];
  let hasVerifier = 1;
}

def Oxide_TmaPrefetchOp : Oxide_Op<"tma_prefetch", [Oxide_DeclaresMemoryAccess, Oxide_RequiresSM<90, "uses bulk tensor copies (TMA, cp.async.bulk.tensor)">]> {
  let summary = "bring a TensorMap into the descriptor cache (prefetch.tensormap)";
  let description = [{
    ```mlir
    oxide.tma_prefetch %map : !llvm.ptr
    ```
  }];
  let arguments = (ins LLVM_AnyPointer:$map);
  let assemblyFormat = "$map attr-dict `:` qualified(type($map))";
  let hasVerifier = 1;
}

def Oxide_TmaStoreOp : Oxide_Op<"tma_store", [Oxide_DeclaresMemoryAccess, Oxide_RequiresSM<90, "uses bulk tensor copies (TMA, cp.async.bulk.tensor)">]> {
  let summary = "start a bulk tensor copy (TMA) of a box from shared into global memory";
  let description = [{
    Copies the box at `coords` (1 to 5 of them, the innermost first: their number is the
    tensor's rank) from shared memory at `src` (128-byte aligned) into the tensor that the
    TensorMap at `map` describes; elements of the box outside the tensor are not written
    (`cp.async.bulk.tensor.Rd.global.shared::cta.bulk_group`). The copy joins the thread's next
    `oxide.tma_store_commit` group. It writes global memory through the descriptor, which the
    safe tier cannot confine: `oxide-verify-safety` refuses it in a contracted kernel. `src` is
    a generic or addrspace(3) pointer into shared memory; `map` the generic address of the
    TensorMap.

    ```mlir
    oxide.tma_store %map, %src box [%x, %y] : !llvm.ptr, !llvm.ptr
    ```
  }];
  let arguments = (ins LLVM_AnyPointer:$map, LLVM_AnyPointer:$src, Variadic<I32>:$coords);
  let assemblyFormat = [{
    $map `,` $src `box` ` ` `[` $coords `]` attr-dict `:` qualified(type($map)) `,` qualified(type($src))
  }];
  let hasVerifier = 1;
}

def Oxide_TmaStoreCommitOp : Oxide_Op<"tma_store_commit", [Oxide_MemoryAccessOpInterface, Oxide_RequiresSM<90, "uses bulk tensor copies (TMA, cp.async.bulk.tensor)">]> {
  let summary = "close the thread's pending bulk copies into a group (cp.async.bulk.commit_group)";
  let description = [{
    ```mlir
    oxide.tma_store_commit
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Oxide_TmaStoreWaitOp : Oxide_Op<"tma_store_wait", [Oxide_MemoryAccessOpInterface, Oxide_RequiresSM<90, "uses bulk tensor copies (TMA, cp.async.bulk.tensor)">]> {
  let summary = "wait until at most N bulk groups still read their shared memory";
  let description = [{
    `cp.async.bulk.wait_group.read N`: once it returns, the shared memory of every bulk copy of
    the thread's groups but the `pending` (0..7) newest may be written again.

    ```mlir
    oxide.tma_store_wait 0
    ```
  }];
  let arguments = (ins I32Attr:$pending);
  let assemblyFormat = "$pending attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Warpgroup MMA (sm_90a). Warpgroup-collective and asynchronous: the accumulator registers are
// valid after an oxide.wgmma_wait_group that covers the op's group.
//===----------------------------------------------------------------------===//

def Oxide_WgmmaOp : Oxide_Op<"wgmma", [Oxide_MemoryAccessOpInterface, Oxide_RequiresSM<90, "uses warpgroup matrix multiply-accumulate (oxide::wgmma, wgmma.mma_async)", 1>]> {
  let summary = "warpgroup matrix multiply-accumulate from shared memory (wgmma.mma_async)";
  let description = [{
    `d = A * B + (accumulate ? c : 0)` for one m64nNkK instruction: A (64 x K) and B (K x N)
    are read from shared memory through the 64-bit matrix descriptors `desc_a` and `desc_b`;
    K is 32 bytes of the multiplicand (16 for bf16/f16, 8 for tf32, 32 for e4m3, e5m2 and
    s8). Each thread holds n/2 accumulator registers, f32 (i32 for s8), laid out as
    oxide/device/intrinsics.hpp says; `c` and `d` are the same registers before and after.
    `n` is 8..256 in steps of 8 (16 for s8). `trans_a` and `trans_b` (bf16 and f16 only) read
    the operand MN-major instead of K-major. `accumulate` is wgmma's scale-d.

    ```mlir
    %d:4 = oxide.wgmma bf16 n 8 %da, %db, [%c0, %c1, %c2, %c3] accumulate : f32, f32, f32, f32 -> f32, f32, f32, f32
    ```
  }];
  let arguments = (ins Oxide_WgmmaType:$type, I32Attr:$n, I64:$desc_a, I64:$desc_b,
                       Variadic<AnyTypeOf<[F32, I32]>>:$c, UnitAttr:$accumulate, UnitAttr:$trans_a,
                       UnitAttr:$trans_b);
  let results = (outs Variadic<AnyTypeOf<[F32, I32]>>:$d);
  let assemblyFormat = [{
    $type `n` $n $desc_a `,` $desc_b `,` `[` $c `]` (`accumulate` $accumulate^)? (`trans_a` $trans_a^)?
    (`trans_b` $trans_b^)? attr-dict `:` type($c) `->` type($d)
  }];
  let extraClassDeclaration = [{
    /// K of one instruction for `type`: 32 bytes of the multiplicand.
    static unsigned shapeK(::oxide::WgmmaType type);
    /// The accumulator's element type for `type`: f32, or i32 for s8.
    static ::mlir::Type accumulatorType(::mlir::MLIRContext *context, ::oxide::WgmmaType type);
  }];
  let hasVerifier = 1;
}

def Oxide_WgmmaRegisterAOp : Oxide_Op<"wgmma_register_a", [Oxide_MemoryAccessOpInterface, AttrSizedOperandSegments, Oxide_RequiresSM<90, "uses warpgroup matrix multiply-accumulate (oxide::wgmma, wgmma.mma_async)", 1>]> {
  let summary = "warpgroup matrix multiply-accumulate with A in registers (wgmma.mma_async)";
  let description = [{
    `d = A * B + (accumulate ? c : 0)` for one m64nNkK instruction, as `oxide.wgmma`, but A
    (64 x K) is in the warpgroup's registers: `a` is the thread's four 32-bit registers of it
    (warp w holds rows 16 w .. 16 w + 15 as mma.sync's m16nXkK A fragment). B is read from
    shared memory through `desc_b`, MN-major with `trans_b` (bf16 and f16 only).

    ```mlir
    %d:4 = oxide.wgmma_register_a bf16 n 8 [%a0, %a1, %a2, %a3], %db, [%c0, %c1, %c2, %c3] accumulate : f32, f32, f32, f32 -> f32, f32, f32, f32
    ```
  }];
  let arguments = (ins Oxide_WgmmaType:$type, I32Attr:$n, Variadic<I32>:$a, I64:$desc_b,
                       Variadic<AnyTypeOf<[F32, I32]>>:$c, UnitAttr:$accumulate, UnitAttr:$trans_b);
  let results = (outs Variadic<AnyTypeOf<[F32, I32]>>:$d);
  let assemblyFormat = [{
    $type `n` $n ` ` `[` $a `]` `,` $desc_b `,` `[` $c `]` (`accumulate` $accumulate^)? (`trans_b` $trans_b^)?
    attr-dict `:` type($c) `->` type($d)
  }];
  let hasVerifier = 1;
}

def Oxide_WgmmaFenceOp : Oxide_Op<"wgmma_fence", [Oxide_MemoryAccessOpInterface, Oxide_RequiresSM<90, "uses warpgroup matrix multiply-accumulate (oxide::wgmma, wgmma.mma_async)", 1>]> {
  let summary = "order register and shared-memory accesses before the warpgroup's next wgmma";
  let description = [{
    wgmma.fence.sync.aligned.

    ```mlir
    oxide.wgmma_fence
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Oxide_WgmmaCommitGroupOp : Oxide_Op<"wgmma_commit_group", [Oxide_MemoryAccessOpInterface, Oxide_RequiresSM<90, "uses warpgroup matrix multiply-accumulate (oxide::wgmma, wgmma.mma_async)", 1>]> {
  let summary = "close the warpgroup's uncommitted wgmmas into a group";
  let description = [{
    ```mlir
    oxide.wgmma_commit_group
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Oxide_WgmmaWaitGroupOp : Oxide_Op<"wgmma_wait_group", [Oxide_MemoryAccessOpInterface, Oxide_RequiresSM<90, "uses warpgroup matrix multiply-accumulate (oxide::wgmma, wgmma.mma_async)", 1>]> {
  let summary = "wait until at most `pending` of the warpgroup's wgmma groups are in flight";
  let description = [{
    ```mlir
    oxide.wgmma_wait_group 0
    ```
  }];
  let arguments = (ins I32Attr:$pending);
  let assemblyFormat = "$pending attr-dict";
  let hasVerifier = 1;
}

def Oxide_SetMaxNRegOp : Oxide_Op<"setmaxnreg", [Oxide_MemoryAccessOpInterface, Oxide_RequiresSM<90, "changes its warpgroups' register budget (setmaxnreg)", 1>]> {
  let summary = "change the warpgroup's register budget per thread (setmaxnreg)";
  let description = [{
    The budget becomes `count` (24..256, a multiple of 8), raised (`increase`) or lowered
    (`decrease`). Warpgroup-collective.

    ```mlir
    oxide.setmaxnreg 232 increase
    oxide.setmaxnreg 40 decrease
    ```
  }];
  let arguments = (ins I32Attr:$count, UnitAttr:$increase);
  let assemblyFormat = "$count (`increase` $increase^) : (`decrease`)? attr-dict";
  let hasVerifier = 1;
}

#endif // OXIDE_HOPPER_OPS
