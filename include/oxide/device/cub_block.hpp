// CUB's block-level collectives with CUB's interface, for contracted kernels on the GPU and the
// simulator: BlockReduce, BlockScan and BlockExchange (BlockLoad, BlockStore, BlockHistogram:
// cub_block_io.hpp; BlockRadixSort: cub_block_radix_sort.hpp). Written on Oxide's shuffles, shared memory and
// barriers (cub_warp.hpp says why not NVIDIA's code). As in CUB, every thread of the block calls
// a collective together, the block has BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z threads (checked:
// another count stops the kernel), and a block that reuses a TempStorage syncs between the uses.
// Their writes are the caller's variables, their TempStorage (shared memory) and, for BlockStore
// and BlockHistogram, what the caller hands them: an output through the thread's witness, a
// shared histogram.
//
//   using BlockReduce = oxide::cub::BlockReduce<float, 256>;
//   auto &temp = oxide::cub::temp_storage<BlockReduce>();
//   const float block_sum = BlockReduce(temp).Sum(x);        // in thread 0
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "oxide/device/atomic.hpp"
#include "oxide/device/cub_warp.hpp"
#include "oxide/device/span.hpp"
#include "oxide/device/sync.hpp"
#include "oxide/device/thread.hpp"

namespace oxide::cub {

enum BlockReduceAlgorithm {
  BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY,
  BLOCK_REDUCE_RAKING,
  BLOCK_REDUCE_WARP_REDUCTIONS
};
enum BlockScanAlgorithm { BLOCK_SCAN_RAKING, BLOCK_SCAN_RAKING_MEMOIZE, BLOCK_SCAN_WARP_SCANS };
enum BlockLoadAlgorithm {
  BLOCK_LOAD_DIRECT,
  BLOCK_LOAD_STRIPED,
  BLOCK_LOAD_VECTORIZE,
  BLOCK_LOAD_TRANSPOSE,
  BLOCK_LOAD_WARP_TRANSPOSE,
  BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED
};
enum BlockStoreAlgorithm {
  BLOCK_STORE_DIRECT,
  BLOCK_STORE_STRIPED,
  BLOCK_STORE_VECTORIZE,
  BLOCK_STORE_TRANSPOSE,
  BLOCK_STORE_WARP_TRANSPOSE,
  BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED
};
enum BlockHistogramAlgorithm { BLOCK_HISTO_SORT, BLOCK_HISTO_ATOMIC };

namespace detail {

/// What every block collective of X * Y * Z threads knows: the count, its warps, the caller's
/// rank, and the check that the launch has that many threads a block.
template <int X, int Y, int Z> struct BlockShape {
  static constexpr std::uint32_t kThreads = std::uint32_t(X) * Y * Z;
  static constexpr std::uint32_t kWarps = kThreads / warp::kSize;
  static_assert(X > 0 && Y > 0 && Z > 0 && kThreads <= 1024, "oxide::cub: a block has 1 to 1024 threads");
  static_assert(kThreads % warp::kSize == 0,
                "oxide::cub's block collectives take whole warps: BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z "
                "must be a multiple of 32");

  [[gnu::always_inline]] static std::uint32_t rank() noexcept { return cg::detail::block_thread_rank(); }
  [[gnu::always_inline]] static std::uint32_t warp() noexcept { return rank() / warp::kSize; }
  [[gnu::always_inline]] static void check() noexcept {
    if (cg::detail::block_threads() != kThreads) [[unlikely]]
      __oxide_trap("oxide::cub: the block's thread count is not the collective's BLOCK_DIM_X * BLOCK_DIM_Y * "
                   "BLOCK_DIM_Z");
  }
  [[gnu::always_inline]] static cg::thread_block_tile<warp::kSize> warp_tile() noexcept {
    return cg::tiled_partition<warp::kSize>(cg::this_thread_block());
  }
};

/// A thread's items combined in order with `op`.
template <class T, int N, class Op>
[[gnu::always_inline]] inline T reduce_items(const T (&items)[N], Op op) noexcept {
  T total = items[0];
  for (int i = 1; i < N; ++i)
    total = op(total, items[i]);
  return total;
}

} // namespace detail

/// cub::BlockReduce: a reduction over the block, in thread 0 (the other threads hold partial
/// results, as in CUB). Each warp reduces with shuffles, warp 0 reduces the warps' results.
/// ALGORITHM is accepted for CUB's spelling; every algorithm is this one (warp reductions).
template <class T, int BLOCK_DIM_X, BlockReduceAlgorithm ALGORITHM = BLOCK_REDUCE_WARP_REDUCTIONS,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class BlockReduce {
  using Shape = detail::BlockShape<BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>;
  static_assert(Shape::kThreads > 0); // checks the block shape where the collective is named
  static_assert(detail::WarpValue<T>, "oxide::cub::BlockReduce: T must be trivially copyable, 4 to 32 bytes, "
                                      "a multiple of 4 (what a warp shuffle moves)");

public:
  struct TempStorage {
    T warp_aggregates[Shape::kWarps];
  };

  /// Takes its storage from the block's shared memory, one per place in the source.
  template <auto Site = [] {}> BlockReduce() noexcept : storage_(temp_storage<BlockReduce, Site>()) {}
  explicit BlockReduce(TempStorage &storage) noexcept : storage_(storage) {}

  [[nodiscard]] T Sum(T input) noexcept { return Reduce(input, cub::Sum{}); }
  template <int N> [[nodiscard]] T Sum(const T (&inputs)[N]) noexcept { return Reduce(inputs, cub::Sum{}); }
  /// Over the inputs of threads 0..num_valid - 1 (at least 1).
  [[nodiscard]] T Sum(T input, int num_valid) noexcept { return Reduce(input, cub::Sum{}, num_valid); }

  template <class ReductionOp> [[nodiscard]] T Reduce(T input, ReductionOp op) noexcept {
    Shape::check();
    const auto tile = Shape::warp_tile();
    const T warp_total = cg::reduce(tile, input, detail::as_cg_op<T>(op));
    if constexpr (Shape::kWarps == 1) {
      return warp_total;
    } else {
      if (tile.thread_rank() == 0)
        storage_.warp_aggregates[Shape::warp()] = warp_total;
      sync_threads();
      return combine_warps(tile, op, Shape::kWarps, warp_total);
    }
  }
  template <int N, class ReductionOp> [[nodiscard]] T Reduce(const T (&inputs)[N], ReductionOp op) noexcept {
    return Reduce(detail::reduce_items(inputs, op), op);
  }
  template <class ReductionOp> [[nodiscard]] T Reduce(T input, ReductionOp op, int num_valid) noexcept {
    Shape::check();
    const auto tile = Shape::warp_tile();
    const std::uint32_t valid = num_valid < 0 ? 0u : std::uint32_t(num_valid);
    const std::uint32_t first = Shape::warp() * warp::kSize;
    const std::uint32_t in_warp = valid <= first ? 0u : valid - first;
    const T warp_total = detail::reduce_first<warp::kSize>(tile, input, op, in_warp);
    if constexpr (Shape::kWarps == 1) {
      return warp_total;
    } else {
      if (tile.thread_rank() == 0 && in_warp != 0)
        storage_.warp_aggregates[Shape::warp()] = warp_total;
      sync_threads();
      return combine_warps(tile, op, (valid + warp::kSize - 1) / warp::kSize, warp_total);
    }
  }

private:
  // Warp 0 reduces the first `warps` warps' results into thread 0; the others keep their own.
  template <class Tile, class Op>
  [[gnu::always_inline]] T combine_warps(const Tile &tile, Op op, std::uint32_t warps, T own) noexcept {
    if (Shape::warp() != 0)
      return own;
    const std::uint32_t lane = tile.thread_rank();
    const T mine = storage_.warp_aggregates[lane < Shape::kWarps ? lane : 0];
    return detail::reduce_first<std::bit_ceil(Shape::kWarps)>(tile, mine, op, warps);
  }

  TempStorage &storage_;
};

/// cub::BlockScan: prefix scans over the block in the order of the threads' ranks (x fastest),
/// of one item a thread or of ITEMS a thread (the block's items in blocked order: thread t's
/// items follow thread t - 1's). Warp scans with shuffles, one barrier to combine the warps (a
/// second with a block prefix callback). ALGORITHM is accepted for CUB's spelling.
template <class T, int BLOCK_DIM_X, BlockScanAlgorithm ALGORITHM = BLOCK_SCAN_RAKING, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1>
class BlockScan {
  using Shape = detail::BlockShape<BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>;
  static_assert(Shape::kThreads > 0); // checks the block shape where the collective is named
  static_assert(detail::WarpValue<T>, "oxide::cub::BlockScan: T must be trivially copyable, 4 to 32 bytes, "
                                      "a multiple of 4 (what a warp shuffle moves)");

public:
  struct TempStorage {
    T warp_aggregates[Shape::kWarps];
    T block_prefix;
  };

