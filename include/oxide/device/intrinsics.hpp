// Oxide device intrinsics: the boundary between the C++ headers and the compiler.
//
// Every `__oxide_*` function below is declared, never defined, in device code: the `oxide-raise`
// pass turns each call into an `oxide` dialect op and `oxide-to-nvvm` lowers the op to PTX. The
// host runtime defines the same symbols for the CPU simulator, so one header serves both
// compiles. Arguments documented as "constant" must fold to a constant after inlining; the
// typed wrappers in oxide/device/ always pass literals, and the codes of the enumerated ones
// (dimensions, scopes, modes and kinds) are the enums of oxide/detail/intrinsic_abi.hpp, passed
// through oxide::intrinsic::code(). User code never calls these directly.
#pragma once

#include <cstddef>
#include <cstdint>

#include "oxide/detail/intrinsic_abi.hpp"

extern "C" {
// --- launch geometry; `dim` (constant) is an intrinsic::Dim ---------------------------------
std::uint32_t __oxide_thread_idx(std::uint32_t dim) noexcept;
std::uint32_t __oxide_block_idx(std::uint32_t dim) noexcept;
std::uint32_t __oxide_block_dim(std::uint32_t dim) noexcept;
std::uint32_t __oxide_grid_dim(std::uint32_t dim) noexcept;
/// Global linear index of the calling thread in a 1-D launch: blockIdx.x * blockDim.x + threadIdx.x.
std::size_t __oxide_index_1d() noexcept;
/// Global index of the calling thread along `dim` (constant) in a launch of rank `rank`
/// (constant, 1..3): blockIdx.d * blockDim.d + threadIdx.d. The witnesses of oxide::thread.
std::size_t __oxide_thread_index(std::uint32_t rank, std::uint32_t dim) noexcept;

/// `index` advanced by the total number of threads along `dim` (constant) of a rank-`rank`
/// launch (gridDim.d * blockDim.d): the next element of the calling thread in a grid-stride
/// loop. Different threads' sequences never meet, which the compiler relies on.
std::size_t __oxide_grid_stride_next(std::size_t index, std::uint32_t rank, std::uint32_t dim) noexcept;

// --- disjoint outputs ------------------------------------------------------------------------
// The element at the calling thread's witness coordinates, or nullptr when out of bounds:
// `data + ((z * height + y) * width + x) * elem_size`. The compiler proves that every coordinate
// comes straight from __oxide_thread_index, so no two threads get the same element.
void *__oxide_disjoint_get(void *data, std::size_t width, std::size_t elem_size, std::size_t x) noexcept;
/// Element `j` of the calling thread's tile of `tile` (constant) consecutive elements starting
/// at element `x * tile`: element `x * tile + j`, or nullptr when `j >= tile` or that element is
/// out of bounds. Each call names one element, so the compiler checks every write of a tile.
void *__oxide_disjoint_tile(void *data, std::size_t size, std::size_t elem_size, std::size_t tile,
                            std::size_t x, std::size_t j) noexcept;
void *__oxide_disjoint_get_2d(void *data, std::size_t width, std::size_t height, std::size_t elem_size,
                              std::size_t x, std::size_t y) noexcept;
/// Element (r, c) of the calling thread's tile of `tile_rows` x `tile_cols` (constants) elements
/// of a row-major width x height output, whose first element is [y * tile_rows][x * tile_cols]:
/// element [y * tile_rows + r][x * tile_cols + c], or nullptr when `r >= tile_rows`,
/// `c >= tile_cols` or that element is out of bounds.
void *__oxide_disjoint_tile_2d(void *data, std::size_t width, std::size_t height, std::size_t elem_size,
                               std::size_t tile_cols, std::size_t tile_rows, std::size_t x, std::size_t y,
                               std::size_t c, std::size_t r) noexcept;
void *__oxide_disjoint_get_3d(void *data, std::size_t width, std::size_t height, std::size_t depth,
                              std::size_t elem_size, std::size_t x, std::size_t y, std::size_t z) noexcept;

/// The calling thread's group's index; `group` (constant) is an intrinsic::Group. The witnesses
/// of oxide::warp::index(), oxide::block::index() and oxide::cluster::index().
std::size_t __oxide_group_index(std::uint32_t group) noexcept;
/// `index` advanced by the number of such groups in the launch: the group's next index in a
/// group-stride loop (warp-stride, block-stride), which no other group ever sees.
std::size_t __oxide_group_stride_next(std::size_t index, std::uint32_t group) noexcept;
/// Element `j` of the set that `shape` (constant, an intrinsic::Ownership) gives the owner whose
/// witness coordinates are (owner_x, owner_y), in an output of width x height x depth elements of
/// `elem_size` (constant) bytes at `data`; nullptr when `j` is outside the set, the element is
/// outside the output, or the calling thread is not the member of its group that writes it.
/// `param` is the shape's constant K (block_strided, strided_rows) or its uniform distance
/// (pair); 0 otherwise. Extents and owner coordinates a shape does not use are passed as 1 and 0.
void *__oxide_owned_elem(void *data, std::size_t width, std::size_t height, std::size_t depth,
                         std::size_t elem_size, std::uint32_t shape, std::size_t param, std::size_t owner_x,
                         std::size_t owner_y, std::size_t j) noexcept;
/// Elements `j` and `j + 1` of warpgroup_tile's set (arguments as __oxide_owned_elem's), which
/// are adjacent in one row for even `j`: a pointer to both, aligned to twice `elem_size`, or
/// nullptr when `j` is odd, either element is outside the set or the output, or the pair is not
/// so aligned. One 2-element store then writes both (an accumulator pair, st.global.v2).
void *__oxide_owned_pair(void *data, std::size_t width, std::size_t height, std::size_t depth,
                         std::size_t elem_size, std::uint32_t shape, std::size_t param, std::size_t owner_x,
                         std::size_t owner_y, std::size_t j) noexcept;

/// Adds `count` to the 64-bit counter at `counter` atomically (device scope) and returns its value
/// before: the first of the `count` slots the calling thread reserved (oxide::AppendSpan).
std::size_t __oxide_reserve(void *counter, std::size_t count) noexcept;
/// Slot `j` of the reservation [start, start + count) that __oxide_reserve returned `start` for,
/// in an output of `size` elements of `elem_size` (constant) bytes at `data`; nullptr when
/// `j >= count` or the slot is past the end. The compiler checks `start` is that result.
void *__oxide_reserved_elem(void *data, std::size_t size, std::size_t elem_size, std::size_t start,
                            std::size_t count, std::size_t j) noexcept;

/// Element perm[i] of an output of `size` elements of `elem_size` (constant) bytes at `data`,
/// where `perm` holds `perm_size` 32-bit indices; nullptr when `i >= perm_size` or
/// `perm[i] >= size`. The compiler checks that `i` is the calling thread's 1-D witness and that
/// `perm` is a PermutationSpan parameter (a permutation the host validated, which no thread
/// writes), so no two threads get the same element (oxide::DisjointSpan::scatter_mut).
void *__oxide_permuted_elem(void *data, std::size_t size, std::size_t elem_size, const void *perm,
                            std::size_t perm_size, std::size_t i) noexcept;

/// Element j of an output of `size` elements of `elem_size` (constant) bytes at `data`, when this
/// call is the first of the launch to set bit j of the `claims_size` claim bits at `claims`
/// (atomically); nullptr when the bit was set, `j >= size` or `j >= claims_size`. The compiler
/// checks that `claims` is a ClaimSet parameter (bits that start the launch clear and that only
/// this call sets), so no two threads get the same element (oxide::DisjointSpan::claim_mut).
void *__oxide_claimed_elem(void *data, std::size_t size, std::size_t elem_size, std::uint32_t *claims,
                           std::size_t claims_size, std::size_t j) noexcept;

/// Element `i` of a span of `size` elements of `elem_size` (constant) bytes at `data`, or nullptr
/// when `i >= size`: any thread may name any element (AtomicSpan, whose elements are written by
/// atomic operations only; the compiler checks that).
void *__oxide_span_elem(void *data, std::size_t size, std::size_t elem_size, std::size_t i) noexcept;

// --- barriers and fences -------------------------------------------------------------------
/// Block-wide barrier (__syncthreads): every thread of the block must reach it.
void __oxide_sync_threads() noexcept;
/// Named barrier `id` (1..15) of the block for `threads` threads (a multiple of 32): waits until
/// that many have arrived (bar.sync), or with `arrive` (constant) counts the caller and goes on
/// (bar.arrive). oxide::NamedBarrier checks the operands.
void __oxide_named_barrier(std::uint32_t id, std::uint32_t threads, std::uint32_t arrive) noexcept;
/// Memory fence; `scope` (constant) is an intrinsic::Scope.
void __oxide_fence(std::uint32_t scope) noexcept;

// --- shared memory -------------------------------------------------------------------------
/// Per-block static shared memory of `bytes` (constant) aligned to `align` (constant). `site`
/// is the address of a variable unique to the declaration: every call with the same site in a
/// block returns the same memory.
void *__oxide_shared_alloc(std::size_t bytes, std::size_t align, const void *site) noexcept;
/// Base of the block's dynamic shared memory (sized at launch), 16-byte aligned.
void *__oxide_dynamic_shared() noexcept;
/// Size in bytes of the block's dynamic shared memory.
std::uint32_t __oxide_dynamic_shared_size() noexcept;

// --- warps (32 lanes); `mask` names the participating lanes ---------------------------------
std::uint32_t __oxide_lane_id() noexcept;
/// `mode` (constant) is an intrinsic::ShuffleMode: from lane `arg`, up or down by `arg`, or xor
/// `arg`, within the calling lane's segment of `width` (constant: 1, 2, 4, 8, 16 or 32) lanes;
/// idx reads lane `arg % width` of the segment. A lane whose source is past its segment (below
/// it for up) gets its own value back (shfl.sync with c = ((32 - width) << 8) | clamp).
std::uint32_t __oxide_warp_shuffle(std::uint32_t mask, std::uint32_t value, std::uint32_t arg,
                                   std::uint32_t mode, std::uint32_t width) noexcept;
/// `mode` (constant) is an intrinsic::VoteMode: all and any return 0/1, ballot a bit per lane.
std::uint32_t __oxide_warp_vote(std::uint32_t mask, std::uint32_t predicate, std::uint32_t mode) noexcept;
void __oxide_warp_sync(std::uint32_t mask) noexcept;
/// `kind` (constant) is an intrinsic::ReduxKind, combining `value` over the lanes of `mask`;
/// every lane gets the result (redux.sync).
std::uint32_t __oxide_warp_redux(std::uint32_t mask, std::uint32_t value, std::uint32_t kind) noexcept;
/// `kind` (constant) is an intrinsic::MatchKind: any = the lanes of `mask` holding the caller's
/// `value`; all = `mask` when all lanes of `mask` hold the same value, else 0 (match.sync).
std::uint32_t __oxide_warp_match(std::uint32_t mask, std::uint32_t value, std::uint32_t kind) noexcept;
/// The same for a 64-bit `value` (match.sync.b64).
std::uint32_t __oxide_warp_match_b64(std::uint32_t mask, std::uint64_t value, std::uint32_t kind) noexcept;
/// The lanes of the warp executing this call together with the caller (activemask.b32); in
/// divergent code, the lanes that took the caller's branch. `file`, `line` and `column` name the
/// user's call: the GPU ignores them; the simulator, whose host code may merge or duplicate the
/// calls of different branches, groups the lanes by them. Convergent, so that LLVM moves no call
/// across a branch.
__attribute__((convergent)) std::uint32_t __oxide_active_mask(const char *file, std::uint32_t line,
                                                              std::uint32_t column) noexcept;
/// `kind` (constant) is an intrinsic::LaneMaskKind: the lanes below (lt), up to (le), equal to
/// (eq), from (ge) or above (gt) the caller's (%lanemask_lt ...).
std::uint32_t __oxide_lane_mask(std::uint32_t kind) noexcept;

// --- time ------------------------------------------------------------------------------------
/// `kind` (constant) is an intrinsic::ClockKind: the SM's cycle counter or the global timer (ns).
std::uint64_t __oxide_clock(std::uint32_t kind) noexcept;

// --- thread-block clusters (Hopper) and cooperative launches ----------------------------------
/// `kind` (constant) is an intrinsic::ClusterGeometryKind, `dim` (constant) an intrinsic::Dim,
/// which block_rank and block_count ignore.
std::uint32_t __oxide_cluster_geometry(std::uint32_t kind, std::uint32_t dim) noexcept;
/// Barrier across every thread of the cluster (barrier.cluster.arrive + wait).
void __oxide_cluster_sync() noexcept;
/// `shared` (an address in this block's shared memory) in the block of rank `rank` of the cluster.
void *__oxide_cluster_map_shared(void *shared, std::uint32_t rank) noexcept;
/// Barrier across every thread of a cooperative launch.
void __oxide_grid_sync() noexcept;

// --- termination ---------------------------------------------------------------------------
/// Reports an out-of-bounds access through a span and stops the kernel. Never returns.
[[noreturn]] void __oxide_bounds_fail(std::size_t index, std::size_t size) noexcept;
/// Prints `message` and stops the kernel; the launch then fails on the host. Never returns.
[[noreturn]] void __oxide_trap(const char *message) noexcept;
}

