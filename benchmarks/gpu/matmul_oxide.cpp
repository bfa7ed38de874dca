// The textbook matrix products, C = A * B for n x n row-major floats (n = 2048 and 4096), as a
// user ports them from CUDA tutorials: `matmul_naive` (one thread per element of C, a loop over
// k reading A's row and B's column) and `matmul_tiled` (16 x 16 tiles of A and B through shared
// memory), both with `int` indices, and `matmul_naive_u32` with unsigned ones. The reads are
// Span's checked subscript, with no `if`: the checks of the k loops are tested once before the
// loop (oxide-loop-bounds-checks), except the tiled A read computed in 32-bit `int` arithmetic.
// Twin: matmul_cuda.cu.
//
//   matmul_oxide [n...]    prints RESULT lines (bench_common.hpp)
#include "bench_oxide.hpp"

#include <cstdint>
#include <cstdio>

constexpr int kTile = 16;

[[kernel, oxide::launch_contract("domain = 2, block = (16, 16)")]] void
matmul_naive(int n, oxide::Span<const float> a, oxide::Span<const float> b, oxide::DisjointSpan2D<float> c) {
  const auto t = oxide::thread::index_2d();
  const int row = int(t.y()), col = int(t.x());
  float sum = 0.0f;
  for (int k = 0; k < n; ++k)
    sum += a[row * n + k] * b[k * n + col];
  if (float *out = c.get_mut(t))
    *out = sum;
}

[[kernel, oxide::launch_contract("domain = 2, block = (16, 16)")]] void
matmul_naive_u32(std::uint32_t n, oxide::Span<const float> a, oxide::Span<const float> b,
                 oxide::DisjointSpan2D<float> c) {
  const auto t = oxide::thread::index_2d();
  float sum = 0.0f;
  for (std::uint32_t k = 0; k < n; ++k)
    sum += a[std::size_t{t.y()} * n + k] * b[std::size_t{k} * n + t.x()];
  if (float *out = c.get_mut(t))
    *out = sum;
}

[[kernel, oxide::launch_contract("domain = 2, block = (16, 16)")]] void
matmul_tiled(int n, oxide::Span<const float> a, oxide::Span<const float> b, oxide::DisjointSpan2D<float> c) {
  auto as = oxide::shared_array<float, kTile * kTile>();
  auto bs = oxide::shared_array<float, kTile * kTile>();
  const auto t = oxide::thread::index_2d();
  const int tx = int(oxide::thread_idx().x), ty = int(oxide::thread_idx().y);
  const int row = int(t.y()), col = int(t.x());
  float sum = 0.0f;
  for (int k0 = 0; k0 < n; k0 += kTile) {
    as[ty * kTile + tx] = a[row * n + k0 + tx];
    bs[ty * kTile + tx] = b[(k0 + ty) * n + col];
    oxide::sync_threads();
    for (int k = 0; k < kTile; ++k)
      sum += as[ty * kTile + k] * bs[k * kTile + tx];
    oxide::sync_threads();
  }
  if (float *out = c.get_mut(t))
    *out = sum;
}

int main(int argc, char **argv) try {
  std::vector<std::uint32_t> sizes;
  for (int arg = 1; arg < argc; ++arg)
    sizes.push_back(std::uint32_t(std::atoi(argv[arg])));
  if (sizes.empty())
    sizes = {2048, 4096};
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  bench::EventTimer timer(ctx);
  for (const std::uint32_t n : sizes) {
    const std::size_t nn = std::size_t{n} * n;
    const std::vector<float> ha = bench::uniform_vector(8, nn), hb = bench::uniform_vector(9, nn);
    auto a = oxide::DeviceBuffer<float>::from_host(stream, ha);
    auto b = oxide::DeviceBuffer<float>::from_host(stream, hb);
    auto c = oxide::DeviceBuffer<float>::uninitialized(stream, nn);
    const double flops = 2.0 * n * n * double(n);
    const oxide::LaunchConfig2D config{{n / kTile, n / kTile, 1}, {kTile, kTile, 1}};
    auto run = [&](const char *name, auto &&launch) {
      bench::poison(timer, stream, c);
      const float ms = timer.median_ms(stream, [&](int) { launch(); });
      bench::report(name, bench::dims(n, n), "flops", flops, ms,
                    bench::check_gemm(name, c.to_host(stream), ha, hb, n), "safe");
    };
    auto naive = oxide::prepare(ctx, matmul_naive, config);
    run("matmul_naive", [&] { naive(stream, int(n), a, b, c.view_2d(n, n)); });
    auto naive_u32 = oxide::prepare(ctx, matmul_naive_u32, config);
    run("matmul_naive_u32", [&] { naive_u32(stream, n, a, b, c.view_2d(n, n)); });
    auto tiled = oxide::prepare(ctx, matmul_tiled, config);
    run("matmul_tiled", [&] { tiled(stream, int(n), a, b, c.view_2d(n, n)); });
  }
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "matmul_oxide: %s\n", e.what());
  return 1;
}
