// The checking mode's write checks (runtime/sim/write_checks.hpp). oxcc instruments kernels'
// host code with calls of __oxide_sim_check_write and registers their parameters; these tests
// are built by a plain compiler, so their kernels make those calls by hand and register their
// parameters through __oxide_sim_register_params, as oxcc's constructor does. The end-to-end
// tests with oxcc-built programs are tests/lit/e2e/sim-check-writes*.test.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "oxide/oxide.hpp"
#include "sim/disjoint_claims.hpp"
#include "sim/write_checks.hpp"
#include "sim_test_support.hpp"

namespace {

namespace sim = oxide::detail::sim;
using oxide::AtomicSpan;
using oxide::DeviceBuffer;
using oxide::DisjointSpan;
using oxide::DisjointSpan2D;
using oxide::Span;
using oxide::detail::SpanAccess;
using oxide_test::error_of;
using oxide_test::simulator;

// --- the runtime's view of parameter values ------------------------------------------------------

std::uint64_t word(const void *value, std::size_t i) {
  std::uint64_t w;
  std::memcpy(&w, static_cast<const char *>(value) + 8 * i, 8);
  return w;
}

TEST(SimWriteChecks, SpansAreAPointerAndTheirExtents) {
  auto *data = reinterpret_cast<float *>(std::uintptr_t{0x1000});
  const auto span = SpanAccess::make_span<const float>(data, 7);
  const auto out = SpanAccess::make_disjoint(data, 8);
  const auto out2 = SpanAccess::make_disjoint_2d(data, 3, 4);
  const auto out3 = SpanAccess::make_disjoint_3d(data, 3, 4, 5);
  const auto atomic =
      SpanAccess::make_atomic<AtomicSpan<std::uint32_t>>(reinterpret_cast<std::uint32_t *>(data), 9);
  EXPECT_EQ(sizeof span, 16u);
  EXPECT_EQ(sizeof out2, 24u);
  EXPECT_EQ(sizeof out3, 32u);
  EXPECT_EQ(sizeof atomic, 16u);
  for (const void *value :
       {static_cast<const void *>(&span), static_cast<const void *>(&out), static_cast<const void *>(&out2),
        static_cast<const void *>(&out3), static_cast<const void *>(&atomic)})
    EXPECT_EQ(word(value, 0), 0x1000u);
  EXPECT_EQ(word(&span, 1), 7u);
  EXPECT_EQ(word(&out, 1), 8u);
  EXPECT_EQ(word(&out2, 1), 3u);
  EXPECT_EQ(word(&out2, 2), 4u);
  EXPECT_EQ(word(&out3, 3), 5u);
  EXPECT_EQ(word(&atomic, 1), 9u);
}

TEST(SimWriteChecks, ParsesParameterDescriptions) {
  const auto params = sim::parse_param_descriptions("a=i4,out=o8,=x0,p=c2,n=u0");
  ASSERT_TRUE(params);
  ASSERT_EQ(params->size(), 5u);
  EXPECT_EQ((*params)[0], (sim::ParamDescription{"a", 'i', 4}));
  EXPECT_EQ((*params)[1], (sim::ParamDescription{"out", 'o', 8}));
  EXPECT_EQ((*params)[2], (sim::ParamDescription{"", 'x', 0}));
  EXPECT_EQ((*params)[3], (sim::ParamDescription{"p", 'c', 2}));
  ASSERT_TRUE(sim::parse_param_descriptions(""));
  EXPECT_TRUE(sim::parse_param_descriptions("")->empty());
  for (const char *bad : {"a", "a=", "a=i", "a=z4", "a=i4,", "a=i4x", "a=i-1"})
    EXPECT_FALSE(sim::parse_param_descriptions(bad)) << bad;
}

// --- classification -----------------------------------------------------------------------------

const oxide::detail::LaunchGeometry kGeometry{{4, 1, 1}, {8, 1, 1}, 0};

sim::Writer writer(std::uint64_t block, std::uint32_t thread) { return {{block, thread}, nullptr, 0, 0}; }

TEST(SimWriteChecks, DisjointSpanElementsBelongToTheirClaimant) {
  std::vector<float> memory(16);
  const auto out = SpanAccess::make_disjoint(memory.data(), memory.size());
  void *values[] = {const_cast<void *>(static_cast<const void *>(&out))};
  const auto checks = sim::WriteChecks::from({{"out", 'o', 4}}, values);
  ASSERT_EQ(checks->ranges().size(), 1u);
  sim::DisjointClaims claims;
  ASSERT_FALSE(claims.claim(memory.data(), 3, {0, 3}));
  const auto at = [&](std::size_t element) { return reinterpret_cast<std::uintptr_t>(&memory[element]); };

  EXPECT_FALSE(checks->check(writer(0, 3), at(3), 4, false, claims, kGeometry));
  EXPECT_FALSE(checks->check(writer(0, 3), at(3) + 1, 2, false, claims, kGeometry)); // part of it
  EXPECT_EQ(checks->check(writer(0, 4), at(3), 4, false, claims, kGeometry),
            "wrote element 3 of output parameter 'out', which belongs to thread (3,0,0) of block (0,0,0)");
  EXPECT_EQ(checks->check(writer(1, 3), at(4), 4, false, claims, kGeometry),
            "wrote element 4 of output parameter 'out', which it did not obtain through get_mut or tile_mut");
  // Atomics do not make another thread's element the writer's.
  EXPECT_TRUE(checks->check(writer(0, 4), at(3), 4, true, claims, kGeometry));
  // Eight bytes from its own element into the next.
  EXPECT_EQ(checks->check(writer(0, 3), at(3), 8, false, claims, kGeometry),
            "wrote element 4 of output parameter 'out', which it did not obtain through get_mut or tile_mut");
  // Memory of no parameter (the stack, shared memory) is not checked.
  float local = 0;
  EXPECT_FALSE(
      checks->check(writer(0, 4), reinterpret_cast<std::uintptr_t>(&local), 4, false, claims, kGeometry));
  // The thread's run of claimed elements is trusted without a lookup.
  sim::Writer cached = writer(2, 0);
  cached.claimed_data = memory.data();
  cached.claimed_first = 8;
  cached.claimed_end = 12;
  EXPECT_FALSE(checks->check(cached, at(8), 16, false, claims, kGeometry));
}

TEST(SimWriteChecks, TwoDimensionalElementsAreNamedByRowAndColumn) {
  std::vector<double> memory(12);
  const auto out = SpanAccess::make_disjoint_2d(memory.data(), 4, 3);
  void *values[] = {const_cast<void *>(static_cast<const void *>(&out))};
  const auto checks = sim::WriteChecks::from({{"grid", '2', 8}}, values);
  sim::DisjointClaims claims;
  EXPECT_EQ(
      checks->check(writer(0, 0), reinterpret_cast<std::uintptr_t>(&memory[6]), 8, false, claims, kGeometry),
      "wrote element [1][2] of output parameter 'grid', which it did not obtain through get_mut or tile_mut");
}

TEST(SimWriteChecks, InputsAtomicsAndMutableSpans) {
  std::vector<float> in(8), mutable_data(8);
  std::vector<std::uint32_t> counts(8);
  const auto input = SpanAccess::make_span<const float>(in.data(), in.size());
  const auto atomic = SpanAccess::make_atomic<AtomicSpan<std::uint32_t>>(counts.data(), counts.size());
  const auto span = SpanAccess::make_span(mutable_data.data(), mutable_data.size());
  const std::uint32_t n = 8;
  void *values[] = {const_cast<void *>(static_cast<const void *>(&input)),
                    const_cast<void *>(static_cast<const void *>(&atomic)),
                    const_cast<void *>(static_cast<const void *>(&span)), const_cast<std::uint32_t *>(&n)};
  const auto checks =
      sim::WriteChecks::from({{"in", 'i', 4}, {"counts", 'a', 4}, {"", 'm', 4}, {"n", 'u', 0}}, values);
  EXPECT_EQ(checks->ranges().size(), 3u);
  sim::DisjointClaims claims;
  const auto address = [](const void *p) { return reinterpret_cast<std::uintptr_t>(p); };
  EXPECT_EQ(checks->check(writer(0, 0), address(&in[5]), 4, false, claims, kGeometry),
            "wrote element 5 of input parameter 'in', a Span<const T>, which kernels only read");
  EXPECT_EQ(checks->check(writer(0, 0), address(&counts[2]), 4, false, claims, kGeometry),
            "wrote element 2 of atomic parameter 'counts' with a plain store; an AtomicSpan is written only "
            "through its atomic operations");
  EXPECT_FALSE(checks->check(writer(0, 0), address(&counts[2]), 4, true, claims, kGeometry));
  EXPECT_FALSE(checks->check(writer(0, 0), address(&mutable_data[7]), 4, false, claims, kGeometry));
}

TEST(SimWriteChecks, AnAliasingOutputMayWriteAnInput) {
  // An in-place kernel (unsafe_launch allows it): the input and the output are one buffer.
  std::vector<float> memory(8);
  const auto input = SpanAccess::make_span<const float>(memory.data(), memory.size());
  const auto out = SpanAccess::make_disjoint(memory.data(), memory.size());
  void *values[] = {const_cast<void *>(static_cast<const void *>(&input)),
                    const_cast<void *>(static_cast<const void *>(&out))};
  const auto checks = sim::WriteChecks::from({{"in", 'i', 4}, {"out", 'o', 4}}, values);
  sim::DisjointClaims claims;
  ASSERT_FALSE(claims.claim(memory.data(), 2, {0, 2}));
  const auto at = reinterpret_cast<std::uintptr_t>(&memory[2]);
  EXPECT_FALSE(checks->check(writer(0, 2), at, 4, false, claims, kGeometry));
  EXPECT_EQ(checks->check(writer(0, 1), at, 4, false, claims, kGeometry),
            "wrote element 2 of input parameter 'in', a Span<const T>, which kernels only read");
}

TEST(SimWriteChecks, RedzonesFollowBuffersThatEndWhereTheParameterDoes) {
  alignas(256) static unsigned char buffer[1024];
  sim::note_allocation(buffer, 100, 512);
  const auto out = SpanAccess::make_disjoint(reinterpret_cast<float *>(buffer), 25);
  const auto prefix = SpanAccess::make_span<const float>(reinterpret_cast<float *>(buffer), 10);
  auto *raw = reinterpret_cast<float *>(buffer + 40);
  const float *raw_const = raw;
  void *values[] = {const_cast<void *>(static_cast<const void *>(&out)),
                    const_cast<void *>(static_cast<const void *>(&prefix)), &raw, &raw_const};
  const auto checks =
      sim::WriteChecks::from({{"out", 'o', 4}, {"head", 'i', 4}, {"p", 'p', 4}, {"q", 'c', 4}}, values);
  sim::DisjointClaims claims;
  const auto at = [](std::size_t offset) { return reinterpret_cast<std::uintptr_t>(buffer + offset); };
  // Past out's end (100 bytes) in the redzone; neither the raw pointer's range (up to the end of
  // the buffer) nor the prefix allows it.
  EXPECT_EQ(checks->check(writer(0, 0), at(100), 4, false, claims, kGeometry),
            "wrote past the end of output parameter 'out' (byte offset 100; it has 25 elements, 100 bytes)");
  EXPECT_EQ(checks->check(writer(0, 0), at(508), 4, false, claims, kGeometry),
            "wrote past the end of output parameter 'out' (byte offset 508; it has 25 elements, 100 bytes)");
  EXPECT_FALSE(checks->check(writer(0, 0), at(512), 4, false, claims, kGeometry)); // after the redzone
  // Through the raw pointer, anything inside its buffer goes (the const pointer aliases it).
  EXPECT_FALSE(checks->check(writer(0, 0), at(60), 4, false, claims, kGeometry));
  // Before it, the output and the input forbid it: the first range reports.
  EXPECT_EQ(checks->check(writer(0, 0), at(20), 4, false, claims, kGeometry),
            "wrote element 5 of output parameter 'out', which it did not obtain through get_mut or tile_mut");
  // The pointers' ranges end at the end of the buffer; the const one forbids what the other
  // allows when it is alone.
  void *const_only[] = {&raw_const};
  const auto reading = sim::WriteChecks::from({{"q", 'c', 4}}, const_only);
  EXPECT_EQ(
      reading->check(writer(0, 0), at(48), 4, false, claims, kGeometry),
      "wrote through read-only pointer parameter 'q' (a pointer to const), byte offset 8 from the pointer");
  EXPECT_EQ(reading->check(writer(0, 0), at(100), 4, false, claims, kGeometry),
            "wrote past the end of the buffer of read-only pointer parameter 'q' (byte offset 60 from the "
            "pointer; the buffer ends 60 bytes after it)");
  sim::WriteRange const *q = nullptr;
  for (const auto &range : checks->ranges())
    if (range.kind == 'c')
      q = &range;
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->end, at(100));
  sim::forget_allocation(buffer);
}

