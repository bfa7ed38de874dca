// Launch contracts at run time, on the CPU simulator: what oxide::prepare checks once, what each
// launch checks, and oxide::unsafe_launch. Every violation is asserted by its kind and its
// whole message.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "contract_checks.hpp"
#include "oxide/oxide.hpp"
#include "sim_test_support.hpp"

namespace {

using oxide::DeviceBuffer;
using oxide::DisjointSpan;
using oxide::DisjointSpan2D;
using oxide::DisjointSpan3D;
using oxide::ErrorKind;
using oxide::LaunchConfig1D;
using oxide::LaunchConfig2D;
using oxide::LaunchConfig3D;
using oxide::Span;
using oxide_test::simulator;

void vecadd(Span<const float> a, Span<const float> b, DisjointSpan<float> c) {
  const auto idx = oxide::thread::index_1d();
  if (float *out = c.get_mut(idx))
    *out = a[idx.get()] + b[idx.get()];
}

void fill_2d(DisjointSpan2D<float> out) {
  const auto idx = oxide::thread::index_2d();
  if (float *element = out.get_mut(idx))
    *element = static_cast<float>(idx.y() * 100 + idx.x());
}

void fill_3d(DisjointSpan3D<float> out) {
  const auto idx = oxide::thread::index_3d();
  if (float *element = out.get_mut(idx))
    *element = 1.0f;
}

// Writes its block's extents, to see which block a launch was prepared with.
void blocked_3d(DisjointSpan3D<float> out) {
  const auto idx = oxide::thread::index_3d();
  if (float *element = out.get_mut(idx))
    *element =
        static_cast<float>(oxide::block_dim().x * 100 + oxide::block_dim().y * 10 + oxide::block_dim().z);
}

// Kernels that differ only in their contracts (distinct bodies keep their addresses apart).
void bounded(DisjointSpan<float> out) {
  if (float *o = out.get_mut(oxide::thread::index_1d()))
    *o = 1.0f;
}
void shared_range(DisjointSpan<float> out) {
  if (float *o = out.get_mut(oxide::thread::index_1d()))
    *o = 2.0f;
}
void big_shared(DisjointSpan<float> out) {
  if (float *o = out.get_mut(oxide::thread::index_1d()))
    *o = 3.0f;
}
void needs_hopper(DisjointSpan<float> out) {
  if (float *o = out.get_mut(oxide::thread::index_1d()))
    *o = 4.0f;
}

void first_n(std::uint32_t n, Span<const float> in, DisjointSpan<float> out) {
  const auto idx = oxide::thread::index_1d();
  if (float *o = out.get_mut(idx))
    *o = idx.get() < n ? in[idx.get()] : 0.0f;
}

void first_n_signed(int n, Span<const float> in, DisjointSpan<float> out) {
  const auto idx = oxide::thread::index_1d();
  if (float *o = out.get_mut(idx))
    *o = static_cast<std::int64_t>(idx.get()) < n ? in[idx.get()] : 0.0f;
}

void matrix(std::uint32_t rows, std::uint32_t cols, Span<const float> in, DisjointSpan2D<float> out) {
  const auto idx = oxide::thread::index_2d();
  if (float *o = out.get_mut(idx))
    *o = 2.0f * in[idx.y() * cols + idx.x()];
  (void)rows; // in requires only
}

void shaped(std::uint32_t rows, std::uint32_t cols, Span<const float> in, DisjointSpan2D<float> out) {
  const auto idx = oxide::thread::index_2d();
  if (float *o = out.get_mut(idx))
    *o = 3.0f * in[idx.y() * cols + idx.x()];
  (void)rows; // in requires only
}

void cube(std::uint32_t depth, DisjointSpan3D<float> out) {
  if (float *o = out.get_mut(oxide::thread::index_3d()))
    *o = 1.0f;
  (void)depth;
}

void product(std::uint64_t n, std::uint64_t m, DisjointSpan<float> out) {
  if (float *o = out.get_mut(oxide::thread::index_1d()))
    *o = static_cast<float>(n * m);
}

void shifted(std::uint64_t n, Span<const float> in, DisjointSpan<float> out) {
  const auto idx = oxide::thread::index_1d();
  if (float *o = out.get_mut(idx))
    *o = idx.get() < n ? in[idx.get() + 1] : 0.0f;
}

// Each output element i is in[i / 2]: `in` has half as many elements, rounded up.
void upsample(std::uint64_t pairs, Span<const float> in, DisjointSpan<float> out) {
  const auto idx = oxide::thread::index_1d();
  if (float *o = out.get_mut(idx))
    *o = in[idx.get() / 2];
  (void)pairs; // in requires only
}

// Records the data pointer its input span got, to see what an empty buffer binds to.
void record_pointer(Span<const float> in, DisjointSpan<std::uint64_t> out) {
  if (std::uint64_t *o = out.get_mut(oxide::thread::index_1d()))
    *o = reinterpret_cast<std::uintptr_t>(in.data());
}

void in_place(Span<float> data) {
  const std::size_t i = oxide::thread::index_1d().get();
  if (i < data.size())
    data[i] *= 2.0f;
}

// Writes at data-dependent positions: correct only if `perm` is a permutation, which no
// contract can state. The kind of kernel unsafe_launch exists for.
void scatter(const float *in, const std::uint32_t *perm, float *out, std::size_t n) {
  const std::size_t i = oxide::thread::index_1d().get();
  if (i < n)
    out[perm[i]] = in[i];
}

void never_registered(DisjointSpan<float>) {}

// Stages `tile` floats in dynamic shared memory; each thread writes what it staged, reversed,
// and the number of floats its block got after them.
void staged(std::uint32_t tile, DisjointSpan<float> out) {
  auto shared = oxide::dynamic_shared<float>();
  const std::uint32_t t = oxide::thread_idx().x;
  if (t < tile)
    shared[t] = static_cast<float>(t);
  oxide::sync_threads();
  if (float *o = out.get_mut(oxide::thread::index_1d()))
    *o = t < tile ? shared[tile - 1 - t] : static_cast<float>(shared.size());
}
// The same with at least 4 bytes per element of `in` (and at most 4096).
void staged_at_least(Span<const float> in, DisjointSpan<float> out) {
  auto shared = oxide::dynamic_shared<float>();
  const std::uint32_t t = oxide::thread_idx().x;
  if (t < in.size())
    shared[t] = in[t];
  oxide::sync_threads();
  if (float *o = out.get_mut(oxide::thread::index_1d()))
    *o = static_cast<float>(shared.size());
}
void staged_signed(int tile, DisjointSpan<float> out) {
  if (float *o = out.get_mut(oxide::thread::index_1d()))
    *o = static_cast<float>(tile);
}

// Registered the way oxcc registers kernels: an image with the canonical contract.
volatile int side_effect = 0;
void compiled_vecadd(Span<const float>, Span<const float>, DisjointSpan<float>) { side_effect = 1; }
void compiled_broken(DisjointSpan<float>) { side_effect = 2; }

void register_image(const oxide::detail::DeviceImage &image, const void *address, const char *name) {
  const std::string bytes = oxide::detail::encode_image(image);
  __oxide_register_image(reinterpret_cast<const unsigned char *>(bytes.data()), bytes.size(), &address, &name,
                         1);
}

/// The error `body` throws; fails the test when it throws none.
oxide::Error error_of(const std::function<void()> &body) {
  try {
    body();
  } catch (const oxide::Error &e) {
    return e;
  }
  ADD_FAILURE() << "expected an oxide::Error";
  return oxide::Error("no error");
}

#define EXPECT_ERROR(body, expected_kind, message)                                                           \
  do {                                                                                                       \
    const oxide::Error error_ = error_of([&] { body; });                                                     \
    EXPECT_EQ(error_.kind_name(), oxide::to_string(expected_kind));                                          \
    EXPECT_STREQ(error_.what(), message);                                                                    \
  } while (false)

class LaunchContracts : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    using oxide::sim::register_kernel;
    register_kernel(vecadd, "vecadd",
                    "domain = 1, block = 256, requires = (a.size() == c.size(), b.size() == c.size())",
                    {"a", "b", "c"});
    register_kernel(fill_2d, "fill_2d", "domain = 2, block = (32, 8)", {"out"});
    register_kernel(fill_3d, "fill_3d", "domain = 3", {"out"});
    register_kernel(blocked_3d, "blocked_3d", "domain = 3, block = (4, 2, 8)", {"out"});
    register_kernel(bounded, "bounded", "domain = 1", {"out"}, /*max_threads=*/128);
    register_kernel(shared_range, "shared_range", "domain = 1, dynamic_shared = 1024..4096", {"out"});
    register_kernel(big_shared, "big_shared", "domain = 1, dynamic_shared = 0..262144", {"out"});
    register_kernel(needs_hopper, "needs_hopper", "domain = 1, min_compute_capability = (9, 0)", {"out"});
    register_kernel(first_n, "first_n", "domain = 1, requires = (n <= in.size(), in.size() == out.size())",
                    {"n", "in", "out"});
    register_kernel(first_n_signed, "first_n_signed", "domain = 1, requires = (n <= in.size())",
                    {"n", "in", "out"});
    register_kernel(matrix, "matrix",
                    "domain = 2, requires = (rows * cols == in.size(), in.size() == out.size())",
                    {"rows", "cols", "in", "out"});
    register_kernel(shaped, "shaped",
                    "domain = 2, requires = (out.width() == cols, out.height() == rows, "
                    "in.size() == out.size())",
                    {"rows", "cols", "in", "out"});
    register_kernel(cube, "cube",
                    "domain = 3, requires = (out.depth() == depth, out.width() * out.height() >= 4)",
                    {"depth", "out"});
    register_kernel(product, "product", "domain = 1, requires = (n * m <= out.size())", {"n", "m", "out"});
    register_kernel(shifted, "shifted", "domain = 1, requires = (in.size() - 1 >= n)", {"n", "in", "out"});
    register_kernel(upsample, "upsample",
                    "domain = 1, requires = (in.size() == (out.size() + 1) / 2, out.size() % pairs == 0)",
                    {"pairs", "in", "out"});
    register_kernel(record_pointer, "record_pointer", "domain = 1", {"in", "out"});
    register_kernel(staged, "staged", "domain = 1, block = 64, dynamic_shared = 4 * tile", {"tile", "out"});
    register_kernel(staged_at_least, "staged_at_least", "domain = 1, dynamic_shared = in.size() * 4..4096",
                    {"in", "out"});
    register_kernel(staged_signed, "staged_signed", "domain = 1, dynamic_shared = (tile - 1) * 8",
                    {"tile", "out"});
    register_kernel(in_place, "in_place");
    register_kernel(scatter, "scatter");

