// Attention forward on Hopper's warpgroup tensor cores, in the safe tier: O = softmax(Q K^T s) V
// for bf16 Q, K, V and O of shape [batch, heads, seq_len, D] (PyTorch's SDPA layout, viewed as
// batch * heads * seq_len rows of D), head dimension D = 64 or 128, causal or not, s = 1/sqrt(D)
// by default (forward); and for sequences of different lengths packed in each head
// (forward_varlen). The kernels of examples/attention.cpp and of the benchmark against SDPA.
//
// FlashAttention's algorithm with FlashAttention-3's data path. Each block of 3 warpgroups takes
// 128 query rows of one head:
// - warpgroup 0 is the producer: one of its threads has the copy engine (TMA) load the block's
//   Q once and then each 128-key tile of K and V into a ring of shared-memory stages;
// - warpgroups 1 and 2 are the consumers, 64 query rows each: S = Q K^T with wgmma (K read
//   K-major, as it is stored), the online softmax on S's registers, P = bf16(S) converted in
//   registers to the A operand of the next product (wgmma::to_register_a: no shared memory), and
//   O += P V with wgmma (V read MN-major, as it is stored: SharedPanels), then the stage goes
//   back to the producer. By default with FlashAttention-3's schedule: a consumer's softmax of
//   one key tile runs while its P V of the previous tile is on the tensor cores, and the two
//   consumers take turns at the tensor cores (named barriers).
// The output is written from O's registers through DisjointSpan2D::warpgroup_tile_mut: each
// thread writes the elements it holds, two at a time. Causal blocks take their q-tiles
// longest-first, one head at a time (CausalOrder). Launch persistent_config() (a block per
// multiprocessor, each taking several q-tiles, the next one's loads under this one's end): on an
// H100 it is faster than a block per q-tile (config()) without causality, by 3 % (D = 128) and
// 13 % (D = 64); causal, which launch wins has depended on the order of the tiles
// (docs/performance.md, sessions 40 and 41).
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
/// Whether the kernels overlap the softmax with the tensor cores (FlashAttention-3) by default:
/// yes at both head dimensions since D = 128 has three K/V stages and the softmax's exponentials
/// are bare MUFU.EX2 (session 42, H100, B=4 H=32 S=4096: 649 TFLOP/s against 608 serial, causal
/// 552 against 504; docs/performance.md). The serial schedule stays for comparison.
template <std::uint32_t D> inline constexpr bool kOverlap = true;

/// K and V stages in flight. An overlapped consumer holds two stages at once (step j's K and step
/// j - 1's V), so at D = 128 it takes three (Q and three stages: 224 KiB), leaving the producer one
/// to fill; the serial schedule holds one, and two keep the producer ahead.
template <std::uint32_t D, bool Overlap>
inline constexpr std::uint32_t kStages = D == 64   ? 4
                                         : Overlap ? 3
                                                   : 2;

/// Q's, K's and V's maps: boxes of 128 rows by 64 columns (128 bytes, the swizzle's width), one
/// per 64 columns of D. A K tile is D / 64 of them (K-major SharedMatrix pieces), a V tile one
/// SharedPanels of D / 64 panels.
using Map = oxide::TensorMap<const bf16, oxide::Box<128, 64>, oxide::Swizzle::b128>;
using HostMap = oxide::DeviceTensorMap<const bf16, oxide::Box<128, 64>, oxide::Swizzle::b128>;

/// A stage's V: 128 keys by D, MN-major (the product's N is D).
template <std::uint32_t D> using VTile = oxide::SharedPanels<bf16, kBN, D, oxide::Swizzle::b128>;

template <std::uint32_t D, std::uint32_t Stages> struct Shared {
  static_assert(D == 64 || D == 128, "attention takes head dimensions 64 and 128");
  Map::matrix_type q[D / 64];
  Map::matrix_type k[Stages][D / 64];
  VTile<D> v[Stages];
  oxide::Mbarrier q_full, q_empty, full[Stages], empty[Stages];
};
template <std::uint32_t D, bool Overlap>
inline constexpr std::uint32_t kSharedBytes = oxide::dynamic_shared_bytes_for<Shared<D, kStages<D, Overlap>>>;
/// Enough for either schedule (what config() asks for).
template <std::uint32_t D>
inline constexpr std::uint32_t kMaxSharedBytes = std::max(kSharedBytes<D, false>, kSharedBytes<D, true>);

