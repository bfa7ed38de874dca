// CUB's run-length decoding with CUB's interface: cub::BlockRunLengthDecode. The block hands in
// its runs (RUNS_PER_THREAD a thread, in blocked order: thread t's runs follow thread t - 1's),
// each a value and a length (or the offset where it starts in the decoded sequence), and reads the
// decoded sequence back a window at a time: BLOCK_THREADS * DECODED_ITEMS_PER_THREAD items from
// `from_decoded_offset`, in blocked order, with each item's offset within its run if asked. The
// constructor exclusive-scans the lengths (BlockScan) into the runs' offsets and puts them, with
// the values, in the TempStorage; each decoded item then finds its run by a binary search over
// those offsets (the last run starting at or before it). As in CUB, every thread of the block
// calls the constructor and RunLengthDecode together, RunLengthDecode needs no barrier between
// two calls, and a block that reuses the TempStorage for another collective syncs first. Items
// are any trivially copyable type; nothing here writes memory but the caller's arrays and the
// TempStorage. cub_warp.hpp says why this is not NVIDIA's code.
//
//   using Decode = oxide::cub::BlockRunLengthDecode<float, 128, 2, 4>;
//   std::uint32_t total;
//   Decode decode(oxide::cub::temp_storage<Decode>(), values, lengths, total);
//   for (std::uint32_t window = 0; window < total; window += 128 * 4)
//     decode.RunLengthDecode(items, window);   // items[4]: this window's decoded items
#pragma once

#include <cstdint>
#include <type_traits>

#include "oxide/device/cub_block.hpp"
#include "oxide/device/cub_block_adjacent.hpp"

namespace oxide::cub {

namespace detail {

/// The runs of a block's run-length decoding: each run's value and the offset where it starts in
/// the decoded sequence (non-decreasing).
template <class ItemT, class OffsetT, std::uint32_t Runs> struct DecodeRuns {
  ItemBytes<ItemT> values[Runs];
  OffsetT offsets[Runs];
};

/// The type the run lengths are scanned in: OffsetT, or 32 bits for a narrower one (what a warp
/// shuffle moves), converted back after the scan.
template <class OffsetT>
using DecodeScanT =
    std::conditional_t<(sizeof(OffsetT) < 4),
                       std::conditional_t<std::is_signed_v<OffsetT>, std::int32_t, std::uint32_t>, OffsetT>;

/// The index of the last of `Runs` non-decreasing offsets that is at most `position`, or 0 when
/// none is: a binary search of a fixed number of steps, its reads selected without branches and
/// never outside the offsets.
template <std::uint32_t Runs, class OffsetT>
[[gnu::always_inline]] inline std::uint32_t find_run(const OffsetT (&offsets)[Runs],
                                                     OffsetT position) noexcept {
  std::uint32_t base = 0; // base + n <= Runs throughout
  for (std::uint32_t n = Runs; n > 1; n -= n / 2) {
    const std::uint32_t half = n / 2;
    const std::uint32_t probe = base + half < Runs ? base + half : Runs - 1;
    base = offsets[probe] <= position ? base + half : base;
  }
  return base;
}

} // namespace detail

/// cub::BlockRunLengthDecode: decodes the block's BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z *
/// RUNS_PER_THREAD runs, run r being run_values[r] repeated run_lengths[r] times, a window of
/// BLOCK_THREADS * DECODED_ITEMS_PER_THREAD decoded items at a time. DecodedOffsetT is the
/// integer type of the decoded positions (large enough for the sum of the lengths, as in CUB).
/// Runs of length 0 may be anywhere (CUB: only after the last run of nonzero length). An item at
/// or past the total decoded size is the last run's value, its offset in the run counted from
/// that run's start, as CUB gives it (CUB leaves a window that starts past the total undefined).
/// With the run-offsets constructor the offsets must not decrease; a position before the first
/// one decodes as the first run.
template <class ItemT, int BLOCK_DIM_X, int RUNS_PER_THREAD, int DECODED_ITEMS_PER_THREAD,
          class DecodedOffsetT = std::uint32_t, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class BlockRunLengthDecode {
  using Shape = detail::BlockShape<BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>;
  static_assert(Shape::kThreads > 0); // checks the block shape where the collective is named
  static_assert(RUNS_PER_THREAD > 0, "oxide::cub::BlockRunLengthDecode: RUNS_PER_THREAD must be positive");
  static_assert(DECODED_ITEMS_PER_THREAD > 0,
                "oxide::cub::BlockRunLengthDecode: DECODED_ITEMS_PER_THREAD must be positive");
  static_assert(std::is_trivially_copyable_v<ItemT>,
                "oxide::cub::BlockRunLengthDecode: ItemT must be trivially copyable (the run values pass "
                "through shared memory)");
  static_assert(
      std::is_integral_v<DecodedOffsetT> && !std::is_same_v<DecodedOffsetT, bool> &&
          sizeof(DecodedOffsetT) <= 8,
      "oxide::cub::BlockRunLengthDecode: DecodedOffsetT is an integer type (the decoded positions)");
  static constexpr std::uint32_t kRunsPerThread = RUNS_PER_THREAD > 0 ? RUNS_PER_THREAD : 1;
  static constexpr std::uint32_t kItems = DECODED_ITEMS_PER_THREAD > 0 ? DECODED_ITEMS_PER_THREAD : 1;
  static constexpr std::uint32_t kRuns = Shape::kThreads * kRunsPerThread;
  using Offset =
      std::conditional_t<std::is_integral_v<DecodedOffsetT> && !std::is_same_v<DecodedOffsetT, bool>,
                         DecodedOffsetT, std::uint32_t>;
  // Positions are added and subtracted as unsigned integers (wrapping, never undefined) and
  // compared as DecodedOffsetT.
  using Unsigned = std::make_unsigned_t<Offset>;
  using ScanT = detail::DecodeScanT<Offset>;
  using Scan = BlockScan<ScanT, BLOCK_DIM_X, BLOCK_SCAN_RAKING_MEMOIZE, BLOCK_DIM_Y, BLOCK_DIM_Z>;

public:
  /// CUB's union of the length scan's storage and the runs (each run's value and offset).
  struct TempStorage {
    union {
      typename Scan::TempStorage offset_scan;
      detail::DecodeRuns<ItemT, Offset, kRuns> runs;
    };
  };

