// CUB's warp-level data movement with CUB's interface: cub::WarpExchange, cub::WarpLoad and
// cub::WarpStore, for logical warps of LOGICAL_WARP_THREADS lanes (a power of two up to 32;
// logical warp k of a hardware warp is its lanes [k * L, (k + 1) * L)). Loads read any tile of a
// Span. Stores write the logical warp's own tile through the lane's witness: in a 1-D launch
// warp g owns elements [g * L * ITEMS, (g + 1) * L * ITEMS), and its lane's blocked items are
// the lane's tile_mut<ITEMS>; or a hardware warp's row of a DisjointSpan2D (row_mut of its warp
// witness), which its lanes own striped. The exchanges go through the TempStorage the caller
// gives each logical warp (CUB's `temp_storage[warp_id]`); cub_warp.hpp says why this is not
// NVIDIA's code.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "oxide/device/cub_vector_load.hpp"
#include "oxide/device/cub_warp.hpp"
#include "oxide/device/span.hpp"
#include "oxide/device/thread.hpp"

namespace oxide::cub {

enum WarpLoadAlgorithm { WARP_LOAD_DIRECT, WARP_LOAD_STRIPED, WARP_LOAD_VECTORIZE, WARP_LOAD_TRANSPOSE };
enum WarpStoreAlgorithm { WARP_STORE_DIRECT, WARP_STORE_STRIPED, WARP_STORE_VECTORIZE, WARP_STORE_TRANSPOSE };
enum WarpExchangeAlgorithm { WARP_EXCHANGE_SMEM, WARP_EXCHANGE_SHUFFLE };

namespace detail {

/// A logical warp of Lanes lanes: the caller's lane in it and the barrier of its lanes.
template <int Lanes> struct LogicalWarp {
  static_assert(Lanes > 0 && Lanes <= 32 && std::has_single_bit(static_cast<unsigned>(Lanes)),
                "oxide::cub: LOGICAL_WARP_THREADS is 1, 2, 4, 8, 16 or 32");
  static constexpr std::uint32_t kLanes = Lanes;
  [[gnu::always_inline]] static std::uint32_t lane() noexcept { return warp::lane_id() % kLanes; }
  [[gnu::always_inline]] static void sync() noexcept {
    cg::tiled_partition<kLanes>(cg::this_thread_block()).sync();
  }
};

} // namespace detail

/// cub::WarpExchange: a logical warp's LOGICAL_WARP_THREADS * ITEMS_PER_THREAD items between
/// blocked order (lane l holds items [l * ITEMS, (l + 1) * ITEMS)) and striped order (lane l
/// holds items l, l + L...), through shared memory. As in CUB, each logical warp has its own
/// TempStorage (`WarpExchange(storage[warp_id])`) and syncs its lanes before using it again.
/// WARP_EXCHANGE_SHUFFLE is accepted for CUB's spelling and exchanges through shared memory too.
template <class InputT, int ITEMS_PER_THREAD, int LOGICAL_WARP_THREADS = 32,
          WarpExchangeAlgorithm ALGORITHM = WARP_EXCHANGE_SMEM>
class WarpExchange {
  using Warp = detail::LogicalWarp<LOGICAL_WARP_THREADS>;
  static_assert(ITEMS_PER_THREAD > 0, "oxide::cub::WarpExchange: ITEMS_PER_THREAD must be positive");
  static constexpr std::uint32_t kItems = ITEMS_PER_THREAD;
  static constexpr std::uint32_t kTile = Warp::kLanes * kItems;

public:
  struct TempStorage {
    InputT buffer[detail::bank_padded(kTile - 1) + 1];
  };

  WarpExchange() = delete; // as CUB: each logical warp names its own storage
  explicit WarpExchange(TempStorage &storage) noexcept : storage_(storage) {}