TEST(SimWriteChecks, DenseClaimsAnswerLikeTheHashTable) {
  sim::DisjointClaims claims;
  std::vector<float> dense(1000), other(4);
  ASSERT_TRUE(claims.add_span(dense.data(), dense.size()));
  EXPECT_TRUE(claims.add_span(dense.data(), 10)); // the same span again
  EXPECT_FALSE(claims.claim(dense.data(), 999, {7, 1023}));
  EXPECT_FALSE(claims.claim(dense.data(), 999, {7, 1023}));
  EXPECT_EQ(claims.claim(dense.data(), 999, {8, 0}), (sim::ThreadId{7, 1023}));
  EXPECT_EQ(claims.owner(dense.data(), 999), (sim::ThreadId{7, 1023}));
  EXPECT_FALSE(claims.owner(dense.data(), 998));
  EXPECT_FALSE(claims.claim(other.data(), 1, {0, 1})); // not announced: the hash table
  EXPECT_EQ(claims.owner(other.data(), 1), (sim::ThreadId{0, 1}));
}

// --- launches --------------------------------------------------------------------------------------

void write(void *p, std::size_t bytes, const char *where = nullptr) {
  __oxide_sim_check_write(p, bytes, where);
}

void next_neighbour(DisjointSpan<float> out) {
  const auto idx = oxide::thread::index_1d();
  if (float *p = out.get_mut(idx)) {
    write(p, 4);
    *p = 1.0f;
    if (idx.get() + 1 < out.size()) {
      write(p + 1, 4, "kernel.cpp:12:5");
      p[1] = 2.0f;
    }
  }
}

