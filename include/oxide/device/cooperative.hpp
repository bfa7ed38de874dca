// Thread groups in the style of CUDA's cooperative groups (namespace cg): the block, tiles of
// 1..32 lanes partitioned from it or from a larger tile (thread_group: of a size known only at
// run time), and the coalesced group of the lanes running together, with the shuffles, votes,
// matches, reductions and scans of each.
//
//   namespace cg = oxide::cg;
//   const cg::thread_block block = cg::this_thread_block();
//   const auto tile = cg::tiled_partition<8>(block);
//   const float total = cg::reduce(tile, x, cg::plus<float>());     // every lane of the tile
//   const int offset = cg::exclusive_scan(tile, count, cg::plus<int>());
//   if (hit) {
//     const cg::coalesced_group active = cg::coalesced_threads();  // the lanes with a hit
//     const unsigned slot = base + active.thread_rank();
//   }
//
// Unlike the group witnesses of oxide/device/group.hpp (which prove what a group may write),
// these only read and exchange registers; the safe tier is unchanged by using them. A tile is
// lanes [k * Size, (k + 1) * Size) of a warp, so every operation of a tile uses the tile's own
// lane mask (shfl.sync's c operand confines the shuffles to the tile), and as with the *_sync
// intrinsics every lane of the tile must call it together. Block sizes should be a multiple of
// the tile size (a tile's missing lanes never take part; on the GPU that is undefined).
// Coalesced groups order their lanes by lane number: rank r is the r-th lowest active lane.
#pragma once

#include <bit>
#include <concepts>
#include <cstdint>
#include <limits>
#include <source_location>
#include <type_traits>

#include "oxide/device/geometry.hpp"
#include "oxide/device/intrinsics.hpp"
#include "oxide/device/warp.hpp"

