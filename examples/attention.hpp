// Attention forward on Hopper's warpgroup tensor cores, in the safe tier: O = softmax(Q K^T s) V
// for bf16 Q, K, V and O of shape [batch, heads, seq_len, D] (PyTorch's SDPA layout, viewed as
// batch * heads * seq_len rows of D), head dimension D = 64 or 128, causal or not, s = 1/sqrt(D)
// by default. The kernel of examples/attention.cpp (and of the benchmark against PyTorch's SDPA).
//
// FlashAttention's algorithm with FlashAttention-3's data path. Each block of 3 warpgroups takes
// 128 query rows of one head:
// - warpgroup 0 is the producer: one of its threads has the copy engine (TMA) load the block's
//   Q once and then each 128-key tile of K and V into a ring of shared-memory stages;
// - warpgroups 1 and 2 are the consumers, 64 query rows each: S = Q K^T with wgmma (K read
//   K-major, as it is stored), the online softmax on S's registers, P = bf16(S) converted in
//   registers to the A operand of the next product (wgmma::to_register_a: no shared memory), and
//   O += P V with wgmma (V read MN-major, as it is stored: SharedPanels), then the stage goes
//   back to the producer.
// The output is written from O's registers through DisjointSpan2D::warpgroup_tile_mut: each
// thread writes the elements it holds, two at a time.
#pragma once

#include <oxide/oxide.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace attention {

using bf16 = oxide::bfloat16;

/// Query rows per block (two consumer warpgroups of 64) and keys per step.
inline constexpr std::uint32_t kBM = 128, kBN = 128, kConsumers = 2;
inline constexpr std::uint32_t kThreads = oxide::warpgroup::kThreads * (1 + kConsumers);
/// K and V stages in flight: as many as fit in shared memory with Q.
template <std::uint32_t D> inline constexpr std::uint32_t kStages = D == 64 ? 4 : 2;

/// Q's, K's and V's maps: boxes of 128 rows by 64 columns (128 bytes, the swizzle's width), one
/// per 64 columns of D. A K tile is D / 64 of them (K-major SharedMatrix pieces), a V tile one
/// SharedPanels of D / 64 panels.
using Map = oxide::TensorMap<const bf16, oxide::Box<128, 64>, oxide::Swizzle::b128>;
using HostMap = oxide::DeviceTensorMap<const bf16, oxide::Box<128, 64>, oxide::Swizzle::b128>;

/// A stage's V: 128 keys by D, MN-major (the product's N is D).
template <std::uint32_t D> using VTile = oxide::SharedPanels<bf16, kBN, D, oxide::Swizzle::b128>;

template <std::uint32_t D> struct Shared {
  static_assert(D == 64 || D == 128, "attention takes head dimensions 64 and 128");
  Map::matrix_type q[D / 64];
  Map::matrix_type k[kStages<D>][D / 64];
  VTile<D> v[kStages<D>];
  oxide::Mbarrier q_full, full[kStages<D>], empty[kStages<D>];
};
template <std::uint32_t D>
inline constexpr std::uint32_t kSharedBytes = oxide::dynamic_shared_bytes_for<Shared<D>>;

/// O = softmax(Q K^T scale) V, with keys after the query masked out when Causal. q, k, v and o
/// hold batch * heads heads of seq_len rows of D (seq_len a multiple of 128); launch config().
template <std::uint32_t D, bool Causal>
[[kernel, oxide::launch_bounds(kThreads, 1),
  oxide::launch_contract("domain = 1, block = 384, dynamic_shared = kSharedBytes<D>..232448, "
                         "requires = (seq_len % 128 == 0, o.height() % seq_len == 0)")]] void
