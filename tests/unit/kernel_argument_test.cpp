// Compile-time binding of launch arguments to kernel parameters. The static_asserts are the
// test: this file does not compile if a rule is broken. The runtime test checks the values.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "oxide/host/launch.hpp"
#include "oxide/host/unsafe_launch.hpp"

namespace {

// Other by-value types only as themselves; never host pointers (asserted below).
struct Params {
  int n;
  float scale;
};
enum class Mode { Fast, Exact };

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

// Scalars convert as in a function call (the launch checks the value fits: ScalarsFit below);
// only arithmetic values convert.
static_assert(KernelArgument<int, int>);
static_assert(KernelArgument<int &, long>);
static_assert(KernelArgument<float, double>);
static_assert(KernelArgument<unsigned, std::uint64_t>);
static_assert(KernelArgument<double, int>);
static_assert(KernelArgument<double, float>);
static_assert(KernelArgument<int, float>);
static_assert(KernelArgument<int, unsigned>);
static_assert(KernelArgument<std::int64_t, int>);
static_assert(KernelArgument<std::size_t &, int>);
static_assert(!KernelArgument<Floats &, float>);
static_assert(!KernelArgument<float *, float>);
static_assert(!KernelArgument<Mode, int>);

static_assert(KernelArgument<Params &, Params>);
static_assert(KernelArgument<const Params &, Params>);
static_assert(!KernelArgument<int, Params>);
static_assert(KernelArgument<Mode, Mode>);
static_assert(!KernelArgument<int, Mode>);
static_assert(!KernelArgument<float *, float *>);
static_assert(!KernelArgument<Floats &, float *>);

// Slices bind like their buffer: a writable slice to every 1-D span, a read-only one (from a
// const buffer) only to Span<const T>; never to 2-D/3-D spans or another element type.
using oxide::AtomicSpan;
using oxide::BufferSlice;
static_assert(KernelArgument<BufferSlice<float>, Span<const float>>);
static_assert(KernelArgument<BufferSlice<float> &, Span<float>>);
static_assert(KernelArgument<BufferSlice<float>, DisjointSpan<float>>);
static_assert(KernelArgument<BufferSlice<float>, AtomicSpan<float>>);
static_assert(KernelArgument<BufferSlice<const float>, Span<const float>>);
static_assert(!KernelArgument<BufferSlice<const float>, Span<float>>);
static_assert(!KernelArgument<BufferSlice<const float>, DisjointSpan<float>>);
static_assert(!KernelArgument<BufferSlice<const float>, AtomicSpan<float>>);
static_assert(!KernelArgument<BufferSlice<float>, DisjointSpan<double>>);
static_assert(!KernelArgument<BufferSlice<float>, oxide::DisjointSpan2D<float>>);
static_assert(std::is_same_v<decltype(std::declval<const Floats &>().slice(0, 1)), BufferSlice<const float>>);
static_assert(std::is_same_v<decltype(std::declval<Floats &>().slice(0, 1)), BufferSlice<float>>);
// No slice of a temporary buffer, which would be freed before the launch.
template <class B>
concept CanSlice = requires(B &&b) { std::forward<B>(b).slice(0, 1); };
static_assert(CanSlice<Floats &>);
static_assert(!CanSlice<Floats>);
static_assert(oxide::UnsafeKernelArgument<BufferSlice<float>, float *>);
static_assert(oxide::UnsafeKernelArgument<BufferSlice<const float>, const float *>);
static_assert(!oxide::UnsafeKernelArgument<BufferSlice<const float>, float *>);

// 2-D and 3-D outputs take views of a buffer, which also read as flat inputs.
using oxide::BufferView2D;
using oxide::BufferView3D;
using oxide::DisjointSpan2D;
using oxide::DisjointSpan3D;
static_assert(KernelArgument<BufferView2D<float>, DisjointSpan2D<float>>);
static_assert(KernelArgument<BufferView2D<float> &, DisjointSpan2D<float>>);
static_assert(KernelArgument<BufferView3D<float>, DisjointSpan3D<float>>);
static_assert(KernelArgument<BufferView2D<float>, Span<const float>>);
static_assert(KernelArgument<BufferView3D<float>, Span<const float>>);
static_assert(!KernelArgument<Floats &, DisjointSpan2D<float>>); // extents needed: view_2d
static_assert(!KernelArgument<BufferView3D<float>, DisjointSpan2D<float>>);
static_assert(!KernelArgument<BufferView2D<float>, DisjointSpan3D<float>>);
static_assert(!KernelArgument<BufferView2D<int>, DisjointSpan2D<float>>);
static_assert(!KernelArgument<BufferView2D<float>, DisjointSpan<float>>);
static_assert(!KernelArgument<BufferView2D<float>, Span<float>>);
// A view of a temporary buffer would dangle: view_2d is for lvalues only.
template <class B>
concept HasView2D = requires(B &&b) { std::forward<B>(b).view_2d(1, 1); };
static_assert(HasView2D<Floats &>);
static_assert(!HasView2D<Floats>);
static_assert(!HasView2D<const Floats &>);

// Unsafe launches also bind buffers and pointers to pointer parameters.
using oxide::UnsafeKernelArgument;
static_assert(UnsafeKernelArgument<Floats &, float *>);
static_assert(UnsafeKernelArgument<Floats &, const float *>);
static_assert(UnsafeKernelArgument<const Floats &, const float *>);
static_assert(!UnsafeKernelArgument<const Floats &, float *>);
static_assert(!UnsafeKernelArgument<Floats, const float *>); // temporaries still rejected
static_assert(!UnsafeKernelArgument<DeviceBuffer<int> &, float *>);
static_assert(UnsafeKernelArgument<float *, float *>);
static_assert(UnsafeKernelArgument<float *, const float *>);
static_assert(!UnsafeKernelArgument<const float *, float *>);
static_assert(UnsafeKernelArgument<std::nullptr_t, float *>);
static_assert(!UnsafeKernelArgument<int, float *>);
static_assert(UnsafeKernelArgument<Floats &, DisjointSpan<float>>); // and everything a safe launch binds
static_assert(UnsafeKernelArgument<int, long>);

// Whole launches: the vecadd signature of the design brief.
using VecAdd = oxide::PreparedLaunch<Span<const float>, Span<const float>, DisjointSpan<float>>;
static_assert(VecAdd::accepts_arguments<Floats &, Floats &, Floats &>);
static_assert(VecAdd::accepts_arguments<const Floats &, const Floats &, Floats &>);
static_assert(!VecAdd::accepts_arguments<Floats &, Floats &, const Floats &>); // output must be writable
static_assert(!VecAdd::accepts_arguments<Floats &, Floats &>);                 // argument count
static_assert(!VecAdd::accepts_arguments<Floats &, Floats &, Floats &, int>);
using Saxpy = oxide::PreparedLaunch<float, Span<const float>, DisjointSpan<float>>;
static_assert(Saxpy::accepts_arguments<float, Floats &, Floats &>);
static_assert(Saxpy::accepts_arguments<double, Floats &, Floats &>); // 2.0 for a float
static_assert(!Saxpy::accepts_arguments<Params, Floats &, Floats &>);
using Blur = oxide::BasicPreparedLaunch<oxide::LaunchConfig2D, Span<const float>, DisjointSpan2D<float>>;
static_assert(Blur::accepts_arguments<Floats &, BufferView2D<float>>);
static_assert(!Blur::accepts_arguments<Floats &, Floats &>);

TEST(KernelArgument, BindsBuffersAsSpansOverTheirDeviceMemory) {
  EXPECT_EQ(oxide::detail::Binder<double>::bind(1.5f), 1.5);
  EXPECT_EQ(oxide::detail::Binder<long>::bind(-7), -7L);
  // A span passed as it is binds as an empty one: host code can make no other (the launch
  // refuses a non-empty one, forged with std::bit_cast, with ForgedSpan before binding).
  float host[3] = {};
  const auto span = oxide::detail::SpanAccess::make_span(host, 3);
  EXPECT_EQ(oxide::detail::Binder<Span<const float>>::bind(span).size(), 0u);
  EXPECT_NE(oxide::detail::Binder<Span<const float>>::bind(span).data(), host);
  EXPECT_FALSE(oxide::detail::span_is_empty(span));
  EXPECT_FALSE(oxide::detail::span_is_empty(
      oxide::detail::SpanAccess::make_disjoint_2d(host, 1ull << 32, 1ull << 32)));
  EXPECT_TRUE(oxide::detail::span_is_empty(oxide::detail::SpanAccess::make_disjoint_2d(host, 3, 0)));
}

TEST(KernelArgument, EmptyBuffersBindAsNonNullAlignedSpans) {
  // Kernels assume span data is never null (the compiler emits llvm.assume): an empty buffer
  // binds to a dangling pointer aligned for the element type, never dereferenced.
  Floats empty;
  DeviceBuffer<double> doubles;
  const Span<const float> in = oxide::detail::Binder<Span<const float>>::bind(empty);
  const Span<float> inout = oxide::detail::Binder<Span<float>>::bind(empty);
  const DisjointSpan<double> out = oxide::detail::Binder<DisjointSpan<double>>::bind(doubles);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(in.data()), alignof(float));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(inout.data()), alignof(float));
  EXPECT_EQ(in.size(), 0u);
  EXPECT_EQ(out.size(), 0u);
  const auto view = oxide::detail::Binder<DisjointSpan2D<float>>::bind(DisjointSpan2D<float>{});
  EXPECT_EQ(view.size(), 0u);
}