namespace oxide::cg {

// --- operators for reduce and the scans (CUDA's names: less is the minimum) ------------------

/// a + b; identity 0.
template <class T> struct plus {
  constexpr T operator()(T a, T b) const noexcept { return a + b; }
};
/// The smaller of a and b (cg::less); identity the largest T.
template <class T> struct less {
  constexpr T operator()(T a, T b) const noexcept { return b < a ? b : a; }
};
/// The larger of a and b (cg::greater); identity the lowest T.
template <class T> struct greater {
  constexpr T operator()(T a, T b) const noexcept { return a < b ? b : a; }
};
/// a & b; identity all ones.
template <class T> struct bit_and {
  constexpr T operator()(T a, T b) const noexcept { return a & b; }
};
/// a | b; identity 0.
template <class T> struct bit_or {
  constexpr T operator()(T a, T b) const noexcept { return a | b; }
};
/// a ^ b; identity 0.
template <class T> struct bit_xor {
  constexpr T operator()(T a, T b) const noexcept { return a ^ b; }
};

namespace detail {
using intrinsic::ShuffleMode;
using warp::detail::Matchable;
using warp::detail::Shuffleable;

/// The identity of one of the operators above (what exclusive_scan gives rank 0).
template <class Op> struct Identity;
template <class T> struct Identity<plus<T>> {
  static constexpr T value = T(0);
};
template <class T> struct Identity<less<T>> {
  static constexpr T value = std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                                  : std::numeric_limits<T>::max();
};
template <class T> struct Identity<greater<T>> {
  static constexpr T value = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                                  : std::numeric_limits<T>::lowest();
};
template <class T> struct Identity<bit_and<T>> {
  static constexpr T value = static_cast<T>(~T(0));
};
template <class T> struct Identity<bit_or<T>> {
  static constexpr T value = T(0);
};
template <class T> struct Identity<bit_xor<T>> {
  static constexpr T value = T(0);
};
template <class Op>
concept KnownOp = requires { Identity<Op>::value; };

/// Whether reduce(value, Op) over 32-bit integers is one redux.sync (sm_80+), and which.
template <class T, class Op> inline constexpr bool kRedux = false;
template <warp::detail::Int32 T> inline constexpr bool kRedux<T, plus<T>> = true;
template <warp::detail::Int32 T> inline constexpr bool kRedux<T, less<T>> = true;
template <warp::detail::Int32 T> inline constexpr bool kRedux<T, greater<T>> = true;
template <warp::detail::Int32 T> inline constexpr bool kRedux<T, bit_and<T>> = true;
template <warp::detail::Int32 T> inline constexpr bool kRedux<T, bit_or<T>> = true;
template <warp::detail::Int32 T> inline constexpr bool kRedux<T, bit_xor<T>> = true;

template <class T, class Op> inline T redux(T value, std::uint32_t mask) noexcept {
  if constexpr (std::is_same_v<Op, plus<T>>)
    return warp::reduce_add(value, mask);
  else if constexpr (std::is_same_v<Op, less<T>>)
    return warp::reduce_min(value, mask);
  else if constexpr (std::is_same_v<Op, greater<T>>)
    return warp::reduce_max(value, mask);
  else if constexpr (std::is_same_v<Op, bit_and<T>>)
    return static_cast<T>(warp::reduce_and(static_cast<std::uint32_t>(value), mask));
  else if constexpr (std::is_same_v<Op, bit_or<T>>)
    return static_cast<T>(warp::reduce_or(static_cast<std::uint32_t>(value), mask));
  else
    return static_cast<T>(warp::reduce_xor(static_cast<std::uint32_t>(value), mask));
}

/// The lane of the `n`-th (from 0) set bit of `mask` (PTX's fns): a binary search on the
/// population counts of halves.
inline std::uint32_t nth_lane(std::uint32_t mask, std::uint32_t n) noexcept {
  std::uint32_t base = 0;
  for (std::uint32_t width = 16; width > 0; width /= 2) {
    const auto count = static_cast<std::uint32_t>(std::popcount((mask >> base) & ((1u << width) - 1)));
    if (n >= count) {
      n -= count;
      base += width;
    }
  }
  return base;
}

/// The bits of `bits` at the set bits of `mask`, packed from bit 0 up (a software pext): lane
/// masks made relative to a coalesced group's ranks.
inline std::uint32_t compact(std::uint32_t bits, std::uint32_t mask) noexcept {
  std::uint32_t out = 0, rank = 0;
  for (; mask != 0; mask &= mask - 1, ++rank)
    if (bits & mask & (~mask + 1))
      out |= 1u << rank;
  return out;
}

/// The block's linear thread index: threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z).
inline std::uint32_t block_thread_rank() noexcept {
  return __oxide_thread_idx(0) +
         __oxide_block_dim(0) * (__oxide_thread_idx(1) + __oxide_block_dim(1) * __oxide_thread_idx(2));
}
inline std::uint32_t block_threads() noexcept {
  return __oxide_block_dim(0) * __oxide_block_dim(1) * __oxide_block_dim(2);
}
} // namespace detail

// --- the block ---------------------------------------------------------------------------------

/// The calling thread's block (cg::thread_block).
class thread_block {
public:
  /// The thread's linear index in the block (threadIdx.x fastest).
  [[nodiscard]] std::uint32_t thread_rank() const noexcept { return detail::block_thread_rank(); }
  /// Threads in the block (blockDim.x * blockDim.y * blockDim.z).
  [[nodiscard]] std::uint32_t size() const noexcept { return detail::block_threads(); }
  [[nodiscard]] std::uint32_t num_threads() const noexcept { return size(); }
  /// threadIdx and blockDim.
  [[nodiscard]] Dim3 thread_index() const noexcept { return thread_idx(); }
  [[nodiscard]] Dim3 group_dim() const noexcept { return block_dim(); }
  /// blockIdx.
  [[nodiscard]] Dim3 group_index() const noexcept { return block_idx(); }
  /// __syncthreads: every thread of the block must call it.
  void sync() const noexcept { __oxide_sync_threads(); }

private:
  friend thread_block this_thread_block() noexcept;
  thread_block() = default;
};

/// The calling thread's block.
[[nodiscard]] inline thread_block this_thread_block() noexcept { return thread_block(); }

// --- the grid ------------------------------------------------------------------------------------

/// Every thread of the launch (cg::grid_group). sync() is a grid-wide barrier: only in kernels
/// whose launch contract says `cooperative = true` (oxide::grid::sync).
class grid_group {
public:
  /// The thread's linear index in the grid: block_rank() * block threads + block thread rank.
  [[nodiscard]] std::uint64_t thread_rank() const noexcept {
    return std::uint64_t{block_rank()} * detail::block_threads() + detail::block_thread_rank();
  }
  /// Threads in the grid.
  [[nodiscard]] std::uint64_t size() const noexcept {
    return std::uint64_t{num_blocks()} * detail::block_threads();
  }
  [[nodiscard]] std::uint64_t num_threads() const noexcept { return size(); }
  /// The block's linear index: blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z).
  [[nodiscard]] std::uint32_t block_rank() const noexcept {
    return __oxide_block_idx(0) +
           __oxide_grid_dim(0) * (__oxide_block_idx(1) + __oxide_grid_dim(1) * __oxide_block_idx(2));
  }
  /// Blocks in the grid.
  [[nodiscard]] std::uint32_t num_blocks() const noexcept {
    return __oxide_grid_dim(0) * __oxide_grid_dim(1) * __oxide_grid_dim(2);
  }
  /// blockIdx and gridDim.
  [[nodiscard]] Dim3 block_index() const noexcept { return block_idx(); }
  [[nodiscard]] Dim3 dim_blocks() const noexcept { return grid_dim(); }
  /// Waits for every thread of the grid (a cooperative launch only).
  void sync() const noexcept { __oxide_grid_sync(); }

private:
  friend grid_group this_grid() noexcept;
  grid_group() = default;
};

/// Every thread of the launch.
[[nodiscard]] inline grid_group this_grid() noexcept { return grid_group(); }

// --- tiles ---------------------------------------------------------------------------------------

template <std::uint32_t Size, class Parent = void>
  requires(std::has_single_bit(Size) && Size <= warp::kSize)
class thread_block_tile;

namespace detail {
template <class P> inline constexpr bool kIsTile = false;
template <std::uint32_t Size, class Parent>
inline constexpr bool kIsTile<thread_block_tile<Size, Parent>> = true;
} // namespace detail

/// Lanes [k * Size, (k + 1) * Size) of a warp, for Size 1, 2, 4, 8, 16 or 32, from any parent
/// (cg::thread_block_tile<Size>, what tiled_partition's tiles convert to). Ranks are
/// lane_id() % Size; the tile keeps its rank among its parent's tiles.
template <std::uint32_t Size>
  requires(std::has_single_bit(Size) && Size <= warp::kSize)
class thread_block_tile<Size, void> {
public:
  static constexpr std::uint32_t kSize = Size;