  template <auto Site = [] {}> BlockScan() noexcept : storage_(temp_storage<BlockScan, Site>()) {}
  explicit BlockScan(TempStorage &storage) noexcept : storage_(storage) {}

  // --- one item a thread ---
  void InclusiveSum(T input, T &output) noexcept { output = scan(input, cub::Sum{}).inclusive; }
  void InclusiveSum(T input, T &output, T &block_aggregate) noexcept {
    InclusiveScan(input, output, cub::Sum{}, block_aggregate);
  }
  void ExclusiveSum(T input, T &output) noexcept {
    const Parts p = scan(input, cub::Sum{});
    output = Shape::rank() == 0 ? T{} : p.exclusive;
  }
  void ExclusiveSum(T input, T &output, T &block_aggregate) noexcept {
    const Parts p = scan(input, cub::Sum{});
    output = Shape::rank() == 0 ? T{} : p.exclusive;
    block_aggregate = p.aggregate;
  }
  template <class ScanOp> void InclusiveScan(T input, T &output, ScanOp op) noexcept {
    output = scan(input, op).inclusive;
  }
  template <class ScanOp> void InclusiveScan(T input, T &output, ScanOp op, T &block_aggregate) noexcept {
    const Parts p = scan(input, op);
    output = p.inclusive;
    block_aggregate = p.aggregate;
  }
  template <class ScanOp> void ExclusiveScan(T input, T &output, T initial_value, ScanOp op) noexcept {
    T aggregate;
    ExclusiveScan(input, output, initial_value, op, aggregate);
  }
  /// `block_aggregate` does not include `initial_value`, as in CUB.
  template <class ScanOp>
  void ExclusiveScan(T input, T &output, T initial_value, ScanOp op, T &block_aggregate) noexcept {
    const Parts p = scan(input, op);
    output = Shape::rank() == 0 ? initial_value : op(initial_value, p.exclusive);
    block_aggregate = p.aggregate;
  }
  /// Thread 0's output is left as its input (CUB: undefined).
  template <class ScanOp> void ExclusiveScan(T input, T &output, ScanOp op) noexcept {
    const Parts p = scan(input, op);
    output = Shape::rank() == 0 ? input : p.exclusive;
  }

