// Warp-synchronous code without a warp barrier: lanes of one warp that communicate through shared
// memory without warp::sync() between the write and the read. The checking mode reports it from
// the accesses that instrumented code reports through __oxide_sim_check_shared_access; here the
// kernels make those calls themselves, as the instrumentation does before each load and store.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "oxide/oxide.hpp"
#include "sim/options.hpp"
#include "sim/warp_races.hpp"
#include "sim_test_support.hpp"

namespace {

using oxide::DeviceBuffer;
using oxide::Span;
using oxide_test::error_of;
using oxide_test::simulator;

template <class T> T load(volatile T *p) {
  __oxide_sim_check_shared_access(const_cast<const T *>(p), sizeof(T), 0, "races.cpp:1:1");
  return *p;
}
template <class T> void store(volatile T *p, T value) {
  __oxide_sim_check_shared_access(const_cast<const T *>(p), sizeof(T), 1, "races.cpp:2:2");
  *p = value;
}

// The legacy warp-synchronous tail of the classic reduction (volatile shared memory, every lane
// of the first warp adds at every step), with or without warp::sync() between the reads and the
// writes of each step.
void legacy_reduce(Span<const std::uint32_t> in, Span<std::uint32_t> out, bool sync) {
  auto shared = oxide::shared_array<std::uint32_t, 64>();
  volatile std::uint32_t *s = shared.data();
  const std::uint32_t t = oxide::thread_idx().x;
  store(&s[t], in[t]);
  oxide::sync_threads();
  if (t < 32) {
    for (std::uint32_t offset = 32; offset > 0; offset /= 2) {
      const std::uint32_t sum = load(&s[t]) + load(&s[t + offset]);
      if (sync)
        oxide::warp::sync();
      store(&s[t], sum);
      if (sync)
        oxide::warp::sync();
    }
    if (t == 0)
      out[0] = load(&s[0]);
  }
}

// The same as it is usually written, without the calls: OXIDE_SIM_WARP_RACES=1 traces its
// shared-memory accesses.
void plain_legacy_reduce(Span<const std::uint32_t> in, Span<std::uint32_t> out, bool sync) {
  auto shared = oxide::shared_array<std::uint32_t, 64>();
  volatile std::uint32_t *s = shared.data();
  const std::uint32_t t = oxide::thread_idx().x;
  s[t] = in[t];
  oxide::sync_threads();
  if (t < 32) {
    for (std::uint32_t offset = 32; offset > 0; offset /= 2) {
      const std::uint32_t sum = s[t] + s[t + offset];
      if (sync)
        oxide::warp::sync();
      s[t] = sum;
      if (sync)
        oxide::warp::sync();
    }
    if (t == 0)
      out[0] = s[0];
  }
}

// Each lane publishes its value and reads its lower neighbour's, with or without a barrier (of
// the block) between.
void read_neighbour(Span<std::uint32_t> out, bool barrier) {
  auto shared = oxide::shared_array<std::uint32_t, 32>();
  volatile std::uint32_t *s = shared.data();
  const std::uint32_t t = oxide::thread_idx().x;
  store(&s[t], t + 1);
  if (barrier)
    oxide::sync_threads();
  out[t] = load(&s[t == 0 ? 31 : t - 1]);
}

class SimWarpRaces : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    oxide::sim::register_kernel(legacy_reduce, "legacy_reduce");
    oxide::sim::register_kernel(read_neighbour, "read_neighbour");
    oxide::sim::register_kernel(plain_legacy_reduce, "plain_legacy_reduce");
  }
};

TEST_F(SimWarpRaces, TheLegacyWarpReductionIsReported) {
  std::vector<std::uint32_t> input(64);
  std::iota(input.begin(), input.end(), 1u);
  auto ctx = simulator(/*check=*/true);
  auto stream = ctx.default_stream();
  auto in = DeviceBuffer<std::uint32_t>::from_host(stream, input);
  auto out = DeviceBuffer<std::uint32_t>::zeroed(stream, 1);
  // Lane 0 runs all its steps first; it read lane 1's word in the last one, which lane 1 then
  // writes in its first.
  EXPECT_EQ(
      error_of(
          [&] { oxide::unsafe_launch(stream, legacy_reduce, oxide::LaunchConfig1D{1, 64}, in, out, false); }),
      "oxide: kernel 'legacy_reduce' block (0,0,0) thread (1,0,0): warp-synchronous shared memory without "
      "a barrier: lane 1 writes the word at byte 4 of a shared array, which lane 0 of its warp read since "
      "their last sync_threads or warp::sync; the lanes of a warp do not run in lockstep (not on GPUs "
      "since Volta either): put a warp::sync() between the write and the read (at races.cpp:2:2)");
  // With warp::sync the sum is right and nothing is reported; outside the checking mode the
  // legacy version silently gets a wrong sum.
  oxide::unsafe_launch(stream, legacy_reduce, oxide::LaunchConfig1D{1, 64}, in, out, true);
  EXPECT_EQ(out.to_host(stream)[0], 64u * 65u / 2u);
  auto unchecked = simulator();
  auto unchecked_stream = unchecked.default_stream();
  oxide::unsafe_launch(unchecked_stream, legacy_reduce, oxide::LaunchConfig1D{1, 64}, in, out, false);
  EXPECT_NE(out.to_host(unchecked_stream)[0], 64u * 65u / 2u);
}

