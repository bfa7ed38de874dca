// Attention forward (examples/attention.hpp): O = softmax(Q K^T / sqrt(D)) V for bf16 tensors of
// shape [batch, heads, seq_len, D], head dimensions 64 and 128, causal and not, on Hopper's
// warpgroup tensor cores in the safe tier, with FlashAttention-3's schedule (the softmax
// overlapping the tensor cores, the two consumer warpgroups taking turns at them) and without it
// (serial, or without the turns), and for packed sequences of different lengths (varlen). Each
// result is checked against the same computation in double precision on the host (every row of
// a sample of heads), and its speed printed on a GPU.
//
//   oxcc run --arch=sm_90 examples/attention.cpp      (a GPU of compute capability 9.0, or the simulator)
#include "attention.hpp"

#include "problem_size.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

namespace {

using attention::bf16;

struct Problem {
  oxide::Context &ctx;
  oxide::Stream &stream;
  std::uint32_t batch, heads, seq_len;
  bool small;
};

/// Random bf16 Q, K and V of n elements (and their values as floats, for the reference); the
/// elements for which `padding(i)` holds get huge keys and values instead.
struct Inputs {
  std::vector<bf16> q, k, v;
  std::vector<float> fq, fk, fv;

  template <class Padding>
  Inputs(std::size_t n, unsigned seed, Padding padding) : q(n), k(n), v(n), fq(n), fk(n), fv(n) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (std::size_t i = 0; i < n; ++i) {
      const bool pad = padding(i);
      fq[i] = oxide::to_float(q[i] = oxide::to_bfloat16(dist(rng)));
      fk[i] = oxide::to_float(k[i] = oxide::to_bfloat16(pad ? 1000.0f : dist(rng)));
      fv[i] = oxide::to_float(v[i] = oxide::to_bfloat16(pad ? 1000.0f : dist(rng)));
    }
  }
};

/// The launch: a block per q-tile, or persistent (a block per multiprocessor taking several).
enum class Launch { per_tile, persistent };

oxide::LaunchConfig1D launch_config(const Problem &p, Launch how, std::uint32_t rows, std::uint32_t d) {
  return how == Launch::persistent
             ? attention::persistent_config(rows, d, static_cast<std::uint32_t>(p.ctx.device().sm_count()))
             : attention::config(rows, d);
}

/// Runs one configuration; true when every checked element is within the tolerance.
template <std::uint32_t D, bool Causal, bool Overlap, bool PingPong = Overlap>
bool run(const Problem &p, Launch how = Launch::per_tile) {
  const std::uint32_t rows = p.batch * p.heads * p.seq_len;
  const std::size_t n = std::size_t{rows} * D;
  const Inputs in(n, 7 + D + Causal, [](std::size_t) { return false; });
  const auto &[hq, hk, hv, fq, fk, fv] = in;
  auto map = [&](const std::vector<bf16> &host) {
    return attention::HostMap::create(p.stream, oxide::DeviceBuffer<bf16>::from_host(p.stream, host),
                                      {rows, D});
  };
  auto q = map(hq), k = map(hk), v = map(hv);
  // Poisoned (bf16 NaN) so that an element the kernel never wrote cannot pass the check.
  auto o = oxide::DeviceBuffer<bf16>::from_host(p.stream, std::vector<bf16>(n, oxide::to_bfloat16(NAN)));
  const float scale = 1.0f / std::sqrt(float(D));
  auto launch =
      oxide::prepare(p.ctx, attention::forward<D, Causal, Overlap, PingPong>, launch_config(p, how, rows, D));
  auto once = [&] { launch(p.stream, q, k, v, o.view_2d(D, rows), p.seq_len, scale); };
  once(); // a warm-up on a GPU, the run on the simulator
  p.stream.synchronize();
  const int reps = p.small ? 0 : 20;
  const auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r)
    once();
  p.stream.synchronize();
  const double seconds =
      reps ? std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / reps : 0.0;
  const std::vector<bf16> got = o.to_host(p.stream);

  // bf16 P (2^-9 relative), bf16 O (2^-9) and the tensor cores' f32 sums: 1/64 of O's scale
  // (|O| <= max |V| = 1) is far above them and far below a wrong key, row or scale.
  constexpr double kTolerance = 1.0 / 64;
  const std::uint32_t heads = p.batch * p.heads;
  const std::uint32_t head_step = p.small ? 1 : std::max(1u, heads / 3);
  std::size_t wrong = 0, checked = 0;
  for (std::uint32_t h = 0; h < heads; h += head_step)
    for (std::uint32_t r = 0; r < p.seq_len; r += p.small ? 1 : 37) {
      const std::size_t row0 = std::size_t{h} * p.seq_len;
      const std::vector<double> want = attention::reference_row(fq, fk, fv, row0, r, p.seq_len, D, Causal);
      for (std::uint32_t e = 0; e < D; ++e, ++checked) {
        const double g = oxide::to_float(got[(row0 + r) * D + e]);
        if (!(std::fabs(g - want[e]) <= kTolerance) && wrong++ < 5)
          std::printf("attention D=%u%s%s: O[head %u][%u][%u]: got %.6f, expected %.6f\n", D,
                      Causal ? " causal" : "",
                      !Overlap   ? " serial"
                      : PingPong ? ""
                                 : " no ping-pong",
                      h, r, e, g, want[e]);
      }
    }
  const double flops = 4.0 * heads * double(p.seq_len) * p.seq_len * D * (Causal ? 0.5 : 1.0);
  std::printf("attention D=%u%s%s%s: B=%u H=%u S=%u, %zu elements checked", D, Causal ? " causal" : "",
              !Overlap   ? " serial"
              : PingPong ? ""
                         : " no ping-pong",
              how == Launch::persistent ? " persistent" : "", p.batch, p.heads, p.seq_len, checked);
  if (reps)
    std::printf(", %.1f TFLOP/s", flops / seconds / 1e12);
  std::printf(wrong ? ": %zu wrong\n" : "\n", wrong);
  return wrong == 0;
}