void past_the_end(DisjointSpan<float> out) {
  const auto idx = oxide::thread::index_1d();
  if (float *p = out.get_mut(idx)) {
    write(p, 4);
    *p = 1.0f;
    if (idx.get() + 1 == out.size()) {
      write(p + 1, 4);
      p[1] = 2.0f;
    }
  }
}

void tiles(Span<const float> in, DisjointSpan2D<float> out, AtomicSpan<std::uint32_t> counts) {
  const auto idx = oxide::thread::index_2d();
  auto tile = out.tile_mut<2, 2>(idx);
  for (std::size_t r = 0; r < tile.rows(); ++r)
    for (std::size_t c = 0; c < tile.cols(); ++c) {
      float &element = tile(r, c);
      write(&element, 4);
      element = in[0];
    }
  __oxide_sim_check_atomic_write(&counts, 4, nullptr); // a parameter's own copy: the stack
  counts.fetch_add(0, __oxide_sim_checking != 0 ? 1u : 0u);
}

class SimWriteLaunches : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    oxide::sim::register_kernel(next_neighbour, "next_neighbour");
    oxide::sim::register_kernel(past_the_end, "past_the_end");
    oxide::sim::register_kernel(tiles, "tiles");
    const void *kernels[] = {reinterpret_cast<const void *>(next_neighbour),
                             reinterpret_cast<const void *>(past_the_end),
                             reinterpret_cast<const void *>(tiles)};
    const char *descriptions[] = {"out=o4", "out=o4", "in=i4,out=24,counts=a4"};
    __oxide_sim_register_params(kernels, descriptions, 3);
  }
};

