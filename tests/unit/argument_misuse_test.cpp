// Host-side misuse that would escape the launch checks, each refused with an oxide::Error at the
// launch (or prepare): a span forged with std::bit_cast and passed as it is (ForgedSpan); a view
// or slice of a buffer that was assigned a smaller allocation since (ViewShapeMismatch,
// SliceOutOfRange); a host signature whose parameter kinds differ from the device image's
// (LayoutMismatch); a Permutation whose memory host code could reach; a graph replayed after a
// buffer it uses was freed or given other memory (BufferFreed). On the CPU simulator.
#include <gtest/gtest.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "oxide/detail/device_image.hpp"
#include "oxide/oxide.hpp"
#include "runtime_test_kernels.hpp"
#include "sim_test_support.hpp"

namespace {

using oxide::DeviceBuffer;
using oxide::DisjointSpan;
using oxide::DisjointSpan2D;
using oxide::ErrorKind;
using oxide::Graph;
using oxide::LaunchConfig1D;
using oxide::LaunchConfig2D;
using oxide::Span;
using oxide::Stream;
using oxide_test::kind_of;

void fill(DisjointSpan<float> out) {
  if (float *o = out.get_mut(oxide::thread::index_1d()))
    *o = -1.0f;
}

void fill_2d(DisjointSpan2D<float> out) {
  if (float *o = out.get_mut(oxide::thread::index_2d()))
    *o = -1.0f;
}

void copy(Span<const float> in, DisjointSpan<float> out) {
  const auto idx = oxide::thread::index_1d();
  if (float *o = out.get_mut(idx))
    *o = in.size() > idx.get() ? in[idx.get()] : 0.0f;
}

void add_one(Span<float> data) {
  const std::size_t i = oxide::thread::index_1d().get();
  if (i < data.size())
    data[i] += 1.0f;
}

// The host's view of a kernel whose device code (registered below) takes (Span<const float>,
// DisjointSpan<float>): host and device compiles that saw different signatures.
void split(Span<const float> a, Span<const float> c) {
  (void)a;
  (void)c;
}
// The same for an integer: `int n` on the host, `unsigned n` in the device code.
void split_scalar(int n, DisjointSpan<float> out) {
  (void)n;
  (void)out;
}

/// The layout of a span's fields, for forging one as a red-team program would.
struct RawSpan {
  float *data;
  std::size_t size;
};
struct RawSpan2D {
  float *data;
  std::size_t width, height;
};

float *address_of(const DeviceBuffer<float> &buffer) {
  return reinterpret_cast<float *>(static_cast<std::uintptr_t>(buffer.device_ptr()));
}

/// Registers a kernel whose image records `param_kinds`, as oxcc would for a device compile that
/// saw other parameter types than the host compile.
void register_with_kinds(const void *host, const char *name, std::vector<oxide::detail::ParamLayout> params,
                         const char *param_kinds) {
  oxide::detail::DeviceImage image; // no code: the simulator runs the host function
  image.kernels.push_back(
      {name, std::move(params), "domain = 1, dynamic_shared = 0..4294967295", param_kinds});
  const std::string bytes = oxide::detail::encode_image(image);
  const char *names[] = {name};
  __oxide_register_image(reinterpret_cast<const unsigned char *>(bytes.data()), bytes.size(), &host, names,
                         1);
}

class ArgumentMisuse : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    oxide::sim::register_kernel(fill, "fill", "domain = 1", {"out"});
    oxide::sim::register_kernel(fill_2d, "fill_2d", "domain = 2", {"out"});
    oxide::sim::register_kernel(copy, "copy", "domain = 1", {"in", "out"});
    oxide::sim::register_kernel(add_one, "add_one");
    register_with_kinds(reinterpret_cast<const void *>(&split), "split", {{16, 8}, {16, 8, 4}}, "a=i,c=o");
    register_with_kinds(reinterpret_cast<const void *>(&split_scalar), "split_scalar", {{4, 4}, {16, 8, 4}},
                        "n=u,out=o");
  }
};

// H5: a DisjointSpan forged over another argument's memory (or wider than its buffer) would be
// written with no overlap or size check.
TEST_F(ArgumentMisuse, ForgedDisjointSpanIsRefused) {
  oxide::Context ctx = oxide_test::simulator();
  Stream stream = ctx.default_stream();
  auto in = DeviceBuffer<float>::from_host(stream, std::vector<float>(16, 7.0f));
  const auto forged = std::bit_cast<DisjointSpan<float>>(RawSpan{address_of(in), in.size()});
  auto launch = oxide::prepare(ctx, copy, LaunchConfig1D{1, 16});
  try {
    launch(stream, in, forged);
    ADD_FAILURE() << "a forged DisjointSpan was accepted";
  } catch (const oxide::Error &e) {
    EXPECT_EQ(e.kind(), ErrorKind::ForgedSpan);
    EXPECT_EQ(e.kind_name(), "ForgedSpan");
    EXPECT_NE(std::string(e.what()).find("argument 2 of kernel 'copy' (for parameter 2 'out')"),
              std::string::npos)
        << e.what();
    EXPECT_EQ(e.kernel(), "copy");
  }
  EXPECT_EQ(in.to_host(stream), std::vector<float>(16, 7.0f)); // nothing was written
  // An empty span (all host code can make) still binds.
  auto out = DeviceBuffer<float>::zeroed(stream, 16);
  launch(stream, in, out);
  oxide::prepare(ctx, fill, LaunchConfig1D{1, 32})(stream, DisjointSpan<float>{});
}

