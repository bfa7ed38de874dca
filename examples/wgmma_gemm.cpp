// Matrix products on Hopper's warpgroup tensor cores, C = A * W^T as a linear layer computes it
// (examples/wgmma_gemm.hpp: TMA, mbarriers, a producer warpgroup and two wgmma consumers, the
// output written from the accumulators in the safe tier), with bf16, tf32 and FP8 (e4m3)
// multiplicands, bf16 with a fused bias + GELU epilogue, bf16 launched persistent (a block per
// multiprocessor taking several tiles), and C = A * B for a row-major k x n B
// that the tensor cores read as it is (MN-major, no transpose); each checked against a
// double-precision product on the host. The sizes are not multiples of the tiles: the copy
// engine's zero fill and the output's edges are part of the test.
//
//   oxcc run examples/wgmma_gemm.cpp      (a GPU of compute capability 9.0, or the simulator)
#include "wgmma_gemm.hpp"

#include "problem_size.hpp"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using wgmma_gemm::bf16;
using wgmma_gemm::from_float;
using wgmma_gemm::value;

struct Problem {
  oxide::Context &ctx;
  oxide::Stream &stream;
  std::uint32_t m, n, k;
  bool small;
};

/// Which kernel: C = A W^T, GELU(A W^T + bias), or A B with B = W^T given row-major (k x n).
/// persistent: C = A W^T with a block per multiprocessor, each taking several tiles.
enum class Kernel { plain, bias_gelu, row_major_b, persistent };