  // --- with a block prefix: `prefix_op(block_aggregate)` is called by warp 0's lanes, and lane 0's
  // result goes before the block's first item (a running total across the tiles of a loop) ---
  template <class PrefixOp> void ExclusiveSum(T input, T &output, PrefixOp &prefix_op) noexcept {
    ExclusiveScan(input, output, cub::Sum{}, prefix_op);
  }
  template <class PrefixOp> void InclusiveSum(T input, T &output, PrefixOp &prefix_op) noexcept {
    InclusiveScan(input, output, cub::Sum{}, prefix_op);
  }
  template <class ScanOp, class PrefixOp>
    requires std::is_invocable_r_v<T, PrefixOp &, T>
  void ExclusiveScan(T input, T &output, ScanOp op, PrefixOp &prefix_op) noexcept {
    const Parts p = scan_after_prefix(input, op, prefix_op);
    output = p.exclusive;
  }
  template <class ScanOp, class PrefixOp>
    requires std::is_invocable_r_v<T, PrefixOp &, T>
  void InclusiveScan(T input, T &output, ScanOp op, PrefixOp &prefix_op) noexcept {
    output = scan_after_prefix(input, op, prefix_op).inclusive;
  }

  // --- ITEMS a thread, in blocked order (input and output may be the same array) ---
  template <int N> void InclusiveSum(const T (&input)[N], T (&output)[N]) noexcept {
    InclusiveScan(input, output, cub::Sum{});
  }
  template <int N> void InclusiveSum(const T (&input)[N], T (&output)[N], T &block_aggregate) noexcept {
    InclusiveScan(input, output, cub::Sum{}, block_aggregate);
  }
  template <int N> void ExclusiveSum(const T (&input)[N], T (&output)[N]) noexcept {
    T aggregate;
    ExclusiveScan(input, output, T{}, cub::Sum{}, aggregate);
  }
  template <int N> void ExclusiveSum(const T (&input)[N], T (&output)[N], T &block_aggregate) noexcept {
    ExclusiveScan(input, output, T{}, cub::Sum{}, block_aggregate);
  }
  template <int N, class ScanOp> void InclusiveScan(const T (&input)[N], T (&output)[N], ScanOp op) noexcept {
    T aggregate;
    InclusiveScan(input, output, op, aggregate);
  }
  template <int N, class ScanOp>
  void InclusiveScan(const T (&input)[N], T (&output)[N], ScanOp op, T &block_aggregate) noexcept {
    const Parts p = scan(detail::reduce_items(input, op), op);
    block_aggregate = p.aggregate;
    items_inclusive(input, output, op, p.exclusive, Shape::rank() != 0);
  }
  template <int N, class ScanOp>
  void ExclusiveScan(const T (&input)[N], T (&output)[N], T initial_value, ScanOp op) noexcept {
    T aggregate;
    ExclusiveScan(input, output, initial_value, op, aggregate);
  }
  template <int N, class ScanOp>
  void ExclusiveScan(const T (&input)[N], T (&output)[N], T initial_value, ScanOp op,
                     T &block_aggregate) noexcept {
    const Parts p = scan(detail::reduce_items(input, op), op);
    block_aggregate = p.aggregate;
    items_exclusive(input, output, op, Shape::rank() == 0 ? initial_value : op(initial_value, p.exclusive));
  }
  template <int N, class PrefixOp>
  void ExclusiveSum(const T (&input)[N], T (&output)[N], PrefixOp &prefix_op) noexcept {
    const Parts p = scan_after_prefix(detail::reduce_items(input, cub::Sum{}), cub::Sum{}, prefix_op);
    items_exclusive(input, output, cub::Sum{}, p.exclusive);
  }
  template <int N, class PrefixOp>
  void InclusiveSum(const T (&input)[N], T (&output)[N], PrefixOp &prefix_op) noexcept {
    const Parts p = scan_after_prefix(detail::reduce_items(input, cub::Sum{}), cub::Sum{}, prefix_op);
    items_inclusive(input, output, cub::Sum{}, p.exclusive, true);
  }

private:
  // A thread's inclusive and exclusive prefixes (the exclusive one undefined for rank 0) and the
  // block's total.
  struct Parts {
    T inclusive, exclusive, aggregate;
  };