    oxide::detail::DeviceImage image; // what oxcc writes for a contracted kernel
    image.kernels.push_back({"compiled_vecadd",
                             {{16, 8}, {16, 8}, {16, 8}},
                             "domain = 1, dynamic_shared = 0..0, requires = ($0.size() == $2.size())",
                             "x=i,y=i,z=o"});
    register_image(image, reinterpret_cast<const void *>(&compiled_vecadd), "compiled_vecadd");
    oxide::detail::DeviceImage broken;
    broken.kernels.push_back({"compiled_broken", {{16, 8}}, "domain = 7", "out=o"});
    register_image(broken, reinterpret_cast<const void *>(&compiled_broken), "compiled_broken");
  }

  oxide::Context ctx = simulator();
  oxide::Stream stream = ctx.default_stream();

  DeviceBuffer<float> floats(std::size_t n, float value = 1.0f) {
    return DeviceBuffer<float>::from_host(stream, std::vector<float>(n, value));
  }
};

// --- oxide::prepare: the kernel and its contract -------------------------------------------------

// oxcc refuses `prepare` of a kernel defined in the same file without a contract at compile time
// (tests/lit/safety/prepare-contract.test); what reaches the runtime is a kernel whose definition
// the calling file does not see (declared there, defined without a contract in another
// translation unit), as `in_place` is to this test's plain compile.
TEST_F(LaunchContracts, KernelWithoutAContractIsRefused) {
  EXPECT_ERROR(
      (void)oxide::prepare(ctx, in_place, LaunchConfig1D{1, 32}), ErrorKind::NoContract,
      "oxide: kernel 'in_place' has no launch contract, so oxide::prepare cannot check its launches; add "
      "[[oxide::launch_contract(\"domain = ...\")]] to it, or launch it with oxide::unsafe_launch");
}

TEST_F(LaunchContracts, UnregisteredFunctionIsNotAKernel) {
  const oxide::Error e = error_of([&] { (void)oxide::prepare(ctx, never_registered, LaunchConfig1D{}); });
  EXPECT_EQ(e.kind(), ErrorKind::NotAKernel);
  EXPECT_NE(std::string(e.what()).find("is not a registered kernel; mark it [[kernel]] and build with oxcc"),
            std::string::npos);
}

TEST_F(LaunchContracts, ContractThatCannotBeParsedIsReported) {
  EXPECT_ERROR(
      (void)oxide::prepare(ctx, compiled_broken, LaunchConfig1D{}), ErrorKind::InvalidContract,
      "oxide: the launch contract of kernel 'compiled_broken' in its device image is invalid ('domain = "
      "7' at byte 9: domain must be 1, 2 or 3 (the rank of the launch), not 7); rebuild the program "
      "with a matching oxcc and runtime");
  EXPECT_ERROR(
      oxide::sim::register_kernel(bounded, "bounded", "domain = 1, requires = (out.size() > k)", {"out"}),
      ErrorKind::InvalidContract,
      "oxide: invalid launch contract for kernel 'bounded' at byte 37 of \"domain = 1, requires = "
      "(out.size() > k)\": 'k' is not a parameter of this kernel");
}

// --- oxide::prepare: the configuration ------------------------------------------------------------

TEST_F(LaunchContracts, ConfigurationRankMustBeTheDomain) {
  EXPECT_ERROR((void)oxide::prepare(ctx, fill_2d, LaunchConfig1D{1, 256}), ErrorKind::DomainMismatch,
               "oxide: kernel 'fill_2d' has domain = 2 in its launch contract, but is prepared with a "
               "LaunchConfig1D; prepare it with a LaunchConfig2D");
  EXPECT_ERROR((void)oxide::prepare(ctx, vecadd, LaunchConfig2D{{1, 1, 1}, {256, 1, 1}}),
               ErrorKind::DomainMismatch,
               "oxide: kernel 'vecadd' has domain = 1 in its launch contract, but is prepared with a "
               "LaunchConfig2D; prepare it with a LaunchConfig1D");
  EXPECT_ERROR((void)oxide::prepare(ctx, fill_2d, LaunchConfig3D{{1, 1, 1}, {32, 8, 1}}),
               ErrorKind::DomainMismatch,
               "oxide: kernel 'fill_2d' has domain = 2 in its launch contract, but is prepared with a "
               "LaunchConfig3D; prepare it with a LaunchConfig2D");
}

