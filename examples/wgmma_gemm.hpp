// The GEMMs of examples/wgmma_gemm.cpp and benchmarks/gpu/wgmma_gemm_oxide.cpp, on Hopper's
// warpgroup tensor cores: C (f32, m x n) = A * W^T for A (m x k) and W (n x k) row-major, the
// layout of a linear layer (y = x W^T), with bf16, tf32 or FP8 (e4m3) multiplicands, and the same
// with a fused bias + GELU epilogue; and C = A * B for a row-major k x n B (bf16), which wgmma
// reads MN-major: no transpose anywhere. The CUDA twin is benchmarks/gpu/wgmma_gemm_cuda.cu.
//
// Each block of 3 warpgroups computes a 128 x 256 tile of C, k in steps of 128 bytes of the type
// (64 bf16) through a ring of 4 shared-memory stages:
// - warpgroup 0 is the producer: it gives up registers (setmaxnreg) and one of its threads has the
//   copy engine (TMA) load A's 128-row and W's 256-row tiles of each step into a free stage, in
//   the 128-byte swizzle wgmma reads (for a row-major B: its 64 x 256 tile as four 64-column
//   panels); the stage's `full` mbarrier counts their bytes;
// - warpgroups 1 and 2 are the consumers: each waits for a full stage, multiplies its 64 rows of A
//   by B's 256 columns with 4 wgmma m64n256 (the accumulator: 128 registers per thread), waits
//   for them, and releases the stage through its `empty` mbarrier.
// The blocks take the tiles 16 tile rows at a time, so that the blocks running together share
// W's tiles in L2; launched persistent (persistent_config: a block per multiprocessor), each
// block takes every (blocks)-th tile in that order, its producer loading the next tile while the
// consumers finish this one. The safe tier writes the result straight from the accumulators: the output is
// a DisjointSpan2D and each thread writes the elements its accumulator holds
// (warpgroup_tile_mut). Edges need no special case: the copy engine fills rows and columns past
// A's and W's ends with zeros, and the tile's elements past C's edge are not written.
#pragma once

#include <oxide/oxide.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace wgmma_gemm {

using bf16 = oxide::bfloat16;

inline constexpr std::uint32_t kBM = 128, kBN = 256, kConsumers = 2, kGroupM = 16, kStages = 4;
inline constexpr std::uint32_t kThreads = oxide::warpgroup::kThreads * (1 + kConsumers);
/// A stage's k: one 128-byte swizzled row of the multiplicand (64 bf16, 32 tf32, 128 fp8), 4
/// wgmma instructions whatever the type.
template <class T> inline constexpr std::uint32_t kBK = 128 / sizeof(T);

/// A's and W's tensor maps: boxes of one stage's tiles, rows of 128 bytes in the 128-byte swizzle.
template <class T> using MapA = oxide::TensorMap<const T, oxide::Box<kBM, kBK<T>>, oxide::Swizzle::b128>;
template <class T> using MapW = oxide::TensorMap<const T, oxide::Box<kBN, kBK<T>>, oxide::Swizzle::b128>;
/// Their host sides: A's and W's buffers with the descriptors.
template <class T>
using HostMapA = oxide::DeviceTensorMap<const T, oxide::Box<kBM, kBK<T>>, oxide::Swizzle::b128>;
template <class T>
using HostMapW = oxide::DeviceTensorMap<const T, oxide::Box<kBN, kBK<T>>, oxide::Swizzle::b128>;

/// A row-major k x n B's map: boxes of one panel (128 bytes of columns, 64 bf16) of a stage's k.
template <class T>
using MapB = oxide::TensorMap<const T, oxide::Box<kBK<T>, 128 / sizeof(T)>, oxide::Swizzle::b128>;
template <class T>
using HostMapB = oxide::DeviceTensorMap<const T, oxide::Box<kBK<T>, 128 / sizeof(T)>, oxide::Swizzle::b128>;

/// Where B comes from: the weights W (n x k, B = W^T), a stage's tile K-major ...
template <class T> struct FromWeights {
  using map_type = MapW<T>;
  using tile_type = typename MapW<T>::matrix_type;
  static void load(tile_type &tile, const map_type &w, std::int32_t n0, std::int32_t k0,
                   oxide::Mbarrier &bar) {
    oxide::tma::load(tile, w, {n0, k0}, bar);
  }
};
/// ... or a row-major B (k x n), a stage's tile MN-major in four 64-column panels (bf16 and f16:
/// the tensor cores read only 16-bit types MN-major).
template <class T> struct FromRowMajor {
  using map_type = MapB<T>;
  using tile_type = oxide::SharedPanels<T, kBK<T>, kBN, oxide::Swizzle::b128>;
  static void load(tile_type &tile, const map_type &b, std::int32_t n0, std::int32_t k0,
                   oxide::Mbarrier &bar) {
    oxide::tma::load(tile, b, {k0, n0}, bar);
  }
};