/// The online softmax of a consumer's rows. Each thread holds two rows of the 64 (its
/// accumulator elements i with i / 2 % 2 = 0 and 1), each shared with the 3 other lanes of its
/// quad; `row_max` is the rows' running maximum (whole rows), `row_sum` the thread's part of
/// their running sums (the quad adds them up at the end: the factors applied to them are the
/// same in the 4 lanes).
struct OnlineSoftmax {
  static constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  float row_max[2] = {kNegInf, kNegInf}, row_sum[2] = {0.0f, 0.0f};

  /// Turns the scores `s` into exp2(s scale_log2 - the rows' new maxima), adds them to the sums,
  /// and gives in `rescale` the factor of the rows' earlier output (0 on the first step, 1 while a
  /// row has had no key).
  template <std::uint32_t N>
  [[gnu::always_inline]] void step(oxide::wgmma::Accumulator<bf16, N> &s, float scale_log2,
                                   float (&rescale)[2]) noexcept {
    float tile_max[2] = {kNegInf, kNegInf};
#pragma unroll
    for (std::uint32_t i = 0; i < s.size; ++i)
      tile_max[i / 2 % 2] = std::fmax(tile_max[i / 2 % 2], s.x[i]);
    float shift[2];
#pragma unroll
    for (std::uint32_t r = 0; r < 2; ++r) {
      tile_max[r] = std::fmax(tile_max[r], oxide::warp::shuffle_xor(tile_max[r], 1));
      tile_max[r] = std::fmax(tile_max[r], oxide::warp::shuffle_xor(tile_max[r], 2));
      const float next = std::fmax(row_max[r], tile_max[r]);
      // A row with no key yet (all masked) keeps nothing and adds zeros, not NaNs. The factor is
      // computed either way and selected, so that the step has no branch.
      const bool none = next == kNegInf;
      const float factor = oxide::fast::exp2((row_max[r] - next) * scale_log2);
      rescale[r] = none ? 1.0f : factor;
      shift[r] = none ? 0.0f : next * scale_log2;
      row_max[r] = next;
      row_sum[r] *= rescale[r];
    }
#pragma unroll
    for (std::uint32_t i = 0; i < s.size; ++i) {
      const float p = oxide::fast::exp2(s.x[i] * scale_log2 - shift[i / 2 % 2]);
      s.x[i] = p;
      row_sum[i / 2 % 2] += p;
    }
  }
  /// 1 / each row's whole sum.
  [[gnu::always_inline]] void inverse_sums(float (&inverse)[2]) const noexcept {
#pragma unroll
    for (std::uint32_t r = 0; r < 2; ++r) {
      float sum = row_sum[r] + oxide::warp::shuffle_xor(row_sum[r], 1);
      sum += oxide::warp::shuffle_xor(sum, 2);
      inverse[r] = sum > 0.0f ? 1.0f / sum : 0.0f; // a row with no key at all (padding): zeros
    }
  }
};

/// Multiplies each of the thread's two rows of `out` by its factor.
template <std::uint32_t N>
[[gnu::always_inline]] inline void scale_rows(oxide::wgmma::Accumulator<bf16, N> &out,
                                              const float (&factor)[2]) noexcept {
#pragma unroll
  for (std::uint32_t i = 0; i < out.size; ++i)
    out.x[i] *= factor[i / 2 % 2];
}

/// Issues S = Q K^T for the consumer's 64 rows against a stage's 128 keys, as one group.
template <std::uint32_t D, std::uint32_t Stages>
[[gnu::always_inline]] inline void issue_scores(oxide::wgmma::Accumulator<bf16, kBN> &s,
                                                Shared<D, Stages> &sm, std::uint32_t stage,
                                                std::uint32_t consumer) noexcept {
  oxide::wgmma::mma_async<false>(s, sm.q[0], 64 * consumer, sm.k[stage][0], 0);
  if constexpr (D == 128)
    oxide::wgmma::mma_async(s, sm.q[1], 64 * consumer, sm.k[stage][1], 0);
  oxide::wgmma::commit_group();
}

