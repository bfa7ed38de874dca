// CUB's block collectives in safe kernels (oxide::cub::BlockLoad, BlockRadixSort, BlockScan,
// BlockStore, BlockHistogram: include/oxide/device/cub_*.hpp) against the same kernels written
// with NVIDIA's CUB and compiled by nvcc (cub_block_cuda.cu): tiles of 2048 (key, value) pairs
// sorted by BlockRadixSort, tiles of 1024 ints scanned by BlockScan, and a byte histogram counted
// by BlockHistogram in shared memory. Same algorithms on both sides (warp-transposed loads and
// stores, warp-scan BlockScan, atomic BlockHistogram); checked in cub_block_check.hpp.
//
//   cub_block_oxide [pairs, default 2^24]    prints RESULT lines (bench_common.hpp)
#include "bench_oxide.hpp"
#include "cub_block_check.hpp"

#include <oxide/cub.hpp>

namespace cub = oxide::cub;
using bench::kCollectiveBlock, bench::kSortItems, bench::kScanItems, bench::kHistogramItems;

using SortLoad = cub::BlockLoad<std::uint32_t, kCollectiveBlock, kSortItems, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
using Sort = cub::BlockRadixSort<std::uint32_t, kCollectiveBlock, kSortItems, std::uint32_t>;
using SortStore =
    cub::BlockStore<std::uint32_t, kCollectiveBlock, kSortItems, cub::BLOCK_STORE_WARP_TRANSPOSE>;
union SortStorage {
  SortLoad::TempStorage load;
  Sort::TempStorage sort;
  SortStore::TempStorage store;
};

[[kernel, oxide::launch_contract("domain = 1, block = 256, requires = (keys.size() == values.size(), "
                                 "keys.size() == sorted.size(), keys.size() == moved.size())")]] void
block_sort_pairs(oxide::Span<const std::uint32_t> keys, oxide::Span<const std::uint32_t> values,
                 oxide::DisjointSpan<std::uint32_t> sorted, oxide::DisjointSpan<std::uint32_t> moved) {
  const auto i = oxide::thread::index_1d();
  auto &storage = oxide::shared_object<SortStorage>();
  const std::size_t offset = oxide::block::index().get() * kCollectiveBlock * kSortItems;
  std::uint32_t k[kSortItems], v[kSortItems];
  SortLoad(storage.load).Load(keys, offset, k);
  oxide::sync_threads();
  SortLoad(storage.load).Load(values, offset, v);
  oxide::sync_threads();
  Sort(storage.sort).Sort(k, v);
  oxide::sync_threads();
  SortStore(storage.store).Store(sorted, i, k);
  oxide::sync_threads();
  SortStore(storage.store).Store(moved, i, v);
}

using ScanLoad = cub::BlockLoad<std::int32_t, kCollectiveBlock, kScanItems, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
using Scan = cub::BlockScan<std::int32_t, kCollectiveBlock, cub::BLOCK_SCAN_WARP_SCANS>;
using ScanStore =
    cub::BlockStore<std::int32_t, kCollectiveBlock, kScanItems, cub::BLOCK_STORE_WARP_TRANSPOSE>;
union ScanStorage {
  ScanLoad::TempStorage load;
  Scan::TempStorage scan;
  ScanStore::TempStorage store;
};

[[kernel, oxide::launch_contract("domain = 1, block = 256, requires = (in.size() == out.size())")]] void
block_scan_tiles(oxide::Span<const std::int32_t> in, oxide::DisjointSpan<std::int32_t> out,
                 oxide::DisjointSpan<std::int32_t> totals) {
  const auto i = oxide::thread::index_1d();
  auto &storage = oxide::shared_object<ScanStorage>();
  std::int32_t v[kScanItems], total = 0;
  ScanLoad(storage.load).Load(in, oxide::block::index().get() * kCollectiveBlock * kScanItems, v);
  oxide::sync_threads();
  Scan(storage.scan).ExclusiveSum(v, v, total);
  oxide::sync_threads();
  ScanStore(storage.store).Store(out, i, v);
  if (std::int32_t *t = totals.get_mut(oxide::block::index()))
    *t = total;
}

using HistogramLoad =
    cub::BlockLoad<std::uint8_t, kCollectiveBlock, kHistogramItems, cub::BLOCK_LOAD_STRIPED>;
using Histogram =
    cub::BlockHistogram<std::uint8_t, kCollectiveBlock, kHistogramItems, 256, cub::BLOCK_HISTO_ATOMIC>;