  template <class OutputT>
  void BlockedToStriped(const InputT (&input)[ITEMS_PER_THREAD],
                        OutputT (&output)[ITEMS_PER_THREAD]) noexcept {
    exchange(input, output, blocked, striped);
  }
  template <class OutputT>
  void StripedToBlocked(const InputT (&input)[ITEMS_PER_THREAD],
                        OutputT (&output)[ITEMS_PER_THREAD]) noexcept {
    exchange(input, output, striped, blocked);
  }
  /// Item i goes to the warp's position ranks[i] (each in [0, L * ITEMS), no two lanes giving
  /// one; a rank outside stops the kernel); the positions come back striped.
  template <class OffsetT>
  void ScatterToStriped(InputT (&items)[ITEMS_PER_THREAD], OffsetT (&ranks)[ITEMS_PER_THREAD]) noexcept {
    ScatterToStriped(items, items, ranks);
  }
  template <class OutputT, class OffsetT>
  void ScatterToStriped(const InputT (&input)[ITEMS_PER_THREAD], OutputT (&output)[ITEMS_PER_THREAD],
                        OffsetT (&ranks)[ITEMS_PER_THREAD]) noexcept {
    static_assert(std::is_integral_v<OffsetT>, "oxide::cub::WarpExchange: ranks are integers");
    for (std::uint32_t i = 0; i < kItems; ++i) {
      const auto rank = static_cast<std::make_unsigned_t<OffsetT>>(ranks[i]);
      if (rank >= kTile) [[unlikely]]
        __oxide_trap("oxide::cub::WarpExchange: a rank is outside the warp's LOGICAL_WARP_THREADS * "
                     "ITEMS_PER_THREAD items");
      storage_.buffer[detail::bank_padded(static_cast<std::uint32_t>(rank))] = input[i];
    }
    Warp::sync();
    const std::uint32_t lane = Warp::lane();
    for (std::uint32_t i = 0; i < kItems; ++i)
      output[i] = static_cast<OutputT>(storage_.buffer[detail::bank_padded(striped(lane, i))]);
  }

private:
  static std::uint32_t blocked(std::uint32_t lane, std::uint32_t i) noexcept { return lane * kItems + i; }
  static std::uint32_t striped(std::uint32_t lane, std::uint32_t i) noexcept {
    return i * Warp::kLanes + lane;
  }

  // Every lane writes all its items before any reads, so input and output may be one array.
  template <class OutputT, class From, class To>
  [[gnu::always_inline]] void exchange(const InputT (&input)[ITEMS_PER_THREAD],
                                       OutputT (&output)[ITEMS_PER_THREAD], From from, To to) noexcept {
    const std::uint32_t lane = Warp::lane();
    for (std::uint32_t i = 0; i < kItems; ++i)
      storage_.buffer[detail::bank_padded(from(lane, i))] = input[i];
    Warp::sync();
    for (std::uint32_t i = 0; i < kItems; ++i)
      output[i] = static_cast<OutputT>(storage_.buffer[detail::bank_padded(to(lane, i))]);
  }

  TempStorage &storage_;
};

/// cub::WarpLoad: the logical warp's tile of L * ITEMS_PER_THREAD items, starting at
/// `warp_offset` of `in`, into each lane's items in blocked order (WARP_LOAD_DIRECT, _VECTORIZE:
/// a whole tile's lane run as vectors where aligned, _TRANSPOSE: read coalesced, then exchanged
/// through the TempStorage) or striped order (WARP_LOAD_STRIPED). Reads are checked: an item
/// past the end of `in` that the call must read stops the kernel; the forms with `valid_items`
/// read only the tile's first valid_items items.
template <class T, int ITEMS_PER_THREAD, WarpLoadAlgorithm ALGORITHM = WARP_LOAD_DIRECT,
          int LOGICAL_WARP_THREADS = 32>
class WarpLoad {
  using Warp = detail::LogicalWarp<LOGICAL_WARP_THREADS>;
  using Exchange = WarpExchange<T, ITEMS_PER_THREAD, LOGICAL_WARP_THREADS>;
  static constexpr bool kTranspose = ALGORITHM == WARP_LOAD_TRANSPOSE;
  static constexpr std::uint32_t kItems = ITEMS_PER_THREAD;

public:
  struct Empty {};
  using TempStorage = std::conditional_t<kTranspose, typename Exchange::TempStorage, Empty>;