TEST_F(ArgumentMisuse, ForgedSpansOfEveryKindAreRefused) {
  oxide::Context ctx = oxide_test::simulator();
  Stream stream = ctx.default_stream();
  auto buffer = DeviceBuffer<float>::zeroed(stream, 4);
  // Extents whose product wraps to 0: size() says empty, yet every (x, y) below 2^32 is inside.
  const auto wrapped =
      std::bit_cast<DisjointSpan2D<float>>(RawSpan2D{address_of(buffer), 1ull << 32, 1ull << 32});
  EXPECT_EQ(wrapped.size(), 0u);
  EXPECT_EQ(
      kind_of([&] { oxide::prepare(ctx, fill_2d, LaunchConfig2D{{1, 1, 1}, {8, 8, 1}})(stream, wrapped); }),
      ErrorKind::ForgedSpan);
  // An input span forged over memory of no buffer (read as the kernel's input).
  const auto input = std::bit_cast<Span<const float>>(RawSpan{address_of(buffer), 1024});
  EXPECT_EQ(kind_of([&] { oxide::prepare(ctx, copy, LaunchConfig1D{1, 4})(stream, input, buffer); }),
            ErrorKind::ForgedSpan);
  const auto mutable_input = std::bit_cast<Span<float>>(RawSpan{address_of(buffer), 1024});
  EXPECT_EQ(kind_of([&] { oxide::prepare(ctx, copy, LaunchConfig1D{1, 4})(stream, mutable_input, buffer); }),
            ErrorKind::ForgedSpan);
  // unsafe_launch binds spans by the same rules.
  EXPECT_EQ(kind_of([&] { oxide::unsafe_launch(stream, add_one, LaunchConfig1D{1, 4}, mutable_input); }),
            ErrorKind::ForgedSpan);
  EXPECT_EQ(buffer.to_host(stream), std::vector<float>(4, 0.0f));
}

// PermutationSpan, AppendSpan and TensorMap values bind only from the host objects that own
// their memory, whether or not the header with their Binder is included.
static_assert(!oxide::KernelArgument<oxide::PermutationSpan, oxide::PermutationSpan>);
static_assert(!oxide::KernelArgument<oxide::AppendSpan<float>, oxide::AppendSpan<float>>);
static_assert(!oxide::detail::Binder<oxide::PermutationSpan>::accepts<oxide::PermutationSpan &>);
static_assert(oxide::KernelArgument<float, float> && oxide::KernelArgument<int, unsigned>);

