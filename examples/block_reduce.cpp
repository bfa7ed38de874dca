// block_reduce: the sum of 2^22 random floats. Each warp adds its 32 values with shuffles
// (warp::sum), each block combines its warps' sums through shared memory after a barrier, and
// the host adds the blocks' sums. Thread 0 of each block writes the block's sum through the
// block's witness (oxide::block::index()), under a launch contract.
//
//   oxcc run examples/block_reduce.cpp
#include <oxide/oxide.hpp>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

constexpr std::uint32_t kBlock = 256;
constexpr std::uint32_t kWarps = kBlock / oxide::warp::kSize;

// Safe: the block owns its sum. block::index() is the block's witness, and get_mut(witness) gives
// element b of `block_sums` to the block's thread 0 only (nullptr for every other thread), so the
// one-writer-per-element promise holds without an index the program computes itself.
[[kernel, oxide::launch_contract("domain = 1, block = 256")]] void
block_reduce(oxide::Span<const float> in, oxide::DisjointSpan<float> block_sums) {
  auto warp_sums = oxide::shared_array<float, kWarps>();
  const std::uint32_t t = oxide::thread_idx().x;
  const std::size_t i = oxide::thread::index_1d().get();
  // Threads past the end add 0: every lane must take part in the warp's shuffles.
  const float mine = i < in.size() ? in[i] : 0.0f;
  const float warp_sum = oxide::warp::sum(mine);
  if (oxide::warp::lane_id() == 0)
    warp_sums[t / oxide::warp::kSize] = warp_sum;
  oxide::sync_threads(); // every warp's sum is in shared memory
  if (t < oxide::warp::kSize) {
    const float block_sum = oxide::warp::sum(t < kWarps ? warp_sums[t] : 0.0f);
    if (float *out = block_sums.get_mut(oxide::block::index()))
      *out = block_sum;
  }
}

int main() try {
  constexpr std::size_t n = std::size_t{1} << 22;
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> host(n);
  for (float &x : host)
    x = dist(rng);

  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  const auto config = oxide::LaunchConfig1D::for_elements(n, kBlock);
  auto in = oxide::DeviceBuffer<float>::from_host(stream, host);
  // Poisoned with NaN so a block that never wrote its sum cannot pass the check.
  auto sums = oxide::DeviceBuffer<float>::from_host(
      stream, std::vector<float>(config.grid, std::numeric_limits<float>::quiet_NaN()));
  auto reduce = oxide::prepare(ctx, block_reduce, config);
  reduce(stream, in, sums);
  const std::vector<float> block_sums = sums.to_host(stream);

  std::size_t wrong = 0;
  double total = 0.0;
  for (std::uint32_t b = 0; b < config.grid; ++b) {
    double expected = 0.0, magnitude = 0.0;
    for (std::size_t i = std::size_t{b} * kBlock; i < std::min(n, std::size_t{b + 1} * kBlock); ++i) {
      expected += host[i];
      magnitude += std::abs(host[i]);
    }
    // Float sums in another order differ in the last bits: allow a few ulps of the magnitude.
    if (!(std::abs(block_sums[b] - expected) <= 1e-5 * magnitude) && wrong++ < 5)
      std::printf("block %u: got %.7g, expected %.7g\n", b, block_sums[b], expected);
    total += block_sums[b];
  }
  if (wrong != 0) {
    std::printf("FAIL: %zu of %u block sums wrong\n", wrong, config.grid);
    return 1;
  }
  std::printf("block_reduce: %zu floats in %u blocks sum to %.6f on %s\nPASS\n", n, config.grid, total,
              ctx.device().name().c_str());
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
