// stream_compaction: keeps the values of 2^22 random floats that are above a threshold, each
// thread appending what it keeps to the next free slots of one output. The output is an
// AppendSpan: reserve(n) gives the calling thread n slots from an atomic counter that no other
// thread gets, so the kernel is in the safe tier although its threads write wherever the
// counter puts them. The kept values come out in the order the threads reserved their slots;
// the check compares them, sorted, with the host's.
//
//   oxcc run examples/stream_compaction.cpp
#include <oxide/oxide.hpp>

#include "problem_size.hpp"

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

constexpr std::uint32_t kBlock = 256;
constexpr std::size_t kPerThread = 4; // each thread keeps its values in registers, then reserves once

[[kernel, oxide::launch_contract("domain = 1, block = (256)")]] void
keep_above(oxide::Span<const float> in, float threshold, oxide::AppendSpan<float> kept) {
  for (const auto &i : oxide::thread::grid_stride((in.size() + kPerThread - 1) / kPerThread)) {
    float values[kPerThread];
    std::size_t count = 0;
    for (std::size_t k = 0; k < kPerThread; ++k) {
      const std::size_t e = i.get() * kPerThread + k;
      if (e < in.size() && in[e] > threshold)
        values[count++] = in[e];
    }
    if (count == 0)
      continue;
    const auto slots = kept.reserve(count); // one atomic for the thread's kept values
    for (std::size_t k = 0; k < count; ++k)
      if (float *slot = slots.get_mut(k))
        *slot = values[k];
  }
}

int main() try {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  // The simulator runs a smaller problem, so that the example takes seconds there too.
  const std::size_t n = example::small_problem(ctx) ? std::size_t{1} << 18 : std::size_t{1} << 22;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> host(n);
  for (float &x : host)
    x = dist(rng);
  const float threshold = 0.75f;

  auto in = oxide::DeviceBuffer<float>::from_host(stream, host);
  auto kept = oxide::AppendBuffer<float>::create(stream, n);
  const auto config = oxide::LaunchConfig1D::for_elements((n + kPerThread - 1) / kPerThread, kBlock);
  oxide::prepare(ctx, keep_above, config)(stream, in, threshold, kept);

  std::vector<float> got = kept.to_host(stream), want;
  for (const float x : host)
    if (x > threshold)
      want.push_back(x);
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  const bool ok = got == want && kept.requested(stream) == want.size();
  std::printf("stream_compaction: kept %zu of %zu values above %.2f (expected %zu) on %s\n%s\n", got.size(),
              n, threshold, want.size(), ctx.device().name().c_str(), ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "stream_compaction: %s\n", e.what());
  return 1;
}
