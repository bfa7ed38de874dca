// cub::BlockRadixSort with CUB's interface: a stable sort of the block's BLOCK_THREADS *
// ITEMS_PER_THREAD keys (and values with them), held ITEMS_PER_THREAD a thread in blocked order,
// by RADIX_BITS bits a pass. Each pass counts each thread's digits in its own column of shared
// 16-bit counters (two a word), scans the words (a run of them a thread, then a block scan of
// the runs' sums, both halves at once), and moves the keys, then the values, to their ranks
// through shared memory that the counters use too (one TempStorage, as CUB's).
// Keys are integers, float or double, in CUB's order (-0.0 equals +0.0; NaNs by their sign).
// cub_warp.hpp says why this is not NVIDIA's code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "oxide/detail/radix_key.hpp"
#include "oxide/device/cub_block.hpp"

namespace oxide::cub {

template <class KeyT, int BLOCK_DIM_X, int ITEMS_PER_THREAD, class ValueT = NullType, int RADIX_BITS = 4,
          bool MEMOIZE_OUTER_SCAN = true, BlockScanAlgorithm INNER_SCAN_ALGORITHM = BLOCK_SCAN_WARP_SCANS,
          auto SMEM_CONFIG = 0, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class BlockRadixSort {
  using Shape = detail::BlockShape<BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>;
  static_assert(Shape::kThreads > 0); // checks the block shape where the collective is named
  static_assert(oxide::detail::RadixKey<KeyT>,
                "oxide::cub::BlockRadixSort: keys are integers of 1 to 8 bytes, float or double");
  static_assert(RADIX_BITS >= 1 && RADIX_BITS <= 4, "oxide::cub::BlockRadixSort: RADIX_BITS is 1 to 4");
  static_assert(ITEMS_PER_THREAD > 0, "oxide::cub::BlockRadixSort: ITEMS_PER_THREAD must be positive");
  static constexpr std::uint32_t kItems = ITEMS_PER_THREAD;
  static constexpr std::uint32_t kTile = Shape::kThreads * kItems;
  static_assert(kTile < 65536, "oxide::cub::BlockRadixSort: the block's keys are counted in 16 bits: "
                               "BLOCK_THREADS * ITEMS_PER_THREAD must be below 65536");
  static constexpr bool kValues = !std::is_same_v<ValueT, NullType>;
  static constexpr std::uint32_t kDigits = 1u << RADIX_BITS;
  using Bits = decltype(oxide::detail::radix_key(KeyT{}));

  // Each thread's digit counters, two 16-bit counters a 32-bit word: digit d in row d % kRows of
  // the thread's own column, low half for d < kRows, high half above. A thread's counting then
  // touches only its own words (conflict-free: column t is bank t % 32), and a scan of the words
  // in row-major order scans both halves at once (they never carry into each other).
  static constexpr std::uint32_t kRows = kDigits > 1 ? kDigits / 2 : 1;
  struct alignas(4 * kRows < 16 ? 4 * kRows : 16) Run {
    std::uint32_t word[kRows];
  };
  union Counters {
    std::uint32_t rows[kRows][Shape::kThreads];
    Run runs[Shape::kThreads]; // thread t's share of the raking scan: words [t * kRows, (t + 1) * kRows)
  };
  using Scan = BlockScan<std::uint32_t, BLOCK_DIM_X, BLOCK_SCAN_WARP_SCANS, BLOCK_DIM_Y, BLOCK_DIM_Z>;

  struct Ranking {
    Counters counters;
    typename Scan::TempStorage scan;
  };

public:
  /// As CUB's: the ranking's counters and the exchanges of keys and of values share their
  /// memory (a pass ranks, then moves the keys, then the values, a barrier between each), so a
  /// tile of 512 threads x 16 (key, value) pairs of 4 bytes needs 33 KB, not 82.
  union TempStorage {
    Ranking ranking;
    KeyT keys[detail::bank_padded(kTile - 1) + 1];
    std::conditional_t<kValues, ValueT, char> values[kValues ? detail::bank_padded(kTile - 1) + 1 : 1];
  };

  template <auto Site = [] {}> BlockRadixSort() noexcept : storage_(temp_storage<BlockRadixSort, Site>()) {}
  explicit BlockRadixSort(TempStorage &storage) noexcept : storage_(storage) {}

  /// Ascending, by key bits [begin_bit, end_bit); the block's keys come back in blocked order.
  void Sort(KeyT (&keys)[ITEMS_PER_THREAD], int begin_bit = 0, int end_bit = kKeyBits) noexcept {
    sort<false, false>(keys, nullptr, begin_bit, end_bit);
  }
  void Sort(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&values)[ITEMS_PER_THREAD], int begin_bit = 0,
            int end_bit = kKeyBits) noexcept
    requires kValues
  {
    sort<false, false>(keys, &values, begin_bit, end_bit);
  }
  void SortDescending(KeyT (&keys)[ITEMS_PER_THREAD], int begin_bit = 0, int end_bit = kKeyBits) noexcept {
    sort<true, false>(keys, nullptr, begin_bit, end_bit);
  }
  void SortDescending(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&values)[ITEMS_PER_THREAD], int begin_bit = 0,
                      int end_bit = kKeyBits) noexcept
    requires kValues
  {
    sort<true, false>(keys, &values, begin_bit, end_bit);
  }
  /// The same, the result in striped order (thread t holds sorted items t, t + threads, ...),
  /// ready for a coalesced striped store.
  void SortBlockedToStriped(KeyT (&keys)[ITEMS_PER_THREAD], int begin_bit = 0,
                            int end_bit = kKeyBits) noexcept {
    sort<false, true>(keys, nullptr, begin_bit, end_bit);
  }
  void SortBlockedToStriped(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&values)[ITEMS_PER_THREAD],
                            int begin_bit = 0, int end_bit = kKeyBits) noexcept
    requires kValues
  {
    sort<false, true>(keys, &values, begin_bit, end_bit);
  }
  void SortDescendingBlockedToStriped(KeyT (&keys)[ITEMS_PER_THREAD], int begin_bit = 0,
                                      int end_bit = kKeyBits) noexcept {
    sort<true, true>(keys, nullptr, begin_bit, end_bit);
  }
  void SortDescendingBlockedToStriped(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&values)[ITEMS_PER_THREAD],
                                      int begin_bit = 0, int end_bit = kKeyBits) noexcept
    requires kValues
  {
    sort<true, true>(keys, &values, begin_bit, end_bit);
  }

