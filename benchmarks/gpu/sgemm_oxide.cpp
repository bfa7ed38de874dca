// SGEMM, C = A * B for n x n row-major floats (n = 4096 and 8192): 128 x 128 block tiles
// stepping 8 along k, 256 threads each computing an 8 x 8 tile of C in registers. A's tile is
// stored transposed in shared memory; A and B are read as Float4 (16-byte) loads and C written
// as Float4 stores. n must be a multiple of 128. Twin: sgemm_cuda.cu.
//
// `sgemm` is safe: a 2-D launch contract with blocks of 16 x 16 threads, each thread writing its
// 8 x 8 tile of C through DisjointSpan2D::tile_mut (8 rows of 2 Float4s). `sgemm_128x8` is the
// classic double-buffered form (two shared stages, fragments read as 16-byte shared loads, the
// next k-tile prefetched into registers), safe in the same way.
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

/// The block's 128 x 128 tile of C; `t` is the thread's index in the block (0..255). The thread's
/// 8 x 8 tile goes out through store(i, j4, value): row i (0..7), Float4 column j4 (0..1).
template <class Store>
void sgemm_tile(std::uint32_t t, std::uint32_t n, oxide::Span<const Float4> a, oxide::Span<const Float4> b,
                Store &&store) {
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
      store(i, j / 4, Float4{acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]});
}

// Thread (x, y) of the 2-D launch owns rows y * 8.. and Float4 columns x * 2.. of C (n / 4
// Float4s wide, n high): the tile that thread t = 16 * threadIdx.y + threadIdx.x of the block
// computes.
[[kernel, oxide::launch_contract("domain = 2, block = (16, 16), requires = (a.size() == b.size())")]] void
sgemm(std::uint32_t n, oxide::Span<const Float4> a, oxide::Span<const Float4> b,
      oxide::DisjointSpan2D<Float4> c) {
  const oxide::Dim3 t = oxide::thread_idx();
  const auto tile = c.tile_mut<kTM, kTN / 4>(oxide::thread::index_2d());
  sgemm_tile(t.y * 16 + t.x, n, a, b, [&](std::uint32_t i, std::uint32_t j4, Float4 v) { tile(i, j4) = v; });
}

// Diagnostic: the same product as an unsafe kernel (no contract, C a mutable Span written at
// computed indices, as before DisjointSpan2D::tile_mut existed). Its loads of A and B are plain
// ld.global (no contract proves them read-only), and its launch has blocks of 256 x 1.
[[kernel, oxide::launch_bounds(256)]] void sgemm_unsafe(std::uint32_t n, oxide::Span<const Float4> a,
                                                        oxide::Span<const Float4> b, oxide::Span<Float4> c) {
  const std::uint32_t t = oxide::thread_idx().x, tr = t / (kBN / kTN), tc = t % (kBN / kTN);
  const std::uint32_t row0 = oxide::block_idx().y * kBM, col0 = oxide::block_idx().x * kBN;
  const std::size_t n4 = n / 4;
  sgemm_tile(t, n, a, b, [&](std::uint32_t i, std::uint32_t j4, Float4 v) {
    c[(std::size_t{row0} + tr * kTM + i) * n4 + (col0 + tc * kTN) / 4 + j4] = v;
  });
}

// sgemm_128x8: the classic "SGEMM 128 x 128 x 8" form of the same product (the well-known CUDA
// SGEMM tutorials' vectorised, double-buffered kernel; issue 41). Two stages of shared memory, A's
// slice transposed (as[stage][k][m], 8 x 128) and B's as stored (bs[stage][k][n], 8 x 128), both
// in 16-byte units (Quad, Float4), so each k step reads a thread's a[8] and b[8] fragments with
// four 16-byte shared loads. A k step stores the k-tile held in registers into its stage, waits
// at the barrier, loads the next k-tile's Float4s of A and B into registers and runs its 512 FMAs
// meanwhile: one barrier per k-tile (the stage written was last read two k-tiles before). Thread
// (x, y) of the 16 x 16 block computes rows y * 8.. and columns x * 8.. of the block's 128 x 128
// tile, and writes them through its DisjointSpan2D::tile_mut<8, 2> of Float4s.
constexpr std::uint32_t kBM4 = kBM / 4, kBN4 = kBN / 4; // Float4s per row of as and bs

/// Four consecutive floats of a row of as, read as one 16-byte load: the transposed store of A
/// writes them one at a time, at a column (0..3) that depends on the thread.
struct alignas(16) Quad {
  float v[4];
};

