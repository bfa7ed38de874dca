// The twin of cub_block_oxide.cpp: the same kernels written with NVIDIA's CUB block collectives,
// as the CUB documentation writes them, compiled by nvcc.
#include "bench_cuda.cuh"
#include "cub_block_check.hpp"

#include <cub/block/block_histogram.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>

using bench::kCollectiveBlock, bench::kSortItems, bench::kScanItems, bench::kHistogramItems;

using SortLoad = cub::BlockLoad<std::uint32_t, kCollectiveBlock, kSortItems, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
using Sort = cub::BlockRadixSort<std::uint32_t, kCollectiveBlock, kSortItems, std::uint32_t>;
using SortStore =
    cub::BlockStore<std::uint32_t, kCollectiveBlock, kSortItems, cub::BLOCK_STORE_WARP_TRANSPOSE>;

__global__ void __launch_bounds__(kCollectiveBlock)
    block_sort_pairs(const std::uint32_t *keys, const std::uint32_t *values, std::uint32_t *sorted,
                     std::uint32_t *moved) {
  __shared__ union {
    SortLoad::TempStorage load;
    Sort::TempStorage sort;
    SortStore::TempStorage store;
  } storage;
  const std::size_t offset = std::size_t{blockIdx.x} * kCollectiveBlock * kSortItems;
  std::uint32_t k[kSortItems], v[kSortItems];
  SortLoad(storage.load).Load(keys + offset, k);
  __syncthreads();
  SortLoad(storage.load).Load(values + offset, v);
  __syncthreads();
  Sort(storage.sort).Sort(k, v);
  __syncthreads();
  SortStore(storage.store).Store(sorted + offset, k);
  __syncthreads();
  SortStore(storage.store).Store(moved + offset, v);
}

using ScanLoad = cub::BlockLoad<std::int32_t, kCollectiveBlock, kScanItems, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
using Scan = cub::BlockScan<std::int32_t, kCollectiveBlock, cub::BLOCK_SCAN_WARP_SCANS>;
using ScanStore =
    cub::BlockStore<std::int32_t, kCollectiveBlock, kScanItems, cub::BLOCK_STORE_WARP_TRANSPOSE>;

__global__ void __launch_bounds__(kCollectiveBlock)
    block_scan_tiles(const std::int32_t *in, std::int32_t *out, std::int32_t *totals) {
  __shared__ union {
    ScanLoad::TempStorage load;
    Scan::TempStorage scan;
    ScanStore::TempStorage store;
  } storage;
  const std::size_t offset = std::size_t{blockIdx.x} * kCollectiveBlock * kScanItems;
  std::int32_t v[kScanItems], total = 0;
  ScanLoad(storage.load).Load(in + offset, v);
  __syncthreads();
  Scan(storage.scan).ExclusiveSum(v, v, total);
  __syncthreads();
  ScanStore(storage.store).Store(out + offset, v);
  if (threadIdx.x == 0)
    totals[blockIdx.x] = total;
}

using HistogramLoad =
    cub::BlockLoad<std::uint8_t, kCollectiveBlock, kHistogramItems, cub::BLOCK_LOAD_STRIPED>;
using Histogram =
    cub::BlockHistogram<std::uint8_t, kCollectiveBlock, kHistogramItems, 256, cub::BLOCK_HISTO_ATOMIC>;

__global__ void __launch_bounds__(kCollectiveBlock)
    block_histogram(const std::uint8_t *in, std::size_t count, std::uint32_t *rows) {
  constexpr std::size_t kTile = kCollectiveBlock * kHistogramItems;
  __shared__ std::uint32_t bins[256];
  __shared__ Histogram::TempStorage histogram_storage;
  __shared__ HistogramLoad::TempStorage load_storage;
  Histogram(histogram_storage).InitHistogram(bins);
  __syncthreads();
  for (std::size_t tile = blockIdx.x; tile < count / kTile; tile += gridDim.x) {
    std::uint8_t v[kHistogramItems];
    HistogramLoad(load_storage).Load(in + tile * kTile, v);
    Histogram(histogram_storage).Composite(v, bins);
  }
  __syncthreads();
  rows[std::size_t{blockIdx.x} * 256 + threadIdx.x] = bins[threadIdx.x];
}

int main(int argc, char **argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : std::size_t{1} << 24;
  bench::EventTimer timer;
  const std::string size = std::to_string(n);
  {
    const std::size_t tile = kCollectiveBlock * kSortItems;
    const std::vector<std::uint32_t> host = bench::block_sort_keys(n);
    std::vector<std::uint32_t> positions(n);
    std::iota(positions.begin(), positions.end(), 0U);
    bench::DeviceArray<std::uint32_t> keys(host), values(positions), sorted(n), moved(n);
    sorted.poison();
    moved.poison();
    const float ms = timer.median_ms([&](int) {
      block_sort_pairs<<<unsigned(n / tile), kCollectiveBlock>>>(keys.ptr, values.ptr, sorted.ptr, moved.ptr);
    });
    const bool ok =
        bench::tiles_sorted_right("block_radix_sort", host, tile, sorted.download(), moved.download());
    bench::report("block_radix_sort", size, "bytes", double(n * 16), ms, ok, "cuda");
  }
  {
    const std::size_t count = 4 * n, tile = kCollectiveBlock * kScanItems;
    const std::vector<std::int32_t> host = bench::block_scan_input(count);
    bench::DeviceArray<std::int32_t> in(host), out(count), totals(count / tile);
    out.poison();
    totals.poison();
    const float ms = timer.median_ms([&](int) {
      block_scan_tiles<<<unsigned(count / tile), kCollectiveBlock>>>(in.ptr, out.ptr, totals.ptr);
    });
    const bool ok = bench::tiles_scanned_right("block_scan", host, tile, out.download(), totals.download());
    bench::report("block_scan", std::to_string(count), "bytes", double(count * 8), ms, ok, "cuda");
  }
  {
    const std::size_t count = 16 * n;
    const std::vector<std::uint8_t> host = bench::histogram_bytes(count);
    const unsigned blocks = unsigned(bench::sm_count()) * 8;
    bench::DeviceArray<std::uint8_t> in(host);
    bench::DeviceArray<std::uint32_t> rows(std::size_t{blocks} * 256);
    rows.poison();
    const float ms =
        timer.median_ms([&](int) { block_histogram<<<blocks, kCollectiveBlock>>>(in.ptr, count, rows.ptr); });
    const bool ok = bench::histograms_right("block_histogram", host, rows.download());
    bench::report("block_histogram", std::to_string(count), "bytes", double(count), ms, ok, "cuda");
  }
  return 0;
}