// --- tensor cores (sm_80+): mma.sync, ldmatrix, cp.async --------------------------------------
// Warp-collective: every lane of the warp calls them together, with the fragments that
// oxide/device/mma.hpp lays out. Fragments pass by address (the raise loads and stores them, so
// they stay in registers); every fragment register is 32 bits.
extern "C" {
/// d = a * b + c over one m16n8k16 tile: `a` 4, `b` 2, `c` and `d` 4 registers per lane, A and
/// B bf16 pairs, C and D f32.
void __oxide_mma_m16n8k16_bf16(void *d, const void *a, const void *b, const void *c) noexcept;
/// The same with f16 pairs in A and B.
void __oxide_mma_m16n8k16_f16(void *d, const void *a, const void *b, const void *c) noexcept;
/// m16n8k8 with tf32 A and B (one per register, f32 bits), f32 C and D.
void __oxide_mma_m16n8k8_tf32(void *d, const void *a, const void *b, const void *c) noexcept;
/// m16n8k32 with four s8 per register in A and B, s32 C and D (saturating).
void __oxide_mma_m16n8k32_s8(void *d, const void *a, const void *b, const void *c) noexcept;
/// `count` (constant: 1, 2 or 4) 8x8 matrices of 16-bit elements from shared memory into
/// `fragment` (`count` registers); lane l gives the address of row l % 8 of matrix l / 8 (lanes
/// past 8 * count give none). `transpose` (constant, 0 or 1) loads each matrix transposed.
void __oxide_ldmatrix(void *fragment, const void *row, std::uint32_t count, std::uint32_t transpose) noexcept;
/// stmatrix (sm_90), the inverse of ldmatrix: stores `count` (constant: 1, 2 or 4) 8x8 matrices
/// of 16-bit elements from `fragment` (`count` registers, laid out as ldmatrix gives them) into
/// shared memory; lane l gives the address of row l % 8 of matrix l / 8 (16-byte aligned; lanes
/// past 8 * count give none). `transpose` (constant, 0 or 1) stores each matrix transposed.
void __oxide_stmatrix(void *row, const void *fragment, std::uint32_t count, std::uint32_t transpose) noexcept;
/// Starts an asynchronous copy of `bytes` (constant: 4, 8 or 16) from global memory at `src` to
/// shared memory at `dst`, both aligned to `bytes`; the first `src_bytes` (at most `bytes`) come
/// from `src` and the rest are zeros. It lands once a cp_async_wait lets its group complete.
void __oxide_cp_async(void *dst, const void *src, std::uint32_t bytes, std::uint32_t src_bytes) noexcept;
/// Closes the group of the calling thread's copies started since the last commit.
void __oxide_cp_async_commit() noexcept;
/// Waits until at most `pending` (constant, 0..7) of the thread's committed groups are
/// incomplete; the copies of the older groups have then landed.
void __oxide_cp_async_wait(std::uint32_t pending) noexcept;
}

