//===- OxideOps.td - oxide dialect operations --------------*- tablegen -*-===//

#ifndef OXIDE_OPS
#define OXIDE_OPS

include "Oxide/IR/OxideDialect.td"
include "Oxide/IR/OxideEnums.td"
include "Oxide/IR/OxideInterfaces.td"
include "mlir/Dialect/LLVMIR/LLVMTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Oxide_ThreadIndexOp : Oxide_Op<"thread_index", [Pure]> {
  let summary = "the calling thread's global index (a thread-index witness)";
  let description = [{
    Produces the calling thread's global coordinate along `dim` in a launch of rank `rank`:
    `blockIdx.dim * blockDim.dim + threadIdx.dim`. Every `oxide::thread::index_*()` witness
    in C++ originates here, which is what the provenance checks trace disjoint writes back
    to, and `rank` is what they compare with the kernel's contract `domain`.

    ```mlir
    %i = oxide.thread_index rank 1 dim x : i64
    %row = oxide.thread_index rank 2 dim y : i64
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<1>, IntMaxValue<3>]>:$rank, Oxide_Dim:$dim);
  let results = (outs I64:$index);
  let assemblyFormat = "`rank` $rank `dim` $dim attr-dict `:` type($index)";
  let hasVerifier = 1;
}

def Oxide_DisjointGetOp : Oxide_Op<"disjoint_get", [Pure, AttrSizedOperandSegments, AllTypesMatch<["data", "element"]>]> {
  let summary = "the calling thread's element of a disjoint output, or null";
  let description = [{
    `data + ((z * height + y) * width + x) * elem_size` when every coordinate is below its
    extent, else null. With `tile = N` (1-D or 2-D) the thread owns the N elements along x
    starting at `x * N`, and with `tile_rows = M` (2-D only) the M rows from `y * M`; `within`
    names one element of that tile (column, then row), which must be below the tile's extents
    (0 along a dimension the tile does not extend: `tile_mut<1>`) and inside the output, else
    the result is null. Without `within`, the result is the tile's first element. Every result designates exactly one element of `elem_size` bytes: the
    coordinates must be the calling thread's `oxide.thread_index` values and `data` and the
    extents the fields of one DisjointSpan parameter (both checked by `oxide-verify-safety`),
    which is why no two threads of a launch get the same element.

    ```mlir
    %p = oxide.disjoint_get %data [%width, %height] at [%x, %y] elem 4 : !llvm.ptr
    %t = oxide.disjoint_get %data [%width, %height] at [%x, %y] within [%c, %r] elem 16 tile 2 tile_rows 8 : !llvm.ptr
    ```
  }];
  let arguments = (ins LLVM_AnyPointer:$data, Variadic<I64>:$extents, Variadic<I64>:$coords,
                       Variadic<I64>:$within,
                       ConfinedAttr<I64Attr, [IntMinValue<1>]>:$elem_size,
                       DefaultValuedAttr<ConfinedAttr<I64Attr, [IntMinValue<1>]>, "1">:$tile,
                       DefaultValuedAttr<ConfinedAttr<I64Attr, [IntMinValue<1>]>, "1">:$tile_rows);
  let results = (outs LLVM_AnyPointer:$element);
  let assemblyFormat = [{
    $data `[` $extents `]` `at` `[` $coords `]` (`within` `[` $within^ `]`)? `elem` $elem_size (`tile` $tile^)? (`tile_rows` $tile_rows^)?
    attr-dict `:` qualified(type($element))
  }];
  let hasVerifier = 1;
}

def Oxide_SpanElemOp : Oxide_Op<"span_elem", [Pure, AllTypesMatch<["data", "element"]>]> {
  let summary = "element `index` of a span that any thread may name, or null";
  let description = [{
    `data + index * elem_size` when `index < size`, else null. Unlike `oxide.disjoint_get`,
    the index is not a witness: this names an element of a span that every thread shares
    (an AtomicSpan), so `oxide-verify-safety` accepts only atomic operations on the result
    when `data` is a kernel's AtomicSpan parameter, and no writes when it is an input.

    ```mlir
    %p = oxide.span_elem %data [%size] at %i elem 4 : !llvm.ptr
    ```
  }];
  let arguments = (ins LLVM_AnyPointer:$data, I64:$size, I64:$index,
                       ConfinedAttr<I64Attr, [IntMinValue<1>]>:$elem_size);
  let results = (outs LLVM_AnyPointer:$element);
  let assemblyFormat = "$data `[` $size `]` `at` $index `elem` $elem_size attr-dict `:` qualified(type($element))";
}

def Oxide_GridStrideNextOp : Oxide_Op<"grid_stride_next", [Pure]> {
  let summary = "the next index of a grid-stride loop: index + gridDim.d * blockDim.d";
  let description = [{
    Advances a thread's index by the launch's total thread count along `dim`. A thread's
    sequence of grid-stride indices never meets another thread's, so the provenance check
    accepts the result as a witness whenever `index` is one.

    ```mlir
    %next = oxide.grid_stride_next %i rank 1 dim x : i64
    ```
  }];
  let arguments = (ins I64:$index, ConfinedAttr<I32Attr, [IntMinValue<1>, IntMaxValue<3>]>:$rank, Oxide_Dim:$dim);
  let results = (outs I64:$next);
  let assemblyFormat = "$index `rank` $rank `dim` $dim attr-dict `:` type($next)";
  let hasVerifier = 1;
}

def Oxide_GroupIndexOp : Oxide_Op<"group_index", [Pure, Oxide_DeclaresTargetRequirement]> {
  let summary = "the calling thread's warp, block or cluster index (a group witness)";
  let description = [{
    The linear index of the calling thread's group in the launch: for a warp,
    `blockLinear * ceil(blockThreads / 32) + linearTid / 32` (warps never span blocks); for a
    block, `blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)`; for a cluster, the
    same over cluster indices. Every `oxide::warp::index()`, `oxide::block::index()` and
    `oxide::cluster::index()` witness originates here; `oxide.owned_elem` of a group shape
    requires one. None depends on gridDim.y: a grid of 2^31 - 1 blocks along x has as many
    block witnesses.

    ```mlir
    %w = oxide.group_index warp : i64
    ```
  }];
  let arguments = (ins Oxide_Group:$group);
  let results = (outs I64:$index);
  let assemblyFormat = "$group attr-dict `:` type($index)";
}

def Oxide_GroupStrideNextOp : Oxide_Op<"group_stride_next", [Pure, Oxide_DeclaresTargetRequirement]> {
  let summary = "the next index of a group-stride loop: index + the launch's number of groups";
  let description = [{
    Advances a group's index by the number of such groups in the launch (warps, blocks or
    clusters), so a group's sequence never meets another's: the provenance check accepts the
    result as a witness of the same group whenever `index` is one.

    ```mlir
    %next = oxide.group_stride_next %w warp : i64
    ```
  }];
  let arguments = (ins I64:$index, Oxide_Group:$group);
  let results = (outs I64:$next);
  let assemblyFormat = "$index $group attr-dict `:` type($next)";
}

def Oxide_OwnedElemOp : Oxide_Op<"owned_elem", [Pure, AttrSizedOperandSegments, AllTypesMatch<["data", "element"]>, Oxide_DeclaresTargetRequirement]> {
  let summary = "element `j` of an owner's write set in a disjoint output, or null";
  let description = [{
    The write sets beyond "thread i writes element i" (`oxide.disjoint_get`): a warp, block or
    cluster that owns an element or a row, a thread that owns strided elements, strided rows,
    a pair or a z-column. `shape` (see the Ownership enum of the intrinsic catalog) gives each
    owner a set of elements; the sets of different owners are disjoint by construction, and
    where a group owns the set, the shape also names the one member that writes each element
    (the others get null). `owners` are the owner's witness coordinates: an
    `oxide.group_index` of the shape's group for the group shapes, `oxide.thread_index`
    values for the others (checked by `oxide-verify-safety`, with `data` and `extents` the
    fields of one DisjointSpan parameter). `uniform` is the pair shape's distance, which must
    be the same for every thread (a constant or a kernel parameter); `count` is the K of
    block_strided and strided_rows; `tile` is warpgroup_tile's [n, consumers, first, group]
    (the WarpgroupTile of the intrinsic catalog). The result is null when `j` is outside the set, the
    element outside the output, or the caller not the writing member.

    `lanes 2` (warpgroup_tile only) names elements `j` and `j + 1` at once, adjacent in one row
    for even `j` (an accumulator pair): the result covers both and is aligned to twice
    `elem_size`, or is null when `j` is odd, either element is not the caller's or outside the
    output, or the pair is not so aligned. The element ops of one output may mix 1 and 2 lanes:
    both name the same set.

    ```mlir
    %p = oxide.owned_elem %data [%size] owner [%w] at %j elem 4 shape warp_leader : !llvm.ptr
    %q = oxide.owned_elem %data [%width, %height] owner [%x, %y] at %j elem 4 shape strided_rows count 4 : !llvm.ptr
    %r = oxide.owned_elem %data [%size] owner [%i] at %j uniform %h elem 8 shape pair : !llvm.ptr
    %t = oxide.owned_elem %data [%width, %height] owner [%b] at %j elem 4 shape warpgroup_tile tile [256, 2, 1, 16] : !llvm.ptr
    %u = oxide.owned_elem %data [%width, %height] owner [%b] at %j elem 4 shape warpgroup_tile tile [256, 2, 1, 16] lanes 2 : !llvm.ptr
    ```
  }];
  let arguments = (ins LLVM_AnyPointer:$data, Variadic<I64>:$extents, Variadic<I64>:$owners, I64:$j,
                       Optional<I64>:$uniform,
                       ConfinedAttr<I64Attr, [IntMinValue<1>]>:$elem_size,
                       Oxide_Ownership:$shape,
                       DefaultValuedAttr<ConfinedAttr<I64Attr, [IntMinValue<1>]>, "1">:$count,
                       OptionalAttr<DenseI64ArrayAttr>:$tile,
                       DefaultValuedAttr<ConfinedAttr<I64Attr, [IntMinValue<1>]>, "1">:$lanes);
  let results = (outs LLVM_AnyPointer:$element);
  let assemblyFormat = [{
    $data `[` $extents `]` `owner` `[` $owners `]` `at` $j (`uniform` $uniform^)? `elem` $elem_size `shape` $shape (`count` $count^)? (`tile` $tile^)? (`lanes` $lanes^)?
    attr-dict `:` qualified(type($element))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The catalog's row of `shape` (include/oxide/detail/intrinsic_abi.hpp): the ranks of its
    /// output and owner, who owns it, what `param` is.
    static const ::oxide::intrinsic::OwnershipShape &shapeInfo(::oxide::Ownership shape) {
      return ::oxide::intrinsic::ownership_shape(static_cast<::oxide::intrinsic::Ownership>(shape));
    }
    /// The group that owns the set, or std::nullopt when a thread owns it.
    static std::optional<::oxide::Group> owningGroup(::oxide::Ownership shape) {
      const auto &info = shapeInfo(shape);
      return info.grouped ? std::optional(static_cast<::oxide::Group>(info.group)) : std::nullopt;
    }
    /// warpgroup_tile's `tile` (an invalid one when it is malformed), std::nullopt without one.
    std::optional<::oxide::detail::WarpgroupTile> warpgroupTile();
    /// The bytes a write through the result may cover: `lanes` elements.
    std::int64_t coveredBytes() { return getElemSize() * getLanes(); }
  }];
}

def Oxide_ReserveOp : Oxide_Op<"reserve", [Oxide_DeclaresMemoryAccess]> {
  let summary = "reserve `count` slots of an AppendSpan: an atomic add on its counter";
  let description = [{
    Adds `count` to the 64-bit counter at `counter` (device scope, relaxed) and returns the
    value before: the first of the slots [result, result + count) that no other reservation
    gets. So that the counter cannot wrap, the lowering adds at most 2^40 (the largest
    AppendSpan that gets slots) and nothing once the counter has passed 2^40, unless `count` is
    at most 256. `oxide-verify-safety` requires `counter` to be the counter of an AppendSpan
    parameter, which nothing else may write.

    ```mlir
    %start = oxide.reserve %counter, %count : !llvm.ptr -> i64
    ```
  }];
  let arguments = (ins LLVM_AnyPointer:$counter, I64:$count);
  let results = (outs I64:$start);
  let assemblyFormat = "$counter `,` $count attr-dict `:` qualified(type($counter)) `->` type($start)";
}

def Oxide_ReservedElemOp : Oxide_Op<"reserved_elem", [Pure, AllTypesMatch<["data", "element"]>]> {
  let summary = "slot `j` of a reservation of an AppendSpan, or null";
  let description = [{
    `data + (start + j) * elem_size` when `j < count` and the slot is below `size`, else null.
    `start` must be the result of an `oxide.reserve` of `count` slots on the same AppendSpan
    parameter's counter, in the same thread (checked by `oxide-verify-safety`): then no other
    thread is ever given the slot.

    ```mlir
    %p = oxide.reserved_elem %data [%size] slot %start count %n at %j elem 4 : !llvm.ptr
    ```
  }];
  let arguments = (ins LLVM_AnyPointer:$data, I64:$size, I64:$start, I64:$count, I64:$j,
                       ConfinedAttr<I64Attr, [IntMinValue<1>]>:$elem_size);
  let results = (outs LLVM_AnyPointer:$element);
  let assemblyFormat = [{
    $data `[` $size `]` `slot` $start `count` $count `at` $j `elem` $elem_size attr-dict `:` qualified(type($element))
  }];
}

def Oxide_PermutedElemOp : Oxide_Op<"permuted_elem", [AllTypesMatch<["data", "element"]>]> {
  let summary = "element perm[i] of a disjoint output, or null: a scatter through a permutation";
  let description = [{
    Loads the 32-bit index `perm[i < perm_size ? i : 0]` (index 0 is always there: the runtime
    allocates at least one) and gives `data + perm[i] * elem_size` when `i < perm_size` and
    `perm[i] < size`, else null. It reads memory, so it is not `Pure`. `oxide-verify-safety`
    requires `i` to be the calling thread's 1-D witness (or a grid-stride step of it), `data`
    and `size` the fields of a DisjointSpan parameter and `perm` and `perm_size` those of a
    PermutationSpan parameter, which the host checked is a permutation and no thread writes:
    then different threads get different elements. An output written through a permutation is
    written through that one only.

    ```mlir
    %p = oxide.permuted_elem %data [%size] perm %perm [%n] at %i elem 4 : !llvm.ptr, !llvm.ptr
    ```
  }];
  let arguments = (ins LLVM_AnyPointer:$data, I64:$size,
                       Arg<LLVM_AnyPointer, "the permutation's 32-bit indices", [MemRead]>:$perm,
                       I64:$perm_size, I64:$i, ConfinedAttr<I64Attr, [IntMinValue<1>]>:$elem_size);
  let results = (outs LLVM_AnyPointer:$element);
  let assemblyFormat = [{
    $data `[` $size `]` `perm` $perm `[` $perm_size `]` `at` $i `elem` $elem_size attr-dict `:` qualified(type($element)) `,` qualified(type($perm))
  }];
  let hasVerifier = 1;
}

def Oxide_ClaimedElemOp : Oxide_Op<"claimed_elem", [AllTypesMatch<["data", "element"]>]> {
  let summary = "element j of a disjoint output if this thread is the first to claim it, or null";
  let description = [{
    When `j < size` and `j < claims_size`, sets bit `j % 32` of the 32-bit word `claims[j / 32]`
    atomically (device scope, relaxed) and gives `data + j * elem_size` if the bit was clear,
    else null; out of range it takes an empty claim on word 0 (which the runtime always
    allocates) and gives null. `oxide-verify-safety` requires `data` and `size` to be the fields
    of a DisjointSpan parameter and `claims` and `claims_size` those of a ClaimSet parameter,
    whose bits start every launch clear and which nothing else writes: then no two threads get
    the same element, whatever `j` is. The write to the bits is this op's own, judged with the
    element (the ownership rule), not by where it lands. An output written through claims is
    written through that one ClaimSet only.

    ```mlir
    %p = oxide.claimed_elem %data [%size] claims %bits [%n] at %j elem 8 : !llvm.ptr, !llvm.ptr
    ```
  }];
  let arguments = (ins LLVM_AnyPointer:$data, I64:$size,
                       Arg<LLVM_AnyPointer, "the claim bits, 32 to a word", [MemRead, MemWrite]>:$claims,
                       I64:$claims_size, I64:$j, ConfinedAttr<I64Attr, [IntMinValue<1>]>:$elem_size);
  let results = (outs LLVM_AnyPointer:$element);
  let assemblyFormat = [{
    $data `[` $size `]` `claims` $claims `[` $claims_size `]` `at` $j `elem` $elem_size attr-dict `:` qualified(type($element)) `,` qualified(type($claims))
  }];
  let hasVerifier = 1;
}

def Oxide_GeometryOp : Oxide_Op<"geometry", [Pure]> {
  let summary = "a launch geometry register: threadIdx, blockIdx, blockDim or gridDim";
  let description = [{
    ```mlir
    %tx = oxide.geometry thread_idx x : i32
    ```
  }];
  let arguments = (ins Oxide_GeometryKind:$kind, Oxide_Dim:$dim);
  let results = (outs I32:$value);
  let assemblyFormat = "$kind $dim attr-dict `:` type($value)";
}

def Oxide_BarrierOp : Oxide_Op<"barrier", [Oxide_MemoryAccessOpInterface]> {
  let summary = "block-wide barrier (__syncthreads)";
  let description = [{
    Every thread of the block waits here until all have arrived; shared and global memory
    writes before the barrier are visible to all threads of the block after it.

    ```mlir
    oxide.barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Oxide_NamedBarrierOp : Oxide_Op<"named_barrier", [Oxide_MemoryAccessOpInterface]> {
  let summary = "a named barrier of the block for some of its warps (bar.sync / bar.arrive id, n)";
  let description = [{
    Barrier `id` (1 to 15; 0 is `oxide.barrier`'s) of the block completes when `threads`
    threads (a multiple of 32: whole warps) have arrived. Without `arrive` the caller waits for
    that, and the memory writes of the threads that arrived are visible to it afterwards; with
    `arrive` it counts itself and goes on (a producer warpgroup signalling its consumers). The
    operands are checked where they are made (oxide/device/sync.hpp): the verifier refuses only
    constants out of range.

    ```mlir
    oxide.named_barrier %id, %threads
    oxide.named_barrier %id, %threads arrive
    ```
  }];
  let arguments = (ins I32:$id, I32:$threads, UnitAttr:$arrive);
  let assemblyFormat = "$id `,` $threads (`arrive` $arrive^)? attr-dict";
  let hasVerifier = 1;
}

def Oxide_FenceOp : Oxide_Op<"fence", [Oxide_MemoryAccessOpInterface]> {
  let summary = "memory fence at a scope";
  let description = [{
    Orders the thread's memory accesses as seen by the threads of its block, the device or
    the whole system (host included).

    ```mlir
    oxide.fence device
    ```
  }];
  let arguments = (ins Oxide_Scope:$scope);
  let assemblyFormat = "$scope attr-dict";
}

def Oxide_SharedAllocOp : Oxide_Op<"shared_alloc", [Pure]> {
  let summary = "per-block static shared memory for one declaration";
  let description = [{
    Returns the block's shared memory for the declaration named by `site`: every
    `shared_alloc` with the same site refers to the same `bytes` bytes. Lowered to one
    addrspace(3) global per site.

    ```mlir
    %p = oxide.shared_alloc @tile size 1024 align 4 : !llvm.ptr
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$site, ConfinedAttr<I64Attr, [IntMinValue<1>]>:$bytes,
                       ConfinedAttr<I64Attr, [IntPowerOf2]>:$alignment);
  let results = (outs LLVM_DefaultPointer:$ptr);
  let assemblyFormat = "$site `size` $bytes `align` $alignment attr-dict `:` type($ptr)";
  let hasVerifier = 1;
}

def Oxide_DynamicSharedOp : Oxide_Op<"dynamic_shared", [Pure]> {
  let summary = "base of the block's dynamic shared memory";
  let description = [{
    The generic address of the block's dynamic shared memory (the bytes the launch asks for),
    lowered to the external addrspace(3) array `__oxide_dynamic_shared`.

    ```mlir
    %p = oxide.dynamic_shared : !llvm.ptr
    ```
  }];
  let results = (outs LLVM_DefaultPointer:$ptr);
  let assemblyFormat = "attr-dict `:` type($ptr)";
}

def Oxide_DynamicSharedSizeOp : Oxide_Op<"dynamic_shared_size", [Pure]> {
  let summary = "size in bytes of the block's dynamic shared memory";
  let description = [{
    ```mlir
    %bytes = oxide.dynamic_shared_size : i32
    ```
  }];
  let results = (outs I32:$bytes);
  let assemblyFormat = "attr-dict `:` type($bytes)";
}

def Oxide_LaneIdOp : Oxide_Op<"lane_id", [Pure]> {
  let summary = "the calling thread's lane within its warp (0..31)";
  let description = [{
    ```mlir
    %lane = oxide.lane_id : i32
    ```
  }];
  let results = (outs I32:$lane);
  let assemblyFormat = "attr-dict `:` type($lane)";
}

def Oxide_WarpShuffleOp : Oxide_Op<"warp_shuffle", [Oxide_MemoryAccessOpInterface]> {
  let summary = "exchange a 32-bit value between the lanes of a warp";
  let description = [{
    Lanes in `mask` read `value` from another lane: lane `arg` (idx), lane - `arg` (up),
    lane + `arg` (down) or lane ^ `arg` (xor), within the caller's segment of `width` lanes
    (a tile; 32, the whole warp, by default): idx reads lane `arg % width` of the segment, and
    a lane whose source is past its segment (below it for up) gets its own value. Not
    speculatable: all lanes in `mask` must execute it together.

    ```mlir
    %r = oxide.warp_shuffle down %mask, %v, %c16 : i32
    %t = oxide.warp_shuffle xor %mask, %v, %c1 width 8 : i32
    ```
  }];
  let arguments = (ins Oxide_ShuffleMode:$mode, I32:$mask, I32:$value, I32:$arg,
                       DefaultValuedAttr<ConfinedAttr<I32Attr, [IntPositivePowerOf2, IntMaxValue<32>]>,
                                         "32">:$width);
  let results = (outs I32:$result);
  let assemblyFormat = "$mode $mask `,` $value `,` $arg (`width` $width^)? attr-dict `:` type($result)";
}

def Oxide_WarpVoteOp : Oxide_Op<"warp_vote", [Oxide_MemoryAccessOpInterface]> {
  let summary = "warp vote: all, any (0 or 1) or ballot (one bit per lane)";
  let description = [{
    Over the lanes of `mask`, whether `predicate` is non-zero in all of them, in any, or the
    mask of those where it is.

    ```mlir
    %bits = oxide.warp_vote ballot %mask, %p : i32
    ```
  }];
  let arguments = (ins Oxide_VoteMode:$mode, I32:$mask, I32:$predicate);
  let results = (outs I32:$result);
  let assemblyFormat = "$mode $mask `,` $predicate attr-dict `:` type($result)";
}

def Oxide_WarpSyncOp : Oxide_Op<"warp_sync", [Oxide_MemoryAccessOpInterface]> {
  let summary = "wait for the lanes of a mask (__syncwarp)";
  let description = [{
    ```mlir
    oxide.warp_sync %mask
    ```
  }];
  let arguments = (ins I32:$mask);
  let assemblyFormat = "$mask attr-dict";
}

def Oxide_WarpReduxOp : Oxide_Op<"warp_redux", [Oxide_MemoryAccessOpInterface, Oxide_RequiresSM<80, "uses a one-instruction warp reduction (oxide::warp::reduce_*, redux.sync)">]> {
  let summary = "reduce a 32-bit integer across the lanes of a mask (redux.sync)";
  let description = [{
    Every lane in `mask` gets the sum, signed or unsigned minimum or maximum, or bitwise
    and/or/xor of `value` over the lanes of `mask`.

    ```mlir
    %s = oxide.warp_redux add %mask, %v : i32
    ```
  }];
  let arguments = (ins Oxide_ReduxKind:$kind, I32:$mask, I32:$value);
  let results = (outs I32:$result);
  let assemblyFormat = "$kind $mask `,` $value attr-dict `:` type($result)";
}

def Oxide_WarpMatchOp : Oxide_Op<"warp_match", [Oxide_MemoryAccessOpInterface]> {
  let summary = "which lanes of a mask hold the same 32- or 64-bit value (match.sync)";
  let description = [{
    `any`: the lanes of `mask` whose `value` equals the calling lane's. `all`: `mask` when every
    lane of `mask` holds the same value, else 0. The type is the value's (b32 or b64); the
    result is always a 32-bit lane mask.

    ```mlir
    %same = oxide.warp_match any %mask, %v : i32
    %keys = oxide.warp_match any %mask, %k : i64
    ```
  }];
  let arguments = (ins Oxide_MatchKind:$kind, I32:$mask, AnyTypeOf<[I32, I64]>:$value);
  let results = (outs I32:$result);
  let assemblyFormat = "$kind $mask `,` $value attr-dict `:` type($value)";
}

def Oxide_ActiveMaskOp : Oxide_Op<"active_mask", [Oxide_MemoryAccessOpInterface]> {
  let summary = "the lanes of the warp executing this op together (activemask.b32)";
  let description = [{
    Not pure: the result depends on which lanes reach the op together (in divergent code, those
    that took the same branch), so it must neither be merged with another nor moved.

    ```mlir
    %active = oxide.active_mask : i32
    ```
  }];
  let results = (outs I32:$mask);
  let assemblyFormat = "attr-dict `:` type($mask)";
}

def Oxide_LaneMaskOp : Oxide_Op<"lane_mask", [Pure]> {
  let summary = "the lanes below, up to, equal to, from or above the calling lane (%lanemask_*)";
  let description = [{
    ```mlir
    %below = oxide.lane_mask lt : i32
    ```
  }];
  let arguments = (ins Oxide_LaneMaskKind:$kind);
  let results = (outs I32:$mask);
  let assemblyFormat = "$kind attr-dict `:` type($mask)";
}

def Oxide_TrapOp : Oxide_Op<"trap", [Oxide_MemoryAccessOpInterface]> {
  let summary = "stop the kernel with a message";
  let description = [{
    Reports `message` (a generic pointer to a C string) with the kernel's source location,
    block and thread through `__assertfail`, then stops the kernel; the launch fails on the host
    with CUDA_ERROR_ASSERT.

    ```mlir
    oxide.trap %message : !llvm.ptr
    ```
  }];
  let arguments = (ins LLVM_DefaultPointer:$message);
  let assemblyFormat = "$message attr-dict `:` type($message)";
}

def Oxide_BoundsFailOp : Oxide_Op<"bounds_fail", [Oxide_MemoryAccessOpInterface]> {
  let summary = "an out-of-bounds span access: stop the kernel";
  let description = [{
    Reached when a bounds-checked span access fails. Lowered to a call of the module's one
    cold, out-of-line `__oxide_bounds_failure`, which prints `index` and `size` and fails like
    an assert (`__assertfail`, with the user's file, line and function), then a trap: the launch
    fails with CUDA_ERROR_ASSERT instead of accessing memory out of bounds.

    ```mlir
    oxide.bounds_fail %index, %size : i64
    ```
  }];
  let arguments = (ins I64:$index, I64:$size);
  let assemblyFormat = "$index `,` $size attr-dict `:` type($index)";
}

def Oxide_ClockOp : Oxide_Op<"clock", [Oxide_MemoryAccessOpInterface]> {
  let summary = "read a time source: the SM's cycle counter or the global nanosecond timer";
  let description = [{
    `clock64` counts cycles of the SM the thread runs on (not comparable across SMs);
    `globaltimer` is a device-wide nanosecond timer. Not pure: two reads are two events.

    ```mlir
    %t = oxide.clock globaltimer : i64
    ```
  }];
  let arguments = (ins Oxide_ClockKind:$kind);
  let results = (outs I64:$value);
  let assemblyFormat = "$kind attr-dict `:` type($value)";
}

def Oxide_ClusterGeometryOp : Oxide_Op<"cluster_geometry", [Pure, Oxide_RequiresSM<90, "uses thread-block clusters (oxide::cluster::block_rank, block_count...)">]> {
  let summary = "a thread-block cluster register";
  let description = [{
    `block_rank`: the block's rank in its cluster (0..block_count-1); `block_count`: blocks
    per cluster; `block_idx`/`cluster_dim`: the block's coordinate in its cluster and the
    cluster's shape along `dim`; `cluster_idx`/`grid_clusters`: the cluster's coordinate in the
    grid and the number of clusters along `dim`. Outside a cluster launch every block is a
    cluster of one. `dim` is ignored by `block_rank` and `block_count`.

    ```mlir
    %r = oxide.cluster_geometry block_rank x : i32
    ```
  }];
  let arguments = (ins Oxide_ClusterGeometryKind:$kind, Oxide_Dim:$dim);
  let results = (outs I32:$value);
  let assemblyFormat = "$kind $dim attr-dict `:` type($value)";
}

def Oxide_ClusterSyncOp : Oxide_Op<"cluster_sync", [Oxide_MemoryAccessOpInterface, Oxide_RequiresSM<90, "uses a thread-block cluster barrier (oxide::cluster::sync)">, Oxide_NeedsCluster]> {
  let summary = "barrier across every thread of the thread-block cluster";
  let description = [{
    Every thread of every block of the cluster arrives and waits; shared memory writes before
    it are visible cluster-wide after it. Requires a kernel launched in clusters
    (`cluster = (...)` in its contract; checked by `oxide-verify-safety`).

    ```mlir
    oxide.cluster_sync
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Oxide_MapSharedOp : Oxide_Op<"map_shared", [Pure, AllTypesMatch<["ptr", "result"]>, Oxide_RequiresSM<90, "uses distributed shared memory (oxide::cluster::map_shared)">, Oxide_NeedsCluster]> {
  let summary = "the address of a shared variable in another block of the cluster";
  let description = [{
    Distributed shared memory: `ptr` points into this block's shared memory; the result is the
    same variable in the block of rank `rank` of the cluster. Both are generic addresses, as
    `mapa` takes them.

    ```mlir
    %remote = oxide.map_shared %p, %rank : !llvm.ptr
    ```
  }];
  let arguments = (ins LLVM_DefaultPointer:$ptr, I32:$rank);
  let results = (outs LLVM_DefaultPointer:$result);
  let assemblyFormat = "$ptr `,` $rank attr-dict `:` type($result)";
}

def Oxide_GridSyncOp : Oxide_Op<"grid_sync", [Oxide_MemoryAccessOpInterface]> {
  let summary = "barrier across every thread of a cooperative launch";
  let description = [{
    Every thread of the grid arrives and waits; global memory writes before it are visible to
    the whole grid after it. Only a cooperative launch (`cooperative = true` in the contract,
    checked by `oxide-verify-safety`) guarantees that all blocks are resident, so that the
    barrier cannot deadlock. Lowered to the CUDA driver's grid-barrier protocol.

    ```mlir
    oxide.grid_sync
    ```
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Tensor cores (sm_80+): mma.sync, ldmatrix, cp.async. Warp-collective; the fragment layouts are
// those of include/oxide/device/mma.hpp (PTX's).
//===----------------------------------------------------------------------===//

def Oxide_MmaSyncOp : Oxide_Op<"mma_sync", [Oxide_MemoryAccessOpInterface, AttrSizedOperandSegments, Oxide_RequiresSM<80, "uses the tensor cores (oxide::mma::mma_sync, mma.sync)">]> {
  let summary = "warp-collective matrix multiply-accumulate on the tensor cores (mma.sync)";
  let description = [{
    `d = a * b + c` over one tile of the warp: A is 16 x K (row), B is K x 8 (col), C and D
    16 x 8, each lane holding its fragment in 32-bit registers (4 of A, 2 of B, 4 of C and D).
    The multiplicand type picks the shape: `bf16` and `f16` are m16n8k16 (two per register),
    `tf32` m16n8k8 (one), `i8` (signed) m16n8k32 (four, saturating s32 accumulator). Floating
    multiplicands accumulate in f32. Not pure: every lane of the warp must execute it together.

    ```mlir
    %d:4 = oxide.mma_sync bf16 [%a0, %a1, %a2, %a3], [%b0, %b1], [%c0, %c1, %c2, %c3]
        : f32, f32, f32, f32 -> f32, f32, f32, f32
    ```
  }];
  let arguments = (ins TypeAttr:$multiplicand, Variadic<I32>:$a, Variadic<I32>:$b,
                       Variadic<AnyTypeOf<[F32, I32]>>:$c);
  let results = (outs Variadic<AnyTypeOf<[F32, I32]>>:$d);
  let assemblyFormat = [{
    $multiplicand ` ` `[` $a `]` `,` `[` $b `]` `,` `[` $c `]` attr-dict `:` type($c) `->` type($d)
  }];
  let extraClassDeclaration = [{
    /// K of the m16n8kK shape the multiplicand type gives (0 for a type mma.sync lacks).
    static unsigned shapeK(mlir::Type multiplicand);
  }];
  let hasVerifier = 1;
}

def Oxide_LdMatrixOp : Oxide_Op<"ldmatrix", [Oxide_RequiresSM<80, "uses a warp matrix load from shared memory (oxide::mma::ldmatrix)">]> {
  let summary = "warp-collective load of 8x8 16-bit matrices from shared memory (ldmatrix)";
  let description = [{
    Loads `count` (1, 2 or 4) 8x8 matrices of 16-bit elements, one 32-bit register of each per
    lane: lane l passes the address of row l % 8 of matrix l / 8 and gets row l / 4, columns
    2 * (l % 4) and 2 * (l % 4) + 1 of every matrix (`trans`: column l / 4, rows 2 * (l % 4) and
    2 * (l % 4) + 1). `row` is a generic or shared (addrspace 3) pointer into shared memory.

    ```mlir
    %r:4 = oxide.ldmatrix %row count 4 trans : !llvm.ptr -> i32, i32, i32, i32
    ```
  }];
  let arguments = (ins Arg<LLVM_AnyPointer, "a row of a matrix in shared memory", [MemRead]>:$row,
                       I32Attr:$count, UnitAttr:$trans);
  let results = (outs Variadic<I32>:$fragment);
  let assemblyFormat = [{
    $row `count` $count (`trans` $trans^)? attr-dict `:` qualified(type($row)) `->` type($fragment)
  }];
  let hasVerifier = 1;
}

def Oxide_StMatrixOp : Oxide_Op<"stmatrix", [Oxide_DeclaresMemoryAccess, Oxide_RequiresSM<90, "uses a warp matrix store to shared memory (oxide::mma::stmatrix)">]> {
  let summary = "warp-collective store of 8x8 16-bit matrices to shared memory (stmatrix, sm_90)";
  let description = [{
    The inverse of `oxide.ldmatrix`: stores `count` (1, 2 or 4) 8x8 matrices of 16-bit
    elements, one 32-bit register of each per lane (`fragment`, `count` of them): lane l passes
    the address of row l % 8 of matrix l / 8 and gives row l / 4, columns 2 * (l % 4) and
    2 * (l % 4) + 1 of every matrix (`trans`: column l / 4, rows 2 * (l % 4) and
    2 * (l % 4) + 1). `row` is a generic or shared (addrspace 3) pointer into shared memory;
    `oxide-verify-safety` checks that it is shared memory in a contracted kernel.

    ```mlir
    oxide.stmatrix %row, [%r0, %r1, %r2, %r3] trans : !llvm.ptr
    ```
  }];
  let arguments = (ins Arg<LLVM_AnyPointer, "a row of a matrix in shared memory", [MemWrite]>:$row,
                       Variadic<I32>:$fragment, UnitAttr:$trans);
  let assemblyFormat = [{
    $row `,` `[` $fragment `]` (`trans` $trans^)? attr-dict `:` qualified(type($row))
  }];
  let hasVerifier = 1;
}

def Oxide_CpAsyncOp : Oxide_Op<"cp_async", [Oxide_DeclaresMemoryAccess, Oxide_RequiresSM<80, "uses asynchronous copies to shared memory (oxide::cp_async)">]> {
  let summary = "start an asynchronous copy from global to shared memory (cp.async)";
  let description = [{
    Copies `bytes` (4, 8 or 16) from `src` (global memory, generic or addrspace 1) to `dst`
    (shared memory, generic or addrspace 3), both aligned to `bytes`. With `src_bytes`, only
    that many come from `src` and the rest are zeros. The copy belongs to the thread's next
    `oxide.cp_async_commit` group and lands when an `oxide.cp_async_wait` completes it. It
    writes shared memory only; `oxide-verify-safety` checks that `dst` is shared memory and, in
    a contracted kernel, that `src` is a Span<const T> input's memory.

    ```mlir
    oxide.cp_async %dst, %src, 16 : !llvm.ptr, !llvm.ptr
    oxide.cp_async %dst, %src, 16 src_bytes %n : !llvm.ptr, !llvm.ptr
    ```
  }];
  let arguments = (ins Arg<LLVM_AnyPointer, "shared memory", [MemWrite]>:$dst,
                       Arg<LLVM_AnyPointer, "global memory", [MemRead]>:$src,
                       I32Attr:$bytes, Optional<I32>:$src_bytes);
  let assemblyFormat = [{
    $dst `,` $src `,` $bytes (`src_bytes` $src_bytes^)? attr-dict `:` qualified(type($dst)) `,` qualified(type($src))
  }];
  let hasVerifier = 1;
}

def Oxide_CpAsyncCommitOp : Oxide_Op<"cp_async_commit", [Oxide_MemoryAccessOpInterface, Oxide_RequiresSM<80, "uses asynchronous copies to shared memory (oxide::cp_async)">]> {
  let summary = "close the thread's pending cp.async copies into a group";
  let description = [{
    ```mlir
    oxide.cp_async_commit
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Oxide_CpAsyncWaitOp : Oxide_Op<"cp_async_wait", [Oxide_MemoryAccessOpInterface, Oxide_RequiresSM<80, "uses asynchronous copies to shared memory (oxide::cp_async)">]> {
  let summary = "wait until at most `pending` of the thread's cp.async groups are in flight";
  let description = [{
    The copies of every older group have landed in shared memory when it returns.

    ```mlir
    oxide.cp_async_wait 1
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<7>]>:$pending);
  let assemblyFormat = "$pending attr-dict";
}

include "Oxide/IR/HopperOps.td"
include "Oxide/IR/CacheOps.td"

#endif // OXIDE_OPS
