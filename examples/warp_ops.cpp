// warp_ops: what the 32 lanes of a warp can compute together without shared memory, checked
// lane by lane against a host model: a prefix sum (shuffle_up), a reduction to lane 0
// (shuffle_down), a maximum every lane gets (shuffle_xor butterfly), a reversal (shuffle from
// lane 31 - lane), and the votes any, all and ballot.
//
//   oxcc run examples/warp_ops.cpp
#include <oxide/oxide.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

namespace warp = oxide::warp;

struct LaneResult {
  std::int32_t prefix_sum; ///< sum of lanes 0..lane
  std::int32_t warp_sum;   ///< lane 0 only: sum of the warp
  std::int32_t warp_max;   ///< every lane: max of the warp
  std::int32_t reversed;   ///< the value of lane 31 - lane
  std::uint32_t positive;  ///< ballot: bit i when lane i's value is positive
  std::uint32_t any_zero;  ///< some lane's value is 0
  std::uint32_t all_small; ///< every lane's value is below 100
};

// Whole warps of 32 lanes: the block is fixed at 128 threads, and each lane writes its own result.
[[kernel, oxide::launch_contract("domain = 1, block = 128, requires = (in.size() == out.size())")]] void
warp_ops(oxide::Span<const std::int32_t> in, oxide::DisjointSpan<LaneResult> out) {
  const auto idx = oxide::thread::index_1d();
  const std::uint32_t lane = warp::lane_id();
  // Lanes past the end still take part in every shuffle and vote, with a neutral value.
  const std::int32_t value = idx.get() < in.size() ? in[idx.get()] : 0;

  std::int32_t prefix = value; // Hillis-Steele scan: after step k, lanes hold sums of 2^k values
  for (std::uint32_t offset = 1; offset < warp::kSize; offset *= 2) {
    const std::int32_t below = warp::shuffle_up(prefix, offset);
    if (lane >= offset)
      prefix += below;
  }
  std::int32_t sum = value; // lane 0 ends with the total
  for (std::uint32_t offset = warp::kSize / 2; offset > 0; offset /= 2)
    sum += warp::shuffle_down(sum, offset);
  std::int32_t max = value; // every lane ends with the maximum
  for (std::uint32_t offset = warp::kSize / 2; offset > 0; offset /= 2)
    max = std::max(max, warp::shuffle_xor(max, offset));
  const std::int32_t reversed = warp::shuffle(value, warp::kSize - 1 - lane);
  const std::uint32_t positive = warp::ballot(value > 0);
  const bool any_zero = warp::any(value == 0);
  const bool all_small = warp::all(value < 100);

  if (LaneResult *result = out.get_mut(idx))
    *result = {prefix, sum, max, reversed, positive, any_zero, all_small};
}

int main() try {
  constexpr std::size_t n = 100'010; // the last warp is partly past the end
  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<std::int32_t> dist(-120, 120);
  std::vector<std::int32_t> host(n);
  for (auto &x : host)
    x = dist(rng);

  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  auto in = oxide::DeviceBuffer<std::int32_t>::from_host(stream, host);
  const LaneResult poison{-1, -1, -1, -1, 0xdeadbeef, 7, 7};
  auto out = oxide::DeviceBuffer<LaneResult>::from_host(stream, std::vector<LaneResult>(n, poison));
  oxide::prepare(ctx, warp_ops, oxide::LaunchConfig1D::for_elements(n, 128))(stream, in, out);
  const std::vector<LaneResult> results = out.to_host(stream);

  std::size_t wrong = 0;
  for (std::size_t base = 0; base < n; base += warp::kSize) {
    // The host model of one warp, with 0 for lanes past the end as in the kernel.
    std::int32_t values[warp::kSize];
    for (std::uint32_t l = 0; l < warp::kSize; ++l)
      values[l] = base + l < n ? host[base + l] : 0;
    std::int32_t prefix = 0, sum = 0, max = values[0];
    std::uint32_t positive = 0;
    bool any_zero = false, all_small = true;
    for (std::uint32_t l = 0; l < warp::kSize; ++l) {
      sum += values[l];
      max = std::max(max, values[l]);
      positive |= values[l] > 0 ? 1u << l : 0u;
      any_zero = any_zero || values[l] == 0;
      all_small = all_small && values[l] < 100;
    }
    for (std::uint32_t l = 0; l < warp::kSize && base + l < n; ++l) {
      prefix += values[l];
      const LaneResult &r = results[base + l];
      const bool ok = r.prefix_sum == prefix && (l != 0 || r.warp_sum == sum) && r.warp_max == max &&
                      r.reversed == values[warp::kSize - 1 - l] && r.positive == positive &&
                      r.any_zero == any_zero && r.all_small == all_small;
      if (!ok && wrong++ < 5)
        std::printf("lane %zu: prefix %d (expected %d), sum %d (%d), max %d (%d), reversed %d (%d), ballot "
                    "%08x (%08x), any %u (%d), all %u (%d)\n",
                    base + l, r.prefix_sum, prefix, r.warp_sum, sum, r.warp_max, max, r.reversed,
                    values[warp::kSize - 1 - l], r.positive, positive, r.any_zero, any_zero, r.all_small,
                    all_small);
    }
  }
  if (wrong != 0) {
    std::printf("FAIL: %zu of %zu lanes wrong\n", wrong, n);
    return 1;
  }
  std::printf("warp_ops: %zu lanes on %s\nPASS\n", n, ctx.device().name().c_str());
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