TEST(KernelArgument, DefaultSpansBindNonNullToo) {
  EXPECT_NE(oxide::detail::Binder<Span<const float>>::bind(Span<const float>{}).data(), nullptr);
  EXPECT_NE(oxide::detail::Binder<Span<const float>>::bind(Span<float>{}).data(), nullptr);
  EXPECT_NE(oxide::detail::Binder<Span<float>>::bind(Span<float>{}).data(), nullptr);
  // Raw pointers in unsafe launches keep the buffer's pointer, null when empty: a pointer
  // kernel may test it.
  Floats empty;
  EXPECT_EQ(oxide::detail::UnsafeBinder<const float *>::bind(empty), nullptr);
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
  EXPECT_TRUE(oxide::detail::writes_through_v<float *>);
  EXPECT_FALSE(oxide::detail::writes_through_v<const float *>);
  EXPECT_TRUE(oxide::detail::writes_through_v<DisjointSpan2D<float>>);
}

TEST(KernelArgument, ContractOperandsAreSizesExtentsAndUnsignedScalars) {
  using oxide::detail::contract_operand;
  using Extents = std::array<std::uint64_t, 3>;
  float host[6] = {};
  const auto span = contract_operand(oxide::detail::SpanAccess::make_span<const float>(host, 6));
  EXPECT_EQ(span.value, 6u);
  EXPECT_EQ(span.extents, (Extents{6, 1, 1}));
  const auto plane = contract_operand(oxide::detail::SpanAccess::make_disjoint_2d(host, 3, 2));
  EXPECT_EQ(plane.value, 6u);
  EXPECT_EQ(plane.extents, (Extents{3, 2, 1}));
  const auto volume = contract_operand(oxide::detail::SpanAccess::make_disjoint_3d(host, 1, 2, 3));
  EXPECT_EQ(volume.value, 6u);
  EXPECT_EQ(volume.extents, (Extents{1, 2, 3}));
  EXPECT_EQ(contract_operand(std::uint32_t{42}).value, 42u);
  EXPECT_EQ(contract_operand(std::size_t{1} << 40).value, std::uint64_t{1} << 40);
  EXPECT_EQ(contract_operand(7).value, 7u);
  // Negative ones are sign-extended, for the launch to report them (NegativeArgument).
  EXPECT_EQ(static_cast<std::int64_t>(contract_operand(-3).value), -3);
  EXPECT_EQ(static_cast<std::int64_t>(contract_operand(std::int8_t{-1}).value), -1);
  EXPECT_EQ(contract_operand(2.5f).value, 0u);
  EXPECT_EQ(contract_operand(true).value, 0u);
}

