// Pinned host memory and asynchronous copies, stream-ordered allocation, and borrowed device
// pointers, on the CPU simulator and on a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <span>
#include <vector>

#include "oxide/oxide.hpp"
#include "runtime_test_kernels.hpp"
#include "sim_test_support.hpp"

namespace {

using oxide::DeviceBuffer;
using oxide::ErrorKind;
using oxide::PinnedBuffer;
using oxide::Stream;
using oxide_test::cover;
using oxide_test::kind_of;

/// The same checks on either backend.
class PinnedAndAsync : public oxide_test::OnEachBackend {
protected:
  static void SetUpTestSuite() { oxide_test::register_runtime_test_kernels(); }
};

TEST_P(PinnedAndAsync, PinnedBuffersAreHostMemory) {
  auto ctx = context();
  auto empty = PinnedBuffer<int>::uninitialized(ctx, 0);
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.data(), nullptr);
  auto zeros = PinnedBuffer<double>::zeroed(ctx, 1000);
  EXPECT_EQ(zeros.size(), 1000u);
  EXPECT_EQ(zeros.size_bytes(), 8000u);
  EXPECT_EQ(std::vector<double>(zeros.begin(), zeros.end()), std::vector<double>(1000, 0.0));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(zeros.data()) % 64, 0u);

  const std::vector<int> values{1, 2, 3, 4, 5};
  auto copy = PinnedBuffer<int>::from_host(ctx, values);
  std::span<int> view = copy.span();
  view[0] = 10;
  EXPECT_EQ(copy[0], 10);
  const PinnedBuffer<int> &constant = copy;
  std::span<const int> read = constant;
  EXPECT_EQ(read[4], 5);

  auto moved = std::move(copy);
  EXPECT_TRUE(copy.empty()); // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(copy.data(), nullptr);
  EXPECT_EQ(moved.size(), 5u);
  moved = PinnedBuffer<int>::zeroed(ctx, 2);
  EXPECT_EQ(moved.size(), 2u);
  moved.reset();
  EXPECT_TRUE(moved.empty());
}

TEST_P(PinnedAndAsync, AsynchronousCopiesThroughPinnedMemory) {
  auto ctx = context();
  auto stream = ctx.create_stream();
  const std::size_t n = 1 << 18;
  auto input = PinnedBuffer<float>::uninitialized(ctx, n);
  std::iota(input.begin(), input.end(), 0.0f);
  auto output = PinnedBuffer<float>::zeroed(ctx, n);
  auto device = DeviceBuffer<float>::uninitialized(stream, n);
  device.copy_from_async(stream, input);
  oxide::unsafe_launch(stream, oxide_test::add_one, cover(n), device);
  device.copy_to_async(stream, output);
  stream.synchronize();
  for (std::size_t i = 0; i < n; i += 997)
    ASSERT_EQ(output[i], static_cast<float>(i) + 1.0f) << "element " << i;

  // Pinned memory also works with the synchronous copies.
  device.copy_from_host(stream, input.span());
  EXPECT_EQ(device.to_host(stream), std::vector<float>(input.begin(), input.end()));

  auto smaller = PinnedBuffer<float>::zeroed(ctx, n - 1);
  EXPECT_EQ(kind_of([&] { device.copy_from_async(stream, smaller); }), ErrorKind::SizeMismatch);
  EXPECT_EQ(kind_of([&] { device.copy_to_async(stream, smaller); }), ErrorKind::SizeMismatch);
}