// H6: a view or slice keeps the extents checked when it was made; the buffer object may since
// have been assigned a smaller allocation.
TEST_F(ArgumentMisuse, StaleViewIsRefused) {
  oxide::Context ctx = oxide_test::simulator();
  Stream stream = ctx.default_stream();
  auto buffer = DeviceBuffer<float>::zeroed(stream, 64);
  const auto view = buffer.view_2d(8, 8);
  auto launch = oxide::prepare(ctx, fill_2d, LaunchConfig2D{{1, 1, 1}, {8, 8, 1}});
  launch(stream, view);
  buffer = DeviceBuffer<float>::zeroed(stream, 64); // another allocation of the same size: still covered
  launch(stream, view);
  EXPECT_EQ(buffer.to_host(stream), std::vector<float>(64, -1.0f));
  buffer = DeviceBuffer<float>::zeroed(stream, 4);
  try {
    launch(stream, view);
    ADD_FAILURE() << "a stale view was accepted";
  } catch (const oxide::Error &e) {
    EXPECT_EQ(e.kind(), ErrorKind::ViewShapeMismatch);
    EXPECT_NE(std::string(e.what()).find("view_2d(8, 8) of 64 elements, but its buffer now has 4"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(buffer.to_host(stream), std::vector<float>(4, 0.0f));
}

TEST_F(ArgumentMisuse, StaleSliceIsRefused) {
  oxide::Context ctx = oxide_test::simulator();
  Stream stream = ctx.default_stream();
  auto buffer = DeviceBuffer<float>::zeroed(stream, 64);
  const auto tail = buffer.slice(32, 32);
  const auto input = std::as_const(buffer).slice(0, 64);
  auto out = DeviceBuffer<float>::zeroed(stream, 4);
  buffer = DeviceBuffer<float>::zeroed(stream, 4);
  try {
    oxide::prepare(ctx, fill, LaunchConfig1D{1, 32})(stream, tail);
    ADD_FAILURE() << "a stale slice was accepted";
  } catch (const oxide::Error &e) {
    EXPECT_EQ(e.kind(), ErrorKind::SliceOutOfRange);
    EXPECT_NE(std::string(e.what()).find("slice(32, 32), but its buffer now has 4 elements"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(kind_of([&] { oxide::prepare(ctx, copy, LaunchConfig1D{1, 4})(stream, input, out); }),
            ErrorKind::SliceOutOfRange);
  EXPECT_EQ(buffer.to_host(stream), std::vector<float>(4, 0.0f));
}

// H7: the host binds `c` as an input (no overlap check, a const buffer accepted) while the
// device code writes it.
TEST_F(ArgumentMisuse, ParameterKindsMustMatchTheDeviceImage) {
  oxide::Context ctx = oxide_test::simulator();
  try {
    (void)oxide::prepare(ctx, split, LaunchConfig1D{1, 4});
    ADD_FAILURE() << "a host signature with an input where the device code has an output was accepted";
  } catch (const oxide::Error &e) {
    EXPECT_EQ(e.kind(), ErrorKind::LayoutMismatch);
    EXPECT_NE(std::string(e.what()).find("parameter 2 'c' is an input (Span<const T>) on the host"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("but an output (DisjointSpan<T>) in its device code"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(kind_of([&] { (void)oxide::prepare(ctx, split_scalar, LaunchConfig1D{1, 4}); }),
            ErrorKind::LayoutMismatch);
  Stream stream = ctx.default_stream();
  EXPECT_EQ(kind_of([&] {
              oxide::unsafe_launch(stream, split_scalar, LaunchConfig1D{1, 4}, 1, DisjointSpan<float>{});
            }),
            ErrorKind::LayoutMismatch);
}

// H10: a Permutation hands out no DeviceBuffer (a const_cast of a const reference would let host
// code overwrite the checked map).
template <class P>
concept ExposesIndexBuffer = requires(const P &p) { p.device(); };
static_assert(!ExposesIndexBuffer<oxide::Permutation>);

// H11: a graph writes its buffers by address; one freed (or given other memory) since the
// capture must not be written.
TEST_F(ArgumentMisuse, GraphAfterAFreedBufferIsRefused) {
  oxide::Context ctx = oxide::Context::cpu();
  Stream stream = ctx.create_stream();
  auto out = DeviceBuffer<float>::zeroed(stream, 256);
  auto launch = oxide::prepare(ctx, fill, LaunchConfig1D{1, 256});
  Graph graph = Graph::capture(stream, [&](Stream &s) { launch(s, out); });
  Graph outer = Graph::capture(stream, [&](Stream &s) { graph.launch(s); });
  graph.launch(stream);
  stream.synchronize();
  EXPECT_EQ(out.to_host(stream), std::vector<float>(256, -1.0f));

  out = DeviceBuffer<float>(); // freed
  auto victim = DeviceBuffer<float>::from_host(stream, std::vector<float>(256, 7.0f));
  try {
    graph.launch(stream);
    ADD_FAILURE() << "a graph was replayed after its output was freed";
  } catch (const oxide::Error &e) {
    EXPECT_EQ(e.kind(), ErrorKind::BufferFreed);
    EXPECT_EQ(e.kind_name(), "BufferFreed");
    EXPECT_NE(std::string(e.what()).find("the buffer of argument 1 of kernel 'fill' was freed"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(kind_of([&] { outer.launch(stream); }), ErrorKind::BufferFreed); // through a nested graph
  // Given a new allocation (even at the old address), the buffer is another one.
  out = DeviceBuffer<float>::zeroed(stream, 256);
  EXPECT_EQ(kind_of([&] { graph.launch(stream); }), ErrorKind::BufferFreed);
  stream.synchronize();
  EXPECT_EQ(victim.to_host(stream), std::vector<float>(256, 7.0f));
  EXPECT_EQ(out.to_host(stream), std::vector<float>(256, 0.0f));
}

TEST_F(ArgumentMisuse, UnsafeGraphAfterAFreedBufferIsRefused) {
  oxide::Context ctx = oxide::Context::cpu();
  Stream stream = ctx.create_stream();
  auto data = DeviceBuffer<float>::zeroed(stream, 64);
  Graph graph = Graph::capture(
      stream, [&](Stream &s) { oxide::unsafe_launch(s, add_one, LaunchConfig1D{1, 64}, data); });
  graph.launch(stream);
  EXPECT_EQ(data.to_host(stream), std::vector<float>(64, 1.0f));
  data.reset();
  EXPECT_EQ(kind_of([&] { graph.launch(stream); }), ErrorKind::BufferFreed);
}

} // namespace
