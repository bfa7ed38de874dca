// AppendBuffer and AppendSpan on the CPU simulator: threads append through reservations, the
// host reads back what was appended and how much was asked for, an overflowing launch is cut at
// the capacity, clear() empties the buffer, and the launch checks see the appended memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "oxide/oxide.hpp"
#include "sim_test_support.hpp"

namespace {

using oxide::AppendBuffer;
using oxide::AppendSpan;
using oxide::DeviceBuffer;
using oxide::ErrorKind;
using oxide::LaunchConfig1D;
using oxide::Span;

// Each thread appends its value when it is even, reserving `per_thread` slots for it.
void append_evens(Span<const std::uint32_t> in, AppendSpan<std::uint32_t> out) {
  for (const auto &i : oxide::thread::grid_stride(in.size())) {
    const std::uint32_t v = in[i.get()];
    if (v % 2 != 0)
      continue;
    const auto slots = out.reserve(2); // the value and its half
    if (std::uint32_t *slot = slots.get_mut(0))
      *slot = v;
    if (std::uint32_t *slot = slots.get_mut(1))
      *slot = v / 2;
    EXPECT_EQ(slots.get_mut(2), nullptr); // past the reservation
  }
}

void push_all(Span<const std::uint32_t> in, AppendSpan<std::uint32_t> out) {
  for (const auto &i : oxide::thread::grid_stride(in.size()))
    (void)out.push(in[i.get()]);
}

class AppendBuffers : public ::testing::TestWithParam<bool> {
protected:
  static void SetUpTestSuite() {
    oxide::sim::register_kernel(append_evens, "append_evens", "domain = 1", {"in", "out"});
    oxide::sim::register_kernel(push_all, "push_all", "domain = 1", {"in", "out"});
  }
  oxide::Context ctx = oxide_test::simulator(/*check=*/GetParam());
  oxide::Stream stream = ctx.default_stream();

  DeviceBuffer<std::uint32_t> iota(std::size_t n) {
    std::vector<std::uint32_t> host(n);
    for (std::size_t i = 0; i < n; ++i)
      host[i] = static_cast<std::uint32_t>(i);
    return DeviceBuffer<std::uint32_t>::from_host(stream, host);
  }
};

TEST_P(AppendBuffers, EveryReservationGetsItsOwnSlots) {
  constexpr std::size_t n = 1000;
  auto in = iota(n);
  auto out = AppendBuffer<std::uint32_t>::create(stream, n);
  oxide::prepare(ctx, append_evens, LaunchConfig1D{3, 64})(stream, in, out);
  EXPECT_EQ(out.size(stream), n); // 500 evens, 2 slots each
  EXPECT_EQ(out.requested(stream), n);
  const std::vector<std::uint32_t> got = out.to_host(stream);
  ASSERT_EQ(got.size(), n);
  // Pairs stay together: each reservation's slots are consecutive.
  std::vector<std::uint32_t> values;
  for (std::size_t s = 0; s < n; s += 2) {
    EXPECT_EQ(got[s] / 2, got[s + 1]) << s;
    values.push_back(got[s]);
  }
  std::sort(values.begin(), values.end());
  for (std::size_t k = 0; k < values.size(); ++k)
    EXPECT_EQ(values[k], 2 * k);
}

TEST_P(AppendBuffers, OverflowIsCutAtTheCapacity) {
  auto in = iota(300);
  auto out = AppendBuffer<std::uint32_t>::create(stream, 100);
  auto launch = oxide::prepare(ctx, push_all, LaunchConfig1D{2, 64});
  launch(stream, in, out);
  EXPECT_EQ(out.requested(stream), 300u);
  EXPECT_EQ(out.size(stream), 100u);
  std::vector<std::uint32_t> got = out.to_host(stream);
  std::sort(got.begin(), got.end());
  EXPECT_TRUE(std::adjacent_find(got.begin(), got.end()) == got.end()) << "a value appended twice";
  // clear() starts the next launch from slot 0.
  out.clear(stream);
  EXPECT_EQ(out.size(stream), 0u);
  auto few = iota(10);
  launch(stream, few, out);
  got = out.to_host(stream);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST_P(AppendBuffers, TheAppendedMemoryTakesPartInTheOverlapChecks) {
  auto out = AppendBuffer<std::uint32_t>::create(stream, 64);
  const auto launch = oxide::prepare(ctx, push_all, LaunchConfig1D{1, 64});
  try {
    launch(stream, out.elements(), out); // reading what the kernel appends to
    ADD_FAILURE() << "expected OverlappingArguments";
  } catch (const oxide::Error &e) {
    EXPECT_EQ(e.kind(), ErrorKind::OverlappingArguments);
    EXPECT_NE(
        std::string(e.what()).find("argument 1 (in) and argument 2 (out) refer to overlapping device memory"),
        std::string::npos)
        << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Simulator, AppendBuffers, ::testing::Values(false, true),
                         [](const auto &info) { return info.param ? "Checking" : "Plain"; });

} // namespace