TEST_F(LaunchContracts, BlockMustBeTheContractsExactBlock) {
  EXPECT_ERROR(
      (void)oxide::prepare(ctx, vecadd, LaunchConfig1D{4, 128}), ErrorKind::BlockMismatch,
      "oxide: kernel 'vecadd' must be launched with block = 256 (its launch contract), but the launch "
      "configuration has block 128; make it with LaunchConfig1D::for_elements(n, 256)");
  EXPECT_ERROR((void)oxide::prepare(ctx, fill_2d, LaunchConfig2D{{1, 1, 1}, {16, 16, 1}}),
               ErrorKind::BlockMismatch,
               "oxide: kernel 'fill_2d' must be launched with block = (32, 8) (its launch contract), but the "
               "launch configuration has block (16, 16); make it with LaunchConfig2D::for_elements(width, "
               "height, {32, 8, 1})");
}

TEST_F(LaunchContracts, ZeroAndOverflowingDimensions) {
  EXPECT_ERROR(
      (void)oxide::prepare(ctx, fill_3d, LaunchConfig3D{{1, 1, 1}, {8, 0, 4}}), ErrorKind::BlockInvalid,
      "oxide: launch configuration: block (8,0,4) is outside CUDA's limits (each extent at least 1, at "
      "most (1024,1024,64), and at most 1024 threads in all)");
  EXPECT_ERROR(
      (void)oxide::prepare(ctx, fill_3d, LaunchConfig3D{{1, 65536, 1}, {8, 8, 4}}), ErrorKind::GridInvalid,
      "oxide: launch configuration: grid (1,65536,1) exceeds CUDA's limits (2147483647,65535,65535)");
  EXPECT_ERROR((void)oxide::prepare(ctx, vecadd, LaunchConfig1D{1, 0}), ErrorKind::BlockInvalid,
               "oxide: launch configuration: block size 0 is outside 1..1024");
  // A grid extent of 0 is an empty launch (what for_elements(0) gives): allowed, runs nothing.
  auto none = floats(0);
  oxide::prepare(ctx, vecadd, LaunchConfig1D{0, 256})(stream, none, none, none);
}

TEST_F(LaunchContracts, BlockOverTheLaunchBounds) {
  EXPECT_ERROR(
      (void)oxide::prepare(ctx, bounded, LaunchConfig1D{1, 256}), ErrorKind::BlockOverLaunchBounds,
      "oxide: kernel 'bounded' has launch_bounds(128), but the launch configuration has blocks of 256 "
      "threads (256, 1, 1)");
  EXPECT_NO_THROW((void)oxide::prepare(ctx, bounded, LaunchConfig1D{1, 128}));
}

TEST_F(LaunchContracts, DynamicSharedMemoryWithinTheContractsRange) {
  EXPECT_ERROR(
      (void)oxide::prepare(ctx, shared_range, LaunchConfig1D{1, 32, 512}), ErrorKind::DynamicSharedOutOfRange,
      "oxide: kernel 'shared_range' allows dynamic_shared = 1024..4096 bytes (its launch contract), but "
      "the launch configuration asks for 512 bytes");
  EXPECT_ERROR(
      (void)oxide::prepare(ctx, shared_range, LaunchConfig1D{1, 32, 4097}),
      ErrorKind::DynamicSharedOutOfRange,
      "oxide: kernel 'shared_range' allows dynamic_shared = 1024..4096 bytes (its launch contract), but "
      "the launch configuration asks for 4097 bytes");
  EXPECT_NO_THROW((void)oxide::prepare(ctx, shared_range, LaunchConfig1D{1, 32, 4096}));
}

TEST_F(LaunchContracts, NoDynamicSharedMemoryWithoutTheField) {
  EXPECT_ERROR(
      (void)oxide::prepare(ctx, bounded, LaunchConfig1D{1, 32, 16}), ErrorKind::DynamicSharedOutOfRange,
      "oxide: kernel 'bounded' allows no dynamic shared memory (add dynamic_shared = N or a range to its "
      "launch contract to allow some), but the launch configuration asks for 16 bytes");
}

TEST_F(LaunchContracts, DynamicSharedMemoryWithinTheDevice) {
  EXPECT_ERROR(
      (void)oxide::prepare(ctx, big_shared, LaunchConfig1D{1, 32, 227 * 1024 + 1}),
      ErrorKind::DynamicSharedOverDeviceLimit,
      "oxide: kernel 'big_shared' asks for 232449 bytes of dynamic shared memory, more than the 232448 "
      "bytes per block of the CPU simulator");
  EXPECT_NO_THROW((void)oxide::prepare(ctx, big_shared, LaunchConfig1D{1, 32, 227 * 1024}));
}

TEST_F(LaunchContracts, ComputeCapabilityOfTheDevice) {
  // The simulator runs every kernel: it satisfies any minimum (documented).
  EXPECT_NO_THROW((void)oxide::prepare(ctx, needs_hopper, LaunchConfig1D{1, 32}));
  // A GPU's capability is checked against the contract (here as prepare does on a GPU).
  auto parsed = oxide::detail::parse_canonical_contract("domain = 1, min_compute_capability = (9, 0)", {});
  const auto &contract = std::get<oxide::detail::Contract>(parsed);
  EXPECT_ERROR(
      oxide::detail::check_compute_capability(contract, "needs_hopper", {8, 6}, "device 0 (NVIDIA A10)"),
      ErrorKind::ComputeCapabilityTooLow,
      "oxide: kernel 'needs_hopper' needs compute capability 9.0 or newer (its launch contract), but "
      "device 0 (NVIDIA A10) has 8.6");
  EXPECT_NO_THROW(oxide::detail::check_compute_capability(contract, "needs_hopper", {9, 0}, "device 0"));
  EXPECT_NO_THROW(oxide::detail::check_compute_capability(contract, "needs_hopper", {10, 0}, "device 0"));
}

// --- each launch ----------------------------------------------------------------------------------

TEST_F(LaunchContracts, RequiresRelationsHoldForTheArguments) {
  auto launch = oxide::prepare(ctx, vecadd, LaunchConfig1D{1, 256});
  auto a = floats(100), b = floats(200), c = floats(200);
  EXPECT_ERROR(
      launch(stream, a, b, c), ErrorKind::RequiresViolated,
      "oxide: launch of 'vecadd' violates its contract: requires a.size() == c.size(), but a.size() = "
      "100 and c.size() = 200");
  auto a2 = floats(200), b2 = floats(199);
  EXPECT_ERROR(
      launch(stream, a2, b2, c), ErrorKind::RequiresViolated,
      "oxide: launch of 'vecadd' violates its contract: requires b.size() == c.size(), but b.size() = "
      "199 and c.size() = 200");
  launch(stream, a2, a2, c); // the same prepared launch, arguments that satisfy it
  EXPECT_EQ(c.to_host(stream), std::vector<float>(200, 2.0f));
}

TEST_F(LaunchContracts, RequiresWithUnsignedScalars) {
  auto launch = oxide::prepare(ctx, first_n, LaunchConfig1D{1, 64});
  auto in = floats(10), out = floats(10);
  EXPECT_ERROR(launch(stream, 11u, in, out), ErrorKind::RequiresViolated,
               "oxide: launch of 'first_n' violates its contract: requires n <= in.size(), but n = 11 and "
               "in.size() = 10");
  launch(stream, 10u, in, out);
}

