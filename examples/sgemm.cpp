// sgemm: C = alpha * A * B + beta * C in single precision, tiled through shared memory, for
// matrices whose sizes are not multiples of the tile (1000 x 513 times 513 x 777 on a GPU). A 2-D
// launch contract: one thread per element of C, written through its 2-D witness into a
// DisjointSpan2D. Each block walks along K one 32 x 32 tile of A and one of B at a time: its
// threads load both tiles (coalesced on a GPU, zeros past the edges), wait at a barrier, add the
// tile's 32 products to their own element, and wait again before the next tiles overwrite these.
// Prints the achieved GFLOP/s of a synchronised launch (informational: one output per thread and
// no register blocking is far from cuBLAS, and the simulator's figure says nothing about a GPU).
//
//   oxcc run examples/sgemm.cpp
#include <oxide/oxide.hpp>

#include "problem_size.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

constexpr std::uint32_t kTile = 32;

// A is m x k, B is k x n, C is m x n, all row-major. C is read from `c_in` and written to `c`:
// an output may not alias another argument, so the old C is a separate input buffer.
[[kernel, oxide::launch_contract("domain = 2, block = (32, 32), "
                                 "requires = (a.size() == m * k, b.size() == k * n, "
                                 "c_in.size() == m * n, c.size() == m * n)")]] void
sgemm(std::uint32_t m, std::uint32_t n, std::uint32_t k, float alpha, float beta, oxide::Span<const float> a,
      oxide::Span<const float> b, oxide::Span<const float> c_in, oxide::DisjointSpan2D<float> c) {
  auto tile_a = oxide::shared_array<float, std::size_t{kTile} * kTile>(); // [row in block][k in tile]
  auto tile_b = oxide::shared_array<float, std::size_t{kTile} * kTile>(); // [k in tile][column in block]
  const oxide::Dim3 t = oxide::thread_idx();
  const auto idx = oxide::thread::index_2d(); // x: column of C, y: row of C
  const std::size_t row = idx.y(), column = idx.x();
  float sum = 0.0f;
  // Every thread of the block takes part in every load and barrier, also those past the edge of
  // C: they load the zeros (or edge values) their neighbours need and write nothing.
  for (std::uint32_t k0 = 0; k0 < k; k0 += kTile) {
    const std::uint32_t ka = k0 + t.x, kb = k0 + t.y;
    tile_a[t.y * kTile + t.x] = row < m && ka < k ? a[row * k + ka] : 0.0f;
    tile_b[t.y * kTile + t.x] = kb < k && column < n ? b[std::size_t{kb} * n + column] : 0.0f;
    oxide::sync_threads(); // both tiles are loaded
    for (std::uint32_t kk = 0; kk < kTile; ++kk)
      sum += tile_a[t.y * kTile + kk] * tile_b[kk * kTile + t.x];
    oxide::sync_threads(); // every thread is done with the tiles before they are overwritten
  }
  if (float *element = c.get_mut(idx)) // nullptr past the edge of C
    *element = alpha * sum + beta * c_in[row * n + column];
}