  /// The algorithms that need no storage. (CUB's default constructor gives WARP_LOAD_TRANSPOSE
  /// one storage for the whole block, which its warps then share: a race.)
  template <bool NoStorage = !kTranspose> WarpLoad() noexcept : storage_(nullptr) {
    static_assert(NoStorage,
                  "oxide::cub::WarpLoad: WARP_LOAD_TRANSPOSE exchanges through shared memory: give "
                  "each logical warp its own TempStorage, WarpLoad(storage[warp])");
  }
  explicit WarpLoad(TempStorage &storage) noexcept : storage_(&storage) {}

  template <class U>
    requires std::is_same_v<std::remove_const_t<U>, T>
  void Load(Span<U> in, std::size_t warp_offset, T (&items)[ITEMS_PER_THREAD]) noexcept {
    load(in, warp_offset, items, Warp::kLanes * kItems, nullptr);
  }
  template <class U>
    requires std::is_same_v<std::remove_const_t<U>, T>
  void Load(Span<U> in, std::size_t warp_offset, T (&items)[ITEMS_PER_THREAD], int valid_items) noexcept {
    load(in, warp_offset, items, valid_items, nullptr);
  }
  /// Items at or past `valid_items` get `oob_default`.
  template <class U>
    requires std::is_same_v<std::remove_const_t<U>, T>
  void Load(Span<U> in, std::size_t warp_offset, T (&items)[ITEMS_PER_THREAD], int valid_items,
            T oob_default) noexcept {
    load(in, warp_offset, items, valid_items, &oob_default);
  }

private:
  template <class U>
  [[gnu::always_inline]] void load(Span<U> in, std::size_t warp_offset, T (&items)[ITEMS_PER_THREAD],
                                   std::int64_t valid_items, const T *oob_default) noexcept {
    const std::uint32_t lane = Warp::lane();
    if constexpr (ALGORITHM == WARP_LOAD_VECTORIZE)
      if (valid_items >= std::int64_t{Warp::kLanes * kItems} &&
          detail::load_vectors(in, warp_offset + std::size_t{lane} * kItems, items))
        return;
    for (std::uint32_t i = 0; i < kItems; ++i) {
      const std::uint32_t p =
          ALGORITHM == WARP_LOAD_STRIPED || kTranspose ? i * Warp::kLanes + lane : lane * kItems + i;
      if (p < valid_items)
        items[i] = in[warp_offset + p];
      else if (oob_default)
        items[i] = *oob_default;
    }
    if constexpr (kTranspose)
      Exchange(*storage_).StripedToBlocked(items, items);
  }

  TempStorage *storage_;
};

/// cub::WarpStore: each lane's ITEMS_PER_THREAD items into its logical warp's own tile.
///  - Into a DisjointSpan through the lane's witness (oxide::thread::index_1d()), items in
///    blocked order (WARP_STORE_DIRECT, _VECTORIZE, _TRANSPOSE): logical warp g of a 1-D launch
///    owns elements [g * L * ITEMS, (g + 1) * L * ITEMS), each lane writing its own ITEMS (what
///    a transposed store writes, without the exchange). Striped items have no owner there:
///    WARP_STORE_STRIPED stores into a warp's row.
///  - Into the warp's row of a DisjointSpan2D (`out.row_mut(oxide::warp::index())`, a whole warp,
///    L = 32), whose lane l owns elements l, l + 32...: striped items (WARP_STORE_STRIPED) or
///    blocked items exchanged through the TempStorage first (WARP_STORE_TRANSPOSE), written
///    coalesced.
/// Items past the end of the output, or at or past `valid_items` in the tile, are not written.
template <class T, int ITEMS_PER_THREAD, WarpStoreAlgorithm ALGORITHM = WARP_STORE_DIRECT,
          int LOGICAL_WARP_THREADS = 32>
class WarpStore {
  using Warp = detail::LogicalWarp<LOGICAL_WARP_THREADS>;
  using Exchange = WarpExchange<T, ITEMS_PER_THREAD, LOGICAL_WARP_THREADS>;
  static constexpr bool kTranspose = ALGORITHM == WARP_STORE_TRANSPOSE;
  static constexpr bool kStriped = ALGORITHM == WARP_STORE_STRIPED;
  static constexpr std::uint32_t kItems = ITEMS_PER_THREAD;
  using WarpRow = OwnedElements<T, intrinsic::Ownership::warp_lanes>;

public:
  struct Empty {};
  using TempStorage = std::conditional_t<kTranspose, typename Exchange::TempStorage, Empty>;