// A kernel registered with the simulator takes a signed scalar in `requires` too (kind 's'): a
// negative value is refused before the relation is evaluated.
TEST_F(LaunchContracts, RequiresWithSignedScalarsOfRegisteredKernels) {
  auto launch = oxide::prepare(ctx, first_n_signed, LaunchConfig1D{1, 64});
  auto in = floats(10), out = floats(10);
  const oxide::Error negative = error_of([&] { launch(stream, -1, in, out); });
  EXPECT_EQ(negative.kind(), ErrorKind::NegativeArgument) << negative.what();
  EXPECT_EQ(error_of([&] { launch(stream, 11, in, out); }).kind(), ErrorKind::RequiresViolated);
  launch(stream, 10, in, out);
  EXPECT_EQ(out.to_host(stream)[9], 1.0f);
}

TEST_F(LaunchContracts, RequiresOverTwoDimensionalSpans) {
  auto launch = oxide::prepare(ctx, matrix, LaunchConfig2D::for_elements(6, 4, {8, 8, 1}));
  auto in = floats(24), out = floats(24, -1.0f);
  EXPECT_ERROR(
      launch(stream, 4u, 5u, in, out.view_2d(6, 4)), ErrorKind::RequiresViolated,
      "oxide: launch of 'matrix' violates its contract: requires (rows * cols) == in.size(), but rows = "
      "4, cols = 5 and in.size() = 24");
  auto small = floats(20);
  EXPECT_ERROR(
      launch(stream, 4u, 5u, small, out.view_2d(6, 4)), ErrorKind::RequiresViolated,
      "oxide: launch of 'matrix' violates its contract: requires in.size() == out.size(), but in.size() "
      "= 20 and out.size() = 24");
  launch(stream, 4u, 6u, in, out.view_2d(6, 4));
  EXPECT_EQ(out.to_host(stream), std::vector<float>(24, 2.0f));
}

TEST_F(LaunchContracts, RequiresOverTheExtentsOfViews) {
  auto launch = oxide::prepare(ctx, shaped, LaunchConfig2D::for_elements(6, 4, {8, 8, 1}));
  auto in = floats(24), out = floats(24, -1.0f);
  // The same 24 elements, but 4 wide and 6 high: the sizes agree, the shape does not.
  EXPECT_ERROR(launch(stream, 4u, 6u, in, out.view_2d(4, 6)), ErrorKind::RequiresViolated,
               "oxide: launch of 'shaped' violates its contract: requires out.width() == cols, but "
               "out.width() = 4 and cols = 6");
  EXPECT_ERROR(launch(stream, 3u, 6u, in, out.view_2d(6, 4)), ErrorKind::RequiresViolated,
               "oxide: launch of 'shaped' violates its contract: requires out.height() == rows, but "
               "out.height() = 4 and rows = 3");
  launch(stream, 4u, 6u, in, out.view_2d(6, 4));
  EXPECT_EQ(out.to_host(stream), std::vector<float>(24, 3.0f));

  auto volume = floats(2 * 3 * 5, -1.0f);
  auto fill = oxide::prepare(ctx, cube, LaunchConfig3D::for_elements(2, 3, 5, {2, 3, 5}));
  EXPECT_ERROR(fill(stream, 4u, volume.view_3d(2, 3, 5)), ErrorKind::RequiresViolated,
               "oxide: launch of 'cube' violates its contract: requires out.depth() == depth, but "
               "out.depth() = 5 and depth = 4");
  fill(stream, 5u, volume.view_3d(2, 3, 5));
  EXPECT_EQ(volume.to_host(stream), std::vector<float>(30, 1.0f));
  auto flat = floats(3 * 1 * 5, -1.0f);
  EXPECT_ERROR(
      oxide::prepare(ctx, cube, LaunchConfig3D::for_elements(3, 1, 5, {3, 1, 5}))(stream, 5u,
                                                                                  flat.view_3d(3, 1, 5)),
      ErrorKind::RequiresViolated,
      "oxide: launch of 'cube' violates its contract: requires (out.width() * out.height()) >= 4, but "
      "out.width() = 3 and out.height() = 1");
}

TEST(ContractExtents, ParseRenderAndRoundTrip) {
  using namespace oxide::detail;
  auto resolve = [](std::string_view name) -> std::optional<ContractParam> {
    ContractParam p{0, true, {}};
    if (name == "line")
      p.index = 0, p.rank = 1;
    else if (name == "plane")
      p.index = 1, p.rank = 2;
    else if (name == "volume")
      p.index = 2, p.rank = 3;
    else if (name == "n")
      return ContractParam{3, false, {}};
    else
      return std::nullopt;
    return p;
  };
  auto parsed = parse_contract(
      "domain = 2, requires = (plane.width() == n, volume.depth() * plane.height() <= line.size())", resolve);
  ASSERT_TRUE(std::holds_alternative<Contract>(parsed));
  const Contract &c = std::get<Contract>(parsed);
  EXPECT_EQ(render_contract_relation(c, c.requires_[0], {"line", "plane", "volume", "n"}),
            "plane.width() == n");
  const std::string canonical = canonical_contract(c);
  EXPECT_EQ(canonical, "domain = 2, dynamic_shared = 0..0, requires = ($1.width() == $3, "
                       "($2.depth() * $1.height()) <= $0.size())");
  auto again = parse_canonical_contract(canonical, {true, true, true, false});
  ASSERT_TRUE(std::holds_alternative<Contract>(again));
  EXPECT_EQ(canonical_contract(std::get<Contract>(again)), canonical);
  const std::vector<ContractOperand> operands = {{12, {12, 1, 1}}, {6, {3, 2, 1}}, {8, {2, 2, 2}}, {3}};
  EXPECT_EQ(evaluate_contract_relation(c, c.requires_[0], operands), std::optional<bool>(true));
  EXPECT_EQ(evaluate_contract_relation(c, c.requires_[1], operands), std::optional<bool>(true));

  auto error = [&](std::string_view text) {
    auto result = parse_contract(text, resolve);
    const auto *e = std::get_if<ContractError>(&result);
    return e ? std::to_string(e->offset) + ": " + e->message : std::string("parsed");
  };
  EXPECT_EQ(error("domain = 1, requires = (n.width() == 1)"),
            "24: 'n' is not a span; '.width()' applies to DisjointSpan2D and DisjointSpan3D parameters");
  EXPECT_EQ(error("domain = 1, requires = (line.height() == 1)"),
            "24: 'line' is a 1-D span, which has no height; compare 'line.size()'");
  EXPECT_EQ(error("domain = 1, requires = (plane.depth() == 1)"),
            "24: 'plane' is a 2-D span, which has no depth; use 'plane.width()' or '.height()'");
  EXPECT_EQ(contract_names("requires = (plane.width() == n, plane.height() < volume.depth())").size(), 3u);
}

// `name<...>` right after a name is a variable template's value when one gives it a value
// (kSharedBytes<C>), else a comparison (n<m); contract_names lists both readings.
TEST(ContractText, TemplateIdsAndComparisons) {
  using namespace oxide::detail;
  auto names = [](std::string_view text) {
    std::string listed;
    for (const ContractName &n : contract_names(text))
      listed += std::string(n.name) + (n.in_template_id ? "*" : "") + " ";
    return listed;
  };
  EXPECT_EQ(names("domain = 1, dynamic_shared = kSharedBytes<C>"), "kSharedBytes<C>* kSharedBytes* C* ");
  EXPECT_EQ(names("domain = 1, block = ns::kB<float, 4>, requires = (n < k)"),
            "ns::kB<float, 4>* ns::kB* float* n k ");
  EXPECT_EQ(names("domain = 1, requires = (n<m, out.size()>=n)"), "n m out ");
  EXPECT_EQ(names("domain = 1, requires = (n<m, k>j)"), "n<m, k>* n* m* k* j ");
  EXPECT_EQ(names("domain = 1, requires = (n<m)"), "n m ");

  const auto resolve = [](std::string_view name) -> std::optional<ContractParam> {
    if (name == "n" || name == "m")
      return ContractParam{name == "n" ? 0u : 1u, false, {}};
    return std::nullopt;
  };
  const auto constants = [](std::string_view name, std::size_t) -> ContractConstant {
    if (name == "kBytes<4>")
      return {4096, {}};
    return {std::nullopt, "unknown", /*unknown=*/true};
  };
  auto parsed =
      parse_contract("domain = 1, dynamic_shared = kBytes<4>, requires = (n<m)", resolve, constants);
  ASSERT_TRUE(std::holds_alternative<Contract>(parsed));
  EXPECT_EQ(canonical_contract(std::get<Contract>(parsed)),
            "domain = 1, dynamic_shared = 4096..4096, requires = ($0 < $1)");
}