/// C = A W^T (or one of the other kernels) for random A and W of type T; true when every checked
/// element is within the tolerance of the double-precision product.
template <class T>
bool run(const Problem &p, const char *name, Kernel kernel = Kernel::plain,
         const std::vector<float> &bias = {}) {
  const auto [m, n, k] = std::tuple{p.m, p.n, p.k};
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<T> ha(std::size_t{m} * k), hw(std::size_t{n} * k);
  for (auto *v : {&ha, &hw})
    for (T &x : *v)
      x = from_float<T>(dist(rng));

  auto a = wgmma_gemm::HostMapA<T>::create(p.stream, oxide::DeviceBuffer<T>::from_host(p.stream, ha), {m, k});
  auto w = wgmma_gemm::HostMapW<T>::create(p.stream, oxide::DeviceBuffer<T>::from_host(p.stream, hw), {n, k});
  auto b = oxide::DeviceBuffer<float>::from_host(p.stream, bias);
  // B = W^T, row-major (k x n): what the row_major_b kernel multiplies, read as it is.
  std::vector<T> hb(kernel == Kernel::row_major_b ? std::size_t{k} * n : 0);
  for (std::size_t q = 0; q < hb.size(); ++q)
    hb[q] = hw[q % n * k + q / n];
  wgmma_gemm::HostMapB<T> bt;
  if (kernel == Kernel::row_major_b)
    bt = wgmma_gemm::HostMapB<T>::create(p.stream, oxide::DeviceBuffer<T>::from_host(p.stream, hb), {k, n});
  // Poisoned with NaN so an element the kernel never wrote cannot pass the check.
  auto c = oxide::DeviceBuffer<float>::from_host(
      p.stream, std::vector<float>(std::size_t{m} * n, std::numeric_limits<float>::quiet_NaN()));
  auto once = [&] {
    switch (kernel) {
    case Kernel::plain:
      oxide::prepare(p.ctx, wgmma_gemm::gemm<T>, wgmma_gemm::config(m, n))(p.stream, a, w, c.view_2d(n, m),
                                                                           k);
      break;
    case Kernel::bias_gelu:
      oxide::prepare(p.ctx, wgmma_gemm::gemm_bias_gelu<T>,
                     wgmma_gemm::config(m, n))(p.stream, a, w, b, c.view_2d(n, m), m, n, k);
      break;
    case Kernel::persistent:
      oxide::prepare(
          p.ctx, wgmma_gemm::gemm<T>,
          wgmma_gemm::persistent_config(m, n, static_cast<std::uint32_t>(p.ctx.device().sm_count())))(
          p.stream, a, w, c.view_2d(n, m), k);
      break;
    case Kernel::row_major_b:
      if constexpr (std::is_same_v<T, bf16>)
        oxide::prepare(p.ctx, wgmma_gemm::gemm_nn<T>, wgmma_gemm::config(m, n))(p.stream, a, bt,
                                                                                c.view_2d(n, m), k);
      break;
    }
  };
  once(); // a warm-up on a GPU, the run on the simulator
  p.stream.synchronize();
  const int reps = p.ctx.is_simulator() ? 0 : 10;
  const auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r)
    once();
  p.stream.synchronize();
  const double seconds =
      reps ? std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / reps : 0.0;
  const std::vector<float> result = c.to_host(p.stream);

  // Products of bf16, tf32 or e4m3 values are exact in f32; the f32 sums of k terms stay within
  // 32 sqrt(k) u of the terms' magnitudes (the tensor cores' adders may drop low bits). GELU's
  // slope is below 1.13, and tanhf adds a few ulps. FP8 wgmma on Hopper keeps only about 14 bits
  // of its running sum (measured: 1e-4 of the magnitude at k = 4224; cuBLASLt calls this "fast
  // accumulation"), so e4m3 gets 2^-10 of the magnitude: a lost k step is off by far more.
  constexpr double u = std::numeric_limits<float>::epsilon() / 2;
  const double tolerance =
      std::is_same_v<T, oxide::float8_e4m3> ? std::ldexp(1.0, -10) : 32.0 * std::sqrt(double(k)) * u;
  const std::uint32_t row_step = p.small ? 1 : 61; // every row on a small problem, the last always
  std::size_t wrong = 0, checked = 0;
  for (std::uint32_t i = 0;; i = i + row_step < m ? i + row_step : m - 1) {
    for (std::uint32_t j = 0; j < n; ++j, ++checked) {
      double dot = 0, magnitude = 0;
      for (std::uint32_t q = 0; q < k; ++q) {
        const double term = double(value(ha[std::size_t{i} * k + q])) * value(hw[std::size_t{j} * k + q]);
        dot += term;
        magnitude += std::fabs(term);
      }
      double want = dot, bound = tolerance * magnitude;
      if (!bias.empty()) {
        const double x = dot + bias[j];
        want = 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
        bound = 1.2 * bound + 8 * u * (1.0 + std::fabs(x));
      }
      const float got = result[std::size_t{i} * n + j];
      if (!(std::fabs(got - want) <= bound) && wrong++ < 5)
        std::printf("%s: C[%u][%u]: got %.8g, expected %.8g\n", name, i, j, got, want);
    }
    if (i == m - 1)
      break;
  }
  if (kernel == Kernel::row_major_b)
    std::printf("wgmma_gemm %s: C(%u x %u, f32) = A(%u x %u) * B(%u x %u), %zu elements checked", name, m, n,
                m, k, k, n, checked);
  else
    std::printf("wgmma_gemm %s: C(%u x %u, f32) = A(%u x %u) * W(%u x %u)^T, %zu elements checked", name, m,
                n, m, k, n, k, checked);
  if (reps)
    std::printf(", %.1f TFLOP/s", 2.0 * m * n * k / seconds / 1e12);
  std::printf(wrong ? ": %zu wrong\n" : "\n", wrong);
  return wrong == 0;
}

} // namespace

int main() try {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  if (!ctx.is_simulator() && ctx.device().compute_capability().as_int() != 90) {
    std::printf("wgmma_gemm: skipped: %s is not a Hopper GPU (compute capability 9.0)\n",
                ctx.device().name().c_str());
    return 0;
  }
  const bool small = example::small_problem(ctx);
  const Problem p{ctx, stream, small ? 200u : 4160u, small ? 300u : 4200u, small ? 272u : 4224u, small};
  std::vector<float> bias(p.n);
  for (std::uint32_t j = 0; j < p.n; ++j)
    bias[j] = 0.25f * std::sin(0.1f * float(j));
  bool ok = run<bf16>(p, "bf16");
  ok &= run<oxide::tf32>(p, "tf32");
  ok &= run<oxide::float8_e4m3>(p, "e4m3");
  ok &= run<bf16>(p, "bf16+bias+gelu", Kernel::bias_gelu, bias);
  ok &= run<bf16>(p, "bf16 persistent", Kernel::persistent);
  // A row-major B's rows are a multiple of 16 bytes apart (TMA's rule): n a multiple of 8.
  const Problem nn{ctx, stream, p.m, p.n / 8 * 8, p.k, small};
  ok &= run<bf16>(nn, "bf16 row-major B", Kernel::row_major_b);
  std::printf("wgmma_gemm on %s\n%s\n", ctx.device().name().c_str(), ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