  /// The algorithms that need no storage (see WarpLoad's).
  template <bool NoStorage = !kTranspose> WarpStore() noexcept : storage_(nullptr) {
    static_assert(NoStorage, "oxide::cub::WarpStore: WARP_STORE_TRANSPOSE exchanges through shared memory: "
                             "give each logical warp its own TempStorage, WarpStore(storage[warp])");
  }
  explicit WarpStore(TempStorage &storage) noexcept : storage_(&storage) {}

  [[gnu::always_inline]] void Store(const DisjointSpan<T> &out, const thread::ThreadIndex1D &index,
                                    const T (&items)[ITEMS_PER_THREAD]) noexcept {
    store(out, index, items, Warp::kLanes * kItems);
  }
  [[gnu::always_inline]] void Store(const DisjointSpan<T> &out, const thread::ThreadIndex1D &index,
                                    const T (&items)[ITEMS_PER_THREAD], int valid_items) noexcept {
    store(out, index, items, valid_items < 0 ? 0 : valid_items);
  }
  [[gnu::always_inline]] void Store(const WarpRow &row, const T (&items)[ITEMS_PER_THREAD]) noexcept {
    store_row(row, items, Warp::kLanes * kItems);
  }
  [[gnu::always_inline]] void Store(const WarpRow &row, const T (&items)[ITEMS_PER_THREAD],
                                    int valid_items) noexcept {
    store_row(row, items, valid_items < 0 ? 0 : valid_items);
  }

private:
  [[gnu::always_inline]] void store(const DisjointSpan<T> &out, const thread::ThreadIndex1D &index,
                                    const T (&items)[ITEMS_PER_THREAD], std::uint32_t valid_items) noexcept {
    static_assert(!kStriped, "oxide::cub::WarpStore: a lane's striped items are not its to write in a "
                             "DisjointSpan; store them into the warp's row of a DisjointSpan2D, "
                             "Store(out.row_mut(oxide::warp::index()), items), or store blocked items");
    const auto tile = out.template tile_mut<ITEMS_PER_THREAD>(index);
    const std::uint32_t n = static_cast<std::uint32_t>(tile.size()), lane = Warp::lane();
    for (std::uint32_t i = 0; i < kItems; ++i)
      if (i < n && lane * kItems + i < valid_items)
        tile[i] = items[i];
  }

  [[gnu::always_inline]] void store_row(const WarpRow &row, const T (&items)[ITEMS_PER_THREAD],
                                        std::uint32_t valid_items) noexcept {
    static_assert(LOGICAL_WARP_THREADS == warp::kSize,
                  "oxide::cub::WarpStore: a warp's row is owned by the 32 lanes of a whole warp "
                  "(LOGICAL_WARP_THREADS = 32)");
    static_assert(kStriped || kTranspose,
                  "oxide::cub::WarpStore: a warp's row is written striped: use WARP_STORE_STRIPED for "
                  "striped items or WARP_STORE_TRANSPOSE (exchanges blocked items through its "
                  "TempStorage), or store blocked items into a DisjointSpan with the lane's witness");
    const std::uint32_t lane = Warp::lane();
    T striped[ITEMS_PER_THREAD];
    if constexpr (kTranspose)
      Exchange(*storage_).BlockedToStriped(items, striped);
    else
      for (std::uint32_t i = 0; i < kItems; ++i)
        striped[i] = items[i];
    for (std::uint32_t i = 0; i < kItems; ++i)
      if (i * Warp::kLanes + lane < valid_items)
        if (T *o = row.get_mut(i))
          *o = striped[i];
  }

  TempStorage *storage_;
};

} // namespace oxide::cub