TEST_F(LaunchContracts, RequiresArithmeticThatOverflows) {
  auto launch = oxide::prepare(ctx, product, LaunchConfig1D{1, 32});
  auto out = floats(8);
  EXPECT_ERROR(launch(stream, std::uint64_t{1} << 32, std::uint64_t{1} << 32, out),
               ErrorKind::RequiresOverflow,
               "oxide: launch of 'product' violates its contract: requires (n * m) <= out.size() cannot be "
               "evaluated, its arithmetic overflows 64 bits, goes below zero or divides by zero with n = "
               "4294967296, m = "
               "4294967296 and out.size() = 8");
  EXPECT_ERROR(
      launch(stream, 3u, 3u, out), ErrorKind::RequiresViolated,
      "oxide: launch of 'product' violates its contract: requires (n * m) <= out.size(), but n = 3, m = "
      "3 and out.size() = 8");
  launch(stream, 2u, 4u, out);
}

TEST_F(LaunchContracts, RequiresArithmeticBelowZero) {
  auto launch = oxide::prepare(ctx, shifted, LaunchConfig1D{1, 32});
  auto empty = floats(0), out = floats(4);
  EXPECT_ERROR(launch(stream, 0u, empty, out), ErrorKind::RequiresOverflow,
               "oxide: launch of 'shifted' violates its contract: requires (in.size() - 1) >= n cannot be "
               "evaluated, its arithmetic overflows 64 bits, goes below zero or divides by zero with "
               "in.size() = 0 and n = 0");
  auto in = floats(5);
  launch(stream, 4u, in, out);
}

TEST_F(LaunchContracts, RequiresDivisionAndRemainder) {
  auto launch = oxide::prepare(ctx, upsample, LaunchConfig1D{1, 32});
  auto in = DeviceBuffer<float>::from_host(stream, std::vector<float>{1.0f, 2.0f, 3.0f});
  auto out5 = floats(5, 0.0f), out6 = floats(6, 0.0f), out4 = floats(4);
  launch(stream, 5u, in, out5); // (5 + 1) / 2 == 3, 5 % 5 == 0
  EXPECT_EQ(out5.to_host(stream), (std::vector<float>{1.0f, 1.0f, 2.0f, 2.0f, 3.0f}));
  launch(stream, 3u, in, out6); // 7 / 2 rounds down to 3
  EXPECT_EQ(out6.to_host(stream), (std::vector<float>{1.0f, 1.0f, 2.0f, 2.0f, 3.0f, 3.0f}));
  EXPECT_ERROR(
      launch(stream, 2u, in, out4), ErrorKind::RequiresViolated,
      "oxide: launch of 'upsample' violates its contract: requires in.size() == ((out.size() + 1) / 2), "
      "but in.size() = 3 and out.size() = 4");
  EXPECT_ERROR(launch(stream, 4u, in, out6), ErrorKind::RequiresViolated,
               "oxide: launch of 'upsample' violates its contract: requires (out.size() % pairs) == 0, but "
               "out.size() = 6 and pairs = 4");
  EXPECT_ERROR(
      launch(stream, 0u, in, out6), ErrorKind::RequiresOverflow,
      "oxide: launch of 'upsample' violates its contract: requires (out.size() % pairs) == 0 cannot be "
      "evaluated, its arithmetic overflows 64 bits, goes below zero or divides by zero with out.size() = 6 "
      "and pairs = 0");
}

TEST_F(LaunchContracts, OutputsMustNotOverlapOtherArguments) {
  auto launch = oxide::prepare(ctx, vecadd, LaunchConfig1D{1, 256});
  auto b = floats(256), c = floats(256);
  EXPECT_ERROR(
      launch(stream, c, b, c), ErrorKind::OverlappingArguments,
      "oxide: kernel 'vecadd': argument 1 (a) and argument 3 (c) refer to overlapping device memory and "
      "the kernel may write argument 3 (c); pass distinct buffers");
  launch(stream, b, b, c); // the same buffer twice as input is fine
}

TEST_F(LaunchContracts, ViewsOverlapTheirBuffer) {
  auto launch = oxide::prepare(ctx, matrix, LaunchConfig2D::for_elements(6, 4, {8, 8, 1}));
  auto data = floats(24);
  EXPECT_ERROR(
      launch(stream, 4u, 6u, data, data.view_2d(6, 4)), ErrorKind::OverlappingArguments,
      "oxide: kernel 'matrix': argument 3 (in) and argument 4 (out) refer to overlapping device memory "
      "and the kernel may write argument 4 (out); pass distinct buffers");
}

TEST_F(LaunchContracts, SlicesOfOneBufferBindAsTheirOwnSpans) {
  // An arena: a = [0, 256), b = [256, 512), c = [512, 768) of one allocation.
  constexpr std::size_t n = 256;
  std::vector<float> host(3 * n);
  std::iota(host.begin(), host.end(), 0.0f);
  auto arena = DeviceBuffer<float>::from_host(stream, host);
  auto launch = oxide::prepare(ctx, vecadd, LaunchConfig1D{1, 256});
  launch(stream, arena.slice(0, n), arena.slice(n, n), arena.slice(2 * n, n));
  const std::vector<float> result = arena.to_host(stream);
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_EQ(result[i], host[i]); // inputs untouched
    EXPECT_EQ(result[n + i], host[n + i]);
    EXPECT_EQ(result[2 * n + i], host[i] + host[n + i]) << i;
  }
  // A slice of a slice, and a read-only slice of a const buffer, as inputs.
  const DeviceBuffer<float> &readonly = arena;
  auto sums = floats(n);
  launch(stream, readonly.slice(0, n), arena.slice(n, 2 * n).slice(n, n), sums);
  EXPECT_EQ(sums.to_host(stream)[1], host[1] + host[1] + host[n + 1]);
}

TEST_F(LaunchContracts, OverlappingSlicesAreCaughtAtLaunch) {
  constexpr std::size_t n = 256;
  auto launch = oxide::prepare(ctx, vecadd, LaunchConfig1D{1, 256});
  auto arena = floats(4 * n);
  EXPECT_ERROR(launch(stream, arena.slice(0, n), arena.slice(n, n), arena.slice(n + 100, n)),
               ErrorKind::OverlappingArguments,
               "oxide: kernel 'vecadd': argument 2 (b) and argument 3 (c) refer to overlapping device memory "
               "and the kernel may write argument 3 (c); pass distinct buffers");
  EXPECT_ERROR(launch(stream, arena.slice(0, n), arena.slice(n, n), arena.slice(n - 1, n)),
               ErrorKind::OverlappingArguments,
               "oxide: kernel 'vecadd': argument 1 (a) and argument 3 (c) refer to overlapping device memory "
               "and the kernel may write argument 3 (c); pass distinct buffers");
  // Adjacent slices share no byte; an input may be read twice.
  launch(stream, arena.slice(0, n), arena.slice(0, n), arena.slice(n, n));
}

