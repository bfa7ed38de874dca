// Sum reduction of 2^28 floats (1 GiB): a grid-stride loop per thread, then the block's sum
// (warp xor-shuffles, the warps' sums through shared memory: bench::block_sum), then one
// device-scope atomic add per block into an AtomicSpan; reduce_sum_f4 reads the same floats as
// Float4s (16-byte loads, four adds per load). Twin: reduce_cuda.cu.
//
//   reduce_oxide [floats, default 2^28]    prints RESULT lines (bench_common.hpp)
#include "bench_oxide.hpp"

#include <cstdint>
#include <cstdio>
#include <span>

constexpr std::uint32_t kBlock = 256;

// Every block adds its sum into one output element with a device-scope atomic: an AtomicSpan,
// which a contracted kernel may take (its elements are only ever updated atomically). Each timed
// call adds into its own slot (zeroed once), so no clearing launch runs between the repetitions.
[[kernel, oxide::launch_contract("domain = 1, block = 256")]] void
reduce_sum(oxide::Span<const float> in, oxide::AtomicSpan<float> sums, std::uint32_t slot) {
  float v = 0.0f;
  for (const auto &i : oxide::thread::grid_stride(in.size()))
    v += in[i.get()];
  v = bench::block_sum<kBlock>(v);
  if (oxide::thread_idx().x == 0)
    sums.fetch_add(slot, v);
}

struct alignas(16) Float4 {
  float x, y, z, w;
};

// The same sum with 16-byte loads: a quarter of the loop iterations, so more bytes in flight per
// thread (what a bandwidth-bound reduction needs to approach the copy bandwidth).
[[kernel, oxide::launch_contract("domain = 1, block = 256")]] void
reduce_sum_f4(oxide::Span<const Float4> in, oxide::AtomicSpan<float> sums, std::uint32_t slot) {
  float v = 0.0f;
  for (const auto &i : oxide::thread::grid_stride(in.size())) {
    const Float4 x = in[i.get()];
    v += (x.x + x.y) + (x.z + x.w);
  }
  v = bench::block_sum<kBlock>(v);
  if (oxide::thread_idx().x == 0)
    sums.fetch_add(slot, v);
}

// The same kernel in the unsafe tier, as it had to be written before AtomicSpan: a mutable Span
// updated through AtomicRef, no contract, oxide::unsafe_launch. Kept to compare the two tiers'
// code (reduce_sum_unsafe, a diagnostic row).
[[kernel, oxide::launch_bounds(256)]] void reduce_sum_unsafe(oxide::Span<const float> in,
                                                             oxide::Span<float> sums, std::uint32_t slot) {
  float v = 0.0f;
  for (const auto &i : oxide::thread::grid_stride(in.size()))
    v += in[i.get()];
  v = bench::block_sum<kBlock>(v);
  if (oxide::thread_idx().x == 0)
    oxide::AtomicRef<float, oxide::Scope::device>(sums[slot]).fetch_add(v);
}

int main(int argc, char **argv) try {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : std::size_t{1} << 28;
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  bench::EventTimer timer(ctx);
  const std::vector<float> host = bench::uniform_vector(4, n);
  double want = 0, scale = 0;
  for (float x : host) {
    want += x;
    scale += std::fabs(x);
  }
  auto in = oxide::DeviceBuffer<float>::from_host(stream, host);
  const oxide::LaunchConfig1D config{std::uint32_t(ctx.device().sm_count()) * 8, kBlock};
  auto run = [&](const char *name, const char *api, auto &&launch) {
    auto sums = oxide::DeviceBuffer<float>::zeroed(stream, bench::kWarmups + bench::reps());
    const float ms = timer.median_ms(stream, [&](int call) { launch(sums, std::uint32_t(call)); });
    bool ok = true;
    int slot = 0;
    for (float got : sums.to_host(stream)) {
      if (!bench::close(got, want, scale)) {
        if (ok)
          bench::mismatch(name, slot, got, want);
        ok = false;
      }
      ++slot;
    }
    bench::report(name, std::to_string(n), "bytes", double(n * sizeof(float)), ms, ok, api);
  };
  auto safe = oxide::prepare(ctx, reduce_sum, config);
  run("reduce_sum", "safe",
      [&](oxide::DeviceBuffer<float> &sums, std::uint32_t slot) { safe(stream, in, sums, slot); });
  run("reduce_sum_unsafe", "unsafe", [&](oxide::DeviceBuffer<float> &sums, std::uint32_t slot) {
    oxide::unsafe_launch(stream, reduce_sum_unsafe, config, in, sums, slot);
  });
  if (n % 4 == 0) {
    const std::span<const Float4> host4(reinterpret_cast<const Float4 *>(host.data()), n / 4);
    auto in4 = oxide::DeviceBuffer<Float4>::from_host(stream, host4);
    auto safe4 = oxide::prepare(ctx, reduce_sum_f4, config);
    run("reduce_sum_f4", "safe",
        [&](oxide::DeviceBuffer<float> &sums, std::uint32_t slot) { safe4(stream, in4, sums, slot); });
  }
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "reduce_oxide: %s\n", e.what());
  return 1;
}
