// GEMMs on Hopper's warpgroup tensor cores, C (f32) = A * W^T for n x n row-major A and W
// (n = 4096 and 8192): the kernels of examples/wgmma_gemm.hpp (TMA into a 4-stage ring guarded by
// mbarriers, a producer warpgroup, two consumer warpgroups on wgmma m64n256, 128 x 256 block
// tiles in a grouped order), safe: the output is a DisjointSpan2D written through
// warpgroup_tile_mut. Rows: bf16 (wgmma_gemm), tf32, e4m3, and bf16 with the fused bias + GELU
// epilogue (checked against GELU applied on the host to the plain product), and bf16 C = A * B
// for a row-major B (wgmma_gemm_nn: B read MN-major, no transpose); the plain and row-major-B
// kernels also launched persistent (*_persistent: a block per multiprocessor). Twin:
// wgmma_gemm_cuda.cu, which also times cuBLAS on the same inputs in the same run.
//
//   wgmma_gemm_oxide [n...]    prints RESULT lines (bench_common.hpp)
#include "bench_oxide.hpp"

#include "../../examples/wgmma_gemm.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using wgmma_gemm::from_float;
using wgmma_gemm::value;

/// Times C = A W^T with T multiplicands (the twin's inputs, rounded to T) and, for bf16, the fused
/// bias + GELU epilogue; prints one RESULT line per kernel.
template <class T>
void bench_type(oxide::Context &ctx, oxide::Stream &stream, bench::EventTimer &timer, std::uint32_t n,
                const char *name) {
  const std::size_t nn = std::size_t{n} * n;
  std::vector<float> fa = bench::uniform_vector(8, nn), fw = bench::uniform_vector(9, nn);
  std::vector<T> ha(nn), hw(nn);
  for (std::size_t i = 0; i < nn; ++i) {
    ha[i] = from_float<T>(fa[i]);
    hw[i] = from_float<T>(fw[i]);
    fa[i] = value(ha[i]);
    fw[i] = value(hw[i]);
  }
  auto a = wgmma_gemm::HostMapA<T>::create(stream, oxide::DeviceBuffer<T>::from_host(stream, ha), {n, n});
  auto w = wgmma_gemm::HostMapW<T>::create(stream, oxide::DeviceBuffer<T>::from_host(stream, hw), {n, n});
  auto c = oxide::DeviceBuffer<float>::uninitialized(stream, nn);
  const double flops = 2.0 * n * n * double(n);
  auto plain = oxide::prepare(ctx, wgmma_gemm::gemm<T>, wgmma_gemm::config(n, n));
  bench::poison(timer, stream, c);
  const float ms = timer.median_ms(stream, [&](int) { plain(stream, a, w, c.view_2d(n, n), n); });
  const std::vector<float> product = c.to_host(stream);
  const bool ok = bench::check_gemm_nt(name, product, fa, fw, n,
                                       std::is_same_v<T, oxide::float8_e4m3> ? bench::kFp8GemmTolerance
                                                                             : bench::kBf16GemmTolerance);
  bench::report(name, bench::dims(n, n), "flops", flops, ms, ok, "safe");
  if constexpr (std::is_same_v<T, oxide::bfloat16>) {
    // C = A B for B = W^T given row-major (n x n, k x n), which wgmma reads MN-major: the same
    // product, checked against the same reference.
    std::vector<T> hb(nn);
    for (std::size_t q = 0; q < nn; ++q)
      hb[q] = hw[q % n * n + q / n];
    auto bt = wgmma_gemm::HostMapB<T>::create(stream, oxide::DeviceBuffer<T>::from_host(stream, hb), {n, n});
    // One product: timed, checked against the reference, reported.
    auto time_product = [&](const char *name, auto kernel, const oxide::LaunchConfig1D &launch,
                            const auto &b) {
      auto prepared = oxide::prepare(ctx, kernel, launch);
      bench::poison(timer, stream, c);
      const float ms = timer.median_ms(stream, [&](int) { prepared(stream, a, b, c.view_2d(n, n), n); });
      const bool checked =
          bench::check_gemm_nt(name, c.to_host(stream), fa, fw, n, bench::kBf16GemmTolerance);
      bench::report(name, bench::dims(n, n), "flops", flops, ms, checked, "safe");
    };
    time_product("wgmma_gemm_nn", wgmma_gemm::gemm_nn<T>, wgmma_gemm::config(n, n), bt);
    // The same kernels launched persistent: a block per multiprocessor taking every sms-th tile.
    const auto persistent =
        wgmma_gemm::persistent_config(n, n, static_cast<std::uint32_t>(ctx.device().sm_count()));
    time_product("wgmma_gemm_persistent", wgmma_gemm::gemm<T>, persistent, w);
    time_product("wgmma_gemm_nn_persistent", wgmma_gemm::gemm_nn<T>, persistent, bt);

    std::vector<float> bias(n);
    for (std::uint32_t j = 0; j < n; ++j)
      bias[j] = 0.25f * std::sin(0.1f * float(j));
    auto b = oxide::DeviceBuffer<float>::from_host(stream, bias);
    auto fused = oxide::prepare(ctx, wgmma_gemm::gemm_bias_gelu<T>, wgmma_gemm::config(n, n));
    bench::poison(timer, stream, c);
    const float fused_ms =
        timer.median_ms(stream, [&](int) { fused(stream, a, w, b, c.view_2d(n, n), n, n, n); });
    const std::vector<float> got = c.to_host(stream);
    // The fused epilogue against GELU applied here to the plain product, at a sample of elements.
    bool fused_ok = ok;
    for (std::size_t s = 0; s < 4096 && fused_ok; ++s) {
      const std::size_t e = bench::mix(s) % nn;
      const double x = double(product[e]) + bias[e % n];
      const double want = 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
      if (!bench::close(got[e], want, 1.0 + std::fabs(x), 4e-6, 0)) {
        bench::mismatch("wgmma_gemm_bias_gelu", e, got[e], want);
        fused_ok = false;
      }
    }
    bench::report("wgmma_gemm_bias_gelu", bench::dims(n, n), "flops", flops, fused_ms, fused_ok, "safe");
  }
}

} // namespace

int main(int argc, char **argv) try {
  std::vector<std::uint32_t> sizes;
  for (int arg = 1; arg < argc; ++arg)
    sizes.push_back(std::uint32_t(std::atoi(argv[arg])));
  if (sizes.empty())
    sizes = {4096, 8192};
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  bench::EventTimer timer(ctx);
  for (const std::uint32_t n : sizes) {
    bench_type<oxide::bfloat16>(ctx, stream, timer, n, "wgmma_gemm");
    bench_type<oxide::tf32>(ctx, stream, timer, n, "wgmma_gemm_tf32");
    bench_type<oxide::float8_e4m3>(ctx, stream, timer, n, "wgmma_gemm_e4m3");
  }
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "wgmma_gemm_oxide: %s\n", e.what());
  return 1;
}