int main() try {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  const bool simulator = example::small_problem(ctx);
  // None of the sizes is a multiple of the tile. The simulator runs every thread as a fiber that
  // is suspended twice per tile of K, so it gets an eighth of the work, to finish in a second.
  const std::uint32_t m = simulator ? 500 : 1000, n = simulator ? 389 : 777, k = simulator ? 257 : 513;
  const float alpha = 1.5f, beta = -0.5f;
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> ha(std::size_t{m} * k), hb(std::size_t{k} * n), hc(std::size_t{m} * n);
  for (auto *v : {&ha, &hb, &hc})
    for (float &x : *v)
      x = dist(rng);

  auto a = oxide::DeviceBuffer<float>::from_host(stream, ha);
  auto b = oxide::DeviceBuffer<float>::from_host(stream, hb);
  auto c_in = oxide::DeviceBuffer<float>::from_host(stream, hc);
  // Poisoned with NaN so an element the kernel never wrote cannot pass the check.
  auto c = oxide::DeviceBuffer<float>::from_host(
      stream, std::vector<float>(hc.size(), std::numeric_limits<float>::quiet_NaN()));
  const auto config = oxide::LaunchConfig2D::for_elements(n, m, {kTile, kTile, 1}); // x: columns, y: rows
  auto launch = oxide::prepare(ctx, sgemm, config);

  // On a GPU, one launch to warm up (first-launch costs), then 20 timed launches up to a
  // synchronize; the simulator has no warm-up to do and times one. Every launch computes the same
  // C from the same inputs, so the last one is checked.
  if (!simulator) {
    launch(stream, m, n, k, alpha, beta, a, b, c_in, c.view_2d(n, m));
    stream.synchronize();
  }
  const int reps = simulator ? 1 : 20;
  const auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r)
    launch(stream, m, n, k, alpha, beta, a, b, c_in, c.view_2d(n, m));
  stream.synchronize();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double gflops = 2.0 * m * n * k * reps / seconds / 1e9;
  const std::vector<float> result = c.to_host(stream);

  // The reference in double, with the magnitude |alpha| sum |a_ik b_kj| + |beta c_ij| that bounds
  // the rounding error. Each GPU thread adds its k products one after the other in float (FMAs on
  // the GPU), so its error is at most about k * u * magnitude (u = 2^-24, the unit roundoff of
  // float); that worst case needs every rounding to go the same way, and at k = 513 it is as large
  // as one missing product, so it would hide bugs. Roundings of random data behave like
  // independent zero-mean errors: the error then stays below lambda * sqrt(k) * u * magnitude
  // except with probability about 2 exp(-lambda^2 / 2) (Higham and Mary, "A new approach to
  // probabilistic rounding error analysis", 2019). lambda = 8 gives 3e-14 per element; the
  // epilogue (alpha * sum + beta * c) adds a few u more.
  constexpr double u = std::numeric_limits<float>::epsilon() / 2;
  const double tolerance = (8.0 * std::sqrt(double(k)) + 4.0) * u;
  std::vector<double> dot(n), magnitude(n);
  std::size_t wrong = 0;
  for (std::uint32_t i = 0; i < m; ++i) {
    std::fill(dot.begin(), dot.end(), 0.0);
    std::fill(magnitude.begin(), magnitude.end(), 0.0);
    for (std::uint32_t p = 0; p < k; ++p) {
      const double aip = ha[std::size_t{i} * k + p];
      const float *brow = &hb[std::size_t{p} * n];
      for (std::uint32_t j = 0; j < n; ++j) {
        dot[j] += aip * brow[j];
        magnitude[j] += std::fabs(aip * brow[j]);
      }
    }
    for (std::uint32_t j = 0; j < n; ++j) {
      const double old = hc[std::size_t{i} * n + j];
      const double expected = alpha * dot[j] + beta * old;
      const double bound = tolerance * (std::fabs(alpha) * magnitude[j] + std::fabs(beta * old));
      const float got = result[std::size_t{i} * n + j];
      if (!(std::fabs(got - expected) <= bound) && wrong++ < 5)
        std::printf("C[%u][%u]: got %.8g, expected %.8g (tolerance %.3g)\n", i, j, got, expected, bound);
    }
  }
  if (wrong != 0) {
    std::printf("FAIL: %zu of %zu elements wrong\n", wrong, result.size());
    return 1;
  }
  std::printf(
      "sgemm: C(%u x %u) = %g * A(%u x %u) * B(%u x %u) %+g * C in %u x %u tiles, %.2f GFLOP/s on %s\n"
      "PASS\n",
      m, n, alpha, m, k, k, n, beta, kTile, kTile, gflops, ctx.device().name().c_str());
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
