// How fast the CPU simulator runs two typical kernels: a 2^22-element vecadd (one fiber per
// block, no waiting) and a 256x256 SGEMM tiled through shared memory (two barriers per tile, so
// every thread is suspended and resumed 32 times), under a contract and, as a baseline, in the
// unsafe tier.
//
//   build/bin/oxide_sim_benchmark [repetitions]
#include <oxide/oxide.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <vector>

namespace {

constexpr std::uint32_t kTile = 16;

void vecadd(oxide::Span<const float> a, oxide::Span<const float> b, oxide::DisjointSpan<float> c) {
  const auto idx = oxide::thread::index_1d();
  if (float *out = c.get_mut(idx))
    *out = a[idx.get()] + b[idx.get()];
}

/// C = A * B for n x n row-major matrices, n a multiple of kTile; one thread per element of C,
/// written through the thread's 2-D witness (column x, row y), so it runs under a contract.
void sgemm(std::uint32_t n, oxide::Span<const float> a, oxide::Span<const float> b,
           oxide::DisjointSpan2D<float> c) {
  auto tile_a = oxide::shared_array<float, kTile * kTile>();
  auto tile_b = oxide::shared_array<float, kTile * kTile>();
  const oxide::Dim3 t = oxide::thread_idx(), blk = oxide::block_idx();
  const std::uint32_t row = blk.y * kTile + t.y, col = blk.x * kTile + t.x;
  float sum = 0.0f;
  for (std::uint32_t k0 = 0; k0 < n; k0 += kTile) {
    tile_a[t.y * kTile + t.x] = a[row * n + k0 + t.x];
    tile_b[t.y * kTile + t.x] = b[(k0 + t.y) * n + col];
    oxide::sync_threads();
    for (std::uint32_t k = 0; k < kTile; ++k)
      sum += tile_a[t.y * kTile + k] * tile_b[k * kTile + t.x];
    oxide::sync_threads();
  }
  if (float *out = c.get_mut(oxide::thread::index_2d()))
    *out = sum;
}

/// Baseline: the same kernel in the unsafe tier (C a mutable Span written at row * n + col, no
/// contract, oxide::unsafe_launch), to compare what the two tiers cost on the simulator.
void sgemm_unsafe(std::uint32_t n, oxide::Span<const float> a, oxide::Span<const float> b,
                  oxide::Span<float> c) {
  auto tile_a = oxide::shared_array<float, kTile * kTile>();
  auto tile_b = oxide::shared_array<float, kTile * kTile>();
  const oxide::Dim3 t = oxide::thread_idx(), blk = oxide::block_idx();
  const std::uint32_t row = blk.y * kTile + t.y, col = blk.x * kTile + t.x;
  float sum = 0.0f;
  for (std::uint32_t k0 = 0; k0 < n; k0 += kTile) {
    tile_a[t.y * kTile + t.x] = a[row * n + k0 + t.x];
    tile_b[t.y * kTile + t.x] = b[(k0 + t.y) * n + col];
    oxide::sync_threads();
    for (std::uint32_t k = 0; k < kTile; ++k)
      sum += tile_a[t.y * kTile + k] * tile_b[k * kTile + t.x];
    oxide::sync_threads();
  }
  c[row * n + col] = sum;
}

/// The median wall time of `repetitions` runs of `body`, in milliseconds.
template <class F> double median_ms(int repetitions, F body) {
  std::vector<double> times;
  for (int i = 0; i < repetitions; ++i) {
    const auto start = std::chrono::steady_clock::now();
    body();
    times.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

} // namespace

int main(int argc, char **argv) try {
  const int repetitions = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  oxide::sim::register_kernel(vecadd, "vecadd",
                              "domain = 1, requires = (a.size() == c.size(), b.size() == c.size())",
                              {"a", "b", "c"});
  oxide::sim::register_kernel(
      sgemm, "sgemm",
      "domain = 2, block = (16, 16), requires = (a.size() == n * n, b.size() == n * n, c.size() == n * n)",
      {"n", "a", "b", "c"});
  oxide::sim::register_kernel(sgemm_unsafe, "sgemm_unsafe"); // a mutable Span: no contract
  auto ctx = oxide::Context::cpu();
  auto stream = ctx.default_stream();
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::printf("%s, %d host threads, median of %d runs\n", ctx.device().name().c_str(),
              ctx.device().sm_count(), repetitions);

  const std::size_t n = std::size_t{1} << 22;
  std::vector<float> ha(n), hb(n);
  for (std::size_t i = 0; i < n; ++i) {
    ha[i] = dist(rng);
    hb[i] = dist(rng);
  }
  auto a = oxide::DeviceBuffer<float>::from_host(stream, ha);
  auto b = oxide::DeviceBuffer<float>::from_host(stream, hb);
  auto c = oxide::DeviceBuffer<float>::uninitialized(stream, n);
  auto add = oxide::prepare(ctx, vecadd, oxide::LaunchConfig1D::for_elements(n));
  const double vecadd_ms = median_ms(repetitions, [&] { add(stream, a, b, c); });
  const auto hc = c.to_host(stream);
  for (std::size_t i = 0; i < n; ++i)
    if (hc[i] != ha[i] + hb[i]) {
      std::printf("FAIL: vecadd element %zu\n", i);
      return 1;
    }
  std::printf("vecadd 2^22 elements:  %8.1f ms\n", vecadd_ms);

  const std::uint32_t m = 256;
  std::vector<float> ma(m * m), mb(m * m);
  for (auto &v : ma)
    v = dist(rng);
  for (auto &v : mb)
    v = dist(rng);
  auto da = oxide::DeviceBuffer<float>::from_host(stream, ma);
  auto db = oxide::DeviceBuffer<float>::from_host(stream, mb);
  const auto gemm = oxide::LaunchConfig2D::for_elements(m, m, {kTile, kTile, 1});
  // Runs `launch` (writing dc), checks dc against the host and prints its median time.
  auto run_sgemm = [&](const char *label, auto &&launch) {
    auto dc = oxide::DeviceBuffer<float>::from_host(
        stream, std::vector<float>(m * m, std::numeric_limits<float>::quiet_NaN()));
    const double ms = median_ms(repetitions, [&] { launch(dc); });
    const auto hm = dc.to_host(stream);
    for (std::uint32_t i = 0; i < m; ++i)
      for (std::uint32_t j = 0; j < m; ++j) {
        double expected = 0;
        for (std::uint32_t k = 0; k < m; ++k)
          expected += double(ma[i * m + k]) * mb[k * m + j];
        if (!(std::abs(hm[i * m + j] - expected) <= 1e-3)) {
          std::printf("FAIL: %s element (%u, %u): %g, expected %g\n", label, i, j, hm[i * m + j], expected);
          return false;
        }
      }
    std::printf("%s %8.1f ms\n", label, ms);
    return true;
  };
  auto safe_gemm = oxide::prepare(ctx, sgemm, gemm);
  if (!run_sgemm("sgemm 256x256 (tiled):",
                 [&](oxide::DeviceBuffer<float> &dc) { safe_gemm(stream, m, da, db, dc.view_2d(m, m)); }))
    return 1;
  if (!run_sgemm("sgemm_unsafe (same):  ", [&](oxide::DeviceBuffer<float> &dc) {
        oxide::unsafe_launch(stream, sgemm_unsafe, gemm, m, da, db, dc);
      }))
    return 1;
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