[[kernel, oxide::launch_contract("domain = 2, block = (16, 16), requires = (a.size() == b.size())")]] void
sgemm_128x8(std::uint32_t n, oxide::Span<const Float4> a, oxide::Span<const Float4> b,
            oxide::DisjointSpan2D<Float4> c) {
  auto as = oxide::shared_array<Quad, 2 * kBK * kBM4>();   // as[stage][k][m / 4]: A's slice transposed
  auto bs = oxide::shared_array<Float4, 2 * kBK * kBN4>(); // bs[stage][k][n / 4]
  const oxide::Dim3 t = oxide::thread_idx();
  const std::uint32_t tid = t.y * 16 + t.x;
  const std::uint32_t row0 = oxide::block_idx().y * kBM, col0 = oxide::block_idx().x * kBN;
  const std::uint32_t a_row = tid / 2, a_col = (tid % 2) * 4; // A's slice: 128 rows of 8, a Float4 each
  const std::uint32_t b_row = tid / 32, b_col = tid % 32;     // B's slice: 8 rows of 32 Float4s
  const std::size_t n4 = n / 4;                               // Float4s per row of A and B
  const std::size_t a_at = (std::size_t{row0} + a_row) * n4 + a_col / 4,
                    b_at = std::size_t{b_row} * n4 + col0 / 4 + b_col;
  const std::uint32_t m4 = a_row / 4, lane = a_row % 4; // a_row's Quad in a row of as, and its float
  Float4 av = a[a_at], bv = b[b_at];                    // the first k-tile's Float4s
  float acc[kTM][kTN] = {};
  for (std::uint32_t k0 = 0, stage = 0; k0 < n; k0 += kBK, stage ^= 1) {
    // This k-tile into its stage, last read two k-tiles ago (before the previous barrier).
    as[(stage * kBK + a_col + 0) * kBM4 + m4].v[lane] = av.x;
    as[(stage * kBK + a_col + 1) * kBM4 + m4].v[lane] = av.y;
    as[(stage * kBK + a_col + 2) * kBM4 + m4].v[lane] = av.z;
    as[(stage * kBK + a_col + 3) * kBM4 + m4].v[lane] = av.w;
    bs[(stage * kBK + b_row) * kBN4 + b_col] = bv;
    oxide::sync_threads();
    if (k0 + kBK < n) { // the next k-tile, into registers during this one's FMAs
      av = a[a_at + (k0 + kBK) / 4];
      bv = b[b_at + std::size_t{k0 + kBK} * n4];
    }
#pragma unroll
    for (std::uint32_t k = 0; k < kBK; ++k) {
      const Quad a0 = as[(stage * kBK + k) * kBM4 + t.y * 2], a1 = as[(stage * kBK + k) * kBM4 + t.y * 2 + 1];
      const Float4 b0 = bs[(stage * kBK + k) * kBN4 + t.x * 2],
                   b1 = bs[(stage * kBK + k) * kBN4 + t.x * 2 + 1];
      const float fa[kTM] = {a0.v[0], a0.v[1], a0.v[2], a0.v[3], a1.v[0], a1.v[1], a1.v[2], a1.v[3]};
      const float fb[kTN] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (std::uint32_t i = 0; i < kTM; ++i)
#pragma unroll
        for (std::uint32_t j = 0; j < kTN; ++j)
          acc[i][j] += fa[i] * fb[j];
    }
  }
  const auto tile = c.tile_mut<kTM, kTN / 4>(oxide::thread::index_2d());
#pragma unroll
  for (std::uint32_t i = 0; i < kTM; ++i)
#pragma unroll
    for (std::uint32_t j = 0; j < kTN; j += 4)
      tile(i, j / 4) = Float4{acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]};
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
    auto check = [&](const char *name) {
      const std::vector<Float4> got4 = c.to_host(stream);
      const std::vector<float> got(reinterpret_cast<const float *>(got4.data()),
                                   reinterpret_cast<const float *>(got4.data()) + nn);
      return bench::check_gemm(name, got, ha, hb, n);
    };
    const double flops = 2.0 * n * n * double(n);
    {
      const oxide::LaunchConfig2D config{{n / kBN, n / kBM, 1}, {16, 16, 1}};
      auto launch = oxide::prepare(ctx, sgemm, config);
      bench::poison(timer, stream, c);
      const float ms = timer.median_ms(stream, [&](int) { launch(stream, n, a, b, c.view_2d(n / 4, n)); });
      bench::report("sgemm", bench::dims(n, n), "flops", flops, ms, check("sgemm"), "safe");
    }
    {
      const oxide::LaunchConfig2D config{{n / kBN, n / kBM, 1}, {16, 16, 1}};
      auto launch = oxide::prepare(ctx, sgemm_128x8, config);
      bench::poison(timer, stream, c);
      const float ms = timer.median_ms(stream, [&](int) { launch(stream, n, a, b, c.view_2d(n / 4, n)); });
      bench::report("sgemm_128x8", bench::dims(n, n), "flops", flops, ms, check("sgemm_128x8"), "safe");
    }
    // sgemm_1blk: the unsafe kernel with unused dynamic shared memory, more than half an SM's,
    // so one block per SM on both sides: the ratio at equal occupancy.
    for (const std::uint32_t shared : {0u, kOneBlockShared}) {
      const char *name = shared ? "sgemm_1blk" : "sgemm_unsafe";
      if (shared && ctx.is_simulator())
        continue; // more shared memory than the simulator has
      const oxide::LaunchConfig config{{n / kBN, n / kBM, 1}, {kThreads, 1, 1}, shared};
      bench::poison(timer, stream, c);
      const float ms = timer.median_ms(
          stream, [&](int) { oxide::unsafe_launch(stream, sgemm_unsafe, config, n, a, b, c); });
      bench::report(name, bench::dims(n, n), "flops", flops, ms, check(name), "unsafe");
    }
  }
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "sgemm_oxide: %s\n", e.what());
  return 1;
}