  template <class Op> [[gnu::always_inline]] Parts scan(T input, Op op) noexcept {
    Shape::check();
    const auto tile = Shape::warp_tile();
    const std::uint32_t lane = tile.thread_rank();
    T inclusive = cg::inclusive_scan(tile, input, op);
    T below = tile.shfl_up(inclusive, 1);
    if constexpr (Shape::kWarps == 1) {
      return {inclusive, below, tile.shfl(inclusive, warp::kSize - 1)};
    } else {
      const std::uint32_t w = Shape::warp();
      if (lane == warp::kSize - 1)
        storage_.warp_aggregates[w] = inclusive;
      sync_threads();
      // Lane j: the warps 0..j combined; every warp scans the warps' totals itself.
      const T totals =
          cg::inclusive_scan(tile, storage_.warp_aggregates[lane < Shape::kWarps ? lane : 0], op);
      const T warp_prefix = tile.shfl(totals, w == 0 ? 0 : w - 1);
      const T aggregate = tile.shfl(totals, Shape::kWarps - 1);
      if (w != 0) {
        below = lane == 0 ? warp_prefix : op(warp_prefix, below);
        inclusive = op(warp_prefix, inclusive);
      }
      return {inclusive, below, aggregate};
    }
  }

  // The scan with the callback's prefix put first: every thread's exclusive prefix is defined.
  template <class Op, class PrefixOp>
  [[gnu::always_inline]] Parts scan_after_prefix(T input, Op op, PrefixOp &prefix_op) noexcept {
    Parts p = scan(input, op);
    if (Shape::warp() == 0) {
      const T prefix = prefix_op(p.aggregate);
      if (warp::lane_id() == 0)
        storage_.block_prefix = prefix;
    }
    sync_threads();
    const T prefix = storage_.block_prefix;
    p.exclusive = Shape::rank() == 0 ? prefix : op(prefix, p.exclusive);
    p.inclusive = op(prefix, p.inclusive);
    return p;
  }