TEST_F(LaunchContracts, SlicesMustLieInTheirBuffer) {
  auto data = floats(24);
  EXPECT_ERROR((void)data.slice(20, 5), ErrorKind::SliceOutOfRange,
               "oxide: slice(20, 5) of a buffer of 24 elements reaches past its end; a slice needs offset + "
               "count <= size");
  EXPECT_ERROR((void)data.slice(25, 0), ErrorKind::SliceOutOfRange,
               "oxide: slice(25, 0) of a buffer of 24 elements reaches past its end; a slice needs offset + "
               "count <= size");
  EXPECT_ERROR(
      (void)data.slice(1, SIZE_MAX), ErrorKind::SliceOutOfRange,
      "oxide: slice(1, 18446744073709551615) of a buffer of 24 elements reaches past its end; a slice "
      "needs offset + count <= size");
  EXPECT_ERROR((void)data.slice(8, 8).slice(4, 5), ErrorKind::SliceOutOfRange,
               "oxide: slice(4, 5) of a buffer of 8 elements reaches past its end; a slice needs offset + "
               "count <= size");
  const auto slice = data.slice(24, 0); // an empty slice at the end is fine
  EXPECT_EQ(slice.size(), 0u);
  EXPECT_EQ(data.slice(4, 8).slice(2, 3).offset(), 6u);
}

TEST_F(LaunchContracts, ViewsMustCoverTheirBuffer) {
  auto data = floats(24);
  EXPECT_ERROR(
      (void)data.view_2d(5, 5), ErrorKind::ViewShapeMismatch,
      "oxide: view_2d(5, 5) covers 25 elements, but the buffer has 24; a view covers its whole buffer");
  EXPECT_ERROR(
      (void)data.view_3d(2, 3, 5), ErrorKind::ViewShapeMismatch,
      "oxide: view_3d(2, 3, 5) covers 30 elements, but the buffer has 24; a view covers its whole buffer");
  EXPECT_ERROR(
      (void)data.view_2d(std::size_t{1} << 32, std::size_t{1} << 32), ErrorKind::ViewShapeMismatch,
      "oxide: view_2d(4294967296, 4294967296) of a buffer of 24 elements: the extents' product overflows");
  const auto view = data.view_3d(2, 3, 4);
  EXPECT_EQ(&view.buffer(), &data);
  EXPECT_EQ(view.width() * view.height() * view.depth(), 24u);
}

TEST_F(LaunchContracts, TwoAndThreeDimensionalOutputsThroughViews) {
  auto image = floats(40 * 17, -1.0f);
  oxide::prepare(ctx, fill_2d, LaunchConfig2D::for_elements(40, 17, {32, 8, 1}))(stream,
                                                                                 image.view_2d(40, 17));
  const auto host = image.to_host(stream);
  for (std::size_t y = 0; y < 17; ++y)
    for (std::size_t x = 0; x < 40; ++x)
      ASSERT_EQ(host[y * 40 + x], static_cast<float>(y * 100 + x));
  auto volume = floats(5 * 6 * 7, 0.0f);
  oxide::prepare(ctx, fill_3d, LaunchConfig3D::for_elements(5, 6, 7, {4, 4, 4}))(stream,
                                                                                 volume.view_3d(5, 6, 7));
  EXPECT_EQ(volume.to_host(stream), std::vector<float>(5 * 6 * 7, 1.0f));
}

// --- oxide::prepare(ctx, kernel, oxide::elements(...)): the block from the contract -------------

TEST_F(LaunchContracts, ElementsTakeTheBlockFromTheContract) {
  auto launch = oxide::prepare(ctx, vecadd, oxide::elements(1000));
  static_assert(
      std::is_same_v<decltype(launch),
                     oxide::PreparedLaunch<Span<const float>, Span<const float>, DisjointSpan<float>>>);
  EXPECT_EQ(launch.config(), (LaunchConfig1D{4, 256, 0})); // ceil(1000 / 256) blocks of 256
  auto a = floats(1000, 1.0f), b = floats(1000, 2.0f), c = floats(1000, 0.0f);
  launch(stream, a, b, c);
  EXPECT_EQ(c.to_host(stream), std::vector<float>(1000, 3.0f));
  EXPECT_EQ(oxide::prepare(ctx, vecadd, oxide::elements(0)).config(), (LaunchConfig1D{0, 256, 0}));
  EXPECT_EQ(oxide::prepare(ctx, vecadd, oxide::elements(256)).config(), (LaunchConfig1D{1, 256, 0}));
}

TEST_F(LaunchContracts, ElementsInTwoAndThreeDimensions) {
  auto flat = oxide::prepare(ctx, fill_2d, oxide::elements(40, 17));
  EXPECT_EQ(flat.config(), (LaunchConfig2D{{2, 3, 1}, {32, 8, 1}, 0}));
  auto image = floats(40 * 17, -1.0f);
  flat(stream, image.view_2d(40, 17));
  const auto host = image.to_host(stream);
  for (std::size_t y = 0; y < 17; ++y)
    for (std::size_t x = 0; x < 40; ++x)
      ASSERT_EQ(host[y * 40 + x], static_cast<float>(y * 100 + x));

  auto deep = oxide::prepare(ctx, blocked_3d, oxide::elements(5, 6, 17));
  EXPECT_EQ(deep.config(), (LaunchConfig3D{{2, 3, 3}, {4, 2, 8}, 0}));
  auto volume = floats(5 * 6 * 17, 0.0f);
  deep(stream, volume.view_3d(5, 6, 17));
  EXPECT_EQ(volume.to_host(stream), std::vector<float>(5 * 6 * 17, 428.0f)); // block (4, 2, 8)
}

TEST_F(LaunchContracts, ElementsCarryDynamicSharedMemory) {
  // The domain's dynamic shared memory is checked against the contract as a configuration's is.
  EXPECT_EQ(oxide::elements(10).with_dynamic_shared(2048).dynamic_shared_bytes, 2048u);
  auto launch = oxide::prepare(ctx, vecadd, oxide::elements(10));
  EXPECT_EQ(launch.config().dynamic_shared_bytes, 0u);
  EXPECT_ERROR((void)oxide::prepare(ctx, vecadd, oxide::elements(10).with_dynamic_shared(16)),
               ErrorKind::DynamicSharedOutOfRange,
               "oxide: kernel 'vecadd' allows no dynamic shared memory (add dynamic_shared = N or a range to "
               "its launch contract to allow some), but the launch configuration asks for 16 bytes");
}

TEST_F(LaunchContracts, ElementsNeedAContractThatFixesTheBlock) {
  EXPECT_ERROR((void)oxide::prepare(ctx, fill_3d, oxide::elements(5, 6, 7)), ErrorKind::BlockMismatch,
               "oxide: kernel 'fill_3d' is prepared with oxide::elements(width, height, depth), which takes "
               "the block from the launch contract, but its contract fixes no block; add one to the "
               "contract (e.g. block = (8, 8, 4)) or prepare it with a configuration that states the block, "
               "e.g. oxide::LaunchConfig3D::for_elements(width, height, depth, {8, 8, 4})");
  EXPECT_ERROR((void)oxide::prepare(ctx, shared_range, oxide::elements(5)), ErrorKind::BlockMismatch,
               "oxide: kernel 'shared_range' is prepared with oxide::elements(n), which takes the block from "
               "the launch contract, but its contract fixes no block; add one to the contract (e.g. block = "
               "256) or prepare it with a configuration that states the block, e.g. "
               "oxide::LaunchConfig1D::for_elements(n, 256)");
  EXPECT_ERROR((void)oxide::prepare(ctx, fill_2d, oxide::elements(40)), ErrorKind::DomainMismatch,
               "oxide: kernel 'fill_2d' has domain = 2 in its launch contract, but is prepared with "
               "oxide::elements(n); give 2 extents: oxide::elements(width, height)");
  EXPECT_ERROR(
      (void)oxide::prepare(ctx, in_place, oxide::elements(40)), ErrorKind::NoContract,
      "oxide: kernel 'in_place' has no launch contract, so oxide::prepare cannot take its block from "
      "it; add [[oxide::launch_contract(\"domain = 1, block = ...\")]] to it, or launch it with "
      "oxide::unsafe_launch");
  // Too many blocks for the grid: for_elements' own error.
  EXPECT_EQ(error_of([&] { (void)oxide::prepare(ctx, fill_2d, oxide::elements(8, 65536 * 8 + 1)); }).kind(),
            ErrorKind::GridInvalid);
}

