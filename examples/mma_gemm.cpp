// mma_gemm: C = A * B with bf16 inputs and f32 accumulation on the tensor cores (mma.sync), the
// tiles of A and B streamed into shared memory by cp.async in a pipeline of stages and read into
// fragments by ldmatrix; the kernel is mma_gemm.hpp's, a safe kernel with a launch contract whose
// threads write their own 8 x 8 tiles of C. Checks every element against a double-precision
// product of the same bf16 values, and prints TFLOP/s (informational; the simulator's figure says
// nothing about a GPU). Needs sm_80 or newer.
//
//   oxcc run examples/mma_gemm.cpp
#include "mma_gemm.hpp"

#include "problem_size.hpp"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

int main() try {
  using mma_gemm::bf16;
  using mma_gemm::Float4;
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  // The simulator runs each mma.sync as 32 fibers exchanging their fragments: a small product
  // there and under compute-sanitizer (OXIDE_EXAMPLE_SMALL), with the small problem's kernel.
  const bool small = example::small_problem(ctx);
  const std::uint32_t m = small ? 256 : 4096, n = small ? 128 : 4096, k = small ? 96 : 4096;
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<bf16> ha(std::size_t{m} * k), hb(std::size_t{k} * n);
  for (auto *v : {&ha, &hb})
    for (bf16 &x : *v)
      x = oxide::to_bfloat16(dist(rng));

  auto a = oxide::DeviceBuffer<bf16>::from_host(stream, ha);
  auto b = oxide::DeviceBuffer<bf16>::from_host(stream, hb);
  // Poisoned with NaN so an element the kernel never wrote cannot pass the check.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto c = oxide::DeviceBuffer<Float4>::from_host(
      stream, std::vector<Float4>(std::size_t{m} * n / 4, Float4{nan, nan, nan, nan}));
  // Two stages of 128 x 128 x 32 on the simulator (its small problem has few k steps); a GPU takes
  // three of 128 x 256 x 64 (benchmarks/gpu/mma_gemm_oxide.cpp).
  auto run = [&](auto kernel, const oxide::LaunchConfig2D &config) {
    auto launch = oxide::prepare(ctx, kernel, config);
    if (!small) { // one launch to warm up, then 20 timed up to a synchronize
      launch(stream, m, n, k, a, b, c.view_2d(n / 4, m));
      stream.synchronize();
    }
    const int reps = small ? 1 : 20;
    const auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r)
      launch(stream, m, n, k, a, b, c.view_2d(n / 4, m));
    stream.synchronize();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / reps;
  };
  const double seconds = small ? run(mma_gemm::gemm<2, 128, 2>, mma_gemm::config<2, 128>(m, n))
                               : run(mma_gemm::gemm<3, 256, 1, 64>, mma_gemm::config<3, 256, 64>(m, n));
  const std::vector<Float4> result4 = c.to_host(stream);
  const float *result = &result4[0].x;

  // The products of bf16 values are exact in f32; what differs from the double reference is the
  // f32 summation of k terms, whose rounding errors behave like independent zero-mean ones: below
  // 8 sqrt(k) u times the sum of the terms' magnitudes but with a probability of about 1e-14 (see
  // sgemm.cpp). The tensor cores' adders may drop bits below the largest term's, so 4x that.
  constexpr double u = std::numeric_limits<float>::epsilon() / 2;
  const double tolerance = 32.0 * std::sqrt(double(k)) * u;
  // On a GPU every 61st row (the check is O(m n k) on the host); all of them on the simulator.
  const std::uint32_t row_step = small ? 1 : 61;
  std::vector<double> dot(n), magnitude(n);
  std::size_t wrong = 0, checked = 0;
  for (std::uint32_t i = 0; i < m; i += row_step) {
    std::fill(dot.begin(), dot.end(), 0.0);
    std::fill(magnitude.begin(), magnitude.end(), 0.0);
    for (std::uint32_t p = 0; p < k; ++p) {
      const double aip = oxide::to_float(ha[std::size_t{i} * k + p]);
      const bf16 *brow = &hb[std::size_t{p} * n];
      for (std::uint32_t j = 0; j < n; ++j) {
        const double term = aip * oxide::to_float(brow[j]);
        dot[j] += term;
        magnitude[j] += std::fabs(term);
      }
    }
    for (std::uint32_t j = 0; j < n; ++j, ++checked) {
      const float got = result[std::size_t{i} * n + j];
      if (!(std::fabs(got - dot[j]) <= tolerance * magnitude[j]) && wrong++ < 5)
        std::printf("C[%u][%u]: got %.8g, expected %.8g\n", i, j, got, dot[j]);
    }
  }
  if (wrong != 0) {
    std::printf("FAIL: %zu of %zu checked elements wrong\n", wrong, checked);
    return 1;
  }
  std::printf("mma_gemm: C(%u x %u, f32) = A(%u x %u, bf16) * B(%u x %u, bf16), %zu elements checked, "
              "%.2f TFLOP/s on %s\nPASS\n",
              m, n, m, k, k, n, checked, 2.0 * m * n * k / seconds / 1e12, ctx.device().name().c_str());
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
