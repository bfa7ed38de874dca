// CUB's comparison sorts with CUB's interface: cub::BlockMergeSort (the block's tile) and
// cub::WarpMergeSort (each logical warp's tile), keys alone or with values, by any strict weak
// order `compare_op(a, b)` (true when a goes before b). Items are in blocked order in and out
// (thread t holds items t * ITEMS .. t * ITEMS + ITEMS - 1). Each thread first sorts its own
// items in registers (an odd-even transposition network, stable), then sorted runs of 1, 2,
// 4... threads' items are merged in pairs through shared memory until one run is left: each
// thread finds where its ITEMS outputs start in the pair's merge by a binary search along the
// merge path and merges them itself, then the values follow their keys. Both sorts are stable
// (Sort is StableSort, as CUB's code, which documents only StableSort so). As in CUB, every
// thread of the block (every lane of the logical warp) calls a sort together, and a block that
// reuses a TempStorage syncs between the uses. Keys and values are any trivially copyable types;
// nothing here writes memory but the caller's arrays and the TempStorage. cub_warp.hpp says why
// this is not NVIDIA's code.
//
//   using Sort = oxide::cub::BlockMergeSort<float, 128, 4, int>;
//   Sort(oxide::cub::temp_storage<Sort>()).Sort(keys, ids, [](float a, float b) { return a > b; });
#pragma once

#include <cstdint>
#include <type_traits>

#include "oxide/device/cub_block.hpp"
#include "oxide/device/cub_block_adjacent.hpp"
#include "oxide/device/cub_warp_io.hpp"

