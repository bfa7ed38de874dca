// CUB's warp-level collectives (cub::WarpReduce, cub::WarpScan) with CUB's interface, for
// contracted kernels on the GPU and the simulator. NVIDIA's own implementations cannot be
// compiled into Oxide kernels (docs/libraries.md says why); these are written on Oxide's warp
// shuffles and cooperative-group tiles, so a port keeps its CUB code and changes `cub::` to
// `oxide::cub::` and `__shared__ typename C::TempStorage t;` to
// `auto &t = oxide::cub::temp_storage<C>();`. They only exchange registers: nothing here writes
// memory but the caller's own variables.
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

#include "oxide/device/cooperative.hpp"
#include "oxide/device/shared.hpp"
#include "oxide/device/warp.hpp"

namespace oxide::cub {

/// CUB's placeholder for "no value type" (BlockRadixSort's keys-only sort).
struct NullType {};

/// CUB's reduction operators: a + b, the larger and the smaller.
struct Sum {
  template <class T> constexpr T operator()(const T &a, const T &b) const noexcept { return a + b; }
};
struct Max {
  template <class T> constexpr T operator()(const T &a, const T &b) const noexcept { return a < b ? b : a; }
};
struct Min {
  template <class T> constexpr T operator()(const T &a, const T &b) const noexcept { return b < a ? b : a; }
};

/// A collective's TempStorage in shared memory, one per block and per place in the source where
/// it is called: CUB's `__shared__ typename Collective::TempStorage temp;`. As in CUB, a block
/// that uses one storage for two calls syncs (oxide::sync_threads) between them.
template <class Collective, auto Site = [] {}>
[[nodiscard]] inline typename Collective::TempStorage &temp_storage() noexcept {
  return shared_object<typename Collective::TempStorage, Site>();
}

namespace detail {

/// Where item i of a shared-memory exchange buffer sits: one padding element every 32, so that
/// blocked accesses (stride ITEMS_PER_THREAD) do not all fall on one bank. A buffer of n items
/// holds bank_padded(n - 1) + 1.
constexpr std::uint32_t bank_padded(std::uint32_t i) noexcept { return i + i / warp::kSize; }

/// The cg operator that does what CUB's operator does on T (so that 32-bit integer sums,
/// minima and maxima take one redux.sync), or `op` itself.
template <class T, class Op> constexpr auto as_cg_op(Op op) noexcept {
  if constexpr (std::is_same_v<Op, Sum>)
    return cg::plus<T>{};
  else if constexpr (std::is_same_v<Op, Max>)
    return cg::greater<T>{};
  else if constexpr (std::is_same_v<Op, Min>)
    return cg::less<T>{};
  else
    return op;
}

/// `op` over ranks [0, count) of a tile of Width lanes, in rank 0 (ranks at or past `count` add
/// nothing; the others hold partial results). Every lane of the tile calls it. Keeps the order
/// of the ranks, so `op` need not be commutative.
template <std::uint32_t Width, class Tile, class T, class Op>
[[gnu::always_inline]] inline T reduce_first(const Tile &tile, T value, Op op, std::uint32_t count) noexcept {
  const std::uint32_t rank = tile.thread_rank();
  for (std::uint32_t offset = 1; offset < Width; offset *= 2) {
    const T other = tile.shfl_down(value, offset);
    if (rank + offset < count)
      value = op(value, other);
  }
  return value;
}

template <class T>
concept WarpValue = warp::detail::Shuffleable<T>;

} // namespace detail

/// cub::WarpReduce: a reduction over each logical warp of LOGICAL_WARP_THREADS lanes (1, 2, 4,
/// 8, 16 or 32; logical warp k is lanes [k * L, (k + 1) * L)). Every lane of a logical warp
/// calls it together. The full forms give the result to every lane (CUB promises lane 0); the
/// forms with `valid_items` to lane 0 only, as CUB.
template <class T, int LOGICAL_WARP_THREADS = 32> class WarpReduce {
  static_assert(detail::WarpValue<T>, "oxide::cub::WarpReduce: T must be trivially copyable, 4 to 32 bytes, "
                                      "a multiple of 4 (what a warp shuffle moves)");
  static_assert(LOGICAL_WARP_THREADS > 0 && LOGICAL_WARP_THREADS <= 32 &&
                    std::has_single_bit(static_cast<unsigned>(LOGICAL_WARP_THREADS)),
                "oxide::cub::WarpReduce: LOGICAL_WARP_THREADS is 1, 2, 4, 8, 16 or 32");
  static constexpr std::uint32_t kLanes = LOGICAL_WARP_THREADS;

public:
  /// Shuffles need no shared memory; the type exists so that CUB code declaring it compiles.
  struct TempStorage {};

  WarpReduce() noexcept = default;
  explicit WarpReduce(TempStorage &) noexcept {}

  [[nodiscard]] T Sum(T input) const noexcept { return Reduce(input, cub::Sum{}); }
  template <class ReductionOp> [[nodiscard]] T Reduce(T input, ReductionOp op) const noexcept {
    return cg::reduce(tile(), input, detail::as_cg_op<T>(op));
  }
  /// Over the first `valid_items` lanes of the logical warp; the result in its lane 0.
  [[nodiscard]] T Sum(T input, int valid_items) const noexcept {
    return Reduce(input, cub::Sum{}, valid_items);
  }
  template <class ReductionOp>
  [[nodiscard]] T Reduce(T input, ReductionOp op, int valid_items) const noexcept {
    return detail::reduce_first<kLanes>(tile(), input, op, valid_items < 0 ? 0u : std::uint32_t(valid_items));
  }

private:
  static cg::thread_block_tile<kLanes> tile() noexcept {
    return cg::tiled_partition<kLanes>(cg::this_thread_block());
  }
};

/// cub::WarpScan: prefix scans over each logical warp of LOGICAL_WARP_THREADS lanes, in log2(L)
/// shuffles. Every lane of a logical warp calls it together. An exclusive scan without an
/// initial value leaves lane 0's output as CUB does (here: its own input).
template <class T, int LOGICAL_WARP_THREADS = 32> class WarpScan {
  static_assert(detail::WarpValue<T>, "oxide::cub::WarpScan: T must be trivially copyable, 4 to 32 bytes, "
                                      "a multiple of 4 (what a warp shuffle moves)");
  static_assert(LOGICAL_WARP_THREADS > 0 && LOGICAL_WARP_THREADS <= 32 &&
                    std::has_single_bit(static_cast<unsigned>(LOGICAL_WARP_THREADS)),
                "oxide::cub::WarpScan: LOGICAL_WARP_THREADS is 1, 2, 4, 8, 16 or 32");
  static constexpr std::uint32_t kLanes = LOGICAL_WARP_THREADS;

public:
  struct TempStorage {};

  WarpScan() noexcept = default;
  explicit WarpScan(TempStorage &) noexcept {}

  void InclusiveSum(T input, T &output) const noexcept { InclusiveScan(input, output, cub::Sum{}); }
  void InclusiveSum(T input, T &output, T &warp_aggregate) const noexcept {
    InclusiveScan(input, output, cub::Sum{}, warp_aggregate);
  }
  void ExclusiveSum(T input, T &output) const noexcept { ExclusiveScan(input, output, T{}, cub::Sum{}); }
  void ExclusiveSum(T input, T &output, T &warp_aggregate) const noexcept {
    ExclusiveScan(input, output, T{}, cub::Sum{}, warp_aggregate);
  }
  template <class ScanOp> void InclusiveScan(T input, T &output, ScanOp op) const noexcept {
    output = cg::inclusive_scan(tile(), input, op);
  }
  template <class ScanOp>
  void InclusiveScan(T input, T &output, ScanOp op, T &warp_aggregate) const noexcept {
    const auto t = tile();
    output = cg::inclusive_scan(t, input, op);
    warp_aggregate = t.shfl(output, kLanes - 1);
  }
  /// Lane 0's output is left as its input (CUB: undefined).
  template <class ScanOp> void ExclusiveScan(T input, T &output, ScanOp op) const noexcept {
    const auto t = tile();
    const T inclusive = cg::inclusive_scan(t, input, op);
    output = t.shfl_up(inclusive, 1);
    if (t.thread_rank() == 0)
      output = input;
  }
  template <class ScanOp> void ExclusiveScan(T input, T &output, T initial_value, ScanOp op) const noexcept {
    T aggregate;
    ExclusiveScan(input, output, initial_value, op, aggregate);
  }
  /// `warp_aggregate` is the reduction of the inputs, without `initial_value`.
  template <class ScanOp>
  void ExclusiveScan(T input, T &output, T initial_value, ScanOp op, T &warp_aggregate) const noexcept {
    const auto t = tile();
    const T inclusive = cg::inclusive_scan(t, input, op);
    const T below = t.shfl_up(inclusive, 1);
    warp_aggregate = t.shfl(inclusive, kLanes - 1);
    output = t.thread_rank() == 0 ? initial_value : op(initial_value, below);
  }
  /// The input of lane `src_lane` of the logical warp, to every lane.
  [[nodiscard]] T Broadcast(T input, unsigned src_lane) const noexcept {
    return tile().shfl(input, src_lane);
  }

private:
  static cg::thread_block_tile<kLanes> tile() noexcept {
    return cg::tiled_partition<kLanes>(cg::this_thread_block());
  }
};

} // namespace oxide::cub
