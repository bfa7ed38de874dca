// CUB's block loads, stores and histograms with CUB's interface (cub_block.hpp has the rest).
// Loads read any tile of a Span. Stores write the block's own tile of a DisjointSpan through the
// thread's witness: block b of a 1-D launch owns elements [b * T * ITEMS, (b + 1) * T * ITEMS)
// (T threads a block), which is where CUB code stores with `d_out + blockIdx.x * TILE`; or the
// row of a DisjointSpan2D of tiles that a block witness names (a loop over tiles with
// block_stride, a persistent kernel). A tile at a computed offset is not the block's to write.
// Histograms count into a shared-memory array with shared atomics.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "oxide/device/atomic.hpp"
#include "oxide/device/cub_block.hpp"
#include "oxide/device/cub_vector_load.hpp"
#include "oxide/device/span.hpp"
#include "oxide/device/thread.hpp"

namespace oxide::cub {

/// cub::BlockLoad: the block's tile of BLOCK_THREADS * ITEMS_PER_THREAD items, starting at
/// `block_offset` of `in`, into each thread's ITEMS_PER_THREAD items in blocked order
/// (BLOCK_LOAD_DIRECT, _VECTORIZE, _TRANSPOSE, _WARP_TRANSPOSE*) or striped order
/// (BLOCK_LOAD_STRIPED). BLOCK_LOAD_VECTORIZE reads a whole tile's thread run as 2- or
/// 4-element vectors where it is aligned (as CUB: else, and for partial tiles, item by item).
/// The transposing algorithms read coalesced and exchange through shared memory. Reads are
/// checked: an item past the end of `in` that the call must read stops the kernel; the forms
/// with `valid_items` read only the tile's first valid_items items.
template <class T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, BlockLoadAlgorithm ALGORITHM = BLOCK_LOAD_DIRECT,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class BlockLoad {
  using Shape = detail::BlockShape<BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>;
  static_assert(Shape::kThreads > 0); // checks the block shape where the collective is named
  using Exchange = BlockExchange<T, BLOCK_DIM_X, ITEMS_PER_THREAD, false, BLOCK_DIM_Y, BLOCK_DIM_Z>;
  static constexpr bool kBlockTranspose = ALGORITHM == BLOCK_LOAD_TRANSPOSE;
  static constexpr bool kWarpTranspose =
      ALGORITHM == BLOCK_LOAD_WARP_TRANSPOSE || ALGORITHM == BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED;
  static constexpr std::uint32_t kItems = ITEMS_PER_THREAD;

public:
  struct Empty {};
  using TempStorage =
      std::conditional_t<kBlockTranspose || kWarpTranspose, typename Exchange::TempStorage, Empty>;

  template <auto Site = [] {}> BlockLoad() noexcept : storage_(temp_storage<BlockLoad, Site>()) {}
  explicit BlockLoad(TempStorage &storage) noexcept : storage_(storage) {}

  template <class U>
    requires std::is_same_v<std::remove_const_t<U>, T>
  void Load(Span<U> in, std::size_t block_offset, T (&items)[ITEMS_PER_THREAD]) noexcept {
    load(in, block_offset, items, Shape::kThreads * kItems, nullptr);
  }
  template <class U>
    requires std::is_same_v<std::remove_const_t<U>, T>
  void Load(Span<U> in, std::size_t block_offset, T (&items)[ITEMS_PER_THREAD], int valid_items) noexcept {
    load(in, block_offset, items, valid_items, nullptr);
  }
  /// Items at or past `valid_items` get `oob_default`.
  template <class U>
    requires std::is_same_v<std::remove_const_t<U>, T>
  void Load(Span<U> in, std::size_t block_offset, T (&items)[ITEMS_PER_THREAD], int valid_items,
            T oob_default) noexcept {
    load(in, block_offset, items, valid_items, &oob_default);
  }

private:
  // Position of thread t's item i in the tile as it is read.
  static std::uint32_t read_position(std::uint32_t t, std::uint32_t i) noexcept {
    if constexpr (ALGORITHM == BLOCK_LOAD_STRIPED || kBlockTranspose)
      return i * Shape::kThreads + t;
    else if constexpr (kWarpTranspose)
      return (t / warp::kSize) * warp::kSize * kItems + i * warp::kSize + t % warp::kSize;
    else
      return t * kItems + i;
  }

  template <class U>
  [[gnu::always_inline]] void load(Span<U> in, std::size_t block_offset, T (&items)[ITEMS_PER_THREAD],
                                   std::int64_t valid_items, const T *oob_default) noexcept {
    Shape::check();
    const std::uint32_t t = Shape::rank();
    if constexpr (ALGORITHM == BLOCK_LOAD_VECTORIZE)
      if (valid_items >= std::int64_t{Shape::kThreads * kItems} &&
          detail::load_vectors(in, block_offset + std::size_t{t} * kItems, items))
        return;
    for (std::uint32_t i = 0; i < kItems; ++i) {
      const std::uint32_t p = read_position(t, i);
      if (p < valid_items)
        items[i] = in[block_offset + p];
      else if (oob_default)
        items[i] = *oob_default;
    }
    if constexpr (kBlockTranspose)
      Exchange(storage_).StripedToBlocked(items);
    else if constexpr (kWarpTranspose)
      Exchange(storage_).WarpStripedToBlocked(items);
  }

  TempStorage &storage_;
};

/// cub::BlockStore: each thread's ITEMS_PER_THREAD items, in blocked order (BLOCK_STORE_DIRECT,
/// _VECTORIZE, _TRANSPOSE, _WARP_TRANSPOSE*) or striped order (BLOCK_STORE_STRIPED), into the
/// block's own tile of `out`: elements [b * T * ITEMS, (b + 1) * T * ITEMS) for block b of a 1-D
/// launch of T threads a block. `index` is the thread's witness (oxide::thread::index_1d()). The
/// transposing algorithms exchange through shared memory and write coalesced. Items past the
/// end of `out`, or at or past `valid_items` in the tile, are not written.
template <class T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, BlockStoreAlgorithm ALGORITHM = BLOCK_STORE_DIRECT,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class BlockStore {
  using Shape = detail::BlockShape<BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>;
  static_assert(Shape::kThreads > 0); // checks the block shape where the collective is named
  using Exchange = BlockExchange<T, BLOCK_DIM_X, ITEMS_PER_THREAD, false, BLOCK_DIM_Y, BLOCK_DIM_Z>;
  static constexpr bool kTranspose = ALGORITHM == BLOCK_STORE_TRANSPOSE ||
                                     ALGORITHM == BLOCK_STORE_WARP_TRANSPOSE ||
                                     ALGORITHM == BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED;
  static constexpr bool kStriped = ALGORITHM == BLOCK_STORE_STRIPED || kTranspose;
  static constexpr std::uint32_t kItems = ITEMS_PER_THREAD;

public:
  struct Empty {};
  using TempStorage = std::conditional_t<kTranspose, typename Exchange::TempStorage, Empty>;

  template <auto Site = [] {}> BlockStore() noexcept : storage_(temp_storage<BlockStore, Site>()) {}
  explicit BlockStore(TempStorage &storage) noexcept : storage_(storage) {}

  [[gnu::always_inline]] void Store(const DisjointSpan<T> &out, const thread::ThreadIndex1D &index,
                                    const T (&items)[ITEMS_PER_THREAD]) noexcept {
    store(out, index, items, Shape::kThreads * kItems);
  }
  [[gnu::always_inline]] void Store(const DisjointSpan<T> &out, const thread::ThreadIndex1D &index,
                                    const T (&items)[ITEMS_PER_THREAD], int valid_items) noexcept {
    store(out, index, items, valid_items < 0 ? 0 : valid_items);
  }
  /// Into the block's row of a DisjointSpan2D (`out.row_mut(b)` for a block witness `b`: the
  /// block's own index, or a step of `oxide::block::block_stride(tiles)` in a loop over tiles):
  /// the tile is the row's first BLOCK_THREADS * ITEMS_PER_THREAD elements. The row's thread t
  /// owns its elements t, t + BLOCK_THREADS..., the striped order, so blocked items (the DIRECT
  /// and VECTORIZE algorithms) go through a shared-memory exchange of their own first.
  [[gnu::always_inline]] void Store(const OwnedElements<T, intrinsic::Ownership::block_threads> &row,
                                    const T (&items)[ITEMS_PER_THREAD]) noexcept {
    store_row(row, items, Shape::kThreads * kItems);
  }
  [[gnu::always_inline]] void Store(const OwnedElements<T, intrinsic::Ownership::block_threads> &row,
                                    const T (&items)[ITEMS_PER_THREAD], int valid_items) noexcept {
    store_row(row, items, valid_items < 0 ? 0 : valid_items);
  }

private:
  [[gnu::always_inline]] void store(const DisjointSpan<T> &out, const thread::ThreadIndex1D &index,
                                    const T (&items)[ITEMS_PER_THREAD], std::uint32_t valid_items) noexcept {
    static_assert(BLOCK_DIM_Y == 1 && BLOCK_DIM_Z == 1,
                  "oxide::cub::BlockStore into a DisjointSpan writes a block's tile of a 1-D launch: "
                  "BLOCK_DIM_Y and BLOCK_DIM_Z are 1 (a block of more dimensions stores into its row of "
                  "a DisjointSpan2D, out.row_mut(oxide::block::index()))");
    Shape::check();
    const std::uint32_t t = Shape::rank();
    if constexpr (kStriped) {
      T striped[ITEMS_PER_THREAD];
      if constexpr (kTranspose)
        Exchange(storage_).BlockedToStriped(items, striped);
      else
        for (std::uint32_t i = 0; i < kItems; ++i)
          striped[i] = items[i];
      const auto owned = out.template block_strided_mut<ITEMS_PER_THREAD>(index);
      for (std::uint32_t i = 0; i < kItems; ++i)
        if (i * Shape::kThreads + t < valid_items)
          if (T *o = owned.get_mut(i))
            *o = striped[i];
    } else {
      const auto tile = out.template tile_mut<ITEMS_PER_THREAD>(index);
      const std::uint32_t n = static_cast<std::uint32_t>(tile.size());
      for (std::uint32_t i = 0; i < kItems; ++i)
        if (i < n && t * kItems + i < valid_items)
          tile[i] = items[i];
    }
  }

  [[gnu::always_inline]] void store_row(const OwnedElements<T, intrinsic::Ownership::block_threads> &row,
                                        const T (&items)[ITEMS_PER_THREAD],
                                        std::uint32_t valid_items) noexcept {
    Shape::check();
    const std::uint32_t t = Shape::rank();
    T striped[ITEMS_PER_THREAD];
    if constexpr (kTranspose) {
      Exchange(storage_).BlockedToStriped(items, striped);
    } else if constexpr (kStriped) {
      for (std::uint32_t i = 0; i < kItems; ++i)
        striped[i] = items[i];
    } else {
      // The exchange's storage is this call's own; the barrier lets a loop over tiles reuse it.
      sync_threads();
      Exchange().BlockedToStriped(items, striped);
    }
    for (std::uint32_t i = 0; i < kItems; ++i)
      if (i * Shape::kThreads + t < valid_items)
        if (T *o = row.get_mut(i))
          *o = striped[i];
  }

  TempStorage &storage_;
};

/// cub::BlockHistogram: counts the block's items (each a bin index, 0..BINS - 1) into a
/// histogram of BINS counters in shared memory (an oxide::shared_array, as CUB's __shared__
/// array), with shared atomics. An item outside [0, BINS) stops the kernel. ALGORITHM is
/// accepted for CUB's spelling; both are the atomic one.
template <class T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, int BINS,
          BlockHistogramAlgorithm ALGORITHM = BLOCK_HISTO_SORT, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class BlockHistogram {
  using Shape = detail::BlockShape<BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>;
  static_assert(Shape::kThreads > 0); // checks the block shape where the collective is named
  static_assert(std::is_integral_v<T>, "oxide::cub::BlockHistogram: the items are integer bin indices");
  static_assert(BINS > 0, "oxide::cub::BlockHistogram: BINS must be positive");

public:
  struct TempStorage {};

  BlockHistogram() noexcept = default;
  explicit BlockHistogram(TempStorage &) noexcept {}

  /// Zeroes the histogram (the block syncs before counting into it).
  template <class Counter>
    requires(!std::is_const_v<Counter>)
  void InitHistogram(Span<Counter> histogram) noexcept {
    Shape::check();
    for (std::uint32_t b = Shape::rank(); b < std::uint32_t(BINS); b += Shape::kThreads)
      histogram[b] = Counter{};
  }
  /// Zeroes the histogram, syncs and counts the items into it.
  template <class Counter>
    requires(!std::is_const_v<Counter>)
  void Histogram(const T (&items)[ITEMS_PER_THREAD], Span<Counter> histogram) noexcept {
    InitHistogram(histogram);
    sync_threads();
    Composite(items, histogram);
  }
  /// Adds the items' counts to the histogram, a writable (shared) array.
  template <class Counter>
    requires(!std::is_const_v<Counter>)
  void Composite(const T (&items)[ITEMS_PER_THREAD], Span<Counter> histogram) noexcept {
    Shape::check();
    if (histogram.size() < std::size_t(BINS)) [[unlikely]]
      __oxide_trap("oxide::cub::BlockHistogram: the histogram has fewer than BINS counters");
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
      // Unsigned, so that a negative item is past the bins; 64 bits, so that BINS fits.
      const auto bin = static_cast<std::uint64_t>(static_cast<std::make_unsigned_t<T>>(items[i]));
      if (bin >= std::uint64_t(BINS)) [[unlikely]]
        __oxide_trap("oxide::cub::BlockHistogram: an item is not a bin index in [0, BINS)");
      AtomicRef<Counter, Scope::block>(histogram[bin]).fetch_add(Counter{1});
    }
  }
};

} // namespace oxide::cub