  template <int N, class Op>
  [[gnu::always_inline]] static void items_exclusive(const T (&input)[N], T (&output)[N], Op op,
                                                     T running) noexcept {
    for (int i = 0; i < N; ++i) {
      const T item = input[i];
      output[i] = running;
      running = op(running, item);
    }
  }
  template <int N, class Op>
  [[gnu::always_inline]] static void items_inclusive(const T (&input)[N], T (&output)[N], Op op, T prefix,
                                                     bool has_prefix) noexcept {
    T running = has_prefix ? op(prefix, input[0]) : input[0];
    output[0] = running;
    for (int i = 1; i < N; ++i)
      output[i] = running = op(running, input[i]);
  }

  TempStorage &storage_;
};

/// cub::BlockExchange: rearranges the block's ITEMS_PER_THREAD items a thread between blocked
/// order (thread t holds items t * ITEMS .. t * ITEMS + ITEMS - 1), striped order (thread t holds
/// t, t + threads, ...) and warp-striped order (within each warp's items), through shared memory.
/// Input and output may be the same array.
template <class T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, bool WARP_TIME_SLICING = false, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1>
class BlockExchange {
  using Shape = detail::BlockShape<BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>;
  static_assert(Shape::kThreads > 0); // checks the block shape where the collective is named
  static_assert(ITEMS_PER_THREAD > 0, "oxide::cub::BlockExchange: ITEMS_PER_THREAD must be positive");
  static constexpr std::uint32_t kItems = ITEMS_PER_THREAD;
  static constexpr std::uint32_t kTile = Shape::kThreads * kItems;

public:
  struct TempStorage {
    T buffer[detail::bank_padded(kTile - 1) + 1];
  };

  template <auto Site = [] {}> BlockExchange() noexcept : storage_(temp_storage<BlockExchange, Site>()) {}
  explicit BlockExchange(TempStorage &storage) noexcept : storage_(storage) {}