// --- Hopper (sm_90; wgmma and setmaxnreg sm_90a): mbarriers, TMA, warpgroup MMA ------------
// An mbarrier is a std::uint64_t in shared memory. A TensorMap is the 128-byte, 64-byte-aligned
// descriptor the runtime encodes (cuTensorMapEncodeTiled on a GPU, its own format on the
// simulator) in device global memory; kernels receive its address. A shared-memory matrix
// descriptor (wgmma) is the 64-bit value PTX documents ("Matrix Descriptor Format").
extern "C" {
/// The 32-bit shared-window address of `p`, which points into the block's shared memory.
std::uint32_t __oxide_shared_address(const void *p) noexcept;
/// Initialises `bar` to expect `count` (1 .. 2^20 - 1) arrivals per phase; phase 0 is current.
void __oxide_mbarrier_init(std::uint64_t *bar, std::uint32_t count) noexcept;
/// fence.mbarrier_init.release.cluster: this thread's initialisations are visible to the copy
/// engine and the cluster before a barrier that follows.
void __oxide_mbarrier_init_fence() noexcept;
/// One arrival on the current phase of `bar`.
void __oxide_mbarrier_arrive(std::uint64_t *bar) noexcept;
/// One arrival on the current phase of `bar` that also makes it expect `bytes` more
/// transaction bytes (TMA copies complete them); the phase ends when both counts reach zero.
void __oxide_mbarrier_arrive_expect_tx(std::uint64_t *bar, std::uint32_t bytes) noexcept;
/// One arrival on the barrier at the same shared offset as `bar` in the block of rank `rank` of
/// the cluster (consumers releasing a multicast stage).
void __oxide_mbarrier_arrive_cluster(std::uint64_t *bar, std::uint32_t rank) noexcept;
/// 1 once the phase of parity `parity` (0 or 1) of `bar` has completed, else 0 after a bounded
/// wait (mbarrier.try_wait.parity); callers loop.
std::uint32_t __oxide_mbarrier_try_wait_parity(std::uint64_t *bar, std::uint32_t parity) noexcept;
/// Ends the life of `bar`; its shared memory may be reused.
void __oxide_mbarrier_inval(std::uint64_t *bar) noexcept;
/// fence.proxy.async.shared::cta: this thread's ordinary stores to shared memory become
/// visible to the async proxy (wgmma, TMA) for whatever follows a barrier.
void __oxide_fence_proxy_async_shared() noexcept;

/// Starts the bulk tensor copy (TMA) of the box at `c0..c4` (`rank` constant, 1..5; c0 the
/// innermost coordinate; unused ones 0) of the tensor that `map` describes into shared memory
/// at `dst` (128-byte aligned): the box's bytes complete transactions of `bar`. Elements
/// outside the tensor land as zeros. `map` is a TensorMap in global memory.
void __oxide_tma_load(void *dst, const void *map, std::uint64_t *bar, std::uint32_t rank, std::int32_t c0,
                      std::int32_t c1, std::int32_t c2, std::int32_t c3, std::int32_t c4) noexcept;
/// The same, landing at `dst`'s offset in every block of the cluster whose bit is set in
/// `mask` (bit r: block rank r) and completing each one's barrier at `bar`'s offset.
void __oxide_tma_load_multicast(void *dst, const void *map, std::uint64_t *bar, std::uint32_t rank,
                                std::int32_t c0, std::int32_t c1, std::int32_t c2, std::int32_t c3,
                                std::int32_t c4, std::uint16_t mask) noexcept;
/// Brings the TensorMap at `map` into the descriptor cache (prefetch.tensormap).
void __oxide_tma_prefetch(const void *map) noexcept;
/// Starts the bulk tensor copy (TMA) of the box at `c0..c4` (`rank` constant, 1..5; c0 the
/// innermost coordinate; unused ones 0) from shared memory at `src` (128-byte aligned) into the
/// tensor that `map` describes (global memory): elements of the box outside the tensor are not
/// written. The copy belongs to the thread's next tma_store_commit group; `src` may be written
/// again once a tma_store_wait has let the group finish reading it. `map` is a TensorMap in
/// global memory.
void __oxide_tma_store(const void *map, const void *src, std::uint32_t rank, std::int32_t c0, std::int32_t c1,
                       std::int32_t c2, std::int32_t c3, std::int32_t c4) noexcept;
/// Closes the calling thread's bulk copies (tma_store) started since the last commit into a group
/// (cp.async.bulk.commit_group).
void __oxide_tma_store_commit() noexcept;
/// Waits until at most `pending` (constant, 0..7) of the thread's committed bulk groups are still
/// reading their shared memory (cp.async.bulk.wait_group.read).
void __oxide_tma_store_wait(std::uint32_t pending) noexcept;

/// Warpgroup-collective (the 128 threads of 4 consecutive warps, the first warp's index a
/// multiple of 4), asynchronous: acc (n / 2 registers per thread: f32, or s32 for s8) =
/// A * B + (accumulate ? acc : 0) for one m64nNkK instruction, A (64 x K) and B (K x N) read
/// from shared memory through the matrix descriptors `desc_a` and `desc_b`. `n` (constant:
/// 8..256 in steps of 8; for s8 8, 16, 24, 32, then steps of 16), `type` (constant, intrinsic::WgmmaType),
/// `accumulate`, `trans_a` and `trans_b` (constants, 0 or 1; transposes only for bf16 and f16:
/// 0 means K-major) select the instruction. Element i of a thread's acc is row
/// 16 * warp + lane / 4 + 8 * ((i / 2) % 2), column 8 * (i / 4) + 2 * (lane % 4) + i % 2 of
/// the 64 x N tile. The registers are valid after a wgmma wait that covers the group.
void __oxide_wgmma(void *acc, std::uint64_t desc_a, std::uint64_t desc_b, std::uint32_t n, std::uint32_t type,
                   std::uint32_t accumulate, std::uint32_t trans_a, std::uint32_t trans_b) noexcept;
/// The same with A in registers: `a` is the thread's 4 32-bit registers of the 64 x K tile A
/// (warp w holds rows 16 w .. 16 w + 15 as mma.sync's m16nXkK A fragment: register r holds row
/// 16 w + lane / 4 + 8 (r % 2), columns (lane % 4) P + e, plus K / 2 for r >= 2, P = 4 / the
/// element's bytes), B read through `desc_b`; `trans_b` as above.
void __oxide_wgmma_rs(void *acc, const void *a, std::uint64_t desc_b, std::uint32_t n, std::uint32_t type,
                      std::uint32_t accumulate, std::uint32_t trans_b) noexcept;
/// wgmma.fence: orders earlier register and shared-memory accesses before the warpgroup's
/// next wgmma (needed before the first, and after touching its accumulators).
void __oxide_wgmma_fence() noexcept;
/// Closes the warpgroup's wgmmas issued since the last commit into a group.
void __oxide_wgmma_commit_group() noexcept;
/// Waits until at most `pending` (constant, 0..7) of the warpgroup's groups are incomplete.
void __oxide_wgmma_wait_group(std::uint32_t pending) noexcept;
/// setmaxnreg: the warpgroup's register budget per thread becomes `count` (constant, a
/// multiple of 8 in 24..256), raised when `increase` (constant) is 1, lowered when 0.
void __oxide_setmaxnreg(std::uint32_t count, std::uint32_t increase) noexcept;
}

