// Attention forward (examples/attention.hpp: TMA, a producer warpgroup, two wgmma consumers with
// the online softmax and P V from registers), safe, on the shapes the FlashAttention-3 paper and
// issue 38 compare: B=4 H=32 S=4096 D=128 and B=16 H=16 S=1024 D=64, causal and not, with the
// kernels' default schedule (attention::kOverlap: FlashAttention-3's softmax overlap, the two
// consumers taking turns at the tensor cores) and the others as diagnostic rows
// (attention_*_serial, _no_pingpong), the default schedules launched persistent (_persistent),
// and the causal kernels
// with their q-tiles in the order used before session 40 (_interleaved). The
// library side is PyTorch's SDPA with its cuDNN and FlashAttention backends
// (attention_cuda.py, run on the same GPU in the same run). Each result is checked at sampled rows
// against the double-precision reference.
//
//   attention_oxide    prints RESULT lines (bench_common.hpp)
#include "bench_oxide.hpp"

#include "../../examples/attention.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using attention::bf16;

template <std::uint32_t D, bool Causal, bool Overlap = attention::kOverlap<D>, bool PingPong = Overlap,
          attention::CausalOrder Order = attention::CausalOrder::heads_together>
void bench_shape(oxide::Context &ctx, oxide::Stream &stream, bench::EventTimer &timer, std::uint32_t batch,
                 std::uint32_t heads, std::uint32_t seq_len, bool persistent = false) {
  const std::uint32_t rows = batch * heads * seq_len;
  const std::size_t n = std::size_t{rows} * D;
  std::vector<bf16> hq(n), hk(n), hv(n);
  std::vector<float> fq(n), fk(n), fv(n);
  for (std::size_t i = 0; i < n; ++i) {
    fq[i] = oxide::to_float(hq[i] = oxide::to_bfloat16(bench::uniform(21, i)));
    fk[i] = oxide::to_float(hk[i] = oxide::to_bfloat16(bench::uniform(22, i)));
    fv[i] = oxide::to_float(hv[i] = oxide::to_bfloat16(bench::uniform(23, i)));
  }
  auto map = [&](const std::vector<bf16> &host) {
    return attention::HostMap::create(stream, oxide::DeviceBuffer<bf16>::from_host(stream, host), {rows, D});
  };
  auto q = map(hq), k = map(hk), v = map(hv);
  auto o = oxide::DeviceBuffer<bf16>::uninitialized(stream, n);
  const float scale = 1.0f / std::sqrt(float(D));
  const auto config = persistent
                          ? attention::persistent_config(rows, D, std::uint32_t(ctx.device().sm_count()))
                          : attention::config(rows, D);
  auto launch = oxide::prepare(ctx, attention::forward<D, Causal, Overlap, PingPong, Order>, config);
  bench::poison(timer, stream, o);
  const float ms =
      timer.median_ms(stream, [&](int) { launch(stream, q, k, v, o.view_2d(D, rows), seq_len, scale); });
  const std::vector<bf16> got = o.to_host(stream);
  bool ok = true;
  for (std::uint64_t sample = 0; sample < 16 && ok; ++sample) {
    const std::uint32_t head = std::uint32_t(bench::mix(sample) % (batch * heads));
    const std::uint32_t r = std::uint32_t(bench::mix(sample + 100) % seq_len);
    const std::size_t row0 = std::size_t{head} * seq_len;
    const std::vector<double> want = attention::reference_row(fq, fk, fv, row0, r, seq_len, D, Causal);
    for (std::uint32_t e = 0; e < D && ok; ++e) {
      const double g = oxide::to_float(got[(row0 + r) * D + e]);
      if (!(std::fabs(g - want[e]) <= 1.0 / 64)) {
        bench::mismatch("attention", (row0 + r) * D + e, g, want[e]);
        ok = false;
      }
    }
  }
  const double flops = 4.0 * batch * heads * double(seq_len) * seq_len * D * (Causal ? 0.5 : 1.0);
  // The row without a suffix is the kernel's default schedule (attention::kOverlap<D>).
  const bool is_default = Overlap == attention::kOverlap<D> && PingPong == Overlap;
  const std::string name = "attention_d" + std::to_string(D) + (Causal ? "_causal" : "") +
                           (is_default ? ""
                            : !Overlap ? "_serial"
                            : PingPong ? "_overlap"
                                       : "_no_pingpong") +
                           (persistent ? "_persistent" : "") +
                           (Order == attention::CausalOrder::heads_interleaved ? "_interleaved" : "");
  const std::string size = std::to_string(batch) + "x" + std::to_string(heads) + "x" +
                           std::to_string(seq_len) + "x" + std::to_string(D);
  bench::report(name.c_str(), size, "flops", flops, ms, ok, "safe");
}

} // namespace

int main() try {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  bench::EventTimer timer(ctx);
  bench_shape<128, false>(ctx, stream, timer, 4, 32, 4096);
  bench_shape<128, true>(ctx, stream, timer, 4, 32, 4096);
  bench_shape<64, false>(ctx, stream, timer, 16, 16, 1024);
  bench_shape<64, true>(ctx, stream, timer, 16, 16, 1024);
  // The other schedules (diagnostic rows): without the overlap, and (D = 128) with the overlap
  // but without the consumers' turns at the tensor cores.
  bench_shape<128, false, false>(ctx, stream, timer, 4, 32, 4096);
  bench_shape<128, true, false>(ctx, stream, timer, 4, 32, 4096);
  bench_shape<128, false, true, false>(ctx, stream, timer, 4, 32, 4096);
  bench_shape<128, true, true, false>(ctx, stream, timer, 4, 32, 4096);
  bench_shape<64, false, false>(ctx, stream, timer, 16, 16, 1024);
  bench_shape<64, true, false>(ctx, stream, timer, 16, 16, 1024);
  // The default schedules launched persistent: a block per multiprocessor taking every sms-th
  // q-tile (longest-first when causal), the next tile's loads under this one's end.
  bench_shape<128, false>(ctx, stream, timer, 4, 32, 4096, true);
  bench_shape<128, true>(ctx, stream, timer, 4, 32, 4096, true);
  bench_shape<64, false>(ctx, stream, timer, 16, 16, 1024, true);
  bench_shape<64, true>(ctx, stream, timer, 16, 16, 1024, true);
  // Causal q-tiles in the other order (every head at once: the default before session 40),
  // launched both ways.
  constexpr auto interleaved = attention::CausalOrder::heads_interleaved;
  bench_shape<128, true, true, true, interleaved>(ctx, stream, timer, 4, 32, 4096);
  bench_shape<128, true, true, true, interleaved>(ctx, stream, timer, 4, 32, 4096, true);
  bench_shape<64, true, true, true, interleaved>(ctx, stream, timer, 16, 16, 1024);
  bench_shape<64, true, true, true, interleaved>(ctx, stream, timer, 16, 16, 1024, true);
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "attention_oxide: %s\n", e.what());
  return 1;
}
