// cooperative_normalize: divides 2^24 values by their sum in ONE launch. Every block adds its
// part of the sum into an AtomicSpan, the whole grid waits at oxide::grid::sync(), then every
// thread divides its own elements by the total. A grid barrier is only safe when all blocks are
// resident at once: the contract says `cooperative = true`, so the runtime launches the kernel
// cooperatively, and the grid is sized with oxide::max_resident_blocks.
//
//   oxcc run examples/cooperative_normalize.cpp
#include <oxide/oxide.hpp>

#include "problem_size.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

constexpr std::uint32_t kBlock = 256;

[[kernel, oxide::launch_contract("domain = 1, block = 256, cooperative = true, "
                                 "requires = (in.size() == out.size(), total.size() == 1)")]] void
normalize(oxide::Span<const float> in, oxide::AtomicSpan<double> total, oxide::DisjointSpan<float> out) {
  // Phase 1: this thread's share of the sum, reduced across the warp, one atomic add per warp.
  double mine = 0.0;
  for (const auto &i : oxide::thread::grid_stride(in.size()))
    mine += in[i.get()];
  const double warp_sum = oxide::warp::sum(mine);
  if (oxide::warp::lane_id() == 0)
    total.fetch_add(0, warp_sum);
  oxide::grid::sync(); // every warp of the grid has added its part
  // Phase 2: every thread reads the finished sum.
  const auto scale = static_cast<float>(1.0 / total.load(0));
  for (const auto &i : oxide::thread::grid_stride(out.size()))
    if (float *o = out.get_mut(i))
      *o = in[i.get()] * scale;
}

int main() try {
  constexpr std::size_t n = (std::size_t{1} << 24) + 777;
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> host(n);
  for (float &x : host)
    x = dist(rng);

  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  const std::size_t count = example::small_problem(ctx) ? n / 64 : n; // the simulator runs a slice
  host.resize(count);
  auto in = oxide::DeviceBuffer<float>::from_host(stream, host);
  auto total = oxide::DeviceBuffer<double>::zeroed(stream, 1);
  auto out = oxide::DeviceBuffer<float>::from_host(
      stream, std::vector<float>(count, std::numeric_limits<float>::quiet_NaN()));

  // As many blocks as the device holds at once: all of them are resident, as the barrier needs.
  const std::uint32_t blocks = oxide::max_resident_blocks(ctx, normalize, kBlock);
  oxide::prepare(ctx, normalize, oxide::LaunchConfig1D{blocks, kBlock})(stream, in, total, out);
  const std::vector<float> result = out.to_host(stream);

  double sum = 0.0;
  for (float x : host)
    sum += x;
  // The device adds in another order: the sum agrees to ~1e-12 relative, each quotient is
  // rounded once to float, so 2 ulp (2^-22 relative) bounds the difference.
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const float expected = static_cast<float>(host[i] * (1.0 / sum));
    if (!(std::fabs(result[i] - expected) <= 2.4e-7f * std::fabs(expected)) && wrong++ < 5)
      std::printf("out[%zu]: got %.9g, expected %.9g\n", i, result[i], expected);
  }
  if (wrong != 0) {
    std::printf("FAIL: %zu of %zu elements wrong\n", wrong, count);
    return 1;
  }
  std::printf(
      "cooperative_normalize: %zu values, %u resident blocks of %u threads, one grid sync on %s\nPASS\n",
      count, blocks, kBlock, ctx.device().name().c_str());
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