// --- cache-hinted global loads and stores (oxide/device/cache.hpp) ---------------------------
// `bytes` (constant) is 1, 2, 4, 8 or 16 and both addresses are aligned to it; `hint` (constant)
// is an intrinsic::CacheHint. The element goes through memory at the thread's own `dst` / `src`
// (the raise loads and stores it, so it stays in registers), whatever its type. Called in the
// device compile only: on the simulator cache.hpp does a plain load or store, which its write
// checks see, so the runtime defines neither.
extern "C" {
/// Copies the `bytes` at `src`, in global memory, to `dst` with one ld.global.<hint>: nc, ca, cg,
/// cs, lu or cv.
void __oxide_cached_load(void *dst, const void *src, std::uint32_t bytes, std::uint32_t hint) noexcept;
/// Writes the `bytes` at `src` to `dst`, in global memory, with one st.global.<hint>: wb, cg, cs
/// or wt. A write like any store: the compiler checks `dst` as one.
void __oxide_cached_store(void *dst, const void *src, std::uint32_t bytes, std::uint32_t hint) noexcept;
}

// --- scoped atomics (oxide/device/atomic.hpp) -----------------------------------------------
// Clang's NVPTX code generation drops the scope of a __scoped_atomic builtin (every access
// becomes system-scope), so the device compile passes the object's address through this mark:
// the raise gives each atomic access of the result the mark's scope, then the address itself.
// Device compile only: the simulator's atomics need no scope.
extern "C" {
/// `object` itself; atomic loads, stores, read-modify-writes and compare-exchanges of the result
/// get `scope` (constant), an intrinsic::Scope.
void *__oxide_atomic_scope(void *object, std::uint32_t scope) noexcept __attribute__((const));
}