  void StripedToBlocked(const T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD]) noexcept {
    exchange(
        input, output, [](std::uint32_t t, std::uint32_t i) { return i * Shape::kThreads + t; },
        [](std::uint32_t t, std::uint32_t i) { return t * kItems + i; }, true);
  }
  void BlockedToStriped(const T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD]) noexcept {
    exchange(
        input, output, [](std::uint32_t t, std::uint32_t i) { return t * kItems + i; },
        [](std::uint32_t t, std::uint32_t i) { return i * Shape::kThreads + t; }, true);
  }
  /// Within each warp: lane l's item i is the warp's item i * 32 + l (warp-striped).
  void WarpStripedToBlocked(const T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD]) noexcept {
    exchange(input, output, warp_striped, warp_blocked, false);
  }
  void BlockedToWarpStriped(const T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD]) noexcept {
    exchange(input, output, warp_blocked, warp_striped, false);
  }
  void StripedToBlocked(T (&items)[ITEMS_PER_THREAD]) noexcept { StripedToBlocked(items, items); }
  void BlockedToStriped(T (&items)[ITEMS_PER_THREAD]) noexcept { BlockedToStriped(items, items); }
  void WarpStripedToBlocked(T (&items)[ITEMS_PER_THREAD]) noexcept { WarpStripedToBlocked(items, items); }
  void BlockedToWarpStriped(T (&items)[ITEMS_PER_THREAD]) noexcept { BlockedToWarpStriped(items, items); }

  /// Item i goes to the block's position ranks[i] (each rank in [0, threads * ITEMS), no two
  /// threads giving one rank; a rank outside stops the kernel), and the block's positions come
  /// back blocked or striped.
  template <class Rank>
  void ScatterToBlocked(const T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                        const Rank (&ranks)[ITEMS_PER_THREAD]) noexcept {
    scatter(input, output, ranks, [](std::uint32_t t, std::uint32_t i) { return t * kItems + i; });
  }
  template <class Rank>
  void ScatterToStriped(const T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                        const Rank (&ranks)[ITEMS_PER_THREAD]) noexcept {
    scatter(input, output, ranks, [](std::uint32_t t, std::uint32_t i) { return i * Shape::kThreads + t; });
  }
  template <class Rank>
  void ScatterToBlocked(T (&items)[ITEMS_PER_THREAD], const Rank (&ranks)[ITEMS_PER_THREAD]) noexcept {
    ScatterToBlocked(items, items, ranks);
  }
  template <class Rank>
  void ScatterToStriped(T (&items)[ITEMS_PER_THREAD], const Rank (&ranks)[ITEMS_PER_THREAD]) noexcept {
    ScatterToStriped(items, items, ranks);
  }

private:
  static std::uint32_t warp_striped(std::uint32_t t, std::uint32_t i) noexcept {
    return (t / warp::kSize) * warp::kSize * kItems + i * warp::kSize + t % warp::kSize;
  }
  static std::uint32_t warp_blocked(std::uint32_t t, std::uint32_t i) noexcept {
    return (t / warp::kSize) * warp::kSize * kItems + (t % warp::kSize) * kItems + i;
  }

  template <class From, class To>
  [[gnu::always_inline]] void exchange(const T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                                       From from, To to, bool block_wide) noexcept {
    Shape::check();
    const std::uint32_t t = Shape::rank();
    for (std::uint32_t i = 0; i < kItems; ++i)
      storage_.buffer[detail::bank_padded(from(t, i))] = input[i];
    if (block_wide)
      sync_threads();
    else
      warp::sync();
    for (std::uint32_t i = 0; i < kItems; ++i)
      output[i] = storage_.buffer[detail::bank_padded(to(t, i))];
  }

  template <class Rank, class To>
  [[gnu::always_inline]] void scatter(const T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                                      const Rank (&ranks)[ITEMS_PER_THREAD], To to) noexcept {
    static_assert(std::is_integral_v<Rank>, "oxide::cub::BlockExchange: ranks are integers");
    Shape::check();
    for (std::uint32_t i = 0; i < kItems; ++i) {
      const auto rank = static_cast<std::make_unsigned_t<Rank>>(ranks[i]);
      if (rank >= kTile) [[unlikely]]
        __oxide_trap(
            "oxide::cub::BlockExchange: a rank is outside the block's BLOCK_THREADS * ITEMS_PER_THREAD "
            "items");
      storage_.buffer[detail::bank_padded(static_cast<std::uint32_t>(rank))] = input[i];
    }
    sync_threads();
    const std::uint32_t t = Shape::rank();
    for (std::uint32_t i = 0; i < kItems; ++i)
      output[i] = storage_.buffer[detail::bank_padded(to(t, i))];
  }

  TempStorage &storage_;
};

} // namespace oxide::cub
