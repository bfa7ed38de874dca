// CUB's device-wide algorithms through oxide::cub (include/oxide/cub.hpp: CUB compiled by Oxide's
// clang, temporary storage from the stream's pool) against the same calls compiled by nvcc
// (cub_cuda.cu): DeviceRadixSort of 2^28 uint32 keys, alone and with uint32 values, and
// DeviceScan::InclusiveSum of 2^28 uint32. Checked by order and multiset hashes (cub_check.hpp).
//
//   cub_oxide [keys, default 2^28]    prints RESULT lines (bench_common.hpp)
#include "bench_oxide.hpp"
#include "cub_check.hpp"

#include <oxide/cub.hpp>

#include <numeric>

int main(int argc, char **argv) try {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : std::size_t{1} << 28;
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  bench::EventTimer timer(ctx);
  const std::vector<std::uint32_t> host = bench::cub_keys(n);
  std::vector<std::uint32_t> positions(n);
  std::iota(positions.begin(), positions.end(), 0U);
  auto keys = oxide::DeviceBuffer<std::uint32_t>::from_host(stream, host);
  auto values = oxide::DeviceBuffer<std::uint32_t>::from_host(stream, positions);
  auto keys_out = oxide::DeviceBuffer<std::uint32_t>::uninitialized(stream, n);
  auto values_out = oxide::DeviceBuffer<std::uint32_t>::uninitialized(stream, n);
  const std::string size = std::to_string(n);

  bench::poison(timer, stream, keys_out);
  float ms = timer.median_ms(stream, [&](int) { oxide::cub::sort(stream, keys, keys_out); });
  bool ok = bench::sorted_right("cub_sort_keys", host, keys_out.to_host(stream), nullptr);
  bench::report("cub_sort_keys", size, "bytes", double(n * 4), ms, ok, "safe");

  bench::poison(timer, stream, keys_out);
  bench::poison(timer, stream, values_out);
  ms = timer.median_ms(stream,
                       [&](int) { oxide::cub::sort_pairs(stream, keys, keys_out, values, values_out); });
  const std::vector<std::uint32_t> moved = values_out.to_host(stream);
  ok = bench::sorted_right("cub_sort_pairs", host, keys_out.to_host(stream), &moved);
  bench::report("cub_sort_pairs", size, "bytes", double(n * 8), ms, ok, "safe");

  bench::poison(timer, stream, keys_out);
  ms = timer.median_ms(stream, [&](int) { oxide::cub::inclusive_sum(stream, keys, keys_out); });
  ok = bench::scan_right("cub_inclusive_sum", host, keys_out.to_host(stream));
  bench::report("cub_inclusive_sum", size, "bytes", double(n * 8), ms, ok, "safe");
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "cub_oxide: %s\n", e.what());
  return 1;
}
