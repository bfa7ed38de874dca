// SGEMM, C = A * B for n x n row-major floats (n = 4096 and 8192): 128 x 128 block tiles
// stepping 8 along k, 256 threads each computing an 8 x 8 tile of C in registers. A's tile is
// stored transposed in shared memory; A and B are read as Float4 (16-byte) loads and C written
// as Float4 stores. n must be a multiple of 128. Twin: sgemm_cuda.cu.
//
//   sgemm_oxide [n...]    prints RESULT lines (bench_common.hpp)
#include "bench_oxide.hpp"

#include <cstdint>
#include <cstdio>
#include <span>

constexpr std::uint32_t kBM = 128, kBN = 128, kBK = 8, kTM = 8, kTN = 8, kThreads = 256;
// sgemm_1blk's unused dynamic shared memory: more than half an SM's, so one block per SM on both
// sides (the Oxide kernels' registers already allow only one; nvcc's allow two). The ratio at
// equal occupancy separates the instructions from the register allocation.
constexpr std::uint32_t kOneBlockShared = 160 * 1024;

struct alignas(16) Float4 {
  float x, y, z, w;
};

/// The block's 128 x 128 tile of C; `t` is the thread's index in the block (0..255).
void sgemm_tile(std::uint32_t t, std::uint32_t n, oxide::Span<const Float4> a, oxide::Span<const Float4> b,
                oxide::Span<Float4> c) {
  auto as = oxide::shared_array<float, kBK * kBM>(); // as[k][m]: A's tile transposed
  auto bs = oxide::shared_array<float, kBK * kBN>(); // bs[k][n]
  const std::uint32_t tr = t / (kBN / kTN), tc = t % (kBN / kTN);
  const std::uint32_t row0 = oxide::block_idx().y * kBM, col0 = oxide::block_idx().x * kBN;
  const std::uint32_t a_row = t / 2, a_col = (t % 2) * 4;   // A's tile: 128 rows of 8, a Float4 each
  const std::uint32_t b_row = t / 32, b_col = (t % 32) * 4; // B's tile: 8 rows of 128
  const std::size_t n4 = n / 4;                             // Float4s per row
  float acc[kTM][kTN] = {};
  for (std::uint32_t k0 = 0; k0 < n; k0 += kBK) {
    const Float4 av = a[(std::size_t{row0} + a_row) * n4 + (k0 + a_col) / 4];
    as[(a_col + 0) * kBM + a_row] = av.x;
    as[(a_col + 1) * kBM + a_row] = av.y;
    as[(a_col + 2) * kBM + a_row] = av.z;
    as[(a_col + 3) * kBM + a_row] = av.w;
    const Float4 bv = b[(std::size_t{k0} + b_row) * n4 + (col0 + b_col) / 4];
    bs[b_row * kBN + b_col + 0] = bv.x;
    bs[b_row * kBN + b_col + 1] = bv.y;
    bs[b_row * kBN + b_col + 2] = bv.z;
    bs[b_row * kBN + b_col + 3] = bv.w;
    oxide::sync_threads();
#pragma unroll
    for (std::uint32_t k = 0; k < kBK; ++k) {
      float rm[kTM], rn[kTN];
#pragma unroll
      for (std::uint32_t i = 0; i < kTM; ++i)
        rm[i] = as[k * kBM + tr * kTM + i];
#pragma unroll
      for (std::uint32_t j = 0; j < kTN; ++j)
        rn[j] = bs[k * kBN + tc * kTN + j];
#pragma unroll
      for (std::uint32_t i = 0; i < kTM; ++i)
#pragma unroll
        for (std::uint32_t j = 0; j < kTN; ++j)
          acc[i][j] += rm[i] * rn[j];
    }
    oxide::sync_threads();
  }
#pragma unroll
  for (std::uint32_t i = 0; i < kTM; ++i)
#pragma unroll
    for (std::uint32_t j = 0; j < kTN; j += 4)
      c[(std::size_t{row0} + tr * kTM + i) * n4 + (col0 + tc * kTN + j) / 4] =
          Float4{acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]};
}

// UNSAFE: each thread writes an 8 x 8 tile of C (rows tr * 8.., columns tc * 8.. of the block's
// tile), which no witness expresses: DisjointSpan2D gives a thread its single element [y][x] and
// DisjointSpan::tile_mut one run of consecutive elements, not a 2-D register tile. So C is a
// mutable Span and the kernel has no contract.
[[kernel, oxide::launch_bounds(256)]] void sgemm(std::uint32_t n, oxide::Span<const Float4> a,
                                                 oxide::Span<const Float4> b, oxide::Span<Float4> c) {
  sgemm_tile(oxide::thread_idx().x, n, a, b, c);
}

// The same kernel with threadIdx.x reduced modulo 256, which changes nothing at run time (the
// block has 256 threads) but tells the compiler what launch_bounds(256) should have: threadIdx.x
// < 256, so every shared-memory index is provably in bounds and the Span checks vanish. The gap
// between this and `sgemm` is what that compiler fix is worth (see README.md).
[[kernel, oxide::launch_bounds(256)]] void sgemm_tidmask(std::uint32_t n, oxide::Span<const Float4> a,
                                                         oxide::Span<const Float4> b, oxide::Span<Float4> c) {
  sgemm_tile(oxide::thread_idx().x % kThreads, n, a, b, c);
}

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
    const std::size_t nn = std::size_t{n} * n;
    const std::vector<float> ha = bench::uniform_vector(8, nn), hb = bench::uniform_vector(9, nn);
    auto as4 = [](const std::vector<float> &v) {
      return std::span<const Float4>(reinterpret_cast<const Float4 *>(v.data()), v.size() / 4);
    };
    auto a = oxide::DeviceBuffer<Float4>::from_host(stream, as4(ha));
    auto b = oxide::DeviceBuffer<Float4>::from_host(stream, as4(hb));
    auto c = oxide::DeviceBuffer<Float4>::uninitialized(stream, nn / 4);
    using Kernel =
        void (*)(std::uint32_t, oxide::Span<const Float4>, oxide::Span<const Float4>, oxide::Span<Float4>);
    struct Variant {
      const char *name;
      Kernel kernel;
      std::uint32_t dynamic_shared;
    };
    for (const Variant &v : {Variant{"sgemm", sgemm, 0}, Variant{"sgemm_tidmask", sgemm_tidmask, 0},
                             Variant{"sgemm_1blk", sgemm, kOneBlockShared}}) {
      if (v.dynamic_shared && ctx.is_simulator())
        continue; // more shared memory than the simulator has
      const oxide::LaunchConfig config{{n / kBN, n / kBM, 1}, {kThreads, 1, 1}, v.dynamic_shared};
      bench::poison(timer, stream, c);
      const float ms =
          timer.median_ms(stream, [&](int) { oxide::unsafe_launch(stream, v.kernel, config, n, a, b, c); });
      const std::vector<Float4> got4 = c.to_host(stream);
      const std::vector<float> got(reinterpret_cast<const float *>(got4.data()),
                                   reinterpret_cast<const float *>(got4.data()) + nn);
      const bool ok = bench::check_gemm(v.name, got, ha, hb, n);
      bench::report(v.name, bench::dims(n, n), "flops", 2.0 * n * n * double(n), ms, ok, "unsafe");
    }
  }
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "sgemm_oxide: %s\n", e.what());
  return 1;
}
