// Misuse and resource failures of the host runtime, each a clear oxide::Error with its own kind:
// out-of-memory allocations, moved-from streams, buffers of another context, copies between
// buffers of different sizes, and what works without the NVIDIA driver.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
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

// More than any machine's address space holds, but no overflow of the byte count.
constexpr std::size_t kHuge = std::size_t{1} << 62;

class RuntimeErrors : public ::testing::Test {
protected:
  static void SetUpTestSuite() { oxide_test::register_runtime_test_kernels(); }
};

TEST_F(RuntimeErrors, NewKindsHaveNames) {
  EXPECT_EQ(oxide::to_string(ErrorKind::GraphCapture), "GraphCapture");
  EXPECT_EQ(oxide::to_string(ErrorKind::HostCallbackFailed), "HostCallbackFailed");
  EXPECT_EQ(oxide::to_string(ErrorKind::InvalidEvent), "InvalidEvent");
}

TEST_F(RuntimeErrors, OutOfMemoryOnTheSimulator) {
  auto ctx = oxide::Context::cpu();
  auto stream = ctx.create_stream();
  try {
    (void)DeviceBuffer<std::byte>::uninitialized(stream, kHuge);
    FAIL() << "expected oxide::Error";
  } catch (const oxide::Error &e) {
    EXPECT_EQ(e.kind(), ErrorKind::OutOfMemory);
    EXPECT_EQ(std::string(e.what()),
              "oxide: DeviceBuffer: out of memory allocating 4611686018427387904 bytes on the CPU simulator");
  }
  EXPECT_EQ(kind_of([&] { (void)DeviceBuffer<std::byte>::allocate_async(stream, kHuge); }),
            ErrorKind::OutOfMemory);
  EXPECT_EQ(kind_of([&] { (void)PinnedBuffer<std::byte>::uninitialized(ctx, kHuge); }),
            ErrorKind::OutOfMemory);
  // A byte count that overflows size_t.
  const std::size_t too_many = std::numeric_limits<std::size_t>::max() / 2;
  EXPECT_EQ(kind_of([&] { (void)DeviceBuffer<double>::zeroed(stream, too_many); }), ErrorKind::OutOfMemory);
  EXPECT_EQ(kind_of([&] { (void)DeviceBuffer<double>::allocate_async(stream, too_many); }),
            ErrorKind::OutOfMemory);
  EXPECT_EQ(kind_of([&] { (void)PinnedBuffer<double>::zeroed(ctx, too_many); }), ErrorKind::OutOfMemory);
  // The context is still usable.
  EXPECT_EQ(DeviceBuffer<int>::from_host(stream, std::vector<int>{1, 2}).to_host(stream),
            (std::vector<int>{1, 2}));
}

TEST_F(RuntimeErrors, MovedFromStreamsCannotLaunchOrCopy) {
  auto ctx = oxide::Context::cpu();
  auto stream = ctx.create_stream();
  auto buffer = DeviceBuffer<float>::zeroed(stream, 64);
  auto input = DeviceBuffer<float>::zeroed(stream, 64);
  auto pinned = PinnedBuffer<float>::zeroed(ctx, 64);
  auto prepared = oxide::prepare(ctx, oxide_test::scale, cover(64));
  Stream moved = std::move(stream);
  const std::string expected = "oxide: use of a moved-from oxide::Stream";
  // NOLINTBEGIN(bugprone-use-after-move): what these calls do with a moved-from stream
  EXPECT_EQ(
      oxide_test::error_of([&] { oxide::unsafe_launch(stream, oxide_test::add_one, cover(64), buffer); }),
      expected);
  EXPECT_EQ(oxide_test::error_of([&] { prepared(stream, input, 2.0f, buffer); }), expected);
  EXPECT_EQ(oxide_test::error_of([&] { (void)buffer.to_host(stream); }), expected);
  EXPECT_EQ(oxide_test::error_of([&] { buffer.copy_from_async(stream, pinned); }), expected);
  EXPECT_EQ(oxide_test::error_of([&] { (void)DeviceBuffer<float>::zeroed(stream, 4); }), expected);
  EXPECT_EQ(oxide_test::error_of([&] { (void)DeviceBuffer<float>::allocate_async(stream, 4); }), expected);
  EXPECT_EQ(oxide_test::error_of([&] { (void)oxide::Graph::capture(stream, [](Stream &) {}); }), expected);
  EXPECT_EQ(oxide_test::error_of([&] { buffer.reset(stream); }), expected);
  // NOLINTEND(bugprone-use-after-move)
  prepared(moved, input, 2.0f, buffer);
  moved.synchronize();
}

TEST_F(RuntimeErrors, CopiesBetweenBuffersOfDifferentSizes) {
  auto ctx = oxide::Context::cpu();
  auto stream = ctx.create_stream();
  auto small = DeviceBuffer<int>::zeroed(stream, 3);
  auto large = DeviceBuffer<int>::zeroed(stream, 4);
  try {
    small.copy_from(stream, large);
    FAIL() << "expected oxide::Error";
  } catch (const oxide::Error &e) {
    EXPECT_EQ(e.kind(), ErrorKind::SizeMismatch);
    EXPECT_STREQ(e.what(),
                 "oxide: copy_from: the destination buffer has 3 elements but the source buffer has 4");
  }
  auto pinned = PinnedBuffer<int>::zeroed(ctx, 4);
  try {
    small.copy_to_async(stream, pinned);
    FAIL() << "expected oxide::Error";
  } catch (const oxide::Error &e) {
    EXPECT_EQ(e.kind(), ErrorKind::SizeMismatch);
    EXPECT_STREQ(e.what(), "oxide: copy_to_async: the device buffer has 3 elements but the host range has 4");
  }
}