// Each block counts its tiles (a block-stride loop) into shared bins; row b of `rows` is block b's.
[[kernel, oxide::launch_contract("domain = 1, block = 256")]] void
block_histogram(oxide::Span<const std::uint8_t> in, oxide::DisjointSpan2D<std::uint32_t> rows) {
  constexpr std::size_t kTile = kCollectiveBlock * kHistogramItems;
  auto bins = oxide::shared_array<std::uint32_t, 256>();
  Histogram().InitHistogram(bins);
  oxide::sync_threads();
  for (const auto &tile : oxide::block::block_stride(in.size() / kTile)) {
    std::uint8_t v[kHistogramItems];
    HistogramLoad().Load(in, tile.get() * kTile, v);
    Histogram().Composite(v, bins);
  }
  oxide::sync_threads();
  if (std::uint32_t *o = rows.row_mut(oxide::block::index()).get_mut(0))
    *o = bins[oxide::thread_idx().x];
}

int main(int argc, char **argv) try {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : std::size_t{1} << 24;
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  bench::EventTimer timer(ctx);
  const std::string size = std::to_string(n);

  { // tiles of pairs sorted
    const std::size_t tile = kCollectiveBlock * kSortItems;
    const std::vector<std::uint32_t> host = bench::block_sort_keys(n);
    std::vector<std::uint32_t> positions(n);
    std::iota(positions.begin(), positions.end(), 0U);
    auto keys = oxide::DeviceBuffer<std::uint32_t>::from_host(stream, host);
    auto values = oxide::DeviceBuffer<std::uint32_t>::from_host(stream, positions);
    auto sorted = oxide::DeviceBuffer<std::uint32_t>::uninitialized(stream, n);
    auto moved = oxide::DeviceBuffer<std::uint32_t>::uninitialized(stream, n);
    bench::poison(timer, stream, sorted);
    bench::poison(timer, stream, moved);
    auto launch = oxide::prepare(ctx, block_sort_pairs,
                                 oxide::LaunchConfig1D{std::uint32_t(n / tile), kCollectiveBlock});
    const float ms = timer.median_ms(stream, [&](int) { launch(stream, keys, values, sorted, moved); });
    const bool ok = bench::tiles_sorted_right("block_radix_sort", host, tile, sorted.to_host(stream),
                                              moved.to_host(stream));
    bench::report("block_radix_sort", size, "bytes", double(n * 16), ms, ok, "safe");
  }
  { // tiles of ints scanned
    const std::size_t count = 4 * n, tile = kCollectiveBlock * kScanItems;
    const std::vector<std::int32_t> host = bench::block_scan_input(count);
    auto in = oxide::DeviceBuffer<std::int32_t>::from_host(stream, host);
    auto out = oxide::DeviceBuffer<std::int32_t>::uninitialized(stream, count);
    auto totals = oxide::DeviceBuffer<std::int32_t>::uninitialized(stream, count / tile);
    bench::poison(timer, stream, out);
    bench::poison(timer, stream, totals);
    auto launch = oxide::prepare(ctx, block_scan_tiles,
                                 oxide::LaunchConfig1D{std::uint32_t(count / tile), kCollectiveBlock});
    const float ms = timer.median_ms(stream, [&](int) { launch(stream, in, out, totals); });
    const bool ok =
        bench::tiles_scanned_right("block_scan", host, tile, out.to_host(stream), totals.to_host(stream));
    bench::report("block_scan", std::to_string(count), "bytes", double(count * 8), ms, ok, "safe");
  }
  { // a histogram of bytes
    const std::size_t count = 16 * n;
    const std::vector<std::uint8_t> host = bench::histogram_bytes(count);
    const std::uint32_t blocks = std::uint32_t(ctx.device().sm_count()) * 8;
    auto in = oxide::DeviceBuffer<std::uint8_t>::from_host(stream, host);
    auto rows = oxide::DeviceBuffer<std::uint32_t>::uninitialized(stream, std::size_t{blocks} * 256);
    bench::poison(timer, stream, rows);
    auto launch = oxide::prepare(ctx, block_histogram, oxide::LaunchConfig1D{blocks, kCollectiveBlock});
    const float ms = timer.median_ms(stream, [&](int) { launch(stream, in, rows.view_2d(256, blocks)); });
    const bool ok = bench::histograms_right("block_histogram", host, rows.to_host(stream));
    bench::report("block_histogram", std::to_string(count), "bytes", double(count), ms, ok, "safe");
  }
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "cub_block_oxide: %s\n", e.what());
  return 1;
}
