// The simulator's parts on their own: settings, OXIDE_DEVICE, warp exchange rules, shared
// memory and the DisjointSpan claims.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <numeric>

#include "device_selection.hpp"
#include "oxide/host/context.hpp"
#include "oxide/host/error.hpp"
#include "sim/disjoint_claims.hpp"
#include "sim/options.hpp"
#include "sim/shared_memory.hpp"
#include "sim/warp_ops.hpp"
#include "sim_test_support.hpp"

namespace {

using namespace oxide::detail;
using oxide_test::error_of;
using oxide_test::ScopedEnv;

TEST(SimOptions, ParsesEachSetting) {
  EXPECT_TRUE(sim::parse_check("1"));
  EXPECT_FALSE(sim::parse_check("0"));
  EXPECT_EQ(sim::parse_stack_bytes("65536"), 65536u);
  EXPECT_EQ(sim::parse_stack_bytes("128K"), 128u * 1024);
  EXPECT_EQ(sim::parse_stack_bytes("2m"), 2u * 1024 * 1024);
  EXPECT_EQ(sim::parse_threads("1"), 1u);
  EXPECT_EQ(sim::parse_threads("64"), 64u);
}

TEST(SimOptions, RejectsMalformedSettings) {
  EXPECT_EQ(error_of([] { (void)sim::parse_check("yes"); }),
            "oxide: OXIDE_SIM_CHECK='yes' is not valid; use 1 (checking mode) or 0");
  const std::string stack =
      "is not valid; use a size in bytes from 16384 to 1073741824, optionally with a K or M "
      "suffix (e.g. 64K)";
  for (const char *bad : {"", "K", "12", "8K", "64KB", "-64K", "2048M", "99999999999999999999"})
    EXPECT_EQ(error_of([&] { (void)sim::parse_stack_bytes(bad); }),
              "oxide: OXIDE_SIM_STACK='" + std::string(bad) + "' " + stack);
  for (const char *bad : {"0", "1025", "two", "4 "})
    EXPECT_EQ(error_of([&] { (void)sim::parse_threads(bad); }),
              "oxide: OXIDE_SIM_THREADS='" + std::string(bad) +
                  "' is not valid; use a number of host threads from 1 to 1024");
}

TEST(SimOptions, ComeFromTheEnvironment) {
  {
    ScopedEnv check("OXIDE_SIM_CHECK", std::nullopt), stack("OXIDE_SIM_STACK", std::nullopt),
        threads("OXIDE_SIM_THREADS", std::nullopt);
    const sim::Options options = sim::options_from_environment();
    EXPECT_FALSE(options.check);
    EXPECT_EQ(options.stack_bytes, 64u * 1024);
    EXPECT_EQ(options.threads, sim::default_threads());
  }
  ScopedEnv check("OXIDE_SIM_CHECK", "1"), stack("OXIDE_SIM_STACK", "256K"),
      threads("OXIDE_SIM_THREADS", "3");
  const sim::Options options = sim::options_from_environment();
  EXPECT_TRUE(options.check);
  EXPECT_EQ(options.stack_bytes, 256u * 1024);
  EXPECT_EQ(options.threads, 3u);
  ScopedEnv bad("OXIDE_SIM_THREADS", "many");
  EXPECT_EQ(error_of([] { (void)oxide::Context::cpu(); }),
            "oxide: OXIDE_SIM_THREADS='many' is not valid; use a number of host threads from 1 to 1024");
}

TEST(DeviceChoice, ParsesOxideDevice) {
  using Kind = DeviceChoice::Kind;
  EXPECT_EQ(parse_device_choice(""), (DeviceChoice{Kind::automatic, 0}));
  EXPECT_EQ(parse_device_choice("cpu"), (DeviceChoice{Kind::cpu, 0}));
  EXPECT_EQ(parse_device_choice("cuda"), (DeviceChoice{Kind::cuda, 0}));
  EXPECT_EQ(parse_device_choice("cuda:3"), (DeviceChoice{Kind::cuda, 3}));
  for (const char *bad : {"gpu", "CPU", "cuda:", "cuda:-1", "cuda:x", "cuda:1x", "cuda0"})
    EXPECT_EQ(
        error_of([&] { (void)parse_device_choice(bad); }),
        "oxide: OXIDE_DEVICE='" + std::string(bad) +
            "' is not valid; use cpu (the CPU simulator), cuda (the first GPU) or cuda:N (GPU number N)");
}

TEST(DeviceChoice, CreateHonoursOxideDevice) {
  {
    ScopedEnv device("OXIDE_DEVICE", "cpu");
    EXPECT_TRUE(oxide::Context::create().is_simulator());
  }
  ScopedEnv device("OXIDE_DEVICE", "cuda:x");
  EXPECT_EQ(error_of([] { (void)oxide::Context::create(); }),
            "oxide: OXIDE_DEVICE='cuda:x' is not valid; use cpu (the CPU simulator), cuda (the first GPU) or "
            "cuda:N "
            "(GPU number N)");
}

TEST(WarpOps, ShuffleSources) {
  std::array<std::uint32_t, 32> values{};
  std::iota(values.begin(), values.end(), 100u);
  const std::uint32_t all = ~0u;
  auto shuffle = [&](std::uint32_t lane, std::uint32_t mode, std::uint32_t arg, std::uint32_t group = ~0u) {
    return sim::warp_result(lane, {sim::WarpOpKind::shuffle, mode, all, values[lane], arg}, group, values);
  };
  EXPECT_EQ(shuffle(0, 0, 31), 131u);
  EXPECT_EQ(shuffle(5, 0, 33), 101u); // modulo 32
  EXPECT_EQ(shuffle(5, 1, 5), 100u);
  EXPECT_EQ(shuffle(4, 1, 5), 104u); // below delta: own value
  EXPECT_EQ(shuffle(26, 2, 5), 131u);
  EXPECT_EQ(shuffle(27, 2, 5), 127u); // past the end: own value
  EXPECT_EQ(shuffle(6, 3, 3), 105u);
  EXPECT_EQ(shuffle(6, 3, 32), 106u);       // outside the warp: own value
  EXPECT_EQ(shuffle(6, 2, 1, 0x40u), 106u); // source not in the group: own value
  EXPECT_EQ(shuffle(6, 9, 1), 106u);
}

TEST(WarpOps, ShuffleSourcesWithinTiles) {
  // shfl.sync's c operand for a segment of `width` lanes: lanes 8..15 form a tile of 8.
  auto source = [](std::uint32_t lane, std::uint32_t mode, std::uint32_t arg, std::uint32_t width) {
    return sim::shuffle_source(lane, mode, arg, width);
  };
  EXPECT_EQ(source(9, 0, 3, 8), 11u);             // idx: rank 3 of the tile
  EXPECT_EQ(source(9, 0, 11, 8), 11u);            // modulo the width
  EXPECT_EQ(source(9, 1, 1, 8), 8u);              // up
  EXPECT_EQ(source(9, 1, 2, 8), sim::kWarpSize);  // below the tile: own value
  EXPECT_EQ(source(14, 2, 1, 8), 15u);            // down
  EXPECT_EQ(source(14, 2, 2, 8), sim::kWarpSize); // past the tile: own value
  EXPECT_EQ(source(9, 3, 7, 8), 14u);             // xor within the tile
  EXPECT_EQ(source(9, 3, 16, 8), sim::kWarpSize); // a later tile: own value
  EXPECT_EQ(source(9, 3, 8, 8), 1u);              // an earlier one: read, as on the GPU
  EXPECT_EQ(source(5, 2, 0, 1), 5u);              // a tile of one lane
  EXPECT_EQ(source(5, 1, 1, 1), sim::kWarpSize);
  EXPECT_EQ(source(30, 2, 1, 32), 31u); // the whole warp, as before
  EXPECT_EQ(source(31, 2, 1, 32), sim::kWarpSize);
}

TEST(WarpOps, Votes) {
  std::array<std::uint32_t, 32> predicates{};
  predicates[3] = predicates[9] = 1;
  auto vote = [&](std::uint32_t mode, std::uint32_t group) {
    return sim::warp_result(0, {sim::WarpOpKind::vote, mode, group, predicates[0], 0}, group, predicates);
  };
  EXPECT_EQ(vote(0, ~0u), 0u);
  EXPECT_EQ(vote(0, 0x208u), 1u); // all of lanes 3 and 9
  EXPECT_EQ(vote(1, ~0u), 1u);
  EXPECT_EQ(vote(1, 0x7u), 0u);
  EXPECT_EQ(vote(2, ~0u), 0x208u);
  EXPECT_EQ(vote(2, 0xffu), 0x8u); // only lanes of the group
  EXPECT_EQ(sim::warp_result(0, {sim::WarpOpKind::sync, 0, ~0u, 0, 0}, ~0u, predicates), 0u);
  EXPECT_STREQ(sim::warp_op_name(sim::WarpOpKind::vote), "vote");
}

TEST(SharedMemory, OneArrayPerSiteWithinTheLimit) {
  sim::SharedMemory shared;
  const char site_a = 0, site_b = 0, site_c = 0;
  shared.reset(100, false);
  void *a = shared.allocate(&site_a, 64, 8);
  void *b = shared.allocate(&site_b, 16, 64);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a, b);
  EXPECT_EQ(shared.allocate(&site_a, 64, 8), a);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b) % 64, 0u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(shared.dynamic_base()) % 16, 0u);
  EXPECT_GE(static_cast<char *>(a), static_cast<char *>(shared.dynamic_base()) + 100);
  EXPECT_EQ(shared.allocate(&site_c, sim::SharedMemory::kLimitBytes, 4), nullptr);
  shared.reset(0, true); // a new block: arrays are allocated afresh, poisoned
  auto *c = static_cast<unsigned char *>(shared.allocate(&site_c, sim::SharedMemory::kLimitBytes, 4));
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c[0], sim::SharedMemory::kPoison);
  EXPECT_EQ(c[sim::SharedMemory::kLimitBytes - 1], sim::SharedMemory::kPoison);
  EXPECT_EQ(shared.allocate(&site_a, 1, 1), nullptr);
}

TEST(DisjointClaims, SecondThreadIsReported) {
  sim::DisjointClaims claims;
  const float data[4] = {};
  EXPECT_FALSE(claims.claim(data, 1, {0, 5}));
  EXPECT_FALSE(claims.claim(data, 1, {0, 5})); // the same thread again
  EXPECT_FALSE(claims.claim(data, 2, {0, 6}));
  EXPECT_FALSE(claims.claim(data + 1, 1, {0, 6})); // another span
  const auto other = claims.claim(data, 1, {3, 5});
  ASSERT_TRUE(other);
  EXPECT_EQ(*other, (sim::ThreadId{0, 5}));
}

} // namespace
