// oxide::Permutation and PermutationSpan on the CPU simulator: from_host accepts exactly the
// permutations of [0, n) and names the first bad position otherwise; the device memory holds at
// least one index; a scatter through it writes each output element once, leaves elements past
// the output alone and gives nullptr past the permutation; the launch binds only Permutation
// lvalues and sees its memory as read-only.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "oxide/oxide.hpp"
#include "sim/disjoint_claims.hpp"
#include "sim/write_checks.hpp"
#include "sim_test_support.hpp"

namespace {

using oxide::DeviceBuffer;
using oxide::DisjointSpan;
using oxide::ErrorKind;
using oxide::LaunchConfig1D;
using oxide::Permutation;
using oxide::PermutationSpan;
using oxide::Span;

// out[perm[i]] = in[i] for every i of a grid-stride loop.
void scatter(Span<const float> in, PermutationSpan perm, DisjointSpan<float> out) {
  for (const auto &i : oxide::thread::grid_stride(in.size()))
    if (float *o = out.scatter_mut(i, perm))
      *o = in[i.get()];
}

void past_the_end(PermutationSpan perm, DisjointSpan<std::uint32_t> out) {
  const auto &i = oxide::thread::index_1d();
  // Threads past the permutation get nullptr: they must not write.
  if (std::uint32_t *o = out.scatter_mut(i, perm))
    *o = static_cast<std::uint32_t>(i.get()) + 1;
}

std::string problem(const std::vector<std::uint32_t> &map) {
  oxide::Context ctx = oxide_test::simulator();
  oxide::Stream stream = ctx.default_stream();
  try {
    (void)Permutation::from_host(stream, map);
  } catch (const oxide::Error &e) {
    EXPECT_EQ(e.kind(), ErrorKind::NotAPermutation);
    EXPECT_EQ(e.kind_name(), "NotAPermutation");
    return e.what();
  }
  return {};
}

TEST(Permutation, AcceptsPermutations) {
  EXPECT_EQ(problem({}), "");
  EXPECT_EQ(problem({0}), "");
  EXPECT_EQ(problem({2, 0, 1}), "");
  std::vector<std::uint32_t> reversed(1000);
  for (std::uint32_t k = 0; k < reversed.size(); ++k)
    reversed[k] = 999 - k;
  EXPECT_EQ(problem(reversed), "");
}

TEST(Permutation, NamesTheFirstRepeatedIndex) {
  EXPECT_EQ(problem({1, 3, 0, 3, 2, 2}),
            "oxide: Permutation::from_host: map[3] = 3 repeats map[1]: a permutation of [0, 6) holds each "
            "index exactly once");
  EXPECT_EQ(problem({0, 0}),
            "oxide: Permutation::from_host: map[1] = 0 repeats map[0]: a permutation of [0, 2) holds each "
            "index exactly once");
}

TEST(Permutation, NamesTheFirstOutOfRangeIndex) {
  EXPECT_EQ(problem({0, 1, 5, 2}),
            "oxide: Permutation::from_host: map[2] = 5 is out of range: a permutation of [0, 4) holds only "
            "indices below 4");
  EXPECT_EQ(problem({1}),
            "oxide: Permutation::from_host: map[0] = 1 is out of range: a permutation of [0, 1) "
            "holds only indices below 1");
  EXPECT_EQ(problem({0xffffffffu, 0}),
            "oxide: Permutation::from_host: map[0] = 4294967295 is out of range: a permutation of [0, 2) "
            "holds only indices below 2");
}

TEST(Permutation, KeepsTheMapAndAtLeastOneIndex) {
  oxide::Context ctx = oxide_test::simulator();
  oxide::Stream stream = ctx.default_stream();
  const std::vector<std::uint32_t> map{3, 1, 0, 2};
  const Permutation perm = Permutation::from_host(stream, map);
  EXPECT_EQ(perm.size(), 4u);
  EXPECT_EQ(perm.to_host(stream), map);
  const Permutation none = Permutation::from_host(stream, {});
  EXPECT_EQ(none.size(), 0u);
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(oxide::detail::PermutationBufferAccess::indices(none).size(), 1u); // index 0 is always there
  EXPECT_TRUE(none.to_host(stream).empty());
}

// A PermutationSpan takes only a Permutation lvalue: not a temporary, a buffer or a span.
static_assert(oxide::KernelArgument<Permutation &, PermutationSpan>);
static_assert(oxide::KernelArgument<const Permutation &, PermutationSpan>);
static_assert(!oxide::KernelArgument<Permutation, PermutationSpan>);
static_assert(!oxide::KernelArgument<DeviceBuffer<std::uint32_t> &, PermutationSpan>);
static_assert(!oxide::KernelArgument<Span<const std::uint32_t>, PermutationSpan>);
static_assert(!oxide::KernelArgument<PermutationSpan, PermutationSpan>);
// Its memory binds only read-only.
static_assert(oxide::KernelArgument<const DeviceBuffer<std::uint32_t> &, Span<const std::uint32_t>>);
static_assert(!oxide::KernelArgument<const DeviceBuffer<std::uint32_t> &, DisjointSpan<std::uint32_t>>);
static_assert(!oxide::KernelArgument<const DeviceBuffer<std::uint32_t> &, Span<std::uint32_t>>);

// The checking mode sees a PermutationSpan ("q4", as oxcc describes it) as read-only memory.
TEST(Permutation, CheckingModeReportsWritesIntoIt) {
  namespace sim = oxide::detail::sim;
  const auto params = sim::parse_param_descriptions("perm=q4,out=o4");
  ASSERT_TRUE(params);
  EXPECT_EQ((*params)[0], (sim::ParamDescription{"perm", 'q', 4}));
  std::vector<std::uint32_t> indices{1, 0, 2};
  std::vector<float> elements(3);
  const PermutationSpan perm = oxide::detail::PermutationAccess::make(indices.data(), indices.size());
  const auto out = oxide::detail::SpanAccess::make_disjoint(elements.data(), elements.size());
  void *values[] = {const_cast<PermutationSpan *>(&perm), const_cast<DisjointSpan<float> *>(&out)};
  const auto checks = sim::WriteChecks::from(*params, values);
  ASSERT_EQ(checks->ranges().size(), 2u);
  sim::DisjointClaims claims;
  const oxide::detail::LaunchGeometry geometry{{1, 1, 1}, {32, 1, 1}, 0};
  EXPECT_EQ(checks->check({{0, 0}, nullptr, 0, 0}, reinterpret_cast<std::uintptr_t>(&indices[2]), 4, false,
                          claims, geometry),
            "wrote index 2 of permutation parameter 'perm', a PermutationSpan, which kernels only read");
}

class PermutationScatter : public ::testing::TestWithParam<bool> {
protected:
  static void SetUpTestSuite() {
    oxide::sim::register_kernel(scatter, "scatter", "domain = 1, requires = (perm.size() == in.size())",
                                {"in", "perm", "out"});
    oxide::sim::register_kernel(past_the_end, "past_the_end", "domain = 1", {"perm", "out"});
  }
  oxide::Context ctx = oxide_test::simulator(/*check=*/GetParam());
  oxide::Stream stream = ctx.default_stream();
};

TEST_P(PermutationScatter, WritesEachElementOnce) {
  constexpr std::uint32_t n = 777;
  std::vector<std::uint32_t> map(n);
  for (std::uint32_t k = 0; k < n; ++k)
    map[k] = (k * 331u) % n; // 331 and 777 are coprime
  std::vector<float> host(n);
  std::iota(host.begin(), host.end(), 0.0f);
  const auto perm = Permutation::from_host(stream, map);
  auto in = DeviceBuffer<float>::from_host(stream, host);
  auto out = DeviceBuffer<float>::zeroed(stream, n);
  oxide::prepare(ctx, scatter, LaunchConfig1D{2, 64})(stream, in, perm, out); // grid-stride steps
  const std::vector<float> got = out.to_host(stream);
  for (std::uint32_t k = 0; k < n; ++k)
    EXPECT_EQ(got[map[k]], host[k]) << k;
}

TEST_P(PermutationScatter, CheckedAtLaunch) {
  const auto perm = Permutation::from_host(stream, std::vector<std::uint32_t>{1, 0});
  auto in = DeviceBuffer<float>::zeroed(stream, 3);
  auto out = DeviceBuffer<float>::zeroed(stream, 3);
  const std::string message = oxide_test::error_of(
      [&] { oxide::prepare(ctx, scatter, LaunchConfig1D{1, 32})(stream, in, perm, out); });
  EXPECT_NE(message.find("perm.size() == in.size()"), std::string::npos) << message;
}

TEST_P(PermutationScatter, NullPastThePermutationAndTheOutput) {
  // perm = {2, 0, 3, 1} into an output of 3: index 3 is past the output, threads 4.. past perm.
  const auto perm = Permutation::from_host(stream, std::vector<std::uint32_t>{2, 0, 3, 1});
  auto out = DeviceBuffer<std::uint32_t>::zeroed(stream, 3);
  oxide::prepare(ctx, past_the_end, LaunchConfig1D{1, 32})(stream, perm, out);
  EXPECT_EQ(out.to_host(stream), (std::vector<std::uint32_t>{2, 4, 1}));
  const auto none = Permutation::from_host(stream, {});
  oxide::prepare(ctx, past_the_end, LaunchConfig1D{1, 32})(stream, none, out);
  EXPECT_EQ(out.to_host(stream), (std::vector<std::uint32_t>{2, 4, 1}));
}

INSTANTIATE_TEST_SUITE_P(CheckingMode, PermutationScatter, ::testing::Bool());

} // namespace