TEST_F(SimWriteLaunches, ANeighboursElementFailsTheLaunch) {
  auto ctx = simulator(true, 1);
  auto stream = ctx.default_stream();
  auto out = DeviceBuffer<float>::zeroed(stream, 100);
  EXPECT_EQ(
      error_of([&] { oxide::unsafe_launch(stream, next_neighbour, oxide::LaunchConfig1D{1, 128}, out); }),
      "oxide: kernel 'next_neighbour' block (0,0,0) thread (0,0,0): wrote element 1 of output parameter "
      "'out', which it did not obtain through get_mut or tile_mut (at kernel.cpp:12:5)");
  EXPECT_EQ(__oxide_sim_checking, 0u);
  // Outside the checking mode nothing is checked.
  auto plain = simulator(false, 1);
  auto plain_stream = plain.default_stream();
  auto plain_out = DeviceBuffer<float>::zeroed(plain_stream, 100);
  oxide::unsafe_launch(plain_stream, next_neighbour, oxide::LaunchConfig1D{1, 128}, plain_out);
  EXPECT_EQ(plain_out.to_host(plain_stream)[99], 1.0f);
}

TEST_F(SimWriteLaunches, PastTheEndOfABufferFailsTheLaunch) {
  auto ctx = simulator(true);
  auto stream = ctx.default_stream();
  auto out = DeviceBuffer<float>::zeroed(stream, 1000);
  EXPECT_EQ(error_of([&] {
              oxide::unsafe_launch(stream, past_the_end, oxide::LaunchConfig1D::for_elements(1000), out);
            }),
            "oxide: kernel 'past_the_end' block (3,0,0) thread (231,0,0): wrote past the end of output "
            "parameter 'out' (byte offset 4000; it has 1000 elements, 4000 bytes)");
  // A buffer whose size is a multiple of 256 bytes has its redzone too.
  auto exact = DeviceBuffer<float>::zeroed(stream, 1024);
  EXPECT_NE(error_of([&] {
              oxide::unsafe_launch(stream, past_the_end, oxide::LaunchConfig1D::for_elements(1024), exact);
            }).find("wrote past the end of output parameter 'out' (byte offset 4096;"),
            std::string::npos);
}

TEST_F(SimWriteLaunches, OwnTilesAndAtomicsPass) {
  auto ctx = simulator(true);
  auto stream = ctx.default_stream();
  const auto in = DeviceBuffer<float>::from_host(stream, std::vector<float>{5.0f});
  auto out = DeviceBuffer<float>::zeroed(stream, 7 * 5);
  auto counts = DeviceBuffer<std::uint32_t>::zeroed(stream, 1);
  oxide::unsafe_launch(stream, tiles, oxide::LaunchConfig2D{{2, 1, 1}, {2, 3, 1}}, in, out.view_2d(7, 5),
                       counts);
  EXPECT_EQ(out.to_host(stream), std::vector<float>(35, 5.0f));
  EXPECT_EQ(counts.to_host(stream)[0], 12u); // __oxide_sim_checking was set in every thread
  EXPECT_EQ(__oxide_sim_checking, 0u);
}

} // namespace