/// Issues O += P V for a stage's V (a VTile), P in registers, as one group.
template <std::uint32_t D, class V>
[[gnu::always_inline]] inline void issue_output(oxide::wgmma::Accumulator<bf16, D> &out,
                                                const oxide::wgmma::RegisterA<bf16, kBN> &p,
                                                const V &v) noexcept {
  oxide::wgmma::mma_async(out, p, v, 0);
  oxide::wgmma::commit_group();
}

/// Writes the thread's elements of O times its rows' factors, two at a time (store_pair).
template <class Mine, std::uint32_t D>
[[gnu::always_inline]] inline void store_rows(const Mine &mine, const oxide::wgmma::Accumulator<bf16, D> &out,
                                              const float (&factor)[2]) noexcept {
#pragma unroll
  for (std::uint32_t j = 0; j < out.size; j += 2) {
    const float f = factor[j / 2 % 2];
    mine.store_pair(j, oxide::to_bfloat16(out.x[j] * f), oxide::to_bfloat16(out.x[j + 1] * f));
  }
}

/// The keys a query row attends to: [lo, hi) among its head's rows (hi already clamped to the row
/// itself when causal).
struct KeyRange {
  std::uint32_t lo = 0, hi = 0;
};

/// Masks the scores of keys [key0, key0 + 128) outside each of the thread's two rows' ranges.
[[gnu::always_inline]] inline void mask_keys(oxide::wgmma::Accumulator<bf16, kBN> &s, std::uint32_t rank,
                                             std::uint32_t key0, const KeyRange (&rows)[2]) noexcept {
#pragma unroll
  for (std::uint32_t i = 0; i < s.size; ++i) {
    const std::uint32_t key = key0 + oxide::wgmma::Accumulator<bf16, kBN>::coord(rank, i).col;
    const KeyRange &range = rows[i / 2 % 2];
    if (key < range.lo || key >= range.hi)
      s.x[i] = OnlineSoftmax::kNegInf;
  }
}

/// The order causal blocks take their q-tiles in: longest first (a head's last q-tile has the
/// most keys), so that the short ones fill the end (oxide::LongestFirst; a persistent launch's
/// blocks take every other round of tiles in reverse, which shares the long and short ones out).
enum class CausalOrder {
  /// One head at a time: the blocks running at once share one or two heads' K and V in L2.
  heads_together,
  /// Every head at once (every head's longest q-tile first, then every head's next): the blocks
  /// running at once read all heads' K and V.
  heads_interleaved,
};

/// Heads of seq_len rows, every query attending to its head's keys (up to itself when causal).
/// Causal blocks take the q-tiles longest-first in `Order`.
template <bool Causal, CausalOrder Order = CausalOrder::heads_together> struct FixedLength {
  std::uint32_t seq_len;

  [[nodiscard]] std::uint32_t head_rows() const noexcept { return seq_len; }
  [[nodiscard]] KeyRange row_keys(std::uint32_t row) const noexcept {
    return {0, Causal ? row + 1 : seq_len};
  }
  [[nodiscard]] KeyRange block_keys(std::uint32_t row0) const noexcept {
    return {0, Causal ? row0 + kBM : seq_len};
  }
  /// Whether the tile of keys from key0 reaches past a query of the block (from row0): only the
  /// diagonal tile of a causal head.
  [[nodiscard]] bool needs_mask(std::uint32_t key0, std::uint32_t row0) const noexcept {
    return Causal && key0 + kBN > row0 + 1;
  }
  /// LongestFirst's runs are the heads' q-tiles, one head at a time or all at once.
  [[nodiscard]] oxide::LongestFirst order() const noexcept {
    return {seq_len / kBM, Order == CausalOrder::heads_together ? 1u : 0u};
  }
  template <std::uint32_t D>
  [[nodiscard]] auto origin(const oxide::DisjointSpan2D<bf16> &o,
                            const oxide::block::BlockIndex &b) const noexcept {
    if constexpr (Causal)
      return o.warpgroup_tile_origin<D, kConsumers, 1>(b, order());
    else
      return o.warpgroup_tile_origin<D, kConsumers, 1>(b);
  }
  template <std::uint32_t D>
  [[nodiscard, gnu::always_inline]] auto tile_mut(const oxide::DisjointSpan2D<bf16> &o,
                                                  const oxide::block::BlockIndex &b) const noexcept {
    if constexpr (Causal)
      return o.warpgroup_tile_mut<D, kConsumers, 1>(b, order());
    else
      return o.warpgroup_tile_mut<D, kConsumers, 1>(b);
  }
};

