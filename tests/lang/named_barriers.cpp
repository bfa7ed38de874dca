// Named barriers (oxide::NamedBarrier): warp-specialised blocks whose warps meet in groups while
// the others go on. A producer half of each block fills a shared stage and arrives; the consumer
// half waits, reads it, and arrives at a second barrier that lets the producers refill the stage
// (the handshake of a TMA-free pipeline). Two consumer warp groups then take turns at one
// shared accumulator through a pair of barriers (FlashAttention-3's ping-pong order). Every
// output element is checked against the host's arithmetic: a barrier that released too early
// shows as a stale or missing value.
//
//   oxcc run tests/lang/named_barriers.cpp
#include <oxide/oxide.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

constexpr std::uint32_t kHalf = 128;  // producer threads, and consumer threads
constexpr std::uint32_t kRounds = 8;  // stages the producers fill, one after the other
constexpr std::uint32_t kStage = 256; // floats per stage

// in and out: blocks * kRounds * kStage floats (kStage is the block's 256 threads).
[[kernel, oxide::launch_contract("domain = 1, block = 256, requires = (in.size() == out.size())")]] void
pipeline(oxide::Span<const float> in, oxide::DisjointSpan<float> out) {
  auto stage = oxide::shared_array<float, kStage>();
  const oxide::NamedBarrier full(1, 2 * kHalf), empty(2, 2 * kHalf);
  const std::uint32_t t = oxide::thread_idx().x;
  const std::size_t base = oxide::block_idx().x * std::size_t{kRounds} * kStage;
  const auto mine = out.block_strided_mut<kRounds>(oxide::thread::index_1d());
  for (std::uint32_t r = 0; r < kRounds; ++r) {
    if (t < kHalf) {
      if (r > 0)
        empty.sync(); // the consumers have read the last stage
      for (std::uint32_t i = t; i < kStage; i += kHalf)
        stage[i] = in[base + r * kStage + i] * 2.0f;
      full.arrive();
    } else {
      full.sync();
      const std::uint32_t c = t - kHalf;
      const float v = stage[2 * c] + stage[2 * c + 1];
      empty.arrive();
      // Thread t of the block writes element (b * kRounds + r) * 256 + t of block_strided's set;
      // the producers' elements of it stay unwritten here and are written below.
      if (float *o = mine.get_mut(r))
        *o = v;
    }
  }
  // The producers' own elements: the round's first value, to check they all went through.
  if (t < kHalf)
    for (std::uint32_t r = 0; r < kRounds; ++r)
      if (float *o = mine.get_mut(r))
        *o = -in[base + r * kStage + t];
}

// Two consumer groups of 64 threads take turns adding to one shared sum: group 0 first, then
// group 1, round after round, each waiting at its own barrier for the other's arrival.
[[kernel, oxide::launch_contract("domain = 1, block = 128")]] void ping_pong(oxide::DisjointSpan<float> out) {
  auto sum = oxide::shared_array<float, 64>();
  const std::uint32_t t = oxide::thread_idx().x, group = t / 64, lane = t % 64;
  const oxide::NamedBarrier mine(3 + group, 128), other(3 + (1 - group), 128);
  if (group == 0)
    sum[lane] = 0.0f;
  for (std::uint32_t r = 0; r < 6; ++r) {
    if (group == 1 || r > 0)
      mine.sync();                                                // the other group's turn is over
    sum[lane] = sum[lane] * 3.0f + static_cast<float>(group + 1); // order matters
    other.arrive();
  }
  if (group == 0)
    mine.sync(); // group 1's last turn
  if (float *o = out.get_mut(oxide::thread::index_1d()))
    *o = group == 0 ? sum[lane] : -1.0f;
}

int main() try {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  std::size_t checks = 0, failures = 0;
  auto check = [&](const char *what, std::size_t i, float got, float want) {
    ++checks;
    if (got != want && failures++ < 5)
      std::printf("%s: mismatch at %zu: got %g, want %g\n", what, i, got, want);
  };
  {
    constexpr std::uint32_t blocks = 5;
    std::vector<float> h(std::size_t{blocks} * kRounds * kStage);
    for (std::size_t i = 0; i < h.size(); ++i)
      h[i] = static_cast<float>(i % 1000) * 0.25f;
    auto in = oxide::DeviceBuffer<float>::from_host(stream, h);
    auto out = oxide::DeviceBuffer<float>::from_host(stream, std::vector<float>(h.size(), -7.0f));
    oxide::prepare(ctx, pipeline, oxide::LaunchConfig1D{blocks, 256})(stream, in, out);
    const std::vector<float> got = out.to_host(stream);
    for (std::uint32_t b = 0; b < blocks; ++b)
      for (std::uint32_t r = 0; r < kRounds; ++r)
        for (std::uint32_t t = 0; t < 256; ++t) {
          const std::size_t at = (std::size_t{b} * kRounds + r) * 256 + t,
                            stage = (std::size_t{b} * kRounds + r) * kStage;
          const float want = t < kHalf
                                 ? -h[stage + t]
                                 : h[stage + 2 * (t - kHalf)] * 2.0f + h[stage + 2 * (t - kHalf) + 1] * 2.0f;
          check("pipeline", at, got[at], want);
        }
  }
  {
    auto out = oxide::DeviceBuffer<float>::from_host(stream, std::vector<float>(3 * 128, 0.0f));
    oxide::prepare(ctx, ping_pong, oxide::LaunchConfig1D{3, 128})(stream, out);
    const std::vector<float> got = out.to_host(stream);
    float want = 0.0f;
    for (int r = 0; r < 6; ++r)
      want = (want * 3.0f + 1.0f) * 3.0f + 2.0f;
    for (std::size_t i = 0; i < got.size(); ++i)
      check("ping_pong", i, got[i], i % 128 < 64 ? want : -1.0f);
  }
  std::printf("named_barriers: %zu checks on %s\n", checks, ctx.device().name().c_str());
  std::printf("%s\n", failures == 0 ? "PASS" : "FAIL");
  return failures == 0 ? 0 : 1;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "named_barriers: %s\n", e.what());
  return 1;
}