forward(Map q, Map k, Map v, oxide::DisjointSpan2D<bf16> o, std::uint32_t seq_len, float scale) {
  constexpr std::uint32_t stages = kStages<D>, pieces = D / 64;
  auto &sm = oxide::dynamic_shared_object<Shared<D>>();
  const auto block = oxide::block::index();
  const std::uint32_t role = oxide::warpgroup::index(), rank = oxide::warpgroup::rank();
  const auto origin = o.warpgroup_tile_origin<D, kConsumers, 1>(block);
  if (role == 0 && rank == 0) {
    sm.q_full.init(1);
    for (std::uint32_t s = 0; s < stages; ++s) {
      sm.full[s].init(1);
      sm.empty[s].init(kConsumers);
    }
    oxide::Mbarrier::fence_init();
  }
  oxide::sync_threads();
  if (!origin.inside)
    return;
  // The block's 128 queries are tile `tile` of their head, whose rows start at `head`.
  const std::uint32_t head = static_cast<std::uint32_t>(origin.row / seq_len * seq_len);
  const std::uint32_t tile = (static_cast<std::uint32_t>(origin.row) - head) / kBM;
  const std::uint32_t steps = Causal ? tile + 1 : seq_len / kBN; // keys past the diagonal: none

  if (role == 0) {
    oxide::warpgroup::decrease_registers<24>();
    if (rank == 0) {
      sm.q_full.arrive_expect_tx(pieces * Map::box_bytes);
      for (std::uint32_t p = 0; p < pieces; ++p)
        oxide::tma::load(sm.q[p], q,
                         {static_cast<std::int32_t>(origin.row), static_cast<std::int32_t>(64 * p)},
                         sm.q_full);
      oxide::PipelineState<stages> at;
      for (std::uint32_t j = 0; j < steps; ++j, at.advance()) {
        if (j >= stages) // the consumers are done with this stage's previous keys
          sm.empty[at.stage].wait(at.phase ^ 1);
        auto &full = sm.full[at.stage];
        full.arrive_expect_tx(pieces * Map::box_bytes + VTile<D>::bytes);
        const auto row = static_cast<std::int32_t>(head + j * kBN);
        for (std::uint32_t p = 0; p < pieces; ++p)
          oxide::tma::load(sm.k[at.stage][p], k, {row, static_cast<std::int32_t>(64 * p)}, full);
        oxide::tma::load(sm.v[at.stage], v, {row, 0}, full);
      }
    }
    return;
  }

  oxide::warpgroup::increase_registers<240>();
  const std::uint32_t consumer = role - 1;
  // Scores in base 2: exp(x s) = exp2(x s log2(e)).
  const float scale_log2 = scale * 1.44269504088896340736f;
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  oxide::wgmma::Accumulator<bf16, kBN> s;
  oxide::wgmma::Accumulator<bf16, D> out;
  // The thread's two rows (r0 = row 0 of its accumulator elements, r1 = r0 + 8): their running
  // maximum and the thread's part of their running sums.
  float row_max[2] = {kNegInf, kNegInf}, row_sum[2] = {0.0f, 0.0f};
  sm.q_full.wait(0);
  oxide::PipelineState<stages> at;
  for (std::uint32_t j = 0; j < steps; ++j, at.advance()) {
    sm.full[at.stage].wait(at.phase);
    oxide::wgmma::fence();
    oxide::wgmma::mma_async<false>(s, sm.q[0], 64 * consumer, sm.k[at.stage][0], 0);
    if constexpr (pieces == 2)
      oxide::wgmma::mma_async(s, sm.q[1], 64 * consumer, sm.k[at.stage][1], 0);
    oxide::wgmma::commit_group();
    oxide::wgmma::wait_group<0>();

    if (Causal && j == tile) { // the diagonal tile: key column c > query row r is masked
#pragma unroll
      for (std::uint32_t i = 0; i < s.size; ++i) {
        const oxide::mma::Coord at_i = decltype(s)::coord(rank, i);
        if (at_i.col > 64 * consumer + at_i.row)
          s.x[i] = kNegInf;
      }
    }
    // The rows' maxima over this tile: the thread's elements, then the 4 lanes that share them.
    float tile_max[2] = {kNegInf, kNegInf};
#pragma unroll
    for (std::uint32_t i = 0; i < s.size; ++i)
      tile_max[i / 2 % 2] = std::fmax(tile_max[i / 2 % 2], s.x[i]);
    float rescale[2], shift[2];
#pragma unroll
    for (std::uint32_t r = 0; r < 2; ++r) {
      tile_max[r] = std::fmax(tile_max[r], oxide::warp::shuffle_xor(tile_max[r], 1));
      tile_max[r] = std::fmax(tile_max[r], oxide::warp::shuffle_xor(tile_max[r], 2));
      const float next = std::fmax(row_max[r], tile_max[r]);
      rescale[r] = std::exp2((row_max[r] - next) * scale_log2); // 0 on the first tile
      shift[r] = next * scale_log2;
      row_max[r] = next;
      row_sum[r] *= rescale[r];
    }
#pragma unroll
    for (std::uint32_t i = 0; i < s.size; ++i) {
      const float p = std::exp2(s.x[i] * scale_log2 - shift[i / 2 % 2]);
      s.x[i] = p;
      row_sum[i / 2 % 2] += p;
    }
#pragma unroll
    for (std::uint32_t i = 0; i < out.size; ++i)
      out.x[i] *= rescale[i / 2 % 2];

    // O += P V, P = bf16(S) straight from the registers.
    const auto p = oxide::wgmma::to_register_a<bf16>(s);
    oxide::wgmma::fence();
    oxide::wgmma::mma_async(out, p, sm.v[at.stage], 0);
    oxide::wgmma::commit_group();
    oxide::wgmma::wait_group<0>();
    if (rank == 0)
      sm.empty[at.stage].arrive();
  }

  // O / the rows' sums (the 4 lanes of a row hold parts of it), written two elements at a time.
  float inverse[2];
#pragma unroll
  for (std::uint32_t r = 0; r < 2; ++r) {
    float sum = row_sum[r] + oxide::warp::shuffle_xor(row_sum[r], 1);
    sum += oxide::warp::shuffle_xor(sum, 2);
    inverse[r] = 1.0f / sum;
  }
  const auto mine = o.warpgroup_tile_mut<D, kConsumers, 1>(block);
#pragma unroll
  for (std::uint32_t j = 0; j < out.size; j += 2) {
    const float scale_row = inverse[j / 2 % 2];
    mine.store_pair(j, oxide::to_bfloat16(out.x[j] * scale_row),
                    oxide::to_bfloat16(out.x[j + 1] * scale_row));
  }
}