private:
  static constexpr int kKeyBits = 8 * sizeof(KeyT);
  // The shift of digit d's counter in its word.
  static constexpr std::uint32_t half(std::uint32_t d) noexcept { return d < kRows ? 0 : 16; }
  using Values = std::conditional_t<kValues, ValueT, char>;

  template <bool Descending, bool Striped>
  [[gnu::always_inline]] void sort(KeyT (&keys)[ITEMS_PER_THREAD], Values (*values)[ITEMS_PER_THREAD],
                                   int begin_bit, int end_bit) noexcept {
    Shape::check();
    if (begin_bit < 0 || end_bit > kKeyBits || begin_bit > end_bit) [[unlikely]]
      __oxide_trap("oxide::cub::BlockRadixSort: the key bits [begin_bit, end_bit) are not inside the key");
    const std::uint32_t t = Shape::rank();
    if (begin_bit == end_bit) {
      if constexpr (Striped)
        to_striped(keys, values, t);
      return;
    }
    for (int bit = begin_bit; bit < end_bit; bit += RADIX_BITS) {
      const int width = end_bit - bit < RADIX_BITS ? end_bit - bit : RADIX_BITS;
      const Bits mask = static_cast<Bits>((Bits{1} << width) - 1);
      std::uint32_t digit[ITEMS_PER_THREAD], rank[ITEMS_PER_THREAD];
      // Every thread has read the previous pass's (or call's) keys and values out of the
      // storage before the counters overwrite them.
      sync_threads();
      // Count, each thread in its own column.
      for (std::uint32_t row = 0; row < kRows; ++row)
        storage_.ranking.counters.rows[row][t] = 0;
      for (std::uint32_t i = 0; i < kItems; ++i) {
        Bits key = oxide::detail::radix_key(keys[i]);
        if constexpr (Descending)
          key = static_cast<Bits>(~key);
        digit[i] = static_cast<std::uint32_t>((key >> bit) & mask);
        const std::uint32_t word = storage_.ranking.counters.rows[digit[i] % kRows][t],
                            shift = half(digit[i]);
        rank[i] = (word >> shift) & 0xffff;
        storage_.ranking.counters.rows[digit[i] % kRows][t] = word + (1u << shift);
      }
      sync_threads();
      // Scan the words row-major, a run a thread: each half becomes the position of its (digit,
      // thread)'s first key among the keys of its half's digits; the high halves then move past
      // all the low digits' keys.
      Run run = storage_.ranking.counters.runs[t];
      std::uint32_t sum = 0;
      for (std::uint32_t k = 0; k < kRows; ++k)
        sum += run.word[k];
      std::uint32_t start, total;
      Scan(storage_.ranking.scan).ExclusiveSum(sum, start, total);
      start += (total & 0xffff) << 16;
      for (std::uint32_t k = 0; k < kRows; ++k) {
        const std::uint32_t count = run.word[k];
        run.word[k] = start;
        start += count;
      }
      storage_.ranking.counters.runs[t] = run;
      sync_threads();
      for (std::uint32_t i = 0; i < kItems; ++i)
        rank[i] += (storage_.ranking.counters.rows[digit[i] % kRows][t] >> half(digit[i])) & 0xffff;
      sync_threads(); // the counters are read before the keys overwrite them
      const bool last = bit + RADIX_BITS >= end_bit;
      move(keys, values, rank, t, Striped && last);
    }
  }

  // Every thread's items to their ranks, and the block's positions back to the threads, blocked
  // or striped: the keys, then the values through the same memory. The caller has synced since
  // the storage's last use.
  [[gnu::always_inline]] void move(KeyT (&keys)[ITEMS_PER_THREAD], Values (*values)[ITEMS_PER_THREAD],
                                   const std::uint32_t (&rank)[ITEMS_PER_THREAD], std::uint32_t t,
                                   bool striped) noexcept {
    exchange(storage_.keys, keys, rank, t, striped);
    if constexpr (kValues) {
      sync_threads(); // every thread has its keys before the values overwrite them
      exchange(storage_.values, *values, rank, t, striped);
    }
  }
  template <class Item>
  [[gnu::always_inline]] static void exchange(Item *buffer, Item (&items)[ITEMS_PER_THREAD],
                                              const std::uint32_t (&rank)[ITEMS_PER_THREAD], std::uint32_t t,
                                              bool striped) noexcept {
    for (std::uint32_t i = 0; i < kItems; ++i)
      buffer[detail::bank_padded(rank[i])] = items[i];
    sync_threads();
    for (std::uint32_t i = 0; i < kItems; ++i)
      items[i] = buffer[detail::bank_padded(striped ? i * Shape::kThreads + t : t * kItems + i)];
  }

  [[gnu::always_inline]] void to_striped(KeyT (&keys)[ITEMS_PER_THREAD], Values (*values)[ITEMS_PER_THREAD],
                                         std::uint32_t t) noexcept {
    std::uint32_t rank[ITEMS_PER_THREAD];
    for (std::uint32_t i = 0; i < kItems; ++i)
      rank[i] = t * kItems + i;
    sync_threads(); // the storage's previous uses are done
    move(keys, values, rank, t, true);
  }

  TempStorage &storage_;
};

} // namespace oxide::cub