TEST_F(LaunchContracts, ExplicitConfigurationsStillWork) {
  // The same kernels, with the configuration written out: checked against the contract as before.
  auto launch = oxide::prepare(ctx, blocked_3d, LaunchConfig3D::for_elements(5, 6, 17, {4, 2, 8}));
  auto volume = floats(5 * 6 * 17, 0.0f);
  launch(stream, volume.view_3d(5, 6, 17));
  EXPECT_EQ(volume.to_host(stream), std::vector<float>(5 * 6 * 17, 428.0f));
  EXPECT_EQ(
      error_of([&] { (void)oxide::prepare(ctx, blocked_3d, LaunchConfig3D::for_elements(5, 6, 17)); }).kind(),
      ErrorKind::BlockMismatch);
  auto unblocked = oxide::prepare(ctx, fill_3d, LaunchConfig3D::for_elements(5, 6, 7, {4, 4, 4}));
  EXPECT_EQ(unblocked.config().block, (oxide::Dim3{4, 4, 4}));
}

// --- dynamic_shared tied to the arguments ------------------------------------------------------

TEST_F(LaunchContracts, DynamicSharedExpressionsParseAndRoundTrip) {
  const auto resolve = [](std::string_view name) -> std::optional<oxide::detail::ContractParam> {
    if (name == "tile")
      return oxide::detail::ContractParam{0, false, {}};
    if (name == "in")
      return oxide::detail::ContractParam{1, true, {}};
    return std::nullopt;
  };
  const auto canonical = [&](std::string_view text) {
    auto parsed = oxide::detail::parse_contract(text, resolve);
    if (auto *e = std::get_if<oxide::detail::ContractError>(&parsed))
      return "error at " + std::to_string(e->offset) + ": " + e->message;
    const std::string out = oxide::detail::canonical_contract(std::get<oxide::detail::Contract>(parsed));
    auto again = oxide::detail::parse_canonical_contract(out, {false, true});
    EXPECT_TRUE(std::holds_alternative<oxide::detail::Contract>(again)) << out;
    if (auto *c = std::get_if<oxide::detail::Contract>(&again))
      EXPECT_EQ(oxide::detail::canonical_contract(*c), out);
    return out;
  };
  EXPECT_EQ(canonical("domain = 1, dynamic_shared = 4 * tile"), "domain = 1, dynamic_shared = (4 * $0)");
  EXPECT_EQ(canonical("domain = 1, dynamic_shared = tile"), "domain = 1, dynamic_shared = $0");
  EXPECT_EQ(canonical("domain = 1, dynamic_shared = in.size() * 4 + 16..8192"),
            "domain = 1, dynamic_shared = (($1.size() * 4) + 16)..8192");
  // Numbers and arithmetic on numbers alone are the fixed range they always were.
  EXPECT_EQ(canonical("domain = 1, dynamic_shared = 1024"), "domain = 1, dynamic_shared = 1024..1024");
  EXPECT_EQ(canonical("domain = 1, dynamic_shared = 4 * 256..2048"),
            "domain = 1, dynamic_shared = 1024..2048");
  EXPECT_EQ(canonical("domain = 1, dynamic_shared = 2 * tile..tile"),
            "error at 39: the upper bound of dynamic_shared = lo..hi must be a number; only the lower bound "
            "(or an exact size, dynamic_shared = expression) may depend on the arguments");
  EXPECT_EQ(canonical("domain = 1, dynamic_shared = 4 * size"),
            "error at 33: 'size' is not a parameter of this kernel");
  EXPECT_EQ(canonical("domain = 1, dynamic_shared = 4 *"),
            "error at 32: expected a parameter name, 'name.size()' or a number");
  EXPECT_EQ(canonical("domain = 1, dynamic_shared = in * 4"),
            "error at 29: 'in' is a span; compare its size with 'in.size()'");
  EXPECT_EQ(canonical("domain = 1, dynamic_shared = 4294967296"),
            "error at 29: number is too large (at most 4294967295): dynamic_shared is 4294967296 bytes");
  EXPECT_EQ(canonical("domain = 1, dynamic_shared = 4 / 0"),
            "error at 29: dynamic_shared cannot be evaluated: its arithmetic overflows 64 bits, goes below "
            "zero or divides by zero");
}

TEST_F(LaunchContracts, DynamicSharedExactlyAsTheArgumentsSay) {
  auto out = floats(64, -1.0f);
  oxide::prepare(ctx, staged, oxide::elements(64).with_dynamic_shared(4 * 16))(stream, 16u, out);
  const auto host = out.to_host(stream);
  for (std::uint32_t t = 0; t < 64; ++t)
    ASSERT_EQ(host[t], t < 16 ? static_cast<float>(15 - t) : 16.0f) << t;

  auto launch = oxide::prepare(ctx, staged, oxide::elements(64).with_dynamic_shared(128));
  launch(stream, 32u, out); // 4 * 32 bytes
  EXPECT_ERROR(
      launch(stream, 64u, out), ErrorKind::DynamicSharedOutOfRange,
      "oxide: launch of 'staged' violates its contract: dynamic_shared = 4 * tile asks for 256 bytes "
      "of dynamic shared memory with tile = 64, but the launch configuration gives 128; prepare the "
      "launch with exactly 256 bytes");
  // More than asked is refused too: the size is exact.
  EXPECT_ERROR(launch(stream, 16u, out), ErrorKind::DynamicSharedOutOfRange,
               "oxide: launch of 'staged' violates its contract: dynamic_shared = 4 * tile asks for 64 bytes "
               "of dynamic shared memory with tile = 16, but the launch configuration gives 128; prepare the "
               "launch with exactly 64 bytes");
}

TEST_F(LaunchContracts, DynamicSharedAtLeastAsTheArgumentsSay) {
  auto in = floats(10, 1.0f), out = floats(10, 0.0f);
  oxide::prepare(ctx, staged_at_least, LaunchConfig1D{1, 64, 48})(stream, in, out); // 48 >= 40
  EXPECT_EQ(out.to_host(stream), std::vector<float>(10, 12.0f));
  auto small = oxide::prepare(ctx, staged_at_least, LaunchConfig1D{1, 64, 36});
  EXPECT_ERROR(
      small(stream, in, out), ErrorKind::DynamicSharedOutOfRange,
      "oxide: launch of 'staged_at_least' violates its contract: dynamic_shared = in.size() * 4..4096 "
      "asks for at least 40 bytes of dynamic shared memory with in.size() = 10, but the launch "
      "configuration gives 36; prepare the launch with at least 40 bytes");
  // The fixed upper bound is checked once, by prepare.
  EXPECT_ERROR((void)oxide::prepare(ctx, staged_at_least, LaunchConfig1D{1, 64, 8192}),
               ErrorKind::DynamicSharedOutOfRange,
               "oxide: kernel 'staged_at_least' allows at most 4096 bytes of dynamic shared memory "
               "(dynamic_shared = in.size() * 4..4096 in its launch contract), but the launch configuration "
               "asks for 8192 bytes");
}