TEST_F(SimWarpRaces, AReadOfAnotherLanesWriteIsReported) {
  auto ctx = simulator(/*check=*/true);
  auto stream = ctx.default_stream();
  auto out = DeviceBuffer<std::uint32_t>::zeroed(stream, 32);
  EXPECT_EQ(
      error_of(
          [&] { oxide::unsafe_launch(stream, read_neighbour, oxide::LaunchConfig1D{1, 32}, out, false); }),
      "oxide: kernel 'read_neighbour' block (0,0,0) thread (1,0,0): warp-synchronous shared memory without a "
      "barrier: lane 1 reads the word at byte 0 of a shared array, which lane 0 of its warp wrote since "
      "their "
      "last sync_threads or warp::sync; the lanes of a warp do not run in lockstep (not on GPUs since Volta "
      "either): put a warp::sync() between the write and the read (at races.cpp:1:1)");
  oxide::unsafe_launch(stream, read_neighbour, oxide::LaunchConfig1D{1, 32}, out, true);
  EXPECT_EQ(out.to_host(stream)[5], 5u);
}

#if defined(__x86_64__)
TEST_F(SimWarpRaces, TracingFindsTheLegacyReductionWithoutInstrumentation) {
  std::vector<std::uint32_t> input(64);
  std::iota(input.begin(), input.end(), 1u);
  oxide_test::ScopedEnv trace("OXIDE_SIM_WARP_RACES", "1");
  auto ctx = simulator(); // the tracing turns the checking mode on
  auto stream = ctx.default_stream();
  auto in = DeviceBuffer<std::uint32_t>::from_host(stream, input);
  auto out = DeviceBuffer<std::uint32_t>::zeroed(stream, 1);
  EXPECT_EQ(
      error_of([&] {
        oxide::unsafe_launch(stream, plain_legacy_reduce, oxide::LaunchConfig1D{1, 64}, in, out, false);
      }),
      "oxide: kernel 'plain_legacy_reduce' block (0,0,0) thread (1,0,0): warp-synchronous shared memory "
      "without a barrier: lane 1 writes the word at byte 4 of a shared array, which lane 0 of its warp read "
      "since their last sync_threads or warp::sync; the lanes of a warp do not run in lockstep (not on GPUs "
      "since Volta either): put a warp::sync() between the write and the read");
  for (int launch = 0; launch < 2; ++launch) { // the pages are protected and opened again each time
    oxide::unsafe_launch(stream, plain_legacy_reduce, oxide::LaunchConfig1D{2, 64}, in, out, true);
    EXPECT_EQ(out.to_host(stream)[0], 64u * 65u / 2u);
  }
  // The memory is open again after the launch: host code (and the next block) can use it.
  auto lanes = DeviceBuffer<std::uint32_t>::zeroed(stream, 32);
  oxide::unsafe_launch(stream, read_neighbour, oxide::LaunchConfig1D{1, 32}, lanes, true);
  EXPECT_EQ(lanes.to_host(stream)[5], 5u);
}

TEST_F(SimWarpRaces, MalformedTracingSettingIsRejected) {
  EXPECT_EQ(error_of([] { (void)oxide::detail::sim::parse_warp_races("yes"); }),
            "oxide: OXIDE_SIM_WARP_RACES='yes' is not valid; use 1 (trace the shared-memory accesses of the "
            "checking mode) or 0");
}
#endif

TEST(SimWarpRaceLog, EpochsSeparateAccesses) {
  oxide::detail::sim::WarpRaceLog log;
  EXPECT_FALSE(log.access(0x100, 1, 3, true));
  EXPECT_FALSE(log.access(0x100, 1, 3, false)); // its own write
  const auto raw = log.access(0x100, 1, 4, false);
  ASSERT_TRUE(raw);
  EXPECT_EQ(raw->other_lane, 3u);
  EXPECT_TRUE(raw->other_wrote);
  EXPECT_FALSE(log.access(0x100, 2, 5, false)); // after a barrier
  const auto war = log.access(0x100, 2, 6, true);
  ASSERT_TRUE(war);
  EXPECT_EQ(war->other_lane, 5u);
  EXPECT_FALSE(war->other_wrote);
  EXPECT_FALSE(log.access(0x104, 2, 7, true)); // another word
  EXPECT_FALSE(log.access(0x104, 2, 8, true)); // two writes are not reported
}

} // namespace