/// The block's shared memory (dynamic: 193 KiB, the same for every type and layout).
template <class T, class BSource = FromWeights<T>> struct Shared {
  typename MapA<T>::matrix_type a[kStages];
  typename BSource::tile_type b[kStages];
  oxide::Mbarrier full[kStages], empty[kStages];
};

/// The dynamic shared memory a launch gives the kernels.
inline constexpr std::uint32_t kSharedBytes = oxide::dynamic_shared_bytes_for<Shared<bf16>>;
static_assert(kSharedBytes == oxide::dynamic_shared_bytes_for<Shared<oxide::tf32>> &&
              kSharedBytes == oxide::dynamic_shared_bytes_for<Shared<oxide::float8_e4m3>> &&
              kSharedBytes == oxide::dynamic_shared_bytes_for<Shared<bf16, FromRowMajor<bf16>>>);

/// How the host makes each multiplicand type from a float, and reads it back: the example and
/// the benchmark make their inputs and their references with these.
template <class T> T from_float(float x) {
  if constexpr (std::is_same_v<T, bf16>)
    return oxide::to_bfloat16(x);
  else if constexpr (std::is_same_v<T, oxide::tf32>)
    return {oxide::to_tf32(x)};
  else
    return oxide::to_float8_e4m3(x);
}
inline float value(bf16 x) { return oxide::to_float(x); }
inline float value(oxide::tf32 x) { return x.value; }
inline float value(oxide::float8_e4m3 x) { return oxide::to_float(x); }

/// The epilogues: what each element of C becomes.
struct Plain {
  float operator()(float acc, std::uint32_t) const noexcept { return acc; }
};
/// GELU(acc + bias[column]), with the tanh approximation PyTorch's gelu(approximate='tanh') uses.
/// The bias is read with Span::get, not operator[]: a failed check would be a call.
struct BiasGelu {
  oxide::Span<const float> bias;
  float operator()(float acc, std::uint32_t column) const noexcept {
    const float *b = bias.get(column);
    const float x = acc + (b ? *b : 0.0f);
    return 0.5f * x * (1.0f + std::tanh(0.7978845608f * (x + 0.044715f * x * x * x)));
  }
};

/// The 128 x 256 tiles of an m x n C.
[[nodiscard]] constexpr std::size_t tile_count(std::size_t m, std::size_t n) noexcept {
  return ((m + kBM - 1) / kBM) * ((n + kBN - 1) / kBN);
}

