// The bf16 GEMM kernel of examples/mma_gemm.cpp and benchmarks/gpu/mma_gemm_oxide.cpp:
// C (f32) = A * B with A (m x k) and B (k x n) row-major bf16, on the tensor cores at warp level.
//
// Each block of 16 x 16 threads (8 warps) computes a 128 x 128 tile of C, walking k in steps of 32
// through `Stages` shared-memory stages in dynamic shared memory: while the warps multiply one
// stage, cp.async fills the next ones (2 small stages for the simulator's small problem; a GPU takes 3).
// Each warp owns a 64 x 32 piece of the tile: per 16 of k it loads 4 A fragments (ldmatrix.x4)
// and 4 B fragments (two ldmatrix.x4.trans) and issues 16 mma.sync m16n8k16. The safe tier writes
// the result: thread (x, y) of the 2-D launch owns the 8 x 8 tile of C at rows y * 8, columns
// x * 8 (DisjointSpan2D::tile_mut), while the accumulators are spread over the warp's lanes by
// the fragment layout, so each half of the block tile goes through shared memory on its way out.
// m and n must be multiples of 128 and k of 32 (the bounds-checked copies stop the kernel
// otherwise).
#pragma once

#include <oxide/oxide.hpp>

#include <cstddef>
#include <cstdint>