TEST(KernelArgument, ScalarsFitTheirParameter) {
  using oxide::detail::scalar_fits;
  // Integers: the parameter's range.
  EXPECT_TRUE(scalar_fits<unsigned>(5));
  EXPECT_TRUE(scalar_fits<unsigned>(0));
  EXPECT_FALSE(scalar_fits<unsigned>(-1));
  EXPECT_TRUE(scalar_fits<int>(std::size_t{1} << 30));
  EXPECT_FALSE(scalar_fits<int>(std::size_t{1} << 40));
  EXPECT_FALSE(scalar_fits<int>(std::int64_t{-1} << 40));
  EXPECT_TRUE(scalar_fits<int>(std::int64_t{-2147483648LL}));
  EXPECT_FALSE(scalar_fits<int>(std::int64_t{2147483648LL}));
  EXPECT_TRUE(scalar_fits<std::uint8_t>(255));
  EXPECT_FALSE(scalar_fits<std::uint8_t>(256));
  EXPECT_FALSE(scalar_fits<std::uint64_t>(std::int64_t{-1}));
  EXPECT_TRUE(scalar_fits<std::int64_t>(std::uint64_t{1} << 62));
  EXPECT_FALSE(scalar_fits<std::int64_t>(std::uint64_t{1} << 63));
  EXPECT_TRUE(scalar_fits<bool>(1));
  EXPECT_FALSE(scalar_fits<bool>(2));
  // Floating point to integers: integral values in range only.
  EXPECT_TRUE(scalar_fits<int>(2.0));
  EXPECT_FALSE(scalar_fits<int>(2.5));
  EXPECT_FALSE(scalar_fits<unsigned>(-1.0));
  EXPECT_TRUE(scalar_fits<unsigned>(4294967295.0));
  EXPECT_FALSE(scalar_fits<unsigned>(4294967296.0));
  EXPECT_TRUE(scalar_fits<int>(-2147483648.0));
  EXPECT_FALSE(scalar_fits<int>(2147483648.0));
  EXPECT_FALSE(scalar_fits<int>(std::numeric_limits<double>::quiet_NaN()));
  EXPECT_FALSE(scalar_fits<int>(std::numeric_limits<double>::infinity()));
  // double to float: within float's range (rounding is a call's too); infinities and NaN stay.
  EXPECT_TRUE(scalar_fits<float>(2.0));
  EXPECT_TRUE(scalar_fits<float>(0.1));
  EXPECT_FALSE(scalar_fits<float>(1e39));
  EXPECT_FALSE(scalar_fits<float>(-1e39));
  EXPECT_TRUE(scalar_fits<float>(std::numeric_limits<double>::infinity()));
  // Integers always fit floating point.
  EXPECT_TRUE(scalar_fits<float>(std::uint64_t{1} << 63));
  EXPECT_TRUE(scalar_fits<double>(-7));
}

TEST(KernelArgument, ScalarsBindConverted) {
  EXPECT_EQ(oxide::detail::Binder<unsigned>::bind(7), 7u);
  EXPECT_EQ(oxide::detail::Binder<float>::bind(2.0), 2.0f);
  EXPECT_EQ(oxide::detail::Binder<int>::bind(std::size_t{12}), 12);
  EXPECT_EQ(oxide::detail::Binder<double>::bind(3), 3.0);
}

TEST(KernelArgument, NumbersAsText) {
  EXPECT_EQ(oxide::detail::number_text(-1), "-1");
  EXPECT_EQ(oxide::detail::number_text(std::uint64_t{1} << 40), "1099511627776");
  EXPECT_EQ(oxide::detail::number_text(2.5), "2.5");
  EXPECT_EQ(oxide::detail::number_text(1e39), "1e+39");
  EXPECT_EQ(oxide::detail::number_text(true), "true");
}

TEST(KernelArgument, TypeNamesAreReadable) {
  EXPECT_EQ(oxide::detail::type_name<float>(), "float");
  EXPECT_EQ(oxide::detail::type_name<Span<const float>>(), "oxide::Span<const float>");
}

} // namespace
