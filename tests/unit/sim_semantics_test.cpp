// SIMT semantics on the CPU simulator: barriers, shared memory, warp operations in lockstep,
// atomics and printf.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "oxide/oxide.hpp"
#include "sim_test_support.hpp"

namespace {

using oxide::DeviceBuffer;
using oxide::Span;
using oxide_test::simulator;

// Each thread publishes its index, waits, then reads its neighbour's: wrong without a barrier,
// since the neighbour has not run yet when a thread reaches the read.
void rotate(Span<std::uint32_t> out) {
  auto slots = oxide::shared_array<std::uint32_t, 256>();
  const std::uint32_t t = oxide::thread_idx().x, n = oxide::block_dim().x;
  for (int round = 0; round < 3; ++round) { // the same barrier and array, again and again
    slots[t] = t + 1000 * round + 1000000 * oxide::block_idx().x;
    oxide::sync_threads();
    const std::uint32_t neighbour = slots[(t + 1) % n];
    oxide::sync_threads();
    if (round == 2)
      out[oxide::block_idx().x * n + t] = neighbour;
  }
}

// A tree reduction in shared memory: every level depends on the barrier.
void block_sum(Span<const std::uint32_t> in, Span<std::uint32_t> sums) {
  auto partial = oxide::shared_array<std::uint32_t, 512>();
  const std::uint32_t t = oxide::thread_idx().x;
  partial[t] = in[oxide::thread::index_1d().get()];
  oxide::sync_threads();
  for (std::uint32_t stride = oxide::block_dim().x / 2; stride > 0; stride /= 2) {
    if (t < stride)
      partial[t] += partial[t + stride];
    oxide::sync_threads();
  }
  if (t == 0)
    sums[oxide::block_idx().x] = partial[0];
}

// Two arrays from two declarations are distinct; dynamic shared memory is sized by the launch.
void shared_layout(Span<std::uint64_t> out) {
  auto a = oxide::shared_array<std::uint32_t, 8>();
  auto b = oxide::shared_array<double, 3>();
  auto dynamic = oxide::dynamic_shared<float>();
  if (oxide::thread_idx().x == 0) {
    out[0] = reinterpret_cast<std::uintptr_t>(a.data());
    out[1] = reinterpret_cast<std::uintptr_t>(b.data());
    out[2] = reinterpret_cast<std::uintptr_t>(dynamic.data());
    out[3] = dynamic.size();
    out[4] = b.size();
  }
  a[oxide::thread_idx().x % 8] = 1;
  b[0] = 2.0;
  if (!dynamic.empty())
    dynamic[oxide::thread_idx().x % dynamic.size()] = 3.0f;
}

// What a lane gets from each warp operation, one row of results per lane.
struct WarpResults {
  std::uint32_t lane, idx, up, down, xor_, broadcast_from_3;
  double wide_down;
  std::uint32_t all, any, ballot, sum, max, half_sum;
};

void warp_exchange(Span<WarpResults> out) {
  namespace warp = oxide::warp;
  const std::uint32_t lane = warp::lane_id();
  const std::uint32_t t = oxide::thread_idx().x;
  const std::uint32_t value = 100 * (t / 32) + lane; // distinct per warp, to catch mixing warps
  WarpResults r{};
  r.lane = lane;
  r.idx = warp::shuffle(value, (lane + 5) % 32);
  r.up = warp::shuffle_up(value, 3);
  r.down = warp::shuffle_down(value, 4);
  r.xor_ = warp::shuffle_xor(value, 1);
  r.broadcast_from_3 = warp::shuffle(value, 35); // lanes are taken modulo 32
  r.wide_down = warp::shuffle_down(static_cast<double>(value) + 0.25, 1);
  r.all = warp::all(lane < 32);
  r.any = warp::any(lane == 7);
  r.ballot = warp::ballot(lane % 3 == 0);
  r.sum = warp::sum(value);
  r.max = warp::max(value);
  // Two independent half-warps, each with its own mask.
  const std::uint32_t half = lane < 16 ? 0x0000ffffu : 0xffff0000u;
  std::uint32_t partial = value;
  for (std::uint32_t offset = 8; offset > 0; offset /= 2)
    partial += warp::shuffle_xor(partial, offset, half);
  r.half_sum = partial;
  warp::sync();
  out[t] = r;
}

// A block of 40 threads: its second warp has 8 lanes; a full mask means the lanes that exist.
void partial_warp(Span<std::uint32_t> ballots) {
  const std::uint32_t t = oxide::thread_idx().x;
  ballots[t] = oxide::warp::ballot(true);
}

void count_with_atomics(Span<std::uint32_t> total, Span<const std::uint32_t> values) {
  auto bins = oxide::shared_array<std::uint32_t, 4>();
  const std::uint32_t t = oxide::thread_idx().x;
  if (t < 4)
    bins[t] = 0;
  oxide::sync_threads();
  const std::size_t i = oxide::thread::index_1d().get();
  if (i < values.size())
    oxide::AtomicRef<std::uint32_t, oxide::Scope::block>(bins[values[i] % 4]).fetch_add(1);
  oxide::thread_fence<oxide::Scope::block>();
  oxide::sync_threads();
  if (t < 4)
    oxide::AtomicRef<std::uint32_t>(total[t]).fetch_add(bins[t]);
  oxide::thread_fence<oxide::Scope::system>();
}

void say_hello(int tag) {
  oxide::printf("hello from block %u thread %u tag %d\n", oxide::block_idx().x, oxide::thread_idx().x, tag);
}

class SimSemantics : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    oxide::sim::register_kernel(rotate, "rotate");
    oxide::sim::register_kernel(block_sum, "block_sum");
    oxide::sim::register_kernel(shared_layout, "shared_layout");
    oxide::sim::register_kernel(warp_exchange, "warp_exchange");
    oxide::sim::register_kernel(partial_warp, "partial_warp");
    oxide::sim::register_kernel(count_with_atomics, "count_with_atomics");
    oxide::sim::register_kernel(say_hello, "say_hello");
  }
};

