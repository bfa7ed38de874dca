// Warp operations read only the lanes of their group (the mask, less the lanes that do not
// exist): a shuffle that reads another lane gets, on the GPU, an undefined value. The simulator
// gives the reading lane its own value, and the checking mode reports the read.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <source_location>
#include <string>
#include <vector>

#include "oxide/oxide.hpp"
#include "sim_test_support.hpp"

namespace {

using oxide::DeviceBuffer;
using oxide::Span;
using oxide_test::error_of;
using oxide_test::simulator;

// The last steps of the classic block reduction, ported literally from the legacy unrolled
// `if (tid < s) sdata[tid] += sdata[tid + s]` tail: each step's mask names the lanes that still
// add (lanes < s), not the lanes they read (lanes s..2s-1), so every shuffle reads outside it.
void masked_tail_sum(Span<const std::uint32_t> in, Span<std::uint32_t> out) {
  auto partial = oxide::shared_array<std::uint32_t, 64>();
  const std::uint32_t t = oxide::thread_idx().x;
  partial[t] = in[t];
  oxide::sync_threads();
  if (t < 32) {
    std::uint32_t v = partial[t] + partial[t + 32];
    for (std::uint32_t s = 16; s > 0; s /= 2)
      if (t < s)
        v += oxide::warp::shuffle_down(v, s, (1u << s) - 1);
    if (t == 0)
      out[0] = v;
  }
}

// The same with the mask the GPU needs: every lane of the warp takes part in every step.
void full_tail_sum(Span<const std::uint32_t> in, Span<std::uint32_t> out) {
  auto partial = oxide::shared_array<std::uint32_t, 64>();
  const std::uint32_t t = oxide::thread_idx().x;
  partial[t] = in[t];
  oxide::sync_threads();
  if (t < 32) {
    std::uint32_t v = partial[t] + partial[t + 32];
    for (std::uint32_t s = 16; s > 0; s /= 2)
      v += oxide::warp::shuffle_down(v, s, 0xffffffffu);
    if (t == 0)
      out[0] = v;
  }
}

// A block of 48 threads: its second warp has lanes 0..15 only, so lanes 8..15 read lanes that
// do not exist.
void down_by_eight(Span<std::uint32_t> out) {
  const std::uint32_t t = oxide::thread_idx().x;
  out[t] = oxide::warp::shuffle_down(t, 8);
}

// Reductions and matches see exactly the lanes of their group, also in a partial warp.
struct Collectives {
  std::uint32_t sum, half_sum, max, match_any, match_all, all_equal;
};
void collectives(Span<Collectives> out) {
  namespace warp = oxide::warp;
  const std::uint32_t t = oxide::thread_idx().x, lane = warp::lane_id();
  const std::uint32_t half = lane < 16 ? 0x0000ffffu : 0xffff0000u;
  Collectives r{};
  r.sum = warp::reduce_add(t);
  r.half_sum = warp::reduce_add(t, half);
  r.max = warp::reduce_max(t);
  r.match_any = warp::match_any(lane % 4);
  r.match_all = warp::match_all(7u);
  r.all_equal = warp::match_all(lane);
  out[t] = r;
}

// activemask: the lanes waiting at the same call (through the same call chain) once the
// warp's other lanes have stopped, at a warp operation or the kernel's end.
struct ActiveMasks {
  std::uint32_t branch, helper, before_sync, late, all, key_peers, keys_all;
};
// A helper that asks for its caller's active mask passes its caller's location on: the simulator
// tells the branches apart by the source location of the call.
[[gnu::noinline]] std::uint32_t
active_in_helper(std::source_location where = std::source_location::current()) {
  return oxide::warp::active_mask(where);
}
void active_masks(Span<ActiveMasks> out) {
  namespace warp = oxide::warp;
  const std::uint32_t t = oxide::thread_idx().x, lane = warp::lane_id();
  ActiveMasks r{};
  if (lane % 3 == 0)
    r.branch = warp::active_mask();
  else
    r.branch = warp::active_mask() | 1u << 31;
  // One helper called from both branches: still two groups (whatever the host compiler merges).
  if (lane % 2 == 0)
    r.helper = active_in_helper();
  else
    r.helper = active_in_helper() ^ 1u << 30;
  if (lane < 8)
    r.before_sync = warp::active_mask(); // the others wait at the sync below meanwhile
  warp::sync();
  r.all = warp::active_mask();
  // 64-bit keys that agree in their low halves.
  const std::uint64_t key = std::uint64_t{lane % 4} << 32 | 5u;
  r.key_peers = warp::match_any(key);
  r.keys_all = warp::match_all(std::uint64_t{7} << 40 | 9u) ^ warp::match_all(key);
  if (lane >= 20) {
    out[t] = r;
    return; // lanes 20..31 exit before the others ask
  }
  r.late = warp::active_mask();
  out[t] = r;
}

class SimWarpChecks : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    oxide::sim::register_kernel(masked_tail_sum, "masked_tail_sum");
    oxide::sim::register_kernel(full_tail_sum, "full_tail_sum");
    oxide::sim::register_kernel(down_by_eight, "down_by_eight");
    oxide::sim::register_kernel(collectives, "collectives");
    oxide::sim::register_kernel(active_masks, "active_masks");
  }
};