namespace oxide::cub {

namespace detail {

/// The shared memory of a merge sort of Tile items: the keys, or the values, of the tile in
/// their current order (one padding slot every 32, bank_padded), as CUB's union of the two.
template <class KeyT, class ValueT, std::uint32_t Tile> struct MergeSortBuffers {
  static constexpr bool kValues = !std::is_same_v<ValueT, NullType>;
  static constexpr std::uint32_t kSlots = bank_padded(Tile - 1) + 1;
  union {
    ItemBytes<KeyT> keys[kSlots];
    std::conditional_t<kValues, ItemBytes<ValueT>, char> values[kValues ? kSlots : 1];
  };
};

/// What a sort's compare_op must be: callable on two const KeyT& and giving a bool.
template <class KeyT, class Op>
inline constexpr bool kCompareOp = std::is_invocable_r_v<bool, Op &, const KeyT &, const KeyT &>;

/// The merge sort of Threads threads' ITEMS items each (ranks 0..Threads - 1: the block's threads
/// or a logical warp's lanes), `sync` being the barrier of those threads.
template <class KeyT, class ValueT, int ITEMS, std::uint32_t Threads> struct MergeSorter {
  static constexpr bool kValues = !std::is_same_v<ValueT, NullType>;
  static constexpr std::uint32_t kItems = ITEMS;
  static constexpr std::uint32_t kTile = Threads * kItems;
  using Buffers = MergeSortBuffers<KeyT, ValueT, kTile>;
  using Values = std::conditional_t<kValues, ValueT, NullType>;

  /// Sorts the tile's first `valid` items (all of them unless Partial), stably; with Partial the
  /// keys at or past `valid` become `*oob` and, with their values, keep their places (they go
  /// after every valid item whatever `compare_op` says of them). `valid` is at most kTile.
  /// `op` is called on keys of the tile only (`*oob` among them), some whose result is not used.
  template <bool Partial, class Op, class Sync>
  [[gnu::always_inline]] static void sort(Buffers &buffers, std::uint32_t rank, Sync sync,
                                          KeyT (&keys)[ITEMS], Values (&values)[ITEMS], Op &op,
                                          std::uint32_t valid, const KeyT *oob) noexcept {
    const std::uint32_t first = rank * kItems; // the tile position of keys[0]
    const std::uint32_t end = Partial ? valid : kTile;
    if constexpr (Partial)
      for (std::uint32_t i = 0; i < kItems; ++i)
        if (first + i >= end)
          keys[i] = *oob;
    // The thread's own items, odd-even transposition: kItems rounds sort any kItems items, and
    // only neighbours that are out of order swap, so equal keys keep their order. The items at
    // or past `end` are a suffix that never moves.
    for (std::uint32_t round = 0; round < kItems; ++round)
      for (std::uint32_t j = round & 1; j + 1 < kItems; j += 2) {
        const bool swapped = static_cast<bool>(op(keys[j + 1], keys[j])) & (!Partial || first + j + 1 < end);
        swap_if(swapped, keys[j], keys[j + 1]);
        if constexpr (kValues)
          swap_if(swapped, values[j], values[j + 1]);
      }
    // Merge the sorted runs of `run` items (run_threads threads' items) in pairs [start, start +
    // run) and [start + run, start + 2 * run), clipped to `end`; a thread's items lie in one pair.
    for (std::uint32_t run_threads = 1; run_threads < Threads; run_threads *= 2) {
      const std::uint32_t run = run_threads * kItems;
      sync(); // every thread is done reading the storage (this sort's last round, an earlier use)
      for (std::uint32_t i = 0; i < kItems; ++i)
        put_item(buffers.keys[bank_padded(first + i)], keys[i]);
      sync();
      const std::uint32_t start = first / (2 * run) * (2 * run);
      const std::uint32_t a_begin = min(start, end), b_begin = min(start + run, end),
                          b_end = min(start + 2 * run, end);
      const std::uint32_t a_count = b_begin - a_begin, b_count = b_end - b_begin;
      // The merge path: how many of the merge's first `diag` items come from run a. An item of b
      // goes before one of a only if compare_op says so, which keeps the sort stable.
      const std::uint32_t diag = min(first, end) - a_begin;
      std::uint32_t lo = diag > b_count ? diag - b_count : 0, hi = min(diag, a_count);
      while (lo < hi) {
        const std::uint32_t mid = (lo + hi) / 2;
        if (op(key(buffers, b_begin + diag - 1 - mid), key(buffers, a_begin + mid)))
          hi = mid;
        else
          lo = mid + 1;
      }
      std::uint32_t a = lo, b = diag - lo; // the next items of a and b, counted from their starts
      KeyT a_key = key(buffers, a_begin + a), b_key = key(buffers, b_begin + b);
      std::uint32_t from[ITEMS]; // where each output's value is
      for (std::uint32_t i = 0; i < kItems; ++i) {
        // Without branches (selects): the run an item comes from, then the next key of that
        // run, read where it would be (a run used up reads a key it does not use). Past `end`
        // neither run has items left and the thread's item stays. (A branch an item here and in
        // the swaps above made the kernels' blocks many, and oxcc's bounds proofs, which walk the
        // dominators of each checked access after them, 6 times slower to compile.)
        const bool b_first = static_cast<bool>(op(b_key, a_key));
        const bool take_b = (b < b_count) & ((a >= a_count) | b_first);
        const bool take_a = !take_b & (a < a_count);
        keys[i] = take_b ? b_key : take_a ? a_key : keys[i];
        from[i] = take_b ? b_begin + b : take_a ? a_begin + a : first + i;
        b += take_b;
        a += take_a;
        const KeyT next = key(buffers, take_b ? b_begin + b : a_begin + a);
        b_key = take_b ? next : b_key;
        a_key = take_b ? a_key : next;
      }
      if constexpr (kValues) {
        sync(); // every thread has read its keys before the values overwrite them
        for (std::uint32_t i = 0; i < kItems; ++i)
          put_item(buffers.values[bank_padded(first + i)], values[i]);
        sync();
        for (std::uint32_t i = 0; i < kItems; ++i)
          values[i] = get_item(buffers.values[bank_padded(from[i])]);
      }
    }
  }

private:
  static constexpr std::uint32_t min(std::uint32_t a, std::uint32_t b) noexcept { return b < a ? b : a; }
  // Without a branch: selects.
  template <class T> [[gnu::always_inline]] static void swap_if(bool swap, T &a, T &b) noexcept {
    const T x = a, y = b;
    a = swap ? y : x;
    b = swap ? x : y;
  }
  // The key at tile position `at`, or at the last one for `at` past it: every position holds a
  // key written in this round.
  [[gnu::always_inline]] static KeyT key(const Buffers &buffers, std::uint32_t at) noexcept {
    return get_item(buffers.keys[bank_padded(min(at, kTile - 1))]);
  }
};

/// `valid_items` as the sorts take it: below 0 counts as 0, past the tile as the whole tile.
template <std::uint32_t Tile> constexpr std::uint32_t clamp_valid(int valid_items) noexcept {
  return valid_items < 0 ? 0u : static_cast<std::uint32_t>(valid_items) > Tile ? Tile : valid_items;
}

} // namespace detail

/// cub::BlockMergeSort: sorts the block's BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z * ITEMS_PER_THREAD
/// keys (and values with them) by `compare_op`, stably, in blocked order in and out. The forms
/// with `valid_items` sort the tile's first valid_items items into its first valid_items places
/// (below 0 counts as 0, past the tile as the whole tile); the keys after them are set to
/// `oob_default` and, with their values, stay where they were. Any block of whole warps (CUB:
/// a power of two threads), any ITEMS_PER_THREAD.
template <class KeyT, int BLOCK_DIM_X, int ITEMS_PER_THREAD, class ValueT = NullType, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1>
class BlockMergeSort {
  using Shape = detail::BlockShape<BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>;
  static_assert(Shape::kThreads > 0); // checks the block shape where the collective is named
  static_assert(ITEMS_PER_THREAD > 0, "oxide::cub::BlockMergeSort: ITEMS_PER_THREAD must be positive");
  static_assert(std::is_trivially_copyable_v<KeyT> && std::is_trivially_copyable_v<ValueT>,
                "oxide::cub::BlockMergeSort: KeyT and ValueT must be trivially copyable (items pass "
                "through shared memory)");
  static constexpr int kItems = ITEMS_PER_THREAD > 0 ? ITEMS_PER_THREAD : 1;
  using Sorter = detail::MergeSorter<KeyT, ValueT, kItems, Shape::kThreads>;
  static constexpr bool kValues = Sorter::kValues;
  using Values = typename Sorter::Values;

public:
  /// CUB's union of the tile's keys and values (BLOCK_THREADS * ITEMS_PER_THREAD of the larger,
  /// and one slot in 32 for the banks).
  struct TempStorage : detail::MergeSortBuffers<KeyT, ValueT, Sorter::kTile> {};

