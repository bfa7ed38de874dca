// histogram: counts of each byte value in 2^22 random bytes. Each block counts into its own 256
// bins in shared memory with block-scope atomics (cheap: only the block's threads contend), then
// adds its bins to the global histogram (an AtomicSpan) with device-scope atomics, once per bin.
//
//   oxcc run examples/histogram.cpp
#include <oxide/oxide.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

constexpr std::uint32_t kBins = 256;

// Safe: the global bins are an AtomicSpan, an output every thread may update through atomics
// only (there is no plain reference to a bin), so a contracted kernel may take it. The shared
// bins are block-local scratch, updated with block-scope atomics.
[[kernel, oxide::launch_contract("domain = 1, block = 256")]] void
histogram(oxide::Span<const std::uint8_t> data, oxide::AtomicSpan<std::uint32_t> bins) {
  auto local = oxide::shared_array<std::uint32_t, kBins>();
  const std::uint32_t t = oxide::thread_idx().x, threads = oxide::block_dim().x;
  for (std::uint32_t bin = t; bin < kBins; bin += threads)
    local[bin] = 0; // shared memory starts uninitialised
  oxide::sync_threads();
  // A grid-stride loop: a fixed number of blocks covers any input size.
  for (const auto &i : oxide::thread::grid_stride(data.size()))
    oxide::AtomicRef<std::uint32_t, oxide::Scope::block>(local[data[i.get()]]).fetch_add(1);
  oxide::sync_threads(); // the block's counts are complete
  for (std::uint32_t bin = t; bin < kBins; bin += threads)
    if (const std::uint32_t count = local[bin])
      bins.fetch_add(bin, count); // device scope: every block adds into the same bins
}

int main() try {
  constexpr std::size_t n = std::size_t{1} << 22;
  std::mt19937 rng(std::random_device{}());
  // The smaller of two uniform bytes: skewed towards 0, so bins range from busy to nearly empty.
  std::uniform_int_distribution<int> dist(0, 255);
  std::vector<std::uint8_t> host(n);
  for (auto &byte : host)
    byte = static_cast<std::uint8_t>(std::min(dist(rng), dist(rng)));

  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  auto data = oxide::DeviceBuffer<std::uint8_t>::from_host(stream, host);
  auto bins = oxide::DeviceBuffer<std::uint32_t>::zeroed(stream, kBins); // the atomics add to zero
  auto count = oxide::prepare(ctx, histogram, oxide::LaunchConfig1D{64, 256});
  count(stream, data, bins);
  const std::vector<std::uint32_t> counts = bins.to_host(stream);

  std::vector<std::uint32_t> expected(kBins, 0);
  for (const std::uint8_t byte : host)
    ++expected[byte];
  std::size_t wrong = 0, total = 0;
  for (std::uint32_t bin = 0; bin < kBins; ++bin) {
    total += counts[bin];
    if (counts[bin] != expected[bin] && wrong++ < 5)
      std::printf("bin %u: got %u, expected %u\n", bin, counts[bin], expected[bin]);
  }
  if (wrong != 0 || total != n) {
    std::printf("FAIL: %zu of %u bins wrong, %zu of %zu bytes counted\n", wrong, kBins, total, n);
    return 1;
  }
  std::printf("histogram: %zu bytes in %u bins on %s\nPASS\n", n, kBins, ctx.device().name().c_str());
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