// Without the NVIDIA driver (this test's machine has none, or the test is skipped), everything
// the simulator offers works: events, pinned memory, stream-ordered allocation, graphs.
TEST_F(RuntimeErrors, SimulatorFeaturesNeedNoDriver) {
  if (void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
    dlclose(library);
    GTEST_SKIP() << "skipped: CUDA driver present";
  }
  EXPECT_EQ(kind_of([] { (void)oxide::Context::create(0); }), ErrorKind::NoDevice);
  auto ctx = oxide::Context::cpu();
  auto stream = ctx.create_stream();
  auto start = oxide::Event::create(ctx), end = oxide::Event::create(ctx);
  start.record(stream);
  auto pinned = PinnedBuffer<float>::zeroed(ctx, 32);
  auto buffer = DeviceBuffer<float>::allocate_async(stream, 32);
  buffer.copy_from_async(stream, pinned);
  auto graph = oxide::Graph::capture(stream, [&](Stream &s) {
    oxide::unsafe_launch(s, oxide_test::add_one, cover(32), buffer);
    buffer.copy_to_async(s, pinned);
  });
  graph.launch(stream);
  end.record(stream);
  stream.synchronize();
  EXPECT_GE(oxide::Event::elapsed_ms(start, end), 0.0f);
  EXPECT_EQ(pinned[31], 1.0f);
  int foreign = 0;
  EXPECT_EQ(kind_of([&] { (void)Stream::adopt(ctx, &foreign); }), ErrorKind::UnsupportedOnSimulator);
}

// ------------------------------------------------------------------------------------------------
// On a GPU.

class GpuRuntimeErrors : public ::testing::Test {
protected:
  static void SetUpTestSuite() { oxide_test::register_runtime_test_kernels(); }
  void SetUp() override { OXIDE_REQUIRE_GPU(); }
};

TEST_F(GpuRuntimeErrors, OutOfDeviceMemory) {
  auto ctx = oxide::Context::create(0);
  auto stream = ctx.create_stream();
  const std::size_t too_much = ctx.device().total_memory() * 2;
  try {
    (void)DeviceBuffer<std::byte>::uninitialized(stream, too_much);
    FAIL() << "expected oxide::Error";
  } catch (const oxide::Error &e) {
    EXPECT_EQ(e.kind(), ErrorKind::OutOfMemory);
    EXPECT_NE(std::string(e.what()).find("CUDA_ERROR_OUT_OF_MEMORY"), std::string::npos) << e.what();
    std::printf("%s\n", e.what());
  }
  try {
    (void)DeviceBuffer<std::byte>::allocate_async(stream, too_much);
    FAIL() << "expected oxide::Error";
  } catch (const oxide::Error &e) {
    EXPECT_EQ(e.kind(), ErrorKind::OutOfMemory);
    // The context's pool (cuMemAllocFromPoolAsync), or the default pool where there is none.
    EXPECT_NE(std::string(e.what()).find("Async: CUDA_ERROR_OUT_OF_MEMORY"), std::string::npos) << e.what();
  }
  // The context is still usable.
  auto buffer = DeviceBuffer<float>::allocate_async(stream, 1000);
  oxide::unsafe_launch(stream, oxide_test::add_one, cover(1000), buffer);
  stream.synchronize();
}

TEST_F(GpuRuntimeErrors, BuffersOfAnotherContext) {
  auto gpu = oxide::Context::create(0);
  auto cpu = oxide::Context::cpu();
  auto gpu_stream = gpu.create_stream();
  auto cpu_stream = cpu.create_stream();
  auto on_gpu = DeviceBuffer<float>::zeroed(gpu_stream, 64);
  auto on_cpu = DeviceBuffer<float>::zeroed(cpu_stream, 64);
  EXPECT_EQ(kind_of([&] { oxide::unsafe_launch(gpu_stream, oxide_test::add_one, cover(64), on_cpu); }),
            ErrorKind::WrongContext);
  EXPECT_EQ(kind_of([&] { oxide::unsafe_launch(cpu_stream, oxide_test::add_one, cover(64), on_gpu); }),
            ErrorKind::WrongContext);
  auto pinned = PinnedBuffer<float>::zeroed(gpu, 64);
  EXPECT_EQ(kind_of([&] { on_gpu.copy_to_async(cpu_stream, pinned); }), ErrorKind::WrongContext);
  EXPECT_EQ(kind_of([&] { on_cpu.copy_from_async(gpu_stream, pinned); }), ErrorKind::WrongContext);
  EXPECT_EQ(kind_of([&] { on_gpu.reset(cpu_stream); }), ErrorKind::WrongContext);
  auto borrowed =
      DeviceBuffer<float>::unsafe_borrow(cpu, on_gpu.device_ptr(), 64); // claims the wrong context
  EXPECT_EQ(kind_of([&] { oxide::unsafe_launch(gpu_stream, oxide_test::add_one, cover(64), borrowed); }),
            ErrorKind::WrongContext);
}

} // namespace
