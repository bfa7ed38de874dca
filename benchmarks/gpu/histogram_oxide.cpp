// 256-bin histogram of 2^30 random bytes (1 GiB), read as 32-bit words in a grid-stride loop:
// each block counts into its own bins in shared memory with block-scope atomics, then adds them
// to the global bins (an AtomicSpan) with one device-scope atomic per bin. Twin: histogram_cuda.cu.
//
//   histogram_oxide [bytes, a multiple of 4, default 2^30]    prints RESULT lines
#include "bench_oxide.hpp"

#include <cstdint>
#include <cstdio>

constexpr std::uint32_t kBins = 256;
constexpr std::uint32_t kBlock = 256;

// Each block's shared bins are block-local scratch updated with block-scope atomics (allowed in
// both tiers); the global bins are an AtomicSpan, which a contracted kernel may take. Call `slot`
// counts into bins[slot * 256 .. slot * 256 + 255] (zeroed once), so no clearing launch runs
// between the repetitions.
[[kernel, oxide::launch_contract("domain = 1, block = 256")]] void
histogram(oxide::Span<const std::uint32_t> words, oxide::AtomicSpan<std::uint32_t> bins, std::uint32_t slot) {
  auto local = oxide::shared_array<std::uint32_t, kBins>();
  const std::uint32_t t = oxide::thread_idx().x;
  local[t] = 0; // kBlock == kBins: one bin per thread
  oxide::sync_threads();
  for (const auto &i : oxide::thread::grid_stride(words.size())) {
    const std::uint32_t w = words[i.get()];
    for (std::uint32_t byte = 0; byte < 4; ++byte)
      oxide::AtomicRef<std::uint32_t, oxide::Scope::block>(local[(w >> (8 * byte)) & 0xff]).fetch_add(1);
  }
  oxide::sync_threads();
  if (const std::uint32_t count = local[t])
    bins.fetch_add(std::size_t{slot} * kBins + t, count);
}

// Lane-private bins (the classic form for skewed data): 32 copies of the 256 bins per block in
// shared memory, bin b of lane l at b * 32 + l, so the lanes of a warp never collide on a word
// and each lane's 32 copies sit in distinct banks. The merge reads lane (l + t) % 32 first so the
// 32 threads of a warp start on 32 different banks, then one device-scope atomic per bin.
[[kernel, oxide::launch_contract("domain = 1, block = 256")]] void
histogram_lanes(oxide::Span<const std::uint32_t> words, oxide::AtomicSpan<std::uint32_t> bins,
                std::uint32_t slot) {
  auto local = oxide::shared_array<std::uint32_t, kBins * 32>();
  const std::uint32_t t = oxide::thread_idx().x;
  const std::uint32_t lane = t % 32;
  for (std::uint32_t k = t; k < kBins * 32; k += kBlock)
    local[k] = 0;
  oxide::sync_threads();
  for (const auto &i : oxide::thread::grid_stride(words.size())) {
    const std::uint32_t w = words[i.get()];
    for (std::uint32_t byte = 0; byte < 4; ++byte)
      oxide::AtomicRef<std::uint32_t, oxide::Scope::block>(local[((w >> (8 * byte)) & 0xff) * 32 + lane])
          .fetch_add(1);
  }
  oxide::sync_threads();
  std::uint32_t count = 0;
  for (std::uint32_t l = 0; l < 32; ++l)
    count += local[t * 32 + (l + t) % 32];
  if (count != 0)
    bins.fetch_add(std::size_t{slot} * kBins + t, count);
}

// The same kernel in the unsafe tier, as it had to be written before AtomicSpan: the global bins
// a mutable Span updated through AtomicRef, no contract, oxide::unsafe_launch. Kept to compare
// the two tiers' code (histogram_unsafe, a diagnostic row).
[[kernel, oxide::launch_bounds(256)]] void histogram_unsafe(oxide::Span<const std::uint32_t> words,
                                                            oxide::Span<std::uint32_t> bins,
                                                            std::uint32_t slot) {
  auto local = oxide::shared_array<std::uint32_t, kBins>();
  const std::uint32_t t = oxide::thread_idx().x;
  local[t] = 0;
  oxide::sync_threads();
  for (const auto &i : oxide::thread::grid_stride(words.size())) {
    const std::uint32_t w = words[i.get()];
    for (std::uint32_t byte = 0; byte < 4; ++byte)
      oxide::AtomicRef<std::uint32_t, oxide::Scope::block>(local[(w >> (8 * byte)) & 0xff]).fetch_add(1);
  }
  oxide::sync_threads();
  if (const std::uint32_t count = local[t])
    oxide::AtomicRef<std::uint32_t, oxide::Scope::device>(bins[std::size_t{slot} * kBins + t])
        .fetch_add(count);
}

int main(int argc, char **argv) try {
  const std::size_t bytes = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : std::size_t{1} << 30;
  const std::size_t n = bytes / 4;
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  bench::EventTimer timer(ctx);
  std::vector<std::uint32_t> host(n);
  for (std::size_t i = 0; i < n; ++i)
    host[i] = std::uint32_t(bench::mix(i));
  std::vector<std::uint64_t> want(kBins, 0);
  for (std::uint32_t w : host)
    for (int byte = 0; byte < 4; ++byte)
      ++want[(w >> (8 * byte)) & 0xff];
  auto words = oxide::DeviceBuffer<std::uint32_t>::from_host(stream, host);
  const int calls = bench::kWarmups + bench::reps();
  const oxide::LaunchConfig1D config{std::uint32_t(ctx.device().sm_count()) * 8, kBlock};
  auto run = [&](const char *name, const char *api, auto &&launch) {
    auto bins = oxide::DeviceBuffer<std::uint32_t>::zeroed(stream, std::size_t{kBins} * calls);
    const float ms = timer.median_ms(stream, [&](int call) { launch(bins, std::uint32_t(call)); });
    const std::vector<std::uint32_t> got = bins.to_host(stream);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < got.size(); ++i)
      if (got[i] != want[i % kBins] && bad++ < 3)
        bench::mismatch(name, i, got[i], double(want[i % kBins]));
    bench::report(name, std::to_string(n * 4), "bytes", double(n * 4), ms, bad == 0, api);
  };
  auto safe = oxide::prepare(ctx, histogram, config);
  run("histogram", "safe",
      [&](oxide::DeviceBuffer<std::uint32_t> &bins, std::uint32_t slot) { safe(stream, words, bins, slot); });
  auto lanes = oxide::prepare(ctx, histogram_lanes, config);
  run("histogram_lanes", "safe", [&](oxide::DeviceBuffer<std::uint32_t> &bins, std::uint32_t slot) {
    lanes(stream, words, bins, slot);
  });
  run("histogram_unsafe", "unsafe", [&](oxide::DeviceBuffer<std::uint32_t> &bins, std::uint32_t slot) {
    oxide::unsafe_launch(stream, histogram_unsafe, config, words, bins, slot);
  });
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "histogram_oxide: %s\n", e.what());
  return 1;
}