  /// From the runs' lengths: every thread gets the block's total decoded size. RunLengthT and
  /// TotalDecodedSizeT are integer types (the lengths are converted to DecodedOffsetT).
  template <class RunLengthT, class TotalDecodedSizeT>
  BlockRunLengthDecode(TempStorage &temp_storage, const ItemT (&run_values)[RUNS_PER_THREAD],
                       RunLengthT (&run_lengths)[RUNS_PER_THREAD],
                       TotalDecodedSizeT &total_decoded_size) noexcept
      : storage_(temp_storage) {
    init_lengths(run_values, run_lengths, total_decoded_size);
  }
  /// From the offsets where the runs start in the decoded sequence (non-decreasing; run r's
  /// length is offset r + 1 less offset r).
  template <class UserRunOffsetT>
  BlockRunLengthDecode(TempStorage &temp_storage, const ItemT (&run_values)[RUNS_PER_THREAD],
                       UserRunOffsetT (&run_offsets)[RUNS_PER_THREAD]) noexcept
      : storage_(temp_storage) {
    init_offsets(run_values, run_offsets);
  }
  /// CUB's constructors without a TempStorage: one from the block's shared memory per place in
  /// the source.
  template <auto Site = [] {}, class RunLengthT, class TotalDecodedSizeT>
  BlockRunLengthDecode(const ItemT (&run_values)[RUNS_PER_THREAD], RunLengthT (&run_lengths)[RUNS_PER_THREAD],
                       TotalDecodedSizeT &total_decoded_size) noexcept
      : storage_(temp_storage<BlockRunLengthDecode, Site>()) {
    init_lengths(run_values, run_lengths, total_decoded_size);
  }
  template <auto Site = [] {}, class UserRunOffsetT>
  BlockRunLengthDecode(const ItemT (&run_values)[RUNS_PER_THREAD],
                       UserRunOffsetT (&run_offsets)[RUNS_PER_THREAD]) noexcept
      : storage_(temp_storage<BlockRunLengthDecode, Site>()) {
    init_offsets(run_values, run_offsets);
  }