std::vector<std::uint32_t> iota(std::uint32_t n) {
  std::vector<std::uint32_t> v(n);
  std::iota(v.begin(), v.end(), 1u);
  return v;
}

TEST_F(SimWarpChecks, ShufflesReadingOutsideTheMaskAreReported) {
  const std::vector<std::uint32_t> input = iota(64);
  {
    auto ctx = simulator(/*check=*/true);
    auto stream = ctx.default_stream();
    auto in = DeviceBuffer<std::uint32_t>::from_host(stream, input);
    auto out = DeviceBuffer<std::uint32_t>::zeroed(stream, 1);
    const std::string message = error_of(
        [&] { oxide::unsafe_launch(stream, masked_tail_sum, oxide::LaunchConfig1D{1, 64}, in, out); });
    EXPECT_NE(
        message.find("kernel 'masked_tail_sum' block (0,0,0) thread (0,0,0): warp shuffle_down (mask "
                     "0x0000ffff): lane 0 reads lane 16, which is not in the mask; on the GPU the value "
                     "it gets is undefined (here: its own)"),
        std::string::npos)
        << message;
  }
  // Outside the checking mode each step doubles lane 0's value instead of adding lane s's: the
  // wrong sum the simulator gave silently before (lane 0's partial sum, 1 + 33, times 32).
  auto ctx = simulator();
  auto stream = ctx.default_stream();
  auto in = DeviceBuffer<std::uint32_t>::from_host(stream, input);
  auto out = DeviceBuffer<std::uint32_t>::zeroed(stream, 1);
  oxide::unsafe_launch(stream, masked_tail_sum, oxide::LaunchConfig1D{1, 64}, in, out);
  EXPECT_EQ(out.to_host(stream)[0], 34u * 32u);
}

TEST_F(SimWarpChecks, TheFullMaskReductionIsRightAndNotReported) {
  const std::vector<std::uint32_t> input = iota(64);
  for (const bool check : {false, true}) {
    auto ctx = simulator(check);
    auto stream = ctx.default_stream();
    auto in = DeviceBuffer<std::uint32_t>::from_host(stream, input);
    auto out = DeviceBuffer<std::uint32_t>::zeroed(stream, 1);
    oxide::unsafe_launch(stream, full_tail_sum, oxide::LaunchConfig1D{1, 64}, in, out);
    EXPECT_EQ(out.to_host(stream)[0], 64u * 65u / 2u) << check;
  }
}

