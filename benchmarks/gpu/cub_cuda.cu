// The twin of cub_oxide.cpp: the same CUB calls as a CUDA program makes them, compiled by nvcc,
// temporary storage allocated once.
#include "bench_cuda.cuh"
#include "cub_check.hpp"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <numeric>

int main(int argc, char **argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : std::size_t{1} << 28;
  const int count = static_cast<int>(n);
  bench::EventTimer timer;
  const std::vector<std::uint32_t> host = bench::cub_keys(n);
  std::vector<std::uint32_t> positions(n);
  std::iota(positions.begin(), positions.end(), 0U);
  bench::DeviceArray<std::uint32_t> keys(host), values(positions), keys_out(n), values_out(n);
  std::size_t bytes = 0, more = 0;
  CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, keys.ptr, keys_out.ptr, count));
  CHECK(cub::DeviceRadixSort::SortPairs(nullptr, more, keys.ptr, keys_out.ptr, values.ptr, values_out.ptr,
                                        count));
  bytes = std::max(bytes, more);
  CHECK(cub::DeviceScan::InclusiveSum(nullptr, more, keys.ptr, keys_out.ptr, count));
  bytes = std::max(bytes, more);
  bench::DeviceArray<unsigned char> temp(bytes);
  const std::string size = std::to_string(n);

  keys_out.poison();
  float ms = timer.median_ms([&](int) {
    std::size_t b = bytes;
    CHECK(cub::DeviceRadixSort::SortKeys(temp.ptr, b, keys.ptr, keys_out.ptr, count));
  });
  bool ok = bench::sorted_right("cub_sort_keys", host, keys_out.download(), nullptr);
  bench::report("cub_sort_keys", size, "bytes", double(n * 4), ms, ok, "cuda");

  keys_out.poison();
  values_out.poison();
  ms = timer.median_ms([&](int) {
    std::size_t b = bytes;
    CHECK(cub::DeviceRadixSort::SortPairs(temp.ptr, b, keys.ptr, keys_out.ptr, values.ptr, values_out.ptr,
                                          count));
  });
  const std::vector<std::uint32_t> moved = values_out.download();
  ok = bench::sorted_right("cub_sort_pairs", host, keys_out.download(), &moved);
  bench::report("cub_sort_pairs", size, "bytes", double(n * 8), ms, ok, "cuda");

  keys_out.poison();
  ms = timer.median_ms([&](int) {
    std::size_t b = bytes;
    CHECK(cub::DeviceScan::InclusiveSum(temp.ptr, b, keys.ptr, keys_out.ptr, count));
  });
  ok = bench::scan_right("cub_inclusive_sum", host, keys_out.download());
  bench::report("cub_inclusive_sum", size, "bytes", double(n * 8), ms, ok, "cuda");
  return 0;
}
