// Does compute-sanitizer racecheck model bar.arrive? The stage handoff of
// tests/lang/named_barriers.cpp in two forms, run under racecheck on the GPU:
// - arrive: consumers read the stage, then empty.arrive(); producers empty.sync() and rewrite it
//   (CUTLASS's NamedBarrier handoff; PTX orders the reads before the rewrite);
// - sync: the same with consumers calling empty.sync() (every thread waits; no arrive).
// Both compute the same result, checked here. If racecheck reports WAR hazards for `arrive` and
// none for `sync`, its reports on arrive/sync handoffs are a limit of the tool, not a race.
//
//   oxcc build --arch=sm_90 benchmarks/gpu/probes/named_barrier_handoff.cpp -o handoff
//   compute-sanitizer --tool racecheck ./handoff arrive ; ... ./handoff sync
#include <oxide/oxide.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

constexpr std::uint32_t kHalf = 128, kRounds = 8, kStage = 256;

template <bool ConsumersArrive>
[[kernel, oxide::launch_contract("domain = 1, block = 256, requires = (in.size() == out.size())")]] void
handoff(oxide::Span<const float> in, oxide::DisjointSpan<float> out) {
  auto stage = oxide::shared_array<float, kStage>();
  const oxide::NamedBarrier full(1, 2 * kHalf), empty(2, 2 * kHalf);
  const std::uint32_t t = oxide::thread_idx().x;
  const std::size_t base = oxide::block_idx().x * std::size_t{kRounds} * kStage;
  const auto mine = out.block_strided_mut<kRounds>(oxide::thread::index_1d());
  for (std::uint32_t r = 0; r < kRounds; ++r) {
    if (t < kHalf) {
      if (r > 0)
        empty.sync();
      for (std::uint32_t i = t; i < kStage; i += kHalf)
        stage[i] = in[base + r * kStage + i] * 2.0f;
      full.arrive();
    } else {
      full.sync();
      const std::uint32_t c = t - kHalf;
      const float v = stage[2 * c] + stage[2 * c + 1];
      if (r + 1 < kRounds) { // the producers wait on `empty` only before rounds 1..kRounds-1
        if constexpr (ConsumersArrive)
          empty.arrive();
        else
          empty.sync();
      }
      if (float *o = mine.get_mut(r))
        *o = v;
    }
  }
  if (t < kHalf)
    for (std::uint32_t r = 0; r < kRounds; ++r)
      if (float *o = mine.get_mut(r))
        *o = -in[base + r * kStage + t];
}

int main(int argc, char **argv) try {
  const bool arrive = argc < 2 || std::strcmp(argv[1], "sync") != 0;
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  constexpr std::uint32_t blocks = 4;
  const std::size_t n = std::size_t{blocks} * kRounds * kStage;
  std::vector<float> host(n);
  for (std::size_t i = 0; i < n; ++i)
    host[i] = float(i % 1000) * 0.5f;
  auto in = oxide::DeviceBuffer<float>::from_host(stream, host);
  auto out = oxide::DeviceBuffer<float>::zeroed(stream, n);
  const oxide::LaunchConfig1D config{blocks, 256};
  if (arrive)
    oxide::prepare(ctx, handoff<true>, config)(stream, in, out);
  else
    oxide::prepare(ctx, handoff<false>, config)(stream, in, out);
  const std::vector<float> got = out.to_host(stream);
  std::size_t wrong = 0;
  for (std::uint32_t b = 0; b < blocks; ++b)
    for (std::uint32_t r = 0; r < kRounds; ++r)
      for (std::uint32_t t = 0; t < kStage; ++t) {
        const std::size_t base = (std::size_t{b} * kRounds + r) * kStage, e = base + t;
        const float want =
            t < kHalf ? -host[base + t]
                      : 2.0f * host[base + 2 * (t - kHalf)] + 2.0f * host[base + 2 * (t - kHalf) + 1];
        wrong += got[e] != want;
      }
  std::printf("named_barrier_handoff %s: %s\n", arrive ? "arrive" : "sync", wrong ? "FAIL" : "PASS");
  return wrong ? 1 : 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "named_barrier_handoff: %s\n", e.what());
  return 1;
}