  template <auto Site = [] {}> BlockMergeSort() noexcept : storage_(temp_storage<BlockMergeSort, Site>()) {}
  explicit BlockMergeSort(TempStorage &storage) noexcept : storage_(storage) {}

  template <class CompareOp> void Sort(KeyT (&keys)[ITEMS_PER_THREAD], CompareOp compare_op) noexcept {
    Values none[kItems];
    sort<false>(keys, none, compare_op, 0, nullptr);
  }
  template <class CompareOp>
  void Sort(KeyT (&keys)[ITEMS_PER_THREAD], CompareOp compare_op, int valid_items,
            KeyT oob_default) noexcept {
    Values none[kItems];
    sort<true>(keys, none, compare_op, valid_items, &oob_default);
  }
  template <class CompareOp>
  void Sort(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&items)[ITEMS_PER_THREAD], CompareOp compare_op) noexcept
    requires kValues
  {
    sort<false>(keys, items, compare_op, 0, nullptr);
  }
  template <class CompareOp>
  void Sort(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&items)[ITEMS_PER_THREAD], CompareOp compare_op,
            int valid_items, KeyT oob_default) noexcept
    requires kValues
  {
    sort<true>(keys, items, compare_op, valid_items, &oob_default);
  }
  // Sort is stable already; CUB's names for the same calls.
  template <class CompareOp> void StableSort(KeyT (&keys)[ITEMS_PER_THREAD], CompareOp compare_op) noexcept {
    Sort(keys, compare_op);
  }
  template <class CompareOp>
  void StableSort(KeyT (&keys)[ITEMS_PER_THREAD], CompareOp compare_op, int valid_items,
                  KeyT oob_default) noexcept {
    Sort(keys, compare_op, valid_items, oob_default);
  }
  template <class CompareOp>
  void StableSort(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&items)[ITEMS_PER_THREAD],
                  CompareOp compare_op) noexcept
    requires kValues
  {
    Sort(keys, items, compare_op);
  }
  template <class CompareOp>
  void StableSort(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&items)[ITEMS_PER_THREAD], CompareOp compare_op,
                  int valid_items, KeyT oob_default) noexcept
    requires kValues
  {
    Sort(keys, items, compare_op, valid_items, oob_default);
  }

private:
  template <bool Partial, class CompareOp>
  [[gnu::always_inline]] void sort(KeyT (&keys)[kItems], Values (&values)[kItems], CompareOp &op,
                                   int valid_items, const KeyT *oob_default) noexcept {
    static_assert(detail::kCompareOp<KeyT, CompareOp>,
                  "oxide::cub::BlockMergeSort: compare_op is called as compare_op(a, b) on two const "
                  "KeyT& and returns a bool: whether a goes before b");
    if constexpr (detail::kCompareOp<KeyT, CompareOp>) {
      Shape::check();
      Sorter::template sort<Partial>(
          storage_, Shape::rank(), [] { sync_threads(); }, keys, values, op,
          detail::clamp_valid<Sorter::kTile>(valid_items), oob_default);
    }
  }

  TempStorage &storage_;
};