/// Sequences of different lengths packed one after the other in each head's `rows` rows
/// (FlashAttention's varlen): sequence i is rows [starts[i], starts[i + 1]); the rows from the
/// last start to `rows` are padding (they attend to nothing and read as zeros). A query attends
/// to its own sequence's keys (up to itself when causal); a q-tile that spans sequences computes
/// the keys of all of them and masks each row to its own.
template <bool Causal> struct PackedSequences {
  oxide::Span<const std::uint32_t> starts;
  std::uint32_t rows;

  /// Every tile: it may hold keys of another sequence.
  [[nodiscard]] bool needs_mask(std::uint32_t, std::uint32_t) const noexcept { return true; }

  [[nodiscard]] std::uint32_t head_rows() const noexcept { return rows; }
  [[nodiscard]] KeyRange row_keys(std::uint32_t row) const noexcept {
    // The last start at or before `row` (starts[0] is 0 and they never decrease).
    const std::uint32_t *end = starts.get(starts.size() - 1);
    if (end == nullptr || row >= *end)
      return {};
    std::size_t lo = 0, hi = starts.size() - 1;
    while (hi - lo > 1) {
      const std::size_t mid = (lo + hi) / 2;
      const std::uint32_t *at = starts.get(mid);
      if (at != nullptr && *at <= row)
        lo = mid;
      else
        hi = mid;
    }
    const std::uint32_t *first = starts.get(lo), *next = starts.get(lo + 1);
    if (first == nullptr || next == nullptr)
      return {};
    return {*first, Causal && row + 1 < *next ? row + 1 : *next};
  }
  [[nodiscard]] KeyRange block_keys(std::uint32_t row0) const noexcept {
    const KeyRange first = row_keys(row0);
    const std::uint32_t *end = starts.get(starts.size() - 1);
    if (first.lo >= first.hi || end == nullptr)
      return {};
    const std::uint32_t last = row0 + kBM - 1 < *end ? row0 + kBM - 1 : *end - 1;
    return {first.lo, row_keys(last).hi};
  }
  template <std::uint32_t D>
  [[nodiscard]] auto origin(const oxide::DisjointSpan2D<bf16> &o,
                            const oxide::block::BlockIndex &b) const noexcept {
    return o.warpgroup_tile_origin<D, kConsumers, 1>(b);
  }
  template <std::uint32_t D>
  [[nodiscard, gnu::always_inline]] auto tile_mut(const oxide::DisjointSpan2D<bf16> &o,
                                                  const oxide::block::BlockIndex &b) const noexcept {
    return o.warpgroup_tile_mut<D, kConsumers, 1>(b);
  }
};

/// Where a q-tile's 128 queries start (`row0` of their head, whose rows start at `head`), and the
/// keys they need: [keys.lo, keys.hi) of the head, `steps` tiles of 128 from keys.lo.
struct TileKeys {
  std::uint32_t head = 0, row0 = 0, steps = 0;
  KeyRange keys;
};
template <class Heads, class Origin>
[[gnu::always_inline]] inline TileKeys tile_keys(const Heads &heads, const Origin &origin) noexcept {
  const std::uint32_t rows = heads.head_rows();
  const std::uint32_t head = static_cast<std::uint32_t>(origin.row / rows * rows);
  const std::uint32_t row0 = static_cast<std::uint32_t>(origin.row) - head;
  const KeyRange keys = heads.block_keys(row0);
  const std::uint32_t steps = keys.hi > keys.lo ? (keys.hi - keys.lo + kBN - 1) / kBN : 0;
  return {head, row0, steps, keys};
}