  /// The decoded items at positions from_decoded_offset + rank * DECODED_ITEMS_PER_THREAD + i,
  /// and each one's offset within its run (CUB: 3, 1, 4 of lengths 2, 1, 3 decode to 3, 3, 1,
  /// 4, 4, 4 with the offsets 0, 1, 0, 0, 1, 2).
  template <class RelativeOffsetT>
  void RunLengthDecode(ItemT (&decoded_items)[DECODED_ITEMS_PER_THREAD],
                       RelativeOffsetT (&item_offsets)[DECODED_ITEMS_PER_THREAD],
                       DecodedOffsetT from_decoded_offset = 0) noexcept {
    static_assert(std::is_integral_v<RelativeOffsetT> && !std::is_const_v<RelativeOffsetT>,
                  "oxide::cub::BlockRunLengthDecode: item_offsets is an array of integers that "
                  "RunLengthDecode writes");
    if constexpr (std::is_integral_v<RelativeOffsetT> && !std::is_const_v<RelativeOffsetT>)
      decode<true>(decoded_items, item_offsets, from_decoded_offset);
  }
  void RunLengthDecode(ItemT (&decoded_items)[DECODED_ITEMS_PER_THREAD],
                       DecodedOffsetT from_decoded_offset = 0) noexcept {
    Unsigned none[kItems];
    decode<false>(decoded_items, none, from_decoded_offset);
  }

private:
  template <class RunLengthT, class TotalDecodedSizeT>
  [[gnu::always_inline]] void init_lengths(const ItemT (&values)[kRunsPerThread],
                                           const RunLengthT (&lengths)[kRunsPerThread],
                                           TotalDecodedSizeT &total) noexcept {
    static_assert(std::is_integral_v<std::remove_cv_t<RunLengthT>>,
                  "oxide::cub::BlockRunLengthDecode: run_lengths is an array of integers");
    static_assert(
        std::is_integral_v<TotalDecodedSizeT> && !std::is_const_v<TotalDecodedSizeT>,
        "oxide::cub::BlockRunLengthDecode: total_decoded_size is an integer the constructor writes");
    if constexpr (std::is_integral_v<std::remove_cv_t<RunLengthT>> && std::is_integral_v<TotalDecodedSizeT> &&
                  !std::is_const_v<TotalDecodedSizeT>) {
      ScanT offsets[kRunsPerThread];
      for (std::uint32_t i = 0; i < kRunsPerThread; ++i)
        offsets[i] = static_cast<ScanT>(static_cast<Offset>(lengths[i]));
      ScanT aggregate;
      Scan(storage_.offset_scan).ExclusiveSum(offsets, offsets, aggregate);
      total = static_cast<TotalDecodedSizeT>(static_cast<Offset>(aggregate));
      sync_threads(); // every thread is done with the scan's storage, which the runs overlay
      init_offsets(values, offsets);
    }
  }

  template <class UserRunOffsetT>
  [[gnu::always_inline]] void init_offsets(const ItemT (&values)[kRunsPerThread],
                                           const UserRunOffsetT (&offsets)[kRunsPerThread]) noexcept {
    static_assert(std::is_integral_v<std::remove_cv_t<UserRunOffsetT>>,
                  "oxide::cub::BlockRunLengthDecode: run_offsets is an array of integers");
    if constexpr (std::is_integral_v<std::remove_cv_t<UserRunOffsetT>>) {
      Shape::check();
      const std::uint32_t first = Shape::rank() * kRunsPerThread;
      for (std::uint32_t i = 0; i < kRunsPerThread; ++i) {
        detail::put_item(storage_.runs.values[first + i], values[i]);
        storage_.runs.offsets[first + i] = static_cast<Offset>(offsets[i]);
      }
      sync_threads(); // every run is in place before any thread decodes
    }
  }

  // Each item's run by its own binary search, so runs of length 0 anywhere are skipped.
  template <bool Relative, class RelativeOffsetT>
  [[gnu::always_inline]] void decode(ItemT (&items)[kItems], RelativeOffsetT (&relative)[kItems],
                                     DecodedOffsetT from) noexcept {
    Shape::check();
    const Unsigned first =
        static_cast<Unsigned>(static_cast<Unsigned>(from) + static_cast<Unsigned>(Shape::rank() * kItems));
    for (std::uint32_t i = 0; i < kItems; ++i) {
      const Offset position = static_cast<Offset>(static_cast<Unsigned>(first + i));
      const std::uint32_t run = detail::find_run(storage_.runs.offsets, position);
      items[i] = detail::get_item(storage_.runs.values[run]);
      if constexpr (Relative)
        relative[i] = static_cast<RelativeOffsetT>(static_cast<Unsigned>(
            static_cast<Unsigned>(position) - static_cast<Unsigned>(storage_.runs.offsets[run])));
    }
  }

  TempStorage &storage_;
};

} // namespace oxide::cub
