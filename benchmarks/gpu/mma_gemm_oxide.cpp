// bf16 GEMM on the tensor cores, C (f32) = A * B for n x n row-major bf16 A and B (n = 4096 and
// 8192): the kernel of examples/mma_gemm.hpp (128 x 256 block tiles, k in steps of 64 through
// three cp.async stages, ldmatrix, mma.sync m16n8k16), safe: a 2-D launch contract whose threads
// write their own 8 x 16 tiles of C (DisjointSpan2D::tile_mut, 8 rows of 4 Float4s). Twin:
// mma_gemm_cuda.cu, which also times cuBLAS on the same inputs in the same run. n must be a
// multiple of 256.
//
//   mma_gemm_oxide [n...]    prints RESULT lines (bench_common.hpp)
#include "bench_oxide.hpp"

#include "../../examples/mma_gemm.hpp"

#include <cstdint>
#include <cstdio>
#include <vector>

int main(int argc, char **argv) try {
  using mma_gemm::bf16;
  using mma_gemm::Float4;
  std::vector<std::uint32_t> sizes;
  for (int arg = 1; arg < argc; ++arg)
    sizes.push_back(std::uint32_t(std::atoi(argv[arg])));
  if (sizes.empty())
    sizes = {4096, 8192};
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  bench::EventTimer timer(ctx);
  for (const std::uint32_t n : sizes) {
    const std::size_t nn = std::size_t{n} * n;
    // The twin's inputs: the same floats, rounded to bf16 (to nearest even) and back.
    std::vector<float> fa = bench::uniform_vector(8, nn), fb = bench::uniform_vector(9, nn);
    std::vector<bf16> ha(nn), hb(nn);
    for (std::size_t i = 0; i < nn; ++i) {
      ha[i] = oxide::to_bfloat16(fa[i]);
      hb[i] = oxide::to_bfloat16(fb[i]);
      fa[i] = oxide::to_float(ha[i]);
      fb[i] = oxide::to_float(hb[i]);
    }
    auto a = oxide::DeviceBuffer<bf16>::from_host(stream, ha);
    auto b = oxide::DeviceBuffer<bf16>::from_host(stream, hb);
    auto c = oxide::DeviceBuffer<Float4>::uninitialized(stream, nn / 4);
    // On a GPU, block tiles of 128 x 256 (warps of 64 x 64) stepping 64 along k in three stages,
    // one block per SM: the fastest of the configurations tried on the H200. The simulator, which
    // only checks, takes two stages of 128 x 128 x 32.
    auto launch =
        ctx.is_simulator()
            ? oxide::prepare(ctx, mma_gemm::gemm<2, 128, 2>, mma_gemm::config<2, 128>(n, n))
            : oxide::prepare(ctx, mma_gemm::gemm<3, 256, 1, 64>, mma_gemm::config<3, 256, 64>(n, n));
    bench::poison(timer, stream, c);
    const float ms =
        timer.median_ms(stream, [&](int) { launch(stream, n, n, n, a, b, c.view_2d(n / 4, n)); });
    const std::vector<Float4> got4 = c.to_host(stream);
    const std::vector<float> got(&got4[0].x, &got4[0].x + nn);
    const bool ok = bench::check_gemm("mma_gemm", got, fa, fb, n, bench::kBf16GemmTolerance);
    bench::report("mma_gemm", bench::dims(n, n), "flops", 2.0 * n * n * double(n), ms, ok, "safe");
  }
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "mma_gemm_oxide: %s\n", e.what());
  return 1;
}