/// The producer (one thread of warpgroup 0): for each of the block's q-tiles, its first K/V
/// stage, then its Q once the consumers are done with the previous tile's, then its other
/// stages, each into the next free stage of the ring.
template <std::uint32_t D, std::uint32_t Stages, class Heads>
[[gnu::always_inline]] inline void produce(Shared<D, Stages> &sm, const Map &q, const Map &k, const Map &v,
                                           const oxide::DisjointSpan2D<bf16> &o, const Heads &heads,
                                           std::size_t tiles) {
  constexpr std::uint32_t pieces = D / 64;
  oxide::PipelineState<Stages> at;
  std::uint32_t issued = 0, q_loads = 0;
  for (const auto &tile : oxide::block::block_stride(tiles)) {
    const auto origin = heads.template origin<D>(o, tile);
    if (!origin.inside)
      continue;
    const TileKeys t = tile_keys(heads, origin);
    if (t.steps == 0)
      continue;
    auto load_keys = [&](std::uint32_t j) {
      if (issued >= Stages) // the consumers are done with this stage's previous keys
        sm.empty[at.stage].wait(at.phase ^ 1);
      auto &full = sm.full[at.stage];
      full.arrive_expect_tx(pieces * Map::box_bytes + VTile<D>::bytes);
      const auto row = static_cast<std::int32_t>(t.head + t.keys.lo + j * kBN);
      for (std::uint32_t p = 0; p < pieces; ++p)
        oxide::tma::load(sm.k[at.stage][p], k, {row, static_cast<std::int32_t>(64 * p)}, full);
      oxide::tma::load(sm.v[at.stage], v, {row, 0}, full);
      ++issued;
      at.advance();
    };
    // The first keys before Q: they need only a free stage, Q the consumers' last tile done.
    load_keys(0);
    if (q_loads > 0)
      sm.q_empty.wait((q_loads - 1) % 2);
    sm.q_full.arrive_expect_tx(pieces * Map::box_bytes);
    for (std::uint32_t p = 0; p < pieces; ++p)
      oxide::tma::load(sm.q[p], q, {static_cast<std::int32_t>(origin.row), static_cast<std::int32_t>(64 * p)},
                       sm.q_full);
    ++q_loads;
    for (std::uint32_t j = 1; j < t.steps; ++j)
      load_keys(j);
  }
}

/// A consumer's state for one q-tile: its 64 rows' scores, output and softmax, and what it
/// needs to mask them.
template <std::uint32_t D> struct TileState {
  oxide::wgmma::Accumulator<bf16, kBN> s;
  oxide::wgmma::Accumulator<bf16, D> out;
  OnlineSoftmax softmax;
  float rescale[2];
  TileKeys t;
  KeyRange row_keys[2]; ///< the keys of the thread's two rows
  std::uint32_t consumer, rank;
  float scale_log2;
};

/// The step's probabilities P = bf16(exp2(S scale_log2 - the rows' maxima)), masked, in
/// registers, with the softmax's state moved on. They are computed in a copy of S, which leaves
/// the accumulator's registers to the tensor cores.
template <std::uint32_t D, class Heads>
[[gnu::always_inline]] inline oxide::wgmma::RegisterA<bf16, kBN>
probabilities(TileState<D> &x, const Heads &heads, std::uint32_t key0) {
  oxide::wgmma::Accumulator<bf16, kBN> scores = x.s;
  if (heads.needs_mask(key0, x.t.row0))
    mask_keys(scores, x.rank, key0, x.row_keys);
  x.softmax.step(scores, x.scale_log2, x.rescale);
  return oxide::wgmma::to_register_a<bf16>(scores);
}

/// The tile's steps one after the other: S = Q K^T, the softmax, O += P V.
template <std::uint32_t D, std::uint32_t Stages, class Heads>
[[gnu::always_inline]] inline void steps_serial(Shared<D, Stages> &sm, TileState<D> &x,
                                                oxide::PipelineState<Stages> &at, const Heads &heads) {
  for (std::uint32_t j = 0; j < x.t.steps; ++j, at.advance()) {
    sm.full[at.stage].wait(at.phase);
    oxide::wgmma::fence();
    issue_scores(x.s, sm, at.stage, x.consumer);
    oxide::wgmma::wait_group<0>();
    const auto p = probabilities(x, heads, x.t.keys.lo + j * kBN);
    scale_rows(x.out, x.rescale);
    oxide::wgmma::fence();
    issue_output(x.out, p, sm.v[at.stage]);
    oxide::wgmma::wait_group<0>();
    if (x.rank == 0)
      sm.empty[at.stage].arrive();
  }
}

