// Schedule fuzzing: with OXIDE_SIM_SCHEDULE=random the simulator runs blocks, and the threads of
// a block between their waits, in an order drawn from OXIDE_SIM_SEED, so a racy kernel's result
// differs from seed to seed while a correct kernel's does not, and a seed replays its run.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "oxide/oxide.hpp"
#include "sim/options.hpp"
#include "sim/schedule.hpp"
#include "sim_test_support.hpp"

namespace {

using oxide::DeviceBuffer;
using oxide::Span;
using oxide_test::error_of;
using oxide_test::ScopedEnv;

// Each thread publishes a value and reads its neighbour's without a barrier between: what it
// reads depends on whether the neighbour has run yet. Block b also reads a word block b - 1
// writes, without any synchronisation between blocks.
void racy(Span<std::uint32_t> out, Span<std::uint32_t> flags) {
  auto slots = oxide::shared_array<std::uint32_t, 64>();
  const std::uint32_t t = oxide::thread_idx().x, n = oxide::block_dim().x, b = oxide::block_idx().x;
  slots[t] = 0;
  oxide::sync_threads();
  slots[t] = t + 1;
  out[b * n + t] = slots[(t + 1) % n]; // the race: no sync_threads before the read
  if (t == 0) {
    flags[b] = 1;
    out[b * n] += b > 0 ? 1000 * flags[b - 1] : 0; // the race between blocks
  }
}

// The same with the barrier, and without the read of another block's word.
void correct(Span<std::uint32_t> out, Span<std::uint32_t> flags) {
  auto slots = oxide::shared_array<std::uint32_t, 64>();
  const std::uint32_t t = oxide::thread_idx().x, n = oxide::block_dim().x, b = oxide::block_idx().x;
  slots[t] = t + 1;
  oxide::sync_threads();
  out[b * n + t] = slots[(t + 1) % n];
  if (t == 0)
    flags[b] = 1;
}

class SimSchedule : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    oxide::sim::register_kernel(racy, "racy");
    oxide::sim::register_kernel(correct, "correct");
  }

  /// The output of one launch of `kernel` (8 blocks of 64 threads) on a context with the random
  /// schedule and `seed`, one host thread.
  static std::vector<std::uint32_t> run(void (*kernel)(Span<std::uint32_t>, Span<std::uint32_t>),
                                        std::optional<std::string> schedule, std::uint64_t seed) {
    ScopedEnv schedule_env("OXIDE_SIM_SCHEDULE", std::move(schedule));
    ScopedEnv seed_env("OXIDE_SIM_SEED", std::to_string(seed));
    testing::internal::CaptureStderr();
    auto ctx = oxide_test::simulator(false, 1);
    (void)testing::internal::GetCapturedStderr();
    auto stream = ctx.default_stream();
    auto out = DeviceBuffer<std::uint32_t>::zeroed(stream, 8 * 64);
    auto flags = DeviceBuffer<std::uint32_t>::zeroed(stream, 8);
    oxide::unsafe_launch(stream, kernel, oxide::LaunchConfig1D{8, 64}, out, flags);
    return out.to_host(stream);
  }
};

TEST_F(SimSchedule, ARacyKernelDiffersAcrossSeedsAndReplays) {
  std::set<std::vector<std::uint32_t>> results;
  for (std::uint64_t seed = 1; seed <= 8; ++seed)
    results.insert(run(racy, "random", seed));
  EXPECT_GE(results.size(), 4u); // each seed orders 512 threads and 8 blocks anew
  EXPECT_EQ(run(racy, "random", 5), run(racy, "random", 5));
  // The ordered schedule always gives one result: after the barrier the last thread to arrive
  // (63) goes on first, then the others in order, each before its higher neighbour; every block
  // runs after the one before.
  const std::vector<std::uint32_t> ordered = run(racy, std::nullopt, 0);
  EXPECT_EQ(ordered[1], 0u);
  EXPECT_EQ(ordered[62], 64u);
  EXPECT_EQ(ordered[63], 0u);
  EXPECT_EQ(ordered[64], 1000u);
  EXPECT_EQ(run(racy, std::nullopt, 0), ordered);
}

TEST_F(SimSchedule, ACorrectKernelDoesNotDependOnTheSeed) {
  const std::vector<std::uint32_t> expected = run(correct, std::nullopt, 0);
  for (std::uint32_t t = 0; t < 64; ++t)
    ASSERT_EQ(expected[t], (t + 1) % 64 + 1);
  for (std::uint64_t seed = 1; seed <= 8; ++seed)
    EXPECT_EQ(run(correct, "random", seed), expected) << seed;
}

TEST_F(SimSchedule, TheSeedIsPrinted) {
  ScopedEnv schedule_env("OXIDE_SIM_SCHEDULE", "random");
  {
    ScopedEnv seed_env("OXIDE_SIM_SEED", "12345");
    testing::internal::CaptureStderr();
    auto ctx = oxide::Context::cpu();
    EXPECT_EQ(testing::internal::GetCapturedStderr(),
              "oxide: simulator schedule random, OXIDE_SIM_SEED=12345 (set it to replay this run)\n");
  }
  ScopedEnv seed_env("OXIDE_SIM_SEED", std::nullopt); // drawn, and printed
  testing::internal::CaptureStderr();
  auto ctx = oxide::Context::cpu();
  EXPECT_NE(testing::internal::GetCapturedStderr().find("OXIDE_SIM_SEED="), std::string::npos);
}

TEST_F(SimSchedule, MalformedSettingsAreRejected) {
  using oxide::detail::sim::parse_schedule;
  using oxide::detail::sim::parse_seed;
  EXPECT_TRUE(parse_schedule("random"));
  EXPECT_FALSE(parse_schedule("ordered"));
  EXPECT_EQ(parse_seed("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(
      error_of([] { (void)parse_schedule("shuffled"); }),
      "oxide: OXIDE_SIM_SCHEDULE='shuffled' is not valid; use random (a schedule drawn from OXIDE_SIM_SEED) "
      "or ordered (the default)");
  EXPECT_EQ(error_of([] { (void)parse_seed("-1"); }),
            "oxide: OXIDE_SIM_SEED='-1' is not valid; use a decimal number from 0 to 18446744073709551615");
  ScopedEnv seed_env("OXIDE_SIM_SEED", "12x");
  try {
    (void)oxide::Context::cpu();
    ADD_FAILURE() << "expected an oxide::Error";
  } catch (const oxide::Error &e) {
    EXPECT_EQ(e.kind(), oxide::ErrorKind::InvalidEnvironment);
  }
}

TEST(SimSchedulePermutation, IsAPermutation) {
  for (const std::uint64_t n : {1u, 2u, 3u, 7u, 64u, 1000u}) {
    const oxide::detail::sim::Permutation order(n, 42);
    std::set<std::uint64_t> seen;
    for (std::uint64_t i = 0; i < n; ++i)
      seen.insert(order(i));
    EXPECT_EQ(seen.size(), n);
    EXPECT_LT(*seen.rbegin(), n);
  }
}

} // namespace