namespace mma_gemm {

using bf16 = oxide::bfloat16;

struct alignas(16) Float4 {
  float x, y, z, w;
};

/// The block tile: 128 x BN of C (BN = 128 or 256), 8 warps of 64 x BN / 4, k in steps of BK.
template <std::uint32_t BN, std::uint32_t BK = 32> struct Tile {
  static constexpr std::uint32_t kBM = 128, kBN = BN, kBK = BK;
  static constexpr std::uint32_t kWarpsM = 2, kWarpsN = 4, kThreads = 32 * kWarpsM * kWarpsN;
  static constexpr std::uint32_t kWM = kBM / kWarpsM, kWN = kBN / kWarpsN; // a warp's 64 x BN / 4
  static constexpr std::uint32_t kTilesM = kWM / 16, kTilesN = kWN / 8;    // its mma tiles
  // Rows of the shared tiles are 16 bytes longer than their data: the 8 rows one ldmatrix reads
  // then fall in 8 different groups of 4 banks.
  static constexpr std::uint32_t kStrideA = kBK + 8, kStrideB = kBN + 8;
  static constexpr std::uint32_t kOutRows = kBM / kWarpsM, kStrideC = kBN + 4; // half the tile, staged
  static constexpr std::uint32_t kOwnRows = 8, kOwnCols = kBN / 16;            // a thread's tile of C
  static_assert(kThreads == (kBM / kOwnRows) * (kBN / kOwnCols), "the block's threads own its tile of C");
  static_assert(kTilesN % 2 == 0, "B's fragments load in pairs");
};

/// The block's shared memory: the pipeline's stages, or (after the k loop) half the C tile; in
/// dynamic shared memory, which may exceed the 48 KiB of static shared memory.
template <std::uint32_t Stages, std::uint32_t BN, std::uint32_t BK = 32> struct alignas(16) Shared {
  using T = Tile<BN, BK>;
  struct Pipeline {
    bf16 a[Stages][T::kBM * T::kStrideA];
    bf16 b[Stages][T::kBK * T::kStrideB];
  };
  union {
    Pipeline pipe;
    float c[T::kOutRows * T::kStrideC];
  };
};

/// Starts the copies of A's and B's tiles at `k0` into stage `s`: 16 bytes per copy, two of A's
/// and BN / 64 of B's per thread. Inlined, so that it is part of the kernel's loop.
template <class T, class Smem>
[[gnu::always_inline]] inline void load_stage(Smem &sm, std::uint32_t s, std::uint32_t t, std::uint32_t row0,
                                              std::uint32_t col0, std::uint32_t k0, std::uint32_t n,
                                              std::uint32_t k, oxide::Span<const bf16> a,
                                              oxide::Span<const bf16> b) {
  constexpr std::uint32_t kChunksA = T::kBK / 8, kChunksB = T::kBN / 8; // 16-byte chunks per row
#pragma unroll
  for (std::uint32_t i = t; i < T::kBM * kChunksA; i += T::kThreads) {
    const std::uint32_t r = i / kChunksA, col = (i % kChunksA) * 8;
    oxide::cp_async::copy<16>(&sm.pipe.a[s][r * T::kStrideA + col], a, std::size_t{row0 + r} * k + k0 + col);
  }
#pragma unroll
  for (std::uint32_t i = t; i < T::kBK * kChunksB; i += T::kThreads) {
    const std::uint32_t r = i / kChunksB, col = (i % kChunksB) * 8;
    oxide::cp_async::copy<16>(&sm.pipe.b[s][r * T::kStrideB + col], b, std::size_t{k0 + r} * n + col0 + col);
  }
}

/// C = A * B. C is n / 4 Float4s wide and m high; launch config<Stages, BN>(m, n): (n / (BN / 16))
/// x (m / 8) threads in blocks of 16 x 16 with sizeof(Shared<Stages, BN>) bytes of dynamic shared
/// memory (the contract allows up to the 227 KiB an sm_90 block may have; the kernel's own
/// [0] of it stops the kernel when the launch gave less than Shared<...> needs). MinBlocks blocks
/// per SM bound the registers (2: 128 each).
template <std::uint32_t Stages, std::uint32_t BN, std::uint32_t MinBlocks, std::uint32_t BK = 32>
[[kernel, oxide::launch_bounds(256, MinBlocks),
  oxide::launch_contract("domain = 2, block = (16, 16), dynamic_shared = 1..232448, "
                         "requires = (a.size() == m * k, b.size() == k * n, c.size() * 4 == m * n)")]] void
gemm(std::uint32_t m, std::uint32_t n, std::uint32_t k, oxide::Span<const bf16> a, oxide::Span<const bf16> b,
     oxide::DisjointSpan2D<Float4> c) {
  static_assert(Stages >= 2, "one stage multiplied while the next lands");
  using namespace oxide::mma;
  using T = Tile<BN, BK>;
  Shared<Stages, BN, BK> &sm =
      oxide::dynamic_shared<Shared<Stages, BN, BK>>()[0]; // checked: the launch gave enough
  const oxide::Dim3 tid = oxide::thread_idx();
  const std::uint32_t t = tid.y * 16 + tid.x, warp = t / 32, lane = t % 32;
  const std::uint32_t warp_m = warp / T::kWarpsN, warp_n = warp % T::kWarpsN;
  const std::uint32_t row0 = oxide::block_idx().y * T::kBM, col0 = oxide::block_idx().x * T::kBN;
  FragmentC<float> acc[T::kTilesM][T::kTilesN];

  // Stages - 1 steps in flight ahead of the one multiplied. Every iteration commits a group (an
  // empty one near the end), so that all but the newest Stages - 2 include this step's.
  const std::uint32_t steps = k / T::kBK;
#pragma unroll
  for (std::uint32_t s = 0; s + 1 < Stages; ++s) {
    if (s < steps)
      load_stage<T>(sm, s, t, row0, col0, s * T::kBK, n, k, a, b);
    oxide::cp_async::commit_group();
  }
  for (std::uint32_t step = 0; step < steps; ++step) {
    oxide::cp_async::wait_group<Stages - 2>();
    // Every thread's copies of this step have landed, and every warp is done with the previous
    // step, whose stage the next copies refill.
    oxide::sync_threads();
    if (const std::uint32_t next = step + Stages - 1; next < steps)
      load_stage<T>(sm, next % Stages, t, row0, col0, next * T::kBK, n, k, a, b);
    oxide::cp_async::commit_group();
    const std::uint32_t s = step % Stages;
    const bf16 *as = sm.pipe.a[s] + warp_m * T::kWM * T::kStrideA;
    const bf16 *bs = sm.pipe.b[s] + warp_n * T::kWN;
#pragma unroll
    for (std::uint32_t kk = 0; kk < T::kBK; kk += 16) {
      FragmentA<bf16> fa[T::kTilesM];
      FragmentB<bf16> fb[T::kTilesN];
#pragma unroll
      for (std::uint32_t i = 0; i < T::kTilesM; ++i)
        load_a(fa[i], as + i * 16 * T::kStrideA + kk, T::kStrideA);
      // Two n8 fragments per ldmatrix.x4.trans: matrices (k 0-7, n 0-7), (k 8-15, n 0-7),
      // (k 0-7, n 8-15), (k 8-15, n 8-15); lane l gives row l % 16 at column 8 * (l / 16).
#pragma unroll
      for (std::uint32_t j = 0; j < T::kTilesN; j += 2) {
        std::uint32_t r[4];
        ldmatrix_trans<4>(r, bs + (kk + lane % 16) * T::kStrideB + j * 8 + (lane / 16) * 8);
        fb[j].reg[0] = r[0];
        fb[j].reg[1] = r[1];
        fb[j + 1].reg[0] = r[2];
        fb[j + 1].reg[1] = r[3];
      }
#pragma unroll
      for (std::uint32_t i = 0; i < T::kTilesM; ++i)
#pragma unroll
        for (std::uint32_t j = 0; j < T::kTilesN; ++j)
          mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
    }
  }
  oxide::cp_async::wait_all();
  oxide::sync_threads(); // every warp is done with the stages before C takes their memory

  // Out through shared memory, half of the block tile at a time: the warps of that half store
  // their fragments, then the threads whose tiles lie in it write them to C.
  const auto tile = c.tile_mut<T::kOwnRows, T::kOwnCols / 4>(oxide::thread::index_2d());
  for (std::uint32_t half = 0; half < T::kWarpsM; ++half) {
    if (warp_m == half) {
#pragma unroll
      for (std::uint32_t i = 0; i < T::kTilesM; ++i)
#pragma unroll
        for (std::uint32_t j = 0; j < T::kTilesN; ++j)
#pragma unroll
          for (std::uint32_t e = 0; e < 4; ++e) {
            const Coord at = FragmentC<float>::coord(lane, e);
            sm.c[(i * 16 + at.row) * T::kStrideC + warp_n * T::kWN + j * 8 + at.col] = acc[i][j].x[e];
          }
    }
    oxide::sync_threads();
    if (tid.y * T::kOwnRows / T::kOutRows == half) {
#pragma unroll
      for (std::uint32_t r = 0; r < T::kOwnRows; ++r) {
        const float *row =
            &sm.c[((tid.y * T::kOwnRows) % T::kOutRows + r) * T::kStrideC + tid.x * T::kOwnCols];
#pragma unroll
        for (std::uint32_t q = 0; q < T::kOwnCols / 4; ++q)
          tile(r, q) = Float4{row[4 * q], row[4 * q + 1], row[4 * q + 2], row[4 * q + 3]};
      }
    }
    oxide::sync_threads();
  }
}

/// The launch of gemm<Stages, BN, ..., BK> for an m x n C.
template <std::uint32_t Stages, std::uint32_t BN, std::uint32_t BK = 32>
oxide::LaunchConfig2D config(std::uint32_t m, std::uint32_t n) {
  return {{n / BN, m / Tile<BN, BK>::kBM, 1}, {16, 16, 1}, sizeof(Shared<Stages, BN, BK>)};
}

} // namespace mma_gemm