/// FlashAttention-3's overlap inside the warpgroup: the softmax of step j runs while the tensor
/// cores add step j - 1's P V. S_j and that product are issued together, S_j waited for alone
/// (wait_group<1>); O is rescaled once the product has landed. With PingPong, the two consumers
/// also take turns at the tensor cores (named barriers 1 and 2: a consumer issues after the other
/// has issued), so that one's softmax runs under the other's products. At least one step.
template <std::uint32_t D, bool PingPong, std::uint32_t Stages, class Heads>
[[gnu::always_inline]] inline void steps_overlapped(Shared<D, Stages> &sm, TileState<D> &x,
                                                    oxide::PipelineState<Stages> &at, const Heads &heads) {
  const oxide::NamedBarrier my_turn(1 + x.consumer, 2 * oxide::warpgroup::kThreads),
      their_turn(2 - x.consumer, 2 * oxide::warpgroup::kThreads);
  if (PingPong && x.consumer == 1)
    their_turn.arrive(); // consumer 0 goes first
  sm.full[at.stage].wait(at.phase);
  if constexpr (PingPong)
    my_turn.sync();
  oxide::wgmma::fence();
  issue_scores(x.s, sm, at.stage, x.consumer);
  if constexpr (PingPong)
    their_turn.arrive();
  oxide::wgmma::wait_group<0>();
  auto p = probabilities(x, heads, x.t.keys.lo); // O is still zero: nothing to rescale
  std::uint32_t previous = at.stage;
  at.advance();
  for (std::uint32_t j = 1; j < x.t.steps; ++j, at.advance()) {
    sm.full[at.stage].wait(at.phase);
    if constexpr (PingPong)
      my_turn.sync();
    oxide::wgmma::fence();
    issue_scores(x.s, sm, at.stage, x.consumer);
    issue_output(x.out, p, sm.v[previous]);
    if constexpr (PingPong)
      their_turn.arrive();
    oxide::wgmma::wait_group<1>(); // S_j has landed; the product may still run
    const auto next = probabilities(x, heads, x.t.keys.lo + j * kBN);
    oxide::wgmma::wait_group<0>();
    if (x.rank == 0)
      sm.empty[previous].arrive();
    scale_rows(x.out, x.rescale);
    p = next;
    previous = at.stage;
  }
  if constexpr (PingPong)
    my_turn.sync();
  oxide::wgmma::fence();
  issue_output(x.out, p, sm.v[previous]);
  if constexpr (PingPong)
    their_turn.arrive();
  oxide::wgmma::wait_group<0>();
  if (x.rank == 0)
    sm.empty[previous].arrive();
  if (PingPong && x.consumer == 0)
    my_turn.sync(); // consumer 1's last arrival, so that no barrier is left half-way
}

/// The body of the attention kernels: O = softmax(Q K^T scale) V for the block's q-tiles of 128
/// queries against the keys `heads` gives them. With Overlap, each consumer's softmax runs while
/// its previous P V is on the tensor cores; with PingPong (and Overlap) the two consumers also
/// take turns at the tensor cores.
template <std::uint32_t D, bool Overlap, bool PingPong, class Heads>
[[gnu::always_inline]] inline void attend(const Map &q, const Map &k, const Map &v,
                                          oxide::DisjointSpan2D<bf16> o, const Heads &heads, float scale) {
  constexpr std::uint32_t stages = kStages<D, Overlap>;
  auto &sm = oxide::dynamic_shared_object<Shared<D, stages>>();
  const std::uint32_t role = oxide::warpgroup::index(), rank = oxide::warpgroup::rank();
  if (role == 0 && rank == 0) {
    sm.q_full.init(1);
    sm.q_empty.init(kConsumers);
    for (std::uint32_t s = 0; s < stages; ++s) {
      sm.full[s].init(1);
      sm.empty[s].init(kConsumers);
    }
    oxide::Mbarrier::fence_init();
  }
  oxide::sync_threads();
  // The block's q-tiles: tile b, then b + blocks, ... (one tile when a block is launched per
  // tile, config(); persistent_config() launches a block per multiprocessor). The K/V ring's
  // stages and phases, and Q's, run on from one tile to the next, so that the producer loads the
  // next tile's first keys and its Q while the consumers still finish and store this one.
  const std::size_t tiles = (o.height() + kBM - 1) / kBM;
  if (role == 0) {
    oxide::warpgroup::decrease_registers<24>();
    if (rank == 0)
      produce(sm, q, k, v, o, heads, tiles);
    return;
  }

  oxide::warpgroup::increase_registers<240>();
  const std::uint32_t consumer = role - 1;
  const float scale_log2 = scale * 1.44269504088896340736f; // exp(x s) = exp2(x s log2(e))
  oxide::PipelineState<stages> at;
  std::uint32_t q_loads = 0;
  for (const auto &tile : oxide::block::block_stride(tiles)) {
    const auto origin = heads.template origin<D>(o, tile);
    if (!origin.inside)
      continue;
    TileState<D> x;
    x.t = tile_keys(heads, origin);
    const std::uint32_t my_row = x.t.row0 + 64 * consumer + 16 * (rank / 32) + rank % 32 / 4;
    x.row_keys[0] = heads.row_keys(my_row);
    x.row_keys[1] = heads.row_keys(my_row + 8);
    x.consumer = consumer;
    x.rank = rank;
    x.scale_log2 = scale_log2;
    if (x.t.steps > 0) {
      sm.q_full.wait(q_loads % 2);
      if constexpr (Overlap)
        steps_overlapped<D, PingPong>(sm, x, at, heads);
      else
        steps_serial(sm, x, at, heads);
      ++q_loads;
      if (rank == 0) // this consumer's products are done: Q may be loaded again
        sm.q_empty.arrive();
    }
    // O / the rows' sums, written from the registers two elements at a time (rows that attend to
    // nothing, padding, as zeros), while the producer loads the next tile.
    float inverse[2];
    x.softmax.inverse_sums(inverse);
    store_rows(heads.template tile_mut<D>(o, tile), x.out, inverse);
  }
}