/// The host's reference (examples/attention.cpp, the benchmark): O for one head's row `r`, in
/// double from the bf16 inputs (as floats, rows of d from head_row0), with P rounded to bf16 as the kernel
/// multiplies it (its rows' sums are taken before that rounding, as the kernel's are).
inline std::vector<double> reference_row(const std::vector<float> &q, const std::vector<float> &k,
                                         const std::vector<float> &v, std::size_t head_row0, std::uint32_t r,
                                         std::uint32_t seq_len, std::uint32_t d, bool causal) {
  const std::uint32_t keys = causal ? r + 1 : seq_len;
  std::vector<double> score(keys);
  double max = -std::numeric_limits<double>::infinity();
  for (std::uint32_t c = 0; c < keys; ++c) {
    double dot = 0;
    for (std::uint32_t e = 0; e < d; ++e)
      dot += double(q[(head_row0 + r) * d + e]) * k[(head_row0 + c) * d + e];
    score[c] = dot / std::sqrt(double(d));
    max = std::max(max, score[c]);
  }
  double sum = 0;
  std::vector<double> out(d, 0.0);
  for (std::uint32_t c = 0; c < keys; ++c) {
    const double p = std::exp(score[c] - max);
    sum += p;
    const double rounded = oxide::to_float(oxide::to_bfloat16(static_cast<float>(p)));
    for (std::uint32_t e = 0; e < d; ++e)
      out[e] += rounded * v[(head_row0 + c) * d + e];
  }
  for (double &x : out)
    x /= sum;
  return out;
}

/// The launch for `rows` = batch * heads * seq_len query rows: a block per 128.
inline oxide::LaunchConfig1D config(std::uint32_t rows, std::uint32_t d) {
  return {(rows + kBM - 1) / kBM, kThreads, d == 64 ? kSharedBytes<64> : kSharedBytes<128>};
}

} // namespace attention