TEST_P(PinnedAndAsync, StreamOrderedAllocation) {
  auto ctx = context();
  const std::size_t n = 1 << 16;
  DeviceBuffer<float> outlives, orphan;
  auto done = oxide::Event::create(ctx, oxide::Event::Timing::Disabled);
  {
    auto stream = ctx.create_stream();
    auto buffer = DeviceBuffer<float>::allocate_async(stream, n);
    EXPECT_TRUE(buffer.is_stream_ordered());
    EXPECT_TRUE(buffer.is_owning());
    EXPECT_NE(buffer.device_ptr(), 0u);
    EXPECT_EQ(buffer.size(), n);
    auto pinned = PinnedBuffer<float>::zeroed(ctx, n);
    buffer.copy_from_async(stream, pinned);
    oxide::unsafe_launch(stream, oxide_test::add_one, cover(n), buffer);
    EXPECT_EQ(buffer.to_host(stream), std::vector<float>(n, 1.0f));
    buffer.reset(); // cuMemFreeAsync on `stream`
    EXPECT_EQ(buffer.device_ptr(), 0u);
    EXPECT_TRUE(buffer.empty());

    // Buffers may outlive the Stream object they were allocated on: the stream stays alive until
    // their frees are enqueued on it.
    outlives = DeviceBuffer<float>::allocate_async(stream, n);
    outlives.copy_from_async(stream, pinned);
    oxide::unsafe_launch(stream, oxide_test::add_one, cover(n), outlives);
    done.record(stream);
    orphan = DeviceBuffer<float>::allocate_async(stream, n); // freed on `stream` by its destructor
  }
  // Used and freed in the order of another stream, once that waits for the first one's work.
  auto other = ctx.create_stream();
  other.wait(done);
  EXPECT_EQ(outlives.to_host(other), std::vector<float>(n, 1.0f));
  outlives.reset(other);
  EXPECT_TRUE(outlives.empty());
  other.synchronize();

  auto standard = ctx.default_stream();
  auto on_default = DeviceBuffer<int>::allocate_async(standard, 100);
  auto empty = DeviceBuffer<int>::allocate_async(standard, 0);
  EXPECT_EQ(empty.device_ptr(), 0u);
  auto moved = std::move(on_default);
  EXPECT_FALSE(on_default.is_stream_ordered()); // NOLINT(bugprone-use-after-move)
  EXPECT_TRUE(moved.is_stream_ordered());
  standard.synchronize();

  // reset(stream) frees an ordinary buffer too.
  auto plain = DeviceBuffer<int>::zeroed(standard, 10);
  EXPECT_FALSE(plain.is_stream_ordered());
  plain.reset(standard);
  EXPECT_TRUE(plain.empty());
}

TEST_P(PinnedAndAsync, BorrowedPointersAreUsedButNotFreed) {
  auto ctx = context();
  auto stream = ctx.create_stream();
  const std::size_t n = 1000;
  auto owner = DeviceBuffer<float>::zeroed(stream, n); // stands for memory other code allocated
  {
    auto borrowed = DeviceBuffer<float>::unsafe_borrow(ctx, owner.device_ptr(), n);
    EXPECT_FALSE(borrowed.is_owning());
    EXPECT_EQ(borrowed.device_ptr(), owner.device_ptr());
    oxide::unsafe_launch(stream, oxide_test::add_one, cover(n), borrowed);
    auto prefix = DeviceBuffer<float>::unsafe_borrow(ctx, owner.device_ptr(), 10);
    oxide::unsafe_launch(stream, oxide_test::add_one, cover(10), prefix);
    EXPECT_EQ(prefix.to_host(stream), std::vector<float>(10, 2.0f));
  } // nothing freed
  std::vector<float> expected(n, 1.0f);
  std::fill(expected.begin(), expected.begin() + 10, 2.0f);
  EXPECT_EQ(owner.to_host(stream), expected);

  EXPECT_EQ(kind_of([&] { (void)DeviceBuffer<float>::unsafe_borrow(ctx, 0, 4); }), ErrorKind::Other);
  EXPECT_EQ(kind_of([&] { (void)DeviceBuffer<float>::unsafe_borrow(ctx, owner.device_ptr() + 2, 4); }),
            ErrorKind::Other);
  auto none = DeviceBuffer<float>::unsafe_borrow(ctx, 0, 0);
  EXPECT_TRUE(none.empty());
}

INSTANTIATE_TEST_SUITE_P(Backends, PinnedAndAsync, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool> &info) {
                           return std::string(info.param ? "Gpu" : "Simulator");
                         });

} // namespace
