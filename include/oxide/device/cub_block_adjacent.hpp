// CUB's block collectives that compare or move neighbouring items, with CUB's interface:
// BlockDiscontinuity, BlockAdjacentDifference and BlockShuffle (cub_block.hpp has the others).
// Each thread puts its edge item in shared memory, the block syncs once, and each thread reads
// its neighbour's; cub_warp.hpp says why this is not NVIDIA's code. As in CUB, every thread of
// the block calls a collective together, the block has BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z
// threads (checked) ranked x fastest, items are in blocked order (thread t's follow thread
// t - 1's), and a block that reuses a TempStorage syncs between the uses. T is any trivially
// copyable type; they write only the caller's variables and their TempStorage.
//
//   using Discontinuity = oxide::cub::BlockDiscontinuity<int, 128>;
//   int flags[4];
//   Discontinuity().FlagHeads(flags, keys, oxide::cub::Inequality{});  // 1 where a run starts
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

#include "oxide/device/cub_block.hpp"

namespace oxide::cub {

/// CUB 2.x's comparison and difference operators, as its examples pass them to these collectives.
struct Equality {
  template <class T> constexpr bool operator()(const T &a, const T &b) const noexcept { return a == b; }
};
struct Inequality {
  template <class T> constexpr bool operator()(const T &a, const T &b) const noexcept { return a != b; }
};
struct Difference {
  template <class T> constexpr T operator()(const T &a, const T &b) const noexcept { return a - b; }
};

namespace detail {

/// A T's bytes in a TempStorage (CUB's Uninitialized<T>): shared memory runs no constructor, so it
/// holds the bytes and the items are copied in and out whole, which any trivially copyable T allows
/// (a type with default member initialisers too).
template <class T> struct ItemBytes {
  alignas(T) unsigned char bytes[sizeof(T)];
};
template <class T> [[gnu::always_inline]] inline void put_item(ItemBytes<T> &slot, const T &item) noexcept {
  slot = std::bit_cast<ItemBytes<T>>(item);
}
template <class T> [[gnu::always_inline]] inline T get_item(const ItemBytes<T> &slot) noexcept {
  return std::bit_cast<T>(slot);
}

/// CUB's flag operators are called as op(a, b) or op(a, b, b_index), b_index being b's rank in
/// the block's tile; the three-argument form wins where both compile, as in CUB.
template <class T, class Op>
inline constexpr bool kFlagOpWithIndex = std::is_invocable_v<Op &, const T &, const T &, unsigned int>;
template <class T, class Op>
inline constexpr bool kFlagOp = kFlagOpWithIndex<T, Op> || std::is_invocable_v<Op &, const T &, const T &>;
template <class T, class Op>
[[gnu::always_inline]] inline bool apply_flag_op(Op &op, const T &a, const T &b,
                                                 std::uint32_t b_index) noexcept {
  if constexpr (kFlagOpWithIndex<T, Op>)
    return static_cast<bool>(op(a, b, static_cast<unsigned int>(b_index)));
  else if constexpr (kFlagOp<T, Op>)
    return static_cast<bool>(op(a, b));
  else
    return false; // refused by the collective's static_assert, which then stands alone
}

} // namespace detail

/// cub::BlockDiscontinuity: flags the items of the block's tile that differ from their neighbour,
/// by `flag_op(a, b)` (or `flag_op(a, b, b_index)`) true for a discontinuity between a and the item
/// b after it. A head flag compares an item with the one before; the tile's first item is flagged
/// 1 unless thread 0 gives a `tile_predecessor_item`. A tail flag compares an item with the one
/// after; the tile's last item is flagged 1 unless the last thread gives a `tile_successor_item`.
template <class T, int BLOCK_DIM_X, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1> class BlockDiscontinuity {
  using Shape = detail::BlockShape<BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>;
  static_assert(Shape::kThreads > 0); // checks the block shape where the collective is named
  static_assert(
      std::is_trivially_copyable_v<T>,
      "oxide::cub::BlockDiscontinuity: T must be trivially copyable (items pass through shared memory)");

public:
  struct TempStorage {
    detail::ItemBytes<T> first_items[Shape::kThreads];
    detail::ItemBytes<T> last_items[Shape::kThreads];
  };

  template <auto Site = [] {}>
  BlockDiscontinuity() noexcept : storage_(temp_storage<BlockDiscontinuity, Site>()) {}
  explicit BlockDiscontinuity(TempStorage &storage) noexcept : storage_(storage) {}

  template <int ITEMS_PER_THREAD, class FlagT, class FlagOp>
  void FlagHeads(FlagT (&head_flags)[ITEMS_PER_THREAD], const T (&input)[ITEMS_PER_THREAD],
                 FlagOp flag_op) noexcept {
    flag<true, false>(head_flags, head_flags, input, flag_op, nullptr, nullptr);
  }
  template <int ITEMS_PER_THREAD, class FlagT, class FlagOp>
  void FlagHeads(FlagT (&head_flags)[ITEMS_PER_THREAD], const T (&input)[ITEMS_PER_THREAD], FlagOp flag_op,
                 T tile_predecessor_item) noexcept {
    flag<true, false>(head_flags, head_flags, input, flag_op, &tile_predecessor_item, nullptr);
  }
  template <int ITEMS_PER_THREAD, class FlagT, class FlagOp>
  void FlagTails(FlagT (&tail_flags)[ITEMS_PER_THREAD], const T (&input)[ITEMS_PER_THREAD],
                 FlagOp flag_op) noexcept {
    flag<false, true>(tail_flags, tail_flags, input, flag_op, nullptr, nullptr);
  }
  template <int ITEMS_PER_THREAD, class FlagT, class FlagOp>
  void FlagTails(FlagT (&tail_flags)[ITEMS_PER_THREAD], const T (&input)[ITEMS_PER_THREAD], FlagOp flag_op,
                 T tile_successor_item) noexcept {
    flag<false, true>(tail_flags, tail_flags, input, flag_op, nullptr, &tile_successor_item);
  }
  // Both at once, one barrier; CUB's argument orders.
  template <int ITEMS_PER_THREAD, class FlagT, class FlagOp>
  void FlagHeadsAndTails(FlagT (&head_flags)[ITEMS_PER_THREAD], FlagT (&tail_flags)[ITEMS_PER_THREAD],
                         const T (&input)[ITEMS_PER_THREAD], FlagOp flag_op) noexcept {
    flag<true, true>(head_flags, tail_flags, input, flag_op, nullptr, nullptr);
  }
  template <int ITEMS_PER_THREAD, class FlagT, class FlagOp>
  void FlagHeadsAndTails(FlagT (&head_flags)[ITEMS_PER_THREAD], FlagT (&tail_flags)[ITEMS_PER_THREAD],
                         T tile_successor_item, const T (&input)[ITEMS_PER_THREAD], FlagOp flag_op) noexcept {
    flag<true, true>(head_flags, tail_flags, input, flag_op, nullptr, &tile_successor_item);
  }
  template <int ITEMS_PER_THREAD, class FlagT, class FlagOp>
  void FlagHeadsAndTails(FlagT (&head_flags)[ITEMS_PER_THREAD], T tile_predecessor_item,
                         FlagT (&tail_flags)[ITEMS_PER_THREAD], const T (&input)[ITEMS_PER_THREAD],
                         FlagOp flag_op) noexcept {
    flag<true, true>(head_flags, tail_flags, input, flag_op, &tile_predecessor_item, nullptr);
  }
  template <int ITEMS_PER_THREAD, class FlagT, class FlagOp>
  void FlagHeadsAndTails(FlagT (&head_flags)[ITEMS_PER_THREAD], T tile_predecessor_item,
                         FlagT (&tail_flags)[ITEMS_PER_THREAD], T tile_successor_item,
                         const T (&input)[ITEMS_PER_THREAD], FlagOp flag_op) noexcept {
    flag<true, true>(head_flags, tail_flags, input, flag_op, &tile_predecessor_item, &tile_successor_item);
  }

private:
  // Head and/or tail flags; a null predecessor (successor) flags the tile's first (last) item.
  template <bool Heads, bool Tails, int N, class FlagT, class FlagOp>
  [[gnu::always_inline]] void flag(FlagT (&heads)[N], FlagT (&tails)[N], const T (&input)[N], FlagOp &op,
                                   const T *predecessor, const T *successor) noexcept {
    static_assert(detail::kFlagOp<T, FlagOp>, "oxide::cub::BlockDiscontinuity: flag_op is called as "
                                              "flag_op(a, b) or flag_op(a, b, b_index) on two const T&");
    Shape::check();
    const std::uint32_t t = Shape::rank();
    if constexpr (Heads)
      detail::put_item(storage_.last_items[t], input[N - 1]);
    if constexpr (Tails)
      detail::put_item(storage_.first_items[t], input[0]);
    sync_threads();
    const std::uint32_t first = t * N; // the rank of the thread's input[0] in the tile
    if constexpr (Heads) {
      if (t != 0)
        heads[0] = static_cast<FlagT>(
            detail::apply_flag_op(op, detail::get_item(storage_.last_items[t - 1]), input[0], first));
      else if (predecessor)
        heads[0] = static_cast<FlagT>(detail::apply_flag_op(op, *predecessor, input[0], first));
      else
        heads[0] = static_cast<FlagT>(true);
      for (int i = 1; i < N; ++i)
        heads[i] = static_cast<FlagT>(detail::apply_flag_op(op, input[i - 1], input[i], first + i));
    }
    if constexpr (Tails) {
      for (int i = 0; i + 1 < N; ++i)
        tails[i] = static_cast<FlagT>(detail::apply_flag_op(op, input[i], input[i + 1], first + i + 1));
      if (t != Shape::kThreads - 1)
        tails[N - 1] = static_cast<FlagT>(detail::apply_flag_op(
            op, input[N - 1], detail::get_item(storage_.first_items[t + 1]), first + N));
      else if (successor)
        tails[N - 1] = static_cast<FlagT>(detail::apply_flag_op(op, input[N - 1], *successor, first + N));
      else
        tails[N - 1] = static_cast<FlagT>(true);
    }
  }

  TempStorage &storage_;
};

/// cub::BlockAdjacentDifference: each item of the block's tile combined with its neighbour by
/// `difference_op(item, neighbour)`: the item before it (SubtractLeft) or after it
/// (SubtractRight). The tile's first (last) item is copied unless thread 0 gives a
/// `tile_predecessor_item` (the last thread a `tile_successor_item`). The partial-tile forms
/// combine only the tile's first `valid_items` items (fewer than 0 count as 0, more as the whole
/// tile) and copy the rest; SubtractRightPartialTile copies the last valid item too, as CUB.
/// Output may be the input array (CUB's in-place use) or of another type that the op's result
/// and T convert to.
template <class T, int BLOCK_DIM_X, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1> class BlockAdjacentDifference {
  using Shape = detail::BlockShape<BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>;
  static_assert(Shape::kThreads > 0); // checks the block shape where the collective is named
  static_assert(
      std::is_trivially_copyable_v<T>,
      "oxide::cub::BlockAdjacentDifference: T must be trivially copyable (items pass through shared memory)");

public:
  // One direction a call: the left forms share each thread's last item, the right forms its first.
  struct TempStorage {
    detail::ItemBytes<T> items[Shape::kThreads];
  };

  template <auto Site = [] {}>
  BlockAdjacentDifference() noexcept : storage_(temp_storage<BlockAdjacentDifference, Site>()) {}
  explicit BlockAdjacentDifference(TempStorage &storage) noexcept : storage_(storage) {}

  template <int ITEMS_PER_THREAD, class OutputType, class DifferenceOpT>
  void SubtractLeft(const T (&input)[ITEMS_PER_THREAD], OutputType (&output)[ITEMS_PER_THREAD],
                    DifferenceOpT difference_op) noexcept {
    left<false>(input, output, difference_op, nullptr, 0);
  }
  template <int ITEMS_PER_THREAD, class OutputType, class DifferenceOpT>
  void SubtractLeft(const T (&input)[ITEMS_PER_THREAD], OutputType (&output)[ITEMS_PER_THREAD],
                    DifferenceOpT difference_op, T tile_predecessor_item) noexcept {
    left<false>(input, output, difference_op, &tile_predecessor_item, 0);
  }
  template <int ITEMS_PER_THREAD, class OutputType, class DifferenceOpT>
  void SubtractLeftPartialTile(const T (&input)[ITEMS_PER_THREAD], OutputType (&output)[ITEMS_PER_THREAD],
                               DifferenceOpT difference_op, int valid_items) noexcept {
    left<true>(input, output, difference_op, nullptr, valid_items);
  }
  template <int ITEMS_PER_THREAD, class OutputType, class DifferenceOpT>
  void SubtractLeftPartialTile(const T (&input)[ITEMS_PER_THREAD], OutputType (&output)[ITEMS_PER_THREAD],
                               DifferenceOpT difference_op, int valid_items,
                               T tile_predecessor_item) noexcept {
    left<true>(input, output, difference_op, &tile_predecessor_item, valid_items);
  }
  template <int ITEMS_PER_THREAD, class OutputType, class DifferenceOpT>
  void SubtractRight(const T (&input)[ITEMS_PER_THREAD], OutputType (&output)[ITEMS_PER_THREAD],
                     DifferenceOpT difference_op) noexcept {
    right<false>(input, output, difference_op, nullptr, 0);
  }
  template <int ITEMS_PER_THREAD, class OutputType, class DifferenceOpT>
  void SubtractRight(const T (&input)[ITEMS_PER_THREAD], OutputType (&output)[ITEMS_PER_THREAD],
                     DifferenceOpT difference_op, T tile_successor_item) noexcept {
    right<false>(input, output, difference_op, &tile_successor_item, 0);
  }
  template <int ITEMS_PER_THREAD, class OutputType, class DifferenceOpT>
  void SubtractRightPartialTile(const T (&input)[ITEMS_PER_THREAD], OutputType (&output)[ITEMS_PER_THREAD],
                                DifferenceOpT difference_op, int valid_items) noexcept {
    right<true>(input, output, difference_op, nullptr, valid_items);
  }

private:
  // Whether the call compiles; a message where not, and the call's body is left out so that the
  // message stands alone.
  template <class Out, class Op> static constexpr bool valid_op() noexcept {
    constexpr bool invocable = std::is_invocable_v<Op &, const T &, const T &>;
    static_assert(invocable, "oxide::cub::BlockAdjacentDifference: difference_op is called as "
                             "difference_op(a, b) on two const T&");
    if constexpr (invocable) {
      constexpr bool assignable =
          std::is_assignable_v<Out &, std::invoke_result_t<Op &, const T &, const T &>> &&
          std::is_assignable_v<Out &, const T &>;
      static_assert(assignable, "oxide::cub::BlockAdjacentDifference: the output's items are assigned "
                                "difference_op's results and, where there is no neighbour, the input items");
      return assignable;
    }
    return false;
  }

  // The output is written from the last item down, each item read before it is overwritten, so
  // output may be input. `valid` counts only for Partial.
  template <bool Partial, int N, class Out, class Op>
  [[gnu::always_inline]] void left(const T (&input)[N], Out (&output)[N], Op &op, const T *predecessor,
                                   int valid) noexcept {
    if constexpr (valid_op<Out, Op>()) {
      Shape::check();
      const std::uint32_t t = Shape::rank();
      detail::put_item(storage_.items[t], input[N - 1]);
      sync_threads();
      const std::int64_t first = std::int64_t{t} * N; // the rank of input[0] in the tile
      for (int i = N - 1; i > 0; --i) {
        if (!Partial || first + i < valid)
          output[i] = op(input[i], input[i - 1]);
        else
          output[i] = input[i];
      }
      if ((!Partial || first < valid) && (t != 0 || predecessor)) {
        const T before = t != 0 ? detail::get_item(storage_.items[t - 1]) : *predecessor;
        output[0] = op(input[0], before);
      } else {
        output[0] = input[0];
      }
    }
  }

  // The output is written from the first item up, so output may be input.
  template <bool Partial, int N, class Out, class Op>
  [[gnu::always_inline]] void right(const T (&input)[N], Out (&output)[N], Op &op, const T *successor,
                                    int valid) noexcept {
    if constexpr (valid_op<Out, Op>()) {
      Shape::check();
      const std::uint32_t t = Shape::rank();
      detail::put_item(storage_.items[t], input[0]);
      sync_threads();
      const std::int64_t first = std::int64_t{t} * N;
      for (int i = 0; i + 1 < N; ++i) {
        if (!Partial || first + i + 1 < valid)
          output[i] = op(input[i], input[i + 1]);
        else
          output[i] = input[i];
      }
      // Past the tile's end (valid beyond it) there is no successor: the last item is copied.
      const bool last_thread = t == Shape::kThreads - 1;
      if ((!Partial || first + N < valid) && (!last_thread || successor)) {
        const T after = !last_thread ? detail::get_item(storage_.items[t + 1]) : *successor;
        output[N - 1] = op(input[N - 1], after);
      } else {
        output[N - 1] = input[N - 1];
      }
    }
  }

  TempStorage &storage_;
};

/// cub::BlockShuffle: moves items between the block's threads. Offset and Rotate move one item
/// a thread: thread i gets thread i + distance's (Offset: a thread with no such thread keeps its
/// output as it was, as CUB; Rotate: modulo the block, any distance). Up and Down shift the tile
/// of ITEMS a thread (blocked order) by one item: each item's predecessor (Up; thread 0's prev[0]
/// is left as it was) or successor (Down; the last thread's last is left), optionally with the
/// tile's last item (block_suffix) or first item (block_prefix) to every thread. Output may be the
/// input.
template <class T, int BLOCK_DIM_X, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1> class BlockShuffle {
  using Shape = detail::BlockShape<BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>;
  static_assert(Shape::kThreads > 0); // checks the block shape where the collective is named
  static_assert(std::is_trivially_copyable_v<T>,
                "oxide::cub::BlockShuffle: T must be trivially copyable (items pass through shared memory)");

public:
  struct TempStorage {
    detail::ItemBytes<T> items[Shape::kThreads];
  };

  template <auto Site = [] {}> BlockShuffle() noexcept : storage_(temp_storage<BlockShuffle, Site>()) {}
  explicit BlockShuffle(TempStorage &storage) noexcept : storage_(storage) {}

  /// Thread i's output: thread i + distance's input, if 0 <= i + distance < the block's threads.
  void Offset(T input, T &output, int distance = 1) noexcept {
    const std::uint32_t t = share(input);
    const std::int64_t from = std::int64_t{t} + distance; // 64 bits: no overflow for any distance
    if (from >= 0 && from < std::int64_t{Shape::kThreads})
      output = detail::get_item(storage_.items[from]);
  }
  /// Thread i's output: thread (i + distance) % threads's input (CUB: 0 < distance < threads).
  void Rotate(T input, T &output, unsigned int distance = 1) noexcept {
    const std::uint32_t t = share(input);
    output = detail::get_item(storage_.items[(t + distance % Shape::kThreads) % Shape::kThreads]);
  }
  template <int ITEMS_PER_THREAD>
  void Up(const T (&input)[ITEMS_PER_THREAD], T (&prev)[ITEMS_PER_THREAD]) noexcept {
    const std::uint32_t t = share(input[ITEMS_PER_THREAD - 1]);
    for (int i = ITEMS_PER_THREAD - 1; i > 0; --i)
      prev[i] = input[i - 1];
    if (t != 0)
      prev[0] = detail::get_item(storage_.items[t - 1]);
  }
  template <int ITEMS_PER_THREAD>
  void Up(const T (&input)[ITEMS_PER_THREAD], T (&prev)[ITEMS_PER_THREAD], T &block_suffix) noexcept {
    Up(input, prev);
    block_suffix = detail::get_item(storage_.items[Shape::kThreads - 1]);
  }
  template <int ITEMS_PER_THREAD>
  void Down(const T (&input)[ITEMS_PER_THREAD], T (&prev)[ITEMS_PER_THREAD]) noexcept {
    const std::uint32_t t = share(input[0]);
    for (int i = 0; i + 1 < ITEMS_PER_THREAD; ++i)
      prev[i] = input[i + 1];
    if (t != Shape::kThreads - 1)
      prev[ITEMS_PER_THREAD - 1] = detail::get_item(storage_.items[t + 1]);
  }
  template <int ITEMS_PER_THREAD>
  void Down(const T (&input)[ITEMS_PER_THREAD], T (&prev)[ITEMS_PER_THREAD], T &block_prefix) noexcept {
    Down(input, prev);
    block_prefix = detail::get_item(storage_.items[0]);
  }

private:
  // The caller's item into its slot, and the barrier after which every slot is readable.
  [[gnu::always_inline]] std::uint32_t share(const T &item) noexcept {
    Shape::check();
    const std::uint32_t t = Shape::rank();
    detail::put_item(storage_.items[t], item);
    sync_threads();
    return t;
  }

  TempStorage &storage_;
};

} // namespace oxide::cub