  [[nodiscard]] static constexpr std::uint32_t size() noexcept { return Size; }
  [[nodiscard]] static constexpr std::uint32_t num_threads() noexcept { return Size; }
  /// The thread's rank in the tile: 0..Size-1.
  [[nodiscard]] std::uint32_t thread_rank() const noexcept { return warp::lane_id() & (Size - 1); }
  /// The tile's rank among its parent's tiles (for the block's: block thread rank / Size).
  [[nodiscard]] std::uint32_t meta_group_rank() const noexcept { return meta_rank_; }
  /// The parent's tiles: ceil(block threads / Size) for the block, ParentSize / Size for a tile.
  [[nodiscard]] std::uint32_t meta_group_size() const noexcept { return meta_size_; }
  /// The tile's lanes as a warp lane mask.
  [[nodiscard]] std::uint32_t mask() const noexcept {
    if constexpr (Size == warp::kSize)
      return warp::kFullMask;
    else
      return ((1u << Size) - 1) << (warp::lane_id() & ~(Size - 1));
  }
  /// Waits for the tile's lanes (__syncwarp with the tile's mask).
  void sync() const noexcept { warp::sync(mask()); }

  /// The value of rank `src_rank % Size`.
  template <detail::Shuffleable T> [[nodiscard]] T shfl(T value, std::uint32_t src_rank) const noexcept {
    return warp::detail::shuffle<detail::ShuffleMode::idx, T, Size>(value, src_rank, mask());
  }
  /// The value of rank thread_rank() - delta; ranks below `delta` keep their own.
  template <detail::Shuffleable T> [[nodiscard]] T shfl_up(T value, std::uint32_t delta) const noexcept {
    return warp::detail::shuffle<detail::ShuffleMode::up, T, Size>(value, delta, mask());
  }
  /// The value of rank thread_rank() + delta; ranks past Size - 1 - delta keep their own.
  template <detail::Shuffleable T> [[nodiscard]] T shfl_down(T value, std::uint32_t delta) const noexcept {
    return warp::detail::shuffle<detail::ShuffleMode::down, T, Size>(value, delta, mask());
  }
  /// The value of rank thread_rank() ^ lane_mask (lane_mask < Size).
  template <detail::Shuffleable T> [[nodiscard]] T shfl_xor(T value, std::uint32_t lane_mask) const noexcept {
    return warp::detail::shuffle<detail::ShuffleMode::bfly, T, Size>(value, lane_mask, mask());
  }