/// Sequences of different lengths packed in each head (attention::forward_varlen): lengths off
/// the tiles' multiples, so that q-tiles span sequences, and padding rows after the last, whose
/// keys and values are huge (a query that saw one would be far off) and whose outputs must be 0.
template <std::uint32_t D, bool Causal> bool run_varlen(const Problem &p, Launch how = Launch::per_tile) {
  const std::vector<std::uint32_t> lengths = p.small ? std::vector<std::uint32_t>{100, 300, 37, 203}
                                                     : std::vector<std::uint32_t>{1000, 3000, 517, 2203, 1};
  std::vector<std::uint32_t> starts{0};
  for (const std::uint32_t n : lengths)
    starts.push_back(starts.back() + n);
  const std::uint32_t rows =
      (starts.back() + attention::kBM) / attention::kBM * attention::kBM; // >= 1 padding row
  const std::uint32_t heads = p.heads, total = heads * rows;
  const std::size_t n = std::size_t{total} * D;
  const Inputs in(n, 11 + D + Causal, [&](std::size_t i) { return i / D % rows >= starts.back(); });
  const auto &[hq, hk, hv, fq, fk, fv] = in;
  auto map = [&](const std::vector<bf16> &host) {
    return attention::HostMap::create(p.stream, oxide::DeviceBuffer<bf16>::from_host(p.stream, host),
                                      {total, D});
  };
  auto q = map(hq), k = map(hk), v = map(hv);
  auto o = oxide::DeviceBuffer<bf16>::from_host(p.stream, std::vector<bf16>(n, oxide::to_bfloat16(NAN)));
  auto d_starts = oxide::DeviceBuffer<std::uint32_t>::from_host(p.stream, starts);
  oxide::prepare(p.ctx, attention::forward_varlen<D, Causal>, launch_config(p, how, total, D))(
      p.stream, q, k, v, o.view_2d(D, total), d_starts, rows, 1.0f / std::sqrt(float(D)));
  const std::vector<bf16> got = o.to_host(p.stream);

  std::size_t wrong = 0, checked = 0;
  for (std::uint32_t h = 0; h < heads; ++h)
    for (std::uint32_t r = 0; r < rows; r += p.small ? 1 : 29) {
      std::vector<double> want(D, 0.0);
      if (r < starts.back()) {
        std::size_t i = 0;
        while (starts[i + 1] <= r)
          ++i;
        want = attention::reference_row(fq, fk, fv, std::size_t{h} * rows + starts[i], r - starts[i],
                                        lengths[i], D, Causal);
      }
      for (std::uint32_t e = 0; e < D; ++e, ++checked) {
        const double g = oxide::to_float(got[(std::size_t{h} * rows + r) * D + e]);
        if (!(std::fabs(g - want[e]) <= 1.0 / 64) && wrong++ < 5)
          std::printf("attention varlen D=%u%s: O[head %u][%u][%u]: got %.6f, expected %.6f\n", D,
                      Causal ? " causal" : "", h, r, e, g, want[e]);
      }
    }
  std::printf("attention varlen D=%u%s%s: %zu sequences in %u rows per head, %zu elements checked", D,
              Causal ? " causal" : "", how == Launch::persistent ? " persistent" : "", lengths.size(), rows,
              checked);
  std::printf(wrong ? ": %zu wrong\n" : "\n", wrong);
  return wrong == 0;
}

} // namespace

int main() try {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  if (!ctx.is_simulator() && ctx.device().compute_capability().as_int() != 90) {
    std::printf("attention: skipped: %s is not a Hopper GPU (compute capability 9.0)\n",
                ctx.device().name().c_str());
    return 0;
  }
  const bool small = example::small_problem(ctx);
  const Problem p{ctx, stream, small ? 1u : 4u, small ? 2u : 16u, small ? 640u : 2048u, small};
  // Each with the softmax overlapping the tensor cores and the consumers taking turns at them
  // (the default), and without (serial), or without the turns.
  bool ok = run<64, false, true>(p);
  ok &= run<64, true, true>(p);
  ok &= run<128, false, true>(p);
  ok &= run<128, true, true>(p);
  ok &= run<64, true, false>(p);
  ok &= run<128, false, false>(p);
  ok &= run<128, true, true, false>(p);
  ok &= run_varlen<64, false>(p);
  ok &= run_varlen<128, true>(p);
  // Persistent: a block per multiprocessor (on the simulator, per host thread) takes several
  // q-tiles, so that Q's and the K/V ring's phases run on from one tile to the next.
  ok &= run<64, true, true>(p, Launch::persistent);
  ok &= run<128, true, false>(p, Launch::persistent);
  ok &= run<128, false, true>(p, Launch::persistent);
  ok &= run_varlen<128, true>(p, Launch::persistent);
  std::printf("attention on %s\n%s\n", ctx.device().name().c_str(), ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