/// C = epilogue(A B), k = A's columns (B's k): the body of the kernels below. Inlined into
/// them: a wgmma kernel makes no calls (ptxas would serialise its wgmmas), which is also why
/// their contracts give the minimum of dynamic shared memory (the kernel's own check then
/// compiles away).
template <class T, class BSource, class Epilogue>
[[gnu::always_inline]] inline void multiply(const MapA<T> &a, const typename BSource::map_type &b,
                                            oxide::DisjointSpan2D<float> c, std::uint32_t k,
                                            const Epilogue &epilogue) {
  static_assert(kStages >= 2, "one stage multiplied while the next lands");
  constexpr std::uint32_t bk = kBK<T>;
  auto &sm = oxide::dynamic_shared_object<Shared<T, BSource>>();
  const std::uint32_t role = oxide::warpgroup::index(), rank = oxide::warpgroup::rank();
  const std::uint32_t steps = (k + bk - 1) / bk;
  const std::size_t tiles = tile_count(c.height(), c.width());
  if (role == 0 && rank == 0) {
    for (std::uint32_t s = 0; s < kStages; ++s) {
      sm.full[s].init(1);
      sm.empty[s].init(kConsumers);
    }
    oxide::Mbarrier::fence_init();
  }
  oxide::sync_threads();

  // The block's tiles: tile b, then b + blocks, ... (one tile when a block is launched per tile).
  // The ring's stages and phases run on from one tile to the next, so the producer loads the next
  // tile's first stages while the consumers still multiply or store this one.
  if (role == 0) {
    oxide::warpgroup::decrease_registers<40>();
    if (rank == 0) {
      oxide::PipelineState<kStages> at;
      std::uint32_t issued = 0;
      for (const auto &tile : oxide::block::block_stride(tiles)) {
        const auto origin = c.warpgroup_tile_origin<kBN, kConsumers, 1, kGroupM>(tile);
        for (std::uint32_t i = 0; i < steps; ++i, ++issued, at.advance()) {
          if (issued >= kStages) // the consumers are done with this stage's previous tiles
            sm.empty[at.stage].wait(at.phase ^ 1);
          sm.full[at.stage].arrive_expect_tx(MapA<T>::box_bytes + BSource::tile_type::bytes);
          const auto k0 = static_cast<std::int32_t>(i * bk);
          oxide::tma::load(sm.a[at.stage], a, {static_cast<std::int32_t>(origin.row), k0}, sm.full[at.stage]);
          BSource::load(sm.b[at.stage], b, static_cast<std::int32_t>(origin.column), k0, sm.full[at.stage]);
        }
      }
    }
    return;
  }

  oxide::warpgroup::increase_registers<232>();
  const std::uint32_t row0 = (role - 1) * 64; // this consumer's rows of the stage's A tile
  oxide::PipelineState<kStages> at;
  for (const auto &tile : oxide::block::block_stride(tiles)) {
    oxide::wgmma::Accumulator<T, kBN> acc;
    for (std::uint32_t i = 0; i < steps; ++i, at.advance()) {
      sm.full[at.stage].wait(at.phase);
      oxide::wgmma::fence();
      oxide::wgmma::mma_async(acc, sm.a[at.stage], row0, sm.b[at.stage], 0); // 4 x m64n256kK
      oxide::wgmma::commit_group();
      oxide::wgmma::wait_group<0>();
      if (rank == 0)
        sm.empty[at.stage].arrive();
    }
    // Each accumulator pair is two adjacent columns of one row: one 8-byte store where the pair
    // is inside C (store_pair), single elements at its edge.
    const auto origin = c.warpgroup_tile_origin<kBN, kConsumers, 1, kGroupM>(tile);
    const auto out = c.warpgroup_tile_mut<kBN, kConsumers, 1, kGroupM>(tile);
#pragma unroll
    for (std::uint32_t j = 0; j < acc.size; j += 2) {
      const auto column = static_cast<std::uint32_t>(origin.column) + decltype(acc)::coord(rank, j).col;
      out.store_pair(j, epilogue(acc.x[j], column), epilogue(acc.x[j + 1], column + 1));
    }
  }
}

/// C = A W^T; launch config(m, n).
template <class T>
[[kernel, oxide::launch_bounds(kThreads, 1),
  oxide::launch_contract("domain = 1, block = 384, dynamic_shared = kSharedBytes..232448")]] void
gemm(MapA<T> a, MapW<T> w, oxide::DisjointSpan2D<float> c, std::uint32_t k) {
  multiply<T, FromWeights<T>>(a, w, c, k, Plain{});
}

/// C = A B for a row-major k x n B; launch config(m, n).
template <class T>
[[kernel, oxide::launch_bounds(kThreads, 1),
  oxide::launch_contract("domain = 1, block = 384, dynamic_shared = kSharedBytes..232448")]] void
gemm_nn(MapA<T> a, MapB<T> b, oxide::DisjointSpan2D<float> c, std::uint32_t k) {
  multiply<T, FromRowMajor<T>>(a, b, c, k, Plain{});
}

/// C = GELU(A W^T + bias) for an m x n C, bias[j] added to column j: a linear layer with its
/// activation fused.
template <class T>
[[kernel, oxide::launch_bounds(kThreads, 1),
  oxide::launch_contract("domain = 1, block = 384, dynamic_shared = kSharedBytes..232448, "
                         "requires = (bias.size() == n, c.size() == m * n)")]] void
gemm_bias_gelu(MapA<T> a, MapW<T> w, oxide::Span<const float> bias, oxide::DisjointSpan2D<float> c,
               std::uint32_t m, std::uint32_t n, std::uint32_t k) {
  multiply<T, FromWeights<T>>(a, w, c, k, BiasGelu{bias});
}

/// The launch of the kernels for an m x n C: one block per tile ...
inline oxide::LaunchConfig1D config(std::uint32_t m, std::uint32_t n) {
  return {static_cast<std::uint32_t>(tile_count(m, n)), kThreads, kSharedBytes};
}
/// ... or persistent: one block per multiprocessor (`sms`), each taking every sms-th tile.
inline oxide::LaunchConfig1D persistent_config(std::uint32_t m, std::uint32_t n, std::uint32_t sms) {
  return {static_cast<std::uint32_t>(std::min<std::size_t>(tile_count(m, n), sms)), kThreads, kSharedBytes};
}

} // namespace wgmma_gemm