TEST_F(SimWarpChecks, ShufflesReadingLanesThatDoNotExistAreReported) {
  {
    auto ctx = simulator(/*check=*/true);
    auto stream = ctx.default_stream();
    auto out = DeviceBuffer<std::uint32_t>::zeroed(stream, 48);
    const std::string message =
        error_of([&] { oxide::unsafe_launch(stream, down_by_eight, oxide::LaunchConfig1D{1, 48}, out); });
    EXPECT_NE(
        message.find("thread (40,0,0): warp shuffle_down (mask 0xffffffff): lane 8 reads lane 16, which "
                     "does not exist (the block's last warp has 16 lanes)"),
        std::string::npos)
        << message;
  }
  auto ctx = simulator();
  auto stream = ctx.default_stream();
  auto out = DeviceBuffer<std::uint32_t>::zeroed(stream, 48);
  oxide::unsafe_launch(stream, down_by_eight, oxide::LaunchConfig1D{1, 48}, out);
  const auto host = out.to_host(stream);
  EXPECT_EQ(host[31], 31u); // past the end of the warp: its own value, as shfl.sync defines
  EXPECT_EQ(host[39], 47u);
  EXPECT_EQ(host[40], 40u); // a lane that does not exist: its own value
}

TEST_F(SimWarpChecks, ReductionsAndMatchesSeeTheLanesOfTheirGroup) {
  for (const bool check : {false, true}) {
    auto ctx = simulator(check);
    auto stream = ctx.default_stream();
    const std::uint32_t threads = 40; // a full warp and one of 8 lanes
    auto out = DeviceBuffer<Collectives>::zeroed(stream, threads);
    oxide::unsafe_launch(stream, collectives, oxide::LaunchConfig1D{1, threads}, out);
    const auto host = out.to_host(stream);
    for (std::uint32_t t = 0; t < threads; ++t) {
      const Collectives &r = host[t];
      const std::uint32_t lane = t % 32;
      const bool second = t >= 32;
      EXPECT_EQ(r.sum, second ? 32u * 8 + 28 : 496u) << t;
      EXPECT_EQ(r.half_sum, second ? 32u * 8 + 28 : lane < 16 ? 120u : 376u) << t;
      EXPECT_EQ(r.max, second ? 39u : 31u) << t;
      EXPECT_EQ(r.match_any, (second ? 0xffu : 0xffffffffu) & (0x11111111u << (lane % 4))) << t;
      EXPECT_EQ(r.match_all, second ? 0xffu : 0xffffffffu) << t;
      EXPECT_EQ(r.all_equal, 0u) << t;
    }
  }
}

TEST_F(SimWarpChecks, ActiveMaskNamesTheLanesOfTheCallersBranch) {
  for (const char *schedule : {"ordered", "random"}) {
    oxide_test::ScopedEnv schedule_env("OXIDE_SIM_SCHEDULE", std::string(schedule));
    for (const bool check : {false, true}) {
      auto ctx = simulator(check);
      auto stream = ctx.default_stream();
      const std::uint32_t threads = 40; // a full warp and one of 8 lanes
      auto out = DeviceBuffer<ActiveMasks>::zeroed(stream, threads);
      oxide::unsafe_launch(stream, active_masks, oxide::LaunchConfig1D{1, threads}, out);
      const auto host = out.to_host(stream);
      for (std::uint32_t t = 0; t < threads; ++t) {
        const ActiveMasks &r = host[t];
        const std::uint32_t lane = t % 32, lanes = t >= 32 ? 0xffu : 0xffffffffu;
        const std::uint32_t thirds = 0x49249249u & lanes, evens = 0x55555555u & lanes;
        EXPECT_EQ(r.branch, lane % 3 == 0 ? thirds : (lanes & ~thirds) | 1u << 31) << schedule << " " << t;
        EXPECT_EQ(r.helper, lane % 2 == 0 ? evens : (lanes & ~evens) ^ 1u << 30) << schedule << " " << t;
        EXPECT_EQ(r.before_sync, lane < 8 ? 0xffu : 0u) << schedule << " " << t;
        EXPECT_EQ(r.all, lanes) << schedule << " " << t;
        EXPECT_EQ(r.late, lane < 20 ? lanes & 0xfffffu : 0u) << schedule << " " << t;
        EXPECT_EQ(r.key_peers, lanes & (0x11111111u << (lane % 4))) << schedule << " " << t;
        EXPECT_EQ(r.keys_all, lanes) << schedule << " " << t;
      }
    }
  }
}

} // namespace