/// cub::WarpMergeSort: sorts each logical warp's LOGICAL_WARP_THREADS * ITEMS_PER_THREAD keys
/// (and values with them), as BlockMergeSort sorts a block's (logical warp k of a hardware warp
/// is its lanes [k * L, (k + 1) * L); L a power of two up to 32, as CUB). As in CUB, each
/// logical warp sorts through its own TempStorage, `WarpMergeSort(storage[warp_id])` (there is
/// no default constructor), and syncs its lanes before using it again.
template <class KeyT, int ITEMS_PER_THREAD, int LOGICAL_WARP_THREADS = 32, class ValueT = NullType>
class WarpMergeSort {
  using Warp = detail::LogicalWarp<LOGICAL_WARP_THREADS>;
  static_assert(ITEMS_PER_THREAD > 0, "oxide::cub::WarpMergeSort: ITEMS_PER_THREAD must be positive");
  static_assert(std::is_trivially_copyable_v<KeyT> && std::is_trivially_copyable_v<ValueT>,
                "oxide::cub::WarpMergeSort: KeyT and ValueT must be trivially copyable (items pass "
                "through shared memory)");
  static constexpr int kItems = ITEMS_PER_THREAD > 0 ? ITEMS_PER_THREAD : 1;
  using Sorter = detail::MergeSorter<KeyT, ValueT, kItems, Warp::kLanes>;
  static constexpr bool kValues = Sorter::kValues;
  using Values = typename Sorter::Values;

public:
  struct TempStorage : detail::MergeSortBuffers<KeyT, ValueT, Sorter::kTile> {};

  /// Refused, as CUB has none: one storage for the block would be shared by its warps (a race).
  template <bool HasStorage = false> WarpMergeSort() noexcept : storage_(nullptr) {
    static_assert(HasStorage, "oxide::cub::WarpMergeSort: each logical warp sorts through its own "
                              "TempStorage: WarpMergeSort(storage[warp])");
  }
  explicit WarpMergeSort(TempStorage &storage) noexcept : storage_(&storage) {}

  /// The lanes of the caller's logical warp, as a mask of the hardware warp's lanes.
  [[nodiscard]] unsigned int get_member_mask() const noexcept {
    constexpr std::uint32_t lanes = Warp::kLanes == 32 ? 0xffffffffu : (1u << Warp::kLanes) - 1;
    return lanes << (warp::lane_id() / Warp::kLanes * Warp::kLanes);
  }

  template <class CompareOp> void Sort(KeyT (&keys)[ITEMS_PER_THREAD], CompareOp compare_op) noexcept {
    Values none[kItems];
    sort<false>(keys, none, compare_op, 0, nullptr);
  }
  template <class CompareOp>
  void Sort(KeyT (&keys)[ITEMS_PER_THREAD], CompareOp compare_op, int valid_items,
            KeyT oob_default) noexcept {
    Values none[kItems];
    sort<true>(keys, none, compare_op, valid_items, &oob_default);
  }
  template <class CompareOp>
  void Sort(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&items)[ITEMS_PER_THREAD], CompareOp compare_op) noexcept
    requires kValues
  {
    sort<false>(keys, items, compare_op, 0, nullptr);
  }
  template <class CompareOp>
  void Sort(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&items)[ITEMS_PER_THREAD], CompareOp compare_op,
            int valid_items, KeyT oob_default) noexcept
    requires kValues
  {
    sort<true>(keys, items, compare_op, valid_items, &oob_default);
  }
  template <class CompareOp> void StableSort(KeyT (&keys)[ITEMS_PER_THREAD], CompareOp compare_op) noexcept {
    Sort(keys, compare_op);
  }
  template <class CompareOp>
  void StableSort(KeyT (&keys)[ITEMS_PER_THREAD], CompareOp compare_op, int valid_items,
                  KeyT oob_default) noexcept {
    Sort(keys, compare_op, valid_items, oob_default);
  }
  template <class CompareOp>
  void StableSort(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&items)[ITEMS_PER_THREAD],
                  CompareOp compare_op) noexcept
    requires kValues
  {
    Sort(keys, items, compare_op);
  }
  template <class CompareOp>
  void StableSort(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&items)[ITEMS_PER_THREAD], CompareOp compare_op,
                  int valid_items, KeyT oob_default) noexcept
    requires kValues
  {
    Sort(keys, items, compare_op, valid_items, oob_default);
  }

private:
  template <bool Partial, class CompareOp>
  [[gnu::always_inline]] void sort(KeyT (&keys)[kItems], Values (&values)[kItems], CompareOp &op,
                                   int valid_items, const KeyT *oob_default) noexcept {
    static_assert(detail::kCompareOp<KeyT, CompareOp>,
                  "oxide::cub::WarpMergeSort: compare_op is called as compare_op(a, b) on two const "
                  "KeyT& and returns a bool: whether a goes before b");
    if constexpr (detail::kCompareOp<KeyT, CompareOp>)
      Sorter::template sort<Partial>(
          *storage_, Warp::lane(), [] { Warp::sync(); }, keys, values, op,
          detail::clamp_valid<Sorter::kTile>(valid_items), oob_default);
  }

  TempStorage *storage_;
};

} // namespace oxide::cub