/// O = softmax(Q K^T scale) V, with keys after the query masked out when Causal. q, k, v and o
/// hold batch * heads heads of seq_len rows of D (seq_len a multiple of 128); launch
/// persistent_config() (or config()). Causal blocks take the q-tiles in `Order`.
template <std::uint32_t D, bool Causal, bool Overlap = kOverlap<D>, bool PingPong = Overlap,
          CausalOrder Order = CausalOrder::heads_together>
[[kernel, oxide::launch_bounds(kThreads, 1),
  oxide::launch_contract("domain = 1, block = 384, dynamic_shared = kSharedBytes<D, Overlap>..232448, "
                         "requires = (seq_len % 128 == 0, o.height() % seq_len == 0)")]] void
forward(Map q, Map k, Map v, oxide::DisjointSpan2D<bf16> o, std::uint32_t seq_len, float scale) {
  attend<D, Overlap, PingPong>(q, k, v, o, FixedLength<Causal, Order>{seq_len}, scale);
}

/// The same for sequences of different lengths (FlashAttention's varlen): each head's `rows`
/// rows (a multiple of 128) hold the batch's sequences one after the other, sequence i at rows
/// [starts[i], starts[i + 1]) (starts[0] = 0, non-decreasing, the last at most `rows`); the
/// rows past the last are padding, written as zeros.
template <std::uint32_t D, bool Causal>
[[kernel, oxide::launch_bounds(kThreads, 1),
  oxide::launch_contract("domain = 1, block = 384, dynamic_shared = kSharedBytes<D, kOverlap<D>>..232448, "
                         "requires = (rows % 128 == 0, o.height() % rows == 0, starts.size() >= 2)")]] void
forward_varlen(Map q, Map k, Map v, oxide::DisjointSpan2D<bf16> o, oxide::Span<const std::uint32_t> starts,
               std::uint32_t rows, float scale) {
  attend<D, kOverlap<D>, kOverlap<D>>(q, k, v, o, PackedSequences<Causal>{starts, rows}, scale);
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

/// The launch for `rows` = batch * heads * seq_len query rows: a block per 128 ...
inline oxide::LaunchConfig1D config(std::uint32_t rows, std::uint32_t d) {
  return {(rows + kBM - 1) / kBM, kThreads, d == 64 ? kMaxSharedBytes<64> : kMaxSharedBytes<128>};
}
/// ... or persistent: a block per multiprocessor (`sms`), each taking every sms-th q-tile (in the
/// causal kernels' longest-first order), its next tile's loads under this one's last products
/// and stores.
inline oxide::LaunchConfig1D persistent_config(std::uint32_t rows, std::uint32_t d, std::uint32_t sms) {
  return {std::min((rows + kBM - 1) / kBM, sms), kThreads,
          d == 64 ? kMaxSharedBytes<64> : kMaxSharedBytes<128>};
}

} // namespace attention
