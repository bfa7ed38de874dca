// Compile-time binding of launch arguments to kernel parameters. The static_asserts are the
// test: this file does not compile if a rule is broken. The runtime test checks the values.
#include <gtest/gtest.h>

#include <cstdint>

#include "oxide/host/launch.hpp"

namespace {

using oxide::DeviceBuffer;
using oxide::DisjointSpan;
using oxide::KernelArgument;
using oxide::Span;
using Floats = DeviceBuffer<float>;

// Buffers: any lvalue reads, only a non-const lvalue writes, element types must match.
static_assert(KernelArgument<Floats &, Span<const float>>);
static_assert(KernelArgument<const Floats &, Span<const float>>);
static_assert(KernelArgument<Floats &, DisjointSpan<float>>);
static_assert(KernelArgument<Floats &, Span<float>>);
static_assert(!KernelArgument<const Floats &, DisjointSpan<float>>);
static_assert(!KernelArgument<const Floats &, Span<float>>);
static_assert(!KernelArgument<Floats &, DisjointSpan<double>>);
static_assert(!KernelArgument<DeviceBuffer<int> &, Span<const float>>);
// A temporary buffer would be freed while the kernel may still run.
static_assert(!KernelArgument<Floats, Span<const float>>);
static_assert(!KernelArgument<Floats, DisjointSpan<float>>);

// Spans pass through; constness can be added, never removed.
static_assert(KernelArgument<Span<const float>, Span<const float>>);
static_assert(KernelArgument<Span<float> &, Span<const float>>);
static_assert(KernelArgument<Span<float>, Span<float>>);
static_assert(!KernelArgument<Span<const float>, Span<float>>);
static_assert(!KernelArgument<Span<const float>, DisjointSpan<float>>);
static_assert(!KernelArgument<Span<float>, DisjointSpan<float>>);
static_assert(KernelArgument<DisjointSpan<float>, DisjointSpan<float>>);

// Scalars convert only without narrowing.
static_assert(KernelArgument<int, int>);
static_assert(KernelArgument<int &, long>);
static_assert(KernelArgument<float, double>);
static_assert(KernelArgument<unsigned, std::uint64_t>);
static_assert(!KernelArgument<double, int>);
static_assert(!KernelArgument<double, float>);
static_assert(!KernelArgument<int, float>);
static_assert(!KernelArgument<int, unsigned>);
static_assert(!KernelArgument<std::int64_t, int>);
static_assert(!KernelArgument<Floats &, float>);

// Other by-value types only as themselves; never host pointers.
struct Params {
  int n;
  float scale;
};
enum class Mode { Fast, Exact };
static_assert(KernelArgument<Params &, Params>);
static_assert(KernelArgument<const Params &, Params>);
static_assert(!KernelArgument<int, Params>);
static_assert(KernelArgument<Mode, Mode>);
static_assert(!KernelArgument<int, Mode>);
static_assert(!KernelArgument<float *, float *>);

// Whole launches: the vecadd signature of the design brief.
using VecAdd = oxide::PreparedLaunch<Span<const float>, Span<const float>, DisjointSpan<float>>;
static_assert(VecAdd::accepts_arguments<Floats &, Floats &, Floats &>);
static_assert(VecAdd::accepts_arguments<const Floats &, const Floats &, Floats &>);
static_assert(!VecAdd::accepts_arguments<Floats &, Floats &, const Floats &>); // output must be writable
static_assert(!VecAdd::accepts_arguments<Floats &, Floats &>);                 // argument count
static_assert(!VecAdd::accepts_arguments<Floats &, Floats &, Floats &, int>);
using Saxpy = oxide::PreparedLaunch<float, Span<const float>, DisjointSpan<float>>;
static_assert(Saxpy::accepts_arguments<float, Floats &, Floats &>);
static_assert(!Saxpy::accepts_arguments<double, Floats &, Floats &>);

TEST(KernelArgument, BindsBuffersAsSpansOverTheirDeviceMemory) {
  // An empty buffer binds to empty spans; the pointer and size come from the buffer.
  Floats empty;
  const Span<const float> in = oxide::detail::Binder<Span<const float>>::bind(empty);
  const DisjointSpan<float> out = oxide::detail::Binder<DisjointSpan<float>>::bind(empty);
  EXPECT_EQ(in.data(), nullptr);
  EXPECT_EQ(in.size(), 0u);
  EXPECT_EQ(out.size(), 0u);
  EXPECT_EQ(oxide::detail::Binder<double>::bind(1.5f), 1.5);
  EXPECT_EQ(oxide::detail::Binder<long>::bind(-7), -7L);
}

TEST(KernelArgument, DescribesArgumentMemoryForAliasChecks) {
  float host[4] = {};
  const auto span = oxide::detail::SpanAccess::make_span(host, 4);
  const auto read = oxide::detail::argument_memory<Span<const float>>(span);
  EXPECT_TRUE(read.present);
  EXPECT_FALSE(read.writable);
  EXPECT_EQ(read.begin, reinterpret_cast<std::uintptr_t>(host));
  EXPECT_EQ(read.bytes, sizeof host);
  EXPECT_TRUE(oxide::detail::argument_memory<Span<float>>(span).writable);
  EXPECT_FALSE(oxide::detail::argument_memory<int>(3).present);
}

TEST(KernelArgument, TypeNamesAreReadable) {
  EXPECT_EQ(oxide::detail::type_name<float>(), "float");
  EXPECT_EQ(oxide::detail::type_name<Span<const float>>(), "oxide::Span<const float>");
}

} // namespace