TEST_F(LaunchContracts, DynamicSharedExpressionsThatCannotBeEvaluated) {
  auto out = floats(4, 0.0f);
  auto launch = oxide::prepare(ctx, staged_signed, LaunchConfig1D{1, 4, 8});
  launch(stream, 2, out);
  EXPECT_EQ(out.to_host(stream), std::vector<float>(4, 2.0f));
  EXPECT_ERROR(
      launch(stream, 0, out), ErrorKind::RequiresOverflow,
      "oxide: launch of 'staged_signed' violates its contract: dynamic_shared = (tile - 1) * 8 cannot "
      "be evaluated, its arithmetic overflows 64 bits, goes below zero or divides by zero with tile = 0");
  EXPECT_EQ(error_of([&] { launch(stream, -3, out); }).kind(), ErrorKind::NegativeArgument);
}

TEST_F(LaunchContracts, CompiledContractsUseTheImagesParameterNames) {
  auto launch = oxide::prepare(ctx, compiled_vecadd, LaunchConfig1D{1, 64});
  auto x = floats(3), y = floats(3), z = floats(4);
  EXPECT_ERROR(launch(stream, x, y, z), ErrorKind::RequiresViolated,
               "oxide: launch of 'compiled_vecadd' violates its contract: requires x.size() == z.size(), but "
               "x.size() = 3 and z.size() = 4");
  EXPECT_ERROR(
      (void)oxide::prepare(ctx, compiled_vecadd, LaunchConfig1D{1, 64, 1}),
      ErrorKind::DynamicSharedOutOfRange,
      "oxide: kernel 'compiled_vecadd' allows no dynamic shared memory (add dynamic_shared = N or a range "
      "to its launch contract to allow some), but the launch configuration asks for 1 bytes");
}

TEST_F(LaunchContracts, EmptyBuffersBindAsNonNullPointers) {
  // The compiler assumes span data is never null; the runtime binds an aligned dangling pointer.
  auto empty = floats(0);
  auto out = DeviceBuffer<std::uint64_t>::zeroed(stream, 2);
  ASSERT_EQ(empty.device_ptr(), 0u);
  oxide::prepare(ctx, record_pointer, LaunchConfig1D{1, 32})(stream, empty, out);
  EXPECT_EQ(out.to_host(stream), std::vector<std::uint64_t>(2, alignof(float)));
  oxide::prepare(ctx, record_pointer, LaunchConfig1D{1, 32})(stream, Span<const float>{}, out);
  EXPECT_EQ(out.to_host(stream), std::vector<std::uint64_t>(2, alignof(float)));
}

TEST_F(LaunchContracts, WhatRequiresPreventsIsAFaultInAnUnsafeLaunch) {
  // Unchecked, vecadd with a short input reads past its end: the simulator stops the kernel.
  auto a = floats(100), b = floats(50), c = floats(100);
  const oxide::Error e =
      error_of([&] { oxide::unsafe_launch(stream, vecadd, LaunchConfig1D{1, 256}, a, b, c); });
  EXPECT_EQ(e.kind(), ErrorKind::KernelFault);
  EXPECT_STREQ(e.what(),
               "oxide: kernel 'vecadd' block (0,0,0) thread (50,0,0): index 50 out of bounds for span "
               "of size 50");
  EXPECT_EQ(e.kernel(), "vecadd");
}

// --- oxide::unsafe_launch -------------------------------------------------------------------------

TEST_F(LaunchContracts, UnsafeLaunchRunsUncontractedKernels) {
  auto data = floats(100, 1.5f);
  oxide::unsafe_launch(stream, in_place, oxide::LaunchConfig{{4}, {32}}, data);
  oxide::unsafe_launch(stream, in_place, LaunchConfig1D::for_elements(100, 64),
                       data); // cached after the first
  EXPECT_EQ(data.to_host(stream), std::vector<float>(100, 6.0f));
}

TEST_F(LaunchContracts, UnsafeLaunchBindsBuffersToRawPointers) {
  const std::size_t n = 1000;
  std::vector<std::uint32_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0u);
  std::reverse(perm.begin(), perm.end());
  std::vector<float> host(n);
  std::iota(host.begin(), host.end(), 0.0f);
  auto in = DeviceBuffer<float>::from_host(stream, host);
  const auto permutation = DeviceBuffer<std::uint32_t>::from_host(stream, perm); // const: binds to const T*
  auto out = floats(n, -1.0f);
  oxide::unsafe_launch(stream, scatter, LaunchConfig1D::for_elements(n, 128), in, permutation, out, n);
  const auto result = out.to_host(stream);
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_EQ(result[perm[i]], host[i]) << i;
  // Raw pointers bind as well; nullptr too.
  oxide::unsafe_launch(stream, scatter, oxide::LaunchConfig{{1}, {32}}, static_cast<const float *>(nullptr),
                       nullptr, nullptr, std::size_t{0});
}

TEST_F(LaunchContracts, UnsafeLaunchChecksNoContract) {
  // vecadd's contract demands block = 256; an unsafe launch does not check it.
  auto a = floats(300), c = floats(300, 0.0f);
  oxide::unsafe_launch(stream, vecadd, LaunchConfig1D::for_elements(300, 64), a, a, c);
  EXPECT_EQ(c.to_host(stream), std::vector<float>(300, 2.0f));
}

TEST_F(LaunchContracts, UnsafeLaunchStillChecksKernelAndLimits) {
  auto out = floats(4);
  const oxide::Error e =
      error_of([&] { oxide::unsafe_launch(stream, never_registered, oxide::LaunchConfig{}, out); });
  EXPECT_EQ(e.kind(), ErrorKind::NotAKernel);
  EXPECT_ERROR(
      oxide::unsafe_launch(stream, bounded, LaunchConfig1D{1, 256}, out), ErrorKind::BlockOverLaunchBounds,
      "oxide: kernel 'bounded' has launch_bounds(128), but the launch configuration has blocks of 256 "
      "threads (256, 1, 1)");
  EXPECT_ERROR(
      oxide::unsafe_launch(stream, in_place, oxide::LaunchConfig{{1}, {32, 32, 2}}, out),
      ErrorKind::BlockInvalid,
      "oxide: launch configuration: block (32,32,2) is outside CUDA's limits (each extent at least 1, at "
      "most (1024,1024,64), and at most 1024 threads in all)");
  EXPECT_ERROR(
      oxide::unsafe_launch(stream, in_place, oxide::LaunchConfig{{1}, {32}, 256 * 1024}, out),
      ErrorKind::DynamicSharedOverDeviceLimit,
      "oxide: kernel 'in_place' asks for 262144 bytes of dynamic shared memory, more than the 232448 bytes "
      "per block of the CPU simulator");
  void (*as_double)(double) = reinterpret_cast<void (*)(double)>(in_place);
  const oxide::Error layout =
      error_of([&] { oxide::unsafe_launch(stream, as_double, oxide::LaunchConfig{}, 1.0); });
  EXPECT_EQ(layout.kind(), ErrorKind::LayoutMismatch);
  EXPECT_NE(std::string(layout.what())
                .find("kernel 'in_place' parameter 1 (double) is 8 bytes aligned to 8 on the "
                      "host but 16 bytes aligned to 8 in the device image"),
            std::string::npos)
      << layout.what();
}

} // namespace