  /// Whether `predicate` holds on any / every lane of the tile.
  [[nodiscard]] bool any(bool predicate) const noexcept { return warp::any(predicate, mask()); }
  [[nodiscard]] bool all(bool predicate) const noexcept { return warp::all(predicate, mask()); }
  /// Bit r set when `predicate` holds on rank r of the tile.
  [[nodiscard]] std::uint32_t ballot(bool predicate) const noexcept {
    return warp::ballot(predicate, mask()) >> offset();
  }
  /// The ranks of the tile whose `value` equals the caller's, as bits by rank (match.sync).
  template <detail::Matchable T> [[nodiscard]] std::uint32_t match_any(T value) const noexcept {
    return warp::match_any(value, mask()) >> offset();
  }
  /// All the tile's ranks (bits 0..Size-1) when every lane holds the same `value`, else 0.
  template <detail::Matchable T> [[nodiscard]] std::uint32_t match_all(T value) const noexcept {
    return warp::match_all(value, mask()) >> offset();
  }

protected:
  thread_block_tile(std::uint32_t meta_rank, std::uint32_t meta_size) noexcept
      : meta_rank_(meta_rank), meta_size_(meta_size) {}

private:
  // The tile's first lane.
  [[nodiscard]] std::uint32_t offset() const noexcept {
    return warp::lane_id() & ~(Size - 1) & (warp::kSize - 1);
  }
  std::uint32_t meta_rank_, meta_size_;
};

/// The calling thread's tile of `Size` lanes of `Parent` (the block, or a tile of at least Size
/// lanes), as tiled_partition makes it (cg::thread_block_tile<Size, Parent>); it converts to
/// thread_block_tile<Size>, which functions of any tile take.
template <std::uint32_t Size, class Parent>
  requires(std::has_single_bit(Size) && Size <= warp::kSize)
class thread_block_tile : public thread_block_tile<Size, void> {
  static_assert(std::same_as<Parent, thread_block> || detail::kIsTile<Parent>,
                "a tile's parent is the block or a tile");

public:
  thread_block_tile() noexcept : thread_block_tile<Size, void>(meta_rank(), meta_size()) {}

private:
  static std::uint32_t meta_rank() noexcept {
    if constexpr (std::same_as<Parent, thread_block>)
      return detail::block_thread_rank() / Size;
    else
      return (warp::lane_id() & (Parent::kSize - 1)) / Size;
  }
  static std::uint32_t meta_size() noexcept {
    if constexpr (std::same_as<Parent, thread_block>)
      return (detail::block_threads() + Size - 1) / Size;
    else
      return Parent::kSize / Size;
  }
};

/// The calling thread's tile of `Size` lanes of the block (cg::tiled_partition<Size>).
template <std::uint32_t Size>
  requires(std::has_single_bit(Size) && Size <= warp::kSize)
[[nodiscard]] inline thread_block_tile<Size, thread_block> tiled_partition(const thread_block &) noexcept {
  return thread_block_tile<Size, thread_block>();
}

/// The calling thread's tile of `Size` lanes of `parent`, a tile of at least Size lanes
/// (cg::tiled_partition<Size>(tile)): its rank among the parent's tiles is the parent's
/// thread_rank() / Size.
template <std::uint32_t Size, std::uint32_t ParentSize, class Grandparent>
  requires(std::has_single_bit(Size) && Size <= ParentSize)
[[nodiscard]] inline thread_block_tile<Size, thread_block_tile<ParentSize, Grandparent>>
tiled_partition(const thread_block_tile<ParentSize, Grandparent> &) noexcept {
  return thread_block_tile<Size, thread_block_tile<ParentSize, Grandparent>>();
}

/// A tile whose size is known only at run time (cg::thread_group from cg::tiled_partition(parent,
/// n)): lanes [k * n, (k + 1) * n) of a warp for n = 1, 2, 4, 8, 16 or 32, with the ranks and
/// the barrier (as CUDA's thread_group; the shuffles and collectives need a thread_block_tile).
class thread_group {
public:
  /// Lanes in the group.
  [[nodiscard]] std::uint32_t size() const noexcept { return size_; }
  [[nodiscard]] std::uint32_t num_threads() const noexcept { return size_; }
  /// The thread's rank in the group: lane_id() % size().
  [[nodiscard]] std::uint32_t thread_rank() const noexcept { return warp::lane_id() & (size_ - 1); }
  /// The group's rank among its parent's groups of this size.
  [[nodiscard]] std::uint32_t meta_group_rank() const noexcept { return meta_rank_; }
  /// The parent's groups of this size.
  [[nodiscard]] std::uint32_t meta_group_size() const noexcept { return meta_size_; }
  /// The group's lanes as a warp lane mask.
  [[nodiscard]] std::uint32_t mask() const noexcept {
    return size_ == warp::kSize ? warp::kFullMask : ((1u << size_) - 1) << (warp::lane_id() & ~(size_ - 1));
  }
  /// Waits for the group's lanes (__syncwarp with its mask).
  void sync() const noexcept { warp::sync(mask()); }

private:
  friend thread_group tiled_partition(const thread_block &, std::uint32_t) noexcept;
  template <std::uint32_t ParentSize, class Grandparent>
  friend thread_group tiled_partition(const thread_block_tile<ParentSize, Grandparent> &,
                                      std::uint32_t) noexcept;
  friend thread_group tiled_partition(const thread_group &, std::uint32_t) noexcept;
  thread_group(std::uint32_t size, std::uint32_t meta_rank, std::uint32_t meta_size) noexcept
      : size_(size), meta_rank_(meta_rank), meta_size_(meta_size) {}
  std::uint32_t size_, meta_rank_, meta_size_;
};

namespace detail {
/// Stops the kernel unless `size` is a tile size no larger than its parent's `limit`.
inline void check_tile_size(std::uint32_t size, std::uint32_t limit) noexcept {
  if (!std::has_single_bit(size) || size > limit)
    __oxide_trap("oxide::cg::tiled_partition: the size must be 1, 2, 4, 8, 16 or 32, and no larger than the "
                 "parent's");
}
} // namespace detail

/// The calling thread's group of `size` lanes of the block (cg::tiled_partition(block, size));
/// `size` must be 1, 2, 4, 8, 16 or 32, else the kernel stops (the launch fails).
[[nodiscard]] inline thread_group tiled_partition(const thread_block &, std::uint32_t size) noexcept {
  detail::check_tile_size(size, warp::kSize);
  return thread_group(size, detail::block_thread_rank() / size, (detail::block_threads() + size - 1) / size);
}
/// The calling thread's group of `size` lanes of a tile (`size` at most the tile's).
template <std::uint32_t ParentSize, class Grandparent>
[[nodiscard]] inline thread_group tiled_partition(const thread_block_tile<ParentSize, Grandparent> &,
                                                  std::uint32_t size) noexcept {
  detail::check_tile_size(size, ParentSize);
  return thread_group(size, (warp::lane_id() & (ParentSize - 1)) / size, ParentSize / size);
}
/// The calling thread's group of `size` lanes of a group (`size` at most the group's).
[[nodiscard]] inline thread_group tiled_partition(const thread_group &parent, std::uint32_t size) noexcept {
  detail::check_tile_size(size, parent.size());
  return thread_group(size, parent.thread_rank() / size, parent.size() / size);
}

// --- coalesced groups ----------------------------------------------------------------------------

namespace detail {
struct MakeCoalesced;
} // namespace detail

/// The lanes of a warp that run together (cg::coalesced_group): those of active_mask() where
/// coalesced_threads() was called, ranked by lane number.
class coalesced_group {
public:
  /// Lanes in the group.
  [[nodiscard]] std::uint32_t size() const noexcept {
    return static_cast<std::uint32_t>(std::popcount(mask_));
  }
  [[nodiscard]] std::uint32_t num_threads() const noexcept { return size(); }
  /// The caller's rank: the group's lanes below it.
  [[nodiscard]] std::uint32_t thread_rank() const noexcept {
    return static_cast<std::uint32_t>(std::popcount(mask_ & warp::lane_mask_lt()));
  }
  /// The group's lanes as a warp lane mask.
  [[nodiscard]] std::uint32_t mask() const noexcept { return mask_; }
  /// Waits for the group's lanes (__syncwarp with its mask).
  void sync() const noexcept { warp::sync(mask_); }