TEST_F(SimSemantics, SyncThreadsIsABarrier) {
  for (const bool check : {false, true}) {
    auto ctx = simulator(check);
    auto stream = ctx.default_stream();
    const std::uint32_t blocks = 5, threads = 256;
    auto out = DeviceBuffer<std::uint32_t>::zeroed(stream, blocks * threads);
    oxide::unsafe_launch(stream, rotate, oxide::LaunchConfig1D{blocks, threads}, out);
    const auto host = out.to_host(stream);
    for (std::uint32_t b = 0; b < blocks; ++b)
      for (std::uint32_t t = 0; t < threads; ++t)
        ASSERT_EQ(host[b * threads + t], (t + 1) % threads + 2000 + 1000000 * b) << b << " " << t;
  }
}

TEST_F(SimSemantics, SharedMemoryReductionPerBlock) {
  auto ctx = simulator();
  auto stream = ctx.default_stream();
  const std::uint32_t blocks = 64, threads = 512;
  std::vector<std::uint32_t> input(blocks * threads);
  std::iota(input.begin(), input.end(), 0u);
  auto in = DeviceBuffer<std::uint32_t>::from_host(stream, input);
  auto sums = DeviceBuffer<std::uint32_t>::zeroed(stream, blocks);
  oxide::unsafe_launch(stream, block_sum, oxide::LaunchConfig1D{blocks, threads}, in, sums);
  const auto host = sums.to_host(stream);
  for (std::uint32_t b = 0; b < blocks; ++b)
    EXPECT_EQ(host[b], std::accumulate(input.begin() + b * threads, input.begin() + (b + 1) * threads, 0u));
}

TEST_F(SimSemantics, SharedArraysAndDynamicSharedMemory) {
  auto ctx = simulator();
  auto stream = ctx.default_stream();
  auto out = DeviceBuffer<std::uint64_t>::zeroed(stream, 5);
  oxide::unsafe_launch(stream, shared_layout, oxide::LaunchConfig1D{3, 64, 1000}, out);
  const auto h = out.to_host(stream);
  EXPECT_NE(h[0], h[1]);
  EXPECT_EQ(h[0] % alignof(std::uint32_t), 0u);
  EXPECT_EQ(h[1] % alignof(double), 0u);
  EXPECT_EQ(h[2] % 16, 0u);
  EXPECT_EQ(h[3], 250u);
  EXPECT_EQ(h[4], 3u);
  // No dynamic shared memory: an empty span.
  oxide::unsafe_launch(stream, shared_layout, oxide::LaunchConfig1D{1, 32}, out);
  EXPECT_EQ(out.to_host(stream)[3], 0u);
}