  /// The value of rank `src_rank` (< size()).
  template <detail::Shuffleable T> [[nodiscard]] T shfl(T value, std::uint32_t src_rank) const noexcept {
    return warp::shuffle(value, detail::nth_lane(mask_, src_rank), mask_);
  }
  /// The value of rank thread_rank() - delta; ranks below `delta` keep their own.
  template <detail::Shuffleable T> [[nodiscard]] T shfl_up(T value, std::uint32_t delta) const noexcept {
    const std::uint32_t rank = thread_rank();
    return warp::shuffle(value, rank >= delta ? detail::nth_lane(mask_, rank - delta) : warp::lane_id(),
                         mask_);
  }
  /// The value of rank thread_rank() + delta; ranks past size() - 1 - delta keep their own.
  template <detail::Shuffleable T> [[nodiscard]] T shfl_down(T value, std::uint32_t delta) const noexcept {
    const std::uint32_t rank = thread_rank();
    return warp::shuffle(
        value, rank + delta < size() ? detail::nth_lane(mask_, rank + delta) : warp::lane_id(), mask_);
  }

  [[nodiscard]] bool any(bool predicate) const noexcept { return warp::any(predicate, mask_); }
  [[nodiscard]] bool all(bool predicate) const noexcept { return warp::all(predicate, mask_); }
  /// Bit r set when `predicate` holds on rank r of the group.
  [[nodiscard]] std::uint32_t ballot(bool predicate) const noexcept {
    return detail::compact(warp::ballot(predicate, mask_), mask_);
  }
  /// The ranks of the group whose `value` equals the caller's, as bits by rank.
  template <detail::Matchable T> [[nodiscard]] std::uint32_t match_any(T value) const noexcept {
    return detail::compact(warp::match_any(value, mask_), mask_);
  }
  /// All the group's ranks (bits 0..size()-1) when every lane holds the same `value`, else 0.
  template <detail::Matchable T> [[nodiscard]] std::uint32_t match_all(T value) const noexcept {
    return detail::compact(warp::match_all(value, mask_), mask_);
  }

private:
  friend coalesced_group coalesced_threads(std::source_location) noexcept;
  friend struct detail::MakeCoalesced;
  explicit coalesced_group(std::uint32_t mask) noexcept : mask_(mask) {}
  std::uint32_t mask_;
};

namespace detail {
/// The group of the lanes of `mask` (for the partitions below).
struct MakeCoalesced {
  static coalesced_group of(std::uint32_t mask) noexcept { return coalesced_group(mask); }
};
} // namespace detail

/// The lanes of the calling warp running this call together: in divergent code, those that took
/// the caller's branch (cg::coalesced_threads, from __activemask()). `where`: as for
/// warp::active_mask (leave it to its default).
[[nodiscard]] inline coalesced_group
coalesced_threads(std::source_location where = std::source_location::current()) noexcept {
  return coalesced_group(warp::active_mask(where));
}

// --- collectives over a tile or a coalesced group ------------------------------------------------

template <class G>
concept WarpGroup = std::same_as<G, coalesced_group> || requires { G::kSize; };

/// The lanes of `group` (a tile or a coalesced group) whose `predicate` equals the caller's
/// (cg::binary_partition): one ballot. Every lane of the group calls it together.
template <WarpGroup G>
[[nodiscard]] inline coalesced_group binary_partition(const G &group, bool predicate) noexcept {
  const std::uint32_t mask = group.mask(), set = warp::ballot(predicate, mask);
  return detail::MakeCoalesced::of(mask & (predicate ? set : ~set));
}

/// The lanes of `group` whose `label` equals the caller's (cg::labeled_partition): one
/// match.any.sync. Every lane of the group calls it together.
template <WarpGroup G, detail::Matchable T>
[[nodiscard]] inline coalesced_group labeled_partition(const G &group, T label) noexcept {
  return detail::MakeCoalesced::of(warp::match_any(label, group.mask()));
}

/// `value` combined over the group with `op` (associative and commutative); every lane gets the
/// result (cg::reduce). 32-bit integers with plus, less, greater or a bit operator take one
/// redux.sync with the group's mask; other types a butterfly of xor-shuffles in a tile, or
/// log2(size) shuffles by rank in a coalesced group.
template <WarpGroup G, detail::Shuffleable T, class Op>
[[nodiscard]] T reduce(const G &group, T value, Op op) noexcept {
  if constexpr (detail::kRedux<T, Op>) {
    return detail::redux<T, Op>(value, group.mask());
  } else if constexpr (std::same_as<G, coalesced_group>) {
    // After the step of `offset`, rank r holds ranks [r, r + 2 offset) (as far as they exist).
    const std::uint32_t rank = group.thread_rank(), n = group.size();
    for (std::uint32_t offset = 1; offset < n; offset *= 2) {
      const T other = group.shfl_down(value, offset);
      if (rank + offset < n)
        value = op(value, other);
    }
    return group.shfl(value, 0);
  } else {
    for (std::uint32_t offset = G::kSize / 2; offset > 0; offset /= 2)
      value = op(value, group.shfl_xor(value, offset));
    return value;
  }
}

/// Rank r gets `op` over the values of ranks 0..r (cg::inclusive_scan): log2(size) shfl_ups.
template <WarpGroup G, detail::Shuffleable T, class Op>
[[nodiscard]] T inclusive_scan(const G &group, T value, Op op) noexcept {
  const std::uint32_t rank = group.thread_rank(), n = group.size();
  for (std::uint32_t offset = 1; offset < n; offset *= 2) {
    const T below = group.shfl_up(value, offset);
    if (rank >= offset)
      value = op(below, value);
  }
  return value;
}

/// Rank r gets `op` over the values of ranks 0..r-1, rank 0 `identity` (cg::exclusive_scan).
template <WarpGroup G, detail::Shuffleable T, class Op>
[[nodiscard]] T exclusive_scan(const G &group, T value, Op op, T identity) noexcept {
  const T inclusive = inclusive_scan(group, value, op);
  const T below = group.shfl_up(inclusive, 1);
  return group.thread_rank() == 0 ? identity : below;
}
/// The same with the identity of one of cg's operators (0 for plus, the largest T for less...).
template <WarpGroup G, detail::Shuffleable T, detail::KnownOp Op>
[[nodiscard]] T exclusive_scan(const G &group, T value, Op op) noexcept {
  return exclusive_scan(group, value, op, detail::Identity<Op>::value);
}

} // namespace oxide::cg