TEST_F(SimSemantics, CheckingModePoisonsSharedMemory) {
  auto peek = +[](Span<std::uint32_t> out) {
    auto fresh = oxide::shared_array<std::uint32_t, 2>();
    out[0] = fresh[1];
    out[1] = oxide::dynamic_shared<std::uint32_t>()[0];
  };
  oxide::sim::register_kernel(peek, "peek");
  auto ctx = simulator(/*check=*/true);
  auto stream = ctx.default_stream();
  auto out = DeviceBuffer<std::uint32_t>::zeroed(stream, 2);
  oxide::unsafe_launch(stream, peek, oxide::LaunchConfig1D{1, 1, 16}, out);
  EXPECT_EQ(out.to_host(stream), (std::vector<std::uint32_t>{0xffffffffu, 0xffffffffu}));
}

TEST_F(SimSemantics, WarpOperationsExchangeInLockstep) {
  for (const bool check : {false, true}) {
    auto ctx = simulator(check);
    auto stream = ctx.default_stream();
    const std::uint32_t threads = 96; // three warps
    auto out = DeviceBuffer<WarpResults>::zeroed(stream, threads);
    oxide::unsafe_launch(stream, warp_exchange, oxide::LaunchConfig1D{2, threads}, out);
    const auto host = out.to_host(stream);
    for (std::uint32_t t = 0; t < threads; ++t) {
      const WarpResults &r = host[t];
      const std::uint32_t lane = t % 32, base = 100 * (t / 32);
      ASSERT_EQ(r.lane, lane);
      EXPECT_EQ(r.idx, base + (lane + 5) % 32) << t;
      EXPECT_EQ(r.up, base + (lane >= 3 ? lane - 3 : lane)) << t;
      EXPECT_EQ(r.down, base + (lane + 4 < 32 ? lane + 4 : lane)) << t;
      EXPECT_EQ(r.xor_, base + (lane ^ 1)) << t;
      EXPECT_EQ(r.broadcast_from_3, base + 3) << t;
      EXPECT_EQ(r.wide_down, base + (lane < 31 ? lane + 1 : lane) + 0.25) << t;
      EXPECT_EQ(r.all, 1u);
      EXPECT_EQ(r.any, 1u);
      EXPECT_EQ(r.ballot, 0x49249249u);
      EXPECT_EQ(r.sum, 32 * base + 496) << t;
      EXPECT_EQ(r.max, base + 31) << t;
      EXPECT_EQ(r.half_sum, 16 * base + (lane < 16 ? 120u : 376u)) << t;
    }
  }
}

TEST_F(SimSemantics, AFullMaskInAPartialWarpMeansItsLanes) {
  auto ctx = simulator(/*check=*/true);
  auto stream = ctx.default_stream();
  auto out = DeviceBuffer<std::uint32_t>::zeroed(stream, 40);
  oxide::unsafe_launch(stream, partial_warp, oxide::LaunchConfig1D{1, 40}, out);
  const auto host = out.to_host(stream);
  EXPECT_EQ(host[0], 0xffffffffu);
  EXPECT_EQ(host[39], 0xffu);
}

TEST_F(SimSemantics, AtomicsAreRealAtomics) {
  auto ctx = simulator(false, 4); // blocks on several host threads at once
  auto stream = ctx.default_stream();
  const std::size_t n = 200'000;
  std::vector<std::uint32_t> values(n);
  std::iota(values.begin(), values.end(), 0u);
  auto in = DeviceBuffer<std::uint32_t>::from_host(stream, values);
  auto total = DeviceBuffer<std::uint32_t>::zeroed(stream, 4);
  oxide::unsafe_launch(stream, count_with_atomics, oxide::LaunchConfig1D::for_elements(n, 128), total, in);
  EXPECT_EQ(total.to_host(stream), std::vector<std::uint32_t>(4, n / 4));
}

TEST_F(SimSemantics, PrintfLinesArriveWhole) {
  auto ctx = simulator(false, 4);
  auto stream = ctx.default_stream();
  testing::internal::CaptureStdout();
  oxide::unsafe_launch(stream, say_hello, oxide::LaunchConfig1D{8, 64}, 42);
  const std::string output = testing::internal::GetCapturedStdout();
  std::istringstream lines(output);
  std::vector<std::string> seen;
  for (std::string line; std::getline(lines, line);)
    seen.push_back(line);
  ASSERT_EQ(seen.size(), 8u * 64u);
  std::vector<std::string> expected;
  for (int b = 0; b < 8; ++b)
    for (int t = 0; t < 64; ++t)
      expected.push_back("hello from block " + std::to_string(b) + " thread " + std::to_string(t) +
                         " tag 42");
  std::sort(seen.begin(), seen.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(seen, expected);
}

} // namespace
