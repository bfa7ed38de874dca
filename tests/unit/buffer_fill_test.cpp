// DeviceBuffer::fill / fill_bytes and BufferSlice::fill: stream-ordered stores of one value into
// every element, for every element size (the GPU uses cuMemsetD8/D16/D32Async when the value's
// bytes repeat, strided cuMemsetD2D*Async otherwise), on the CPU simulator and on a GPU.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "oxide/oxide.hpp"
#include "runtime_test_kernels.hpp"
#include "sim_test_support.hpp"

namespace {

using oxide::DeviceBuffer;
using oxide::ErrorKind;
using oxide::Graph;
using oxide::Stream;
using oxide_test::cover;
using oxide_test::kind_of;

/// 3 bytes, none repeating: no 1/2/4-byte memset stores it (cuMemsetD2D8Async per byte).
struct Rgb {
  std::uint8_t r, g, b;
  bool operator==(const Rgb &) const = default;
};
/// 12 bytes: three strided 32-bit memsets.
struct Point3 {
  float x, y, z;
  bool operator==(const Point3 &) const = default;
};
/// 6 bytes of 16-bit words: three strided 16-bit memsets.
struct Short3 {
  std::int16_t a, b, c;
  bool operator==(const Short3 &) const = default;
};

class BufferFill : public oxide_test::OnEachBackend {
protected:
  static void SetUpTestSuite() { oxide_test::register_runtime_test_kernels(); }

  /// Fills a buffer of `n` elements that first held `before` with `value`; every element must be
  /// `value` afterwards.
  template <class T> static void expect_fill(Stream &stream, std::size_t n, const T &before, const T &value) {
    auto buffer = DeviceBuffer<T>::from_host(stream, std::vector<T>(n, before));
    buffer.fill(stream, value);
    const std::vector<T> got = buffer.to_host(stream);
    ASSERT_EQ(got.size(), n);
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_TRUE(std::memcmp(&got[i], &value, sizeof(T)) == 0) << "element " << i << " of " << n;
  }
};

TEST_P(BufferFill, EveryElementSize) {
  auto ctx = context();
  auto stream = ctx.create_stream();
  const std::size_t n = 100003; // odd, not a multiple of any word
  expect_fill<std::uint8_t>(stream, n, 1, 0xab);
  expect_fill<std::int16_t>(stream, n, 1, -2);
  expect_fill<oxide::half>(stream, n, oxide::half(1.0f), oxide::half(-0.375f));
  expect_fill<oxide::bfloat16>(stream, n, oxide::bfloat16(1.0f), oxide::bfloat16(3.5f));
  expect_fill<float>(stream, n, 1.0f, 1.5f);
  expect_fill<std::uint32_t>(stream, n, 7u, 0x01020304u);
  expect_fill<double>(stream, n, 1.0, 3.25);                    // halves differ: two strided 32-bit memsets
  expect_fill<double>(stream, n, 1.0, -0.0);                    // 0x8000000000000000: not periodic either
  expect_fill<std::uint64_t>(stream, n, 5, 0);                  // periodic: one byte memset
  expect_fill<std::uint64_t>(stream, n, 5, ~0ull);              // periodic: one byte memset
  expect_fill<std::int64_t>(stream, n, 5, 0x1234567800000001);  // not periodic
  expect_fill<std::uint64_t>(stream, n, 5, 0x0000000700000007); // period 4
  expect_fill<Rgb>(stream, n, Rgb{1, 1, 1}, Rgb{10, 20, 30});
  expect_fill<Short3>(stream, n, Short3{1, 1, 1}, Short3{-1, 300, 7});
  expect_fill<Point3>(stream, n, Point3{}, Point3{1.0f, -2.0f, 0.5f});
  expect_fill<oxide::Float4>(stream, n, oxide::Float4{}, oxide::Float4{1.0f, 2.0f, 3.0f, 4.0f});
  expect_fill<std::array<double, 3>>(stream, 1000, {}, {1.0, 2.0, 3.0});
  expect_fill<float>(stream, 1, 0.0f, 9.0f); // one element: a 2-D memset of height 1
}

TEST_P(BufferFill, FillBytesSetsEveryByte) {
  auto ctx = context();
  auto stream = ctx.create_stream();
  auto ints = DeviceBuffer<int>::zeroed(stream, 1000);
  ints.fill_bytes(stream, 0xff);
  EXPECT_EQ(ints.to_host(stream), std::vector<int>(1000, -1));
  auto floats = DeviceBuffer<float>::zeroed(stream, 1000);
  floats.fill_bytes(stream, 0x3f); // 0x3f3f3f3f
  EXPECT_EQ(floats.to_host(stream), std::vector<float>(1000, std::bit_cast<float>(0x3f3f3f3fu)));
}

TEST_P(BufferFill, SliceFillsOnlyItsElements) {
  auto ctx = context();
  auto stream = ctx.create_stream();
  const std::size_t n = 1000;
  auto doubles = DeviceBuffer<double>::zeroed(stream, n);
  doubles.slice(100, 300).fill(stream, 2.5);
  doubles.slice(500, 400).slice(10, 20).fill(stream, -7.0); // elements 510..529
  const std::vector<double> got = doubles.to_host(stream);
  for (std::size_t i = 0; i < n; ++i) {
    const double want = i >= 100 && i < 400 ? 2.5 : i >= 510 && i < 530 ? -7.0 : 0.0;
    ASSERT_EQ(got[i], want) << "element " << i;
  }
  // An odd offset into a buffer of 2-byte elements, and into one of 1-byte elements.
  auto shorts = DeviceBuffer<std::uint16_t>::zeroed(stream, 9);
  shorts.slice(3, 5).fill(stream, 0xbeef);
  EXPECT_EQ(shorts.to_host(stream),
            (std::vector<std::uint16_t>{0, 0, 0, 0xbeef, 0xbeef, 0xbeef, 0xbeef, 0xbeef, 0}));
  auto rgb = DeviceBuffer<Rgb>::zeroed(stream, 5);
  rgb.slice(1, 3).fill(stream, Rgb{1, 2, 3});
  EXPECT_EQ(rgb.to_host(stream), (std::vector<Rgb>{{}, {1, 2, 3}, {1, 2, 3}, {1, 2, 3}, {}}));
  // An empty slice and an empty buffer store nothing.
  doubles.slice(n, 0).fill(stream, 1.0);
  DeviceBuffer<double>::zeroed(stream, 0).fill(stream, 1.0);
  EXPECT_EQ(doubles.to_host(stream), got);
  // A view covers its whole buffer: fill it through buffer().
  auto image = DeviceBuffer<float>::zeroed(stream, 12);
  image.view_2d(4, 3).buffer().fill(stream, 0.25f);
  EXPECT_EQ(image.to_host(stream), std::vector<float>(12, 0.25f));
}

TEST_P(BufferFill, OrderedOnTheStream) {
  auto ctx = context();
  auto stream = ctx.create_stream();
  const std::size_t n = 1 << 20;
  auto data = DeviceBuffer<float>::zeroed(stream, n);
  // Without waiting in between: the fill comes after the first launch and before the second.
  oxide::unsafe_launch(stream, oxide_test::add_one, cover(n), data);
  data.fill(stream, 10.0f);
  oxide::unsafe_launch(stream, oxide_test::add_one, cover(n), data);
  data.slice(0, 5).fill(stream, -1.0f);
  const std::vector<float> got = data.to_host(stream);
  for (std::size_t i = 0; i < n; i += 4093)
    ASSERT_EQ(got[i], i < 5 ? -1.0f : 11.0f) << "element " << i;
  EXPECT_EQ(got[n - 1], 11.0f);
}

TEST_P(BufferFill, GraphCaptureRecordsTheFill) {
  auto ctx = context();
  auto stream = ctx.create_stream();
  const std::size_t n = 1 << 16;
  auto data = DeviceBuffer<float>::zeroed(stream, n);
  auto wide = DeviceBuffer<double>::zeroed(stream, n);
  stream.synchronize();
  double value = 4.5;
  Graph graph = Graph::capture(stream, [&](Stream &s) {
    data.fill(s, 2.0f);
    oxide::unsafe_launch(s, oxide_test::add_one, cover(n), data);
    wide.fill(s, value); // not periodic: strided memsets on a GPU
  });
  value = -1.0; // the graph keeps the value of the capture, as a memset node does
  EXPECT_GE(graph.node_count(), 3u);
  EXPECT_EQ(data.to_host(stream), std::vector<float>(n, 0.0f)); // nothing ran during the capture
  EXPECT_EQ(wide.to_host(stream), std::vector<double>(n, 0.0));
  for (int i = 0; i < 2; ++i) {
    data.fill(stream, 100.0f); // overwritten by each replay
    wide.fill(stream, 100.0);
    graph.launch(stream);
    EXPECT_EQ(data.to_host(stream), std::vector<float>(n, 3.0f)) << "replay " << i;
    EXPECT_EQ(wide.to_host(stream), std::vector<double>(n, 4.5)) << "replay " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, BufferFill, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool> &info) {
                           return std::string(info.param ? "Gpu" : "Simulator");
                         });

// A buffer of one context filled on another context's stream: WrongContext, before anything is
// enqueued. All simulator contexts are one device, so this needs a GPU.
TEST(BufferFillContexts, AnotherContextsBufferIsRefused) {
  if (oxide::Device::count() == 0)
    GTEST_SKIP() << "skipped: no CUDA device";
  auto gpu = oxide::Context::create(0);
  auto cpu = oxide::Context::cpu();
  auto gpu_stream = gpu.create_stream();
  auto cpu_stream = cpu.create_stream();
  auto on_gpu = DeviceBuffer<float>::zeroed(gpu_stream, 16);
  auto on_cpu = DeviceBuffer<double>::zeroed(cpu_stream, 16);
  EXPECT_EQ(kind_of([&] { on_gpu.fill(cpu_stream, 1.0f); }), ErrorKind::WrongContext);
  EXPECT_EQ(kind_of([&] { on_gpu.slice(2, 4).fill(cpu_stream, 1.0f); }), ErrorKind::WrongContext);
  EXPECT_EQ(kind_of([&] { on_gpu.fill_bytes(cpu_stream, 0); }), ErrorKind::WrongContext);
  EXPECT_EQ(kind_of([&] { on_cpu.fill(gpu_stream, 1.0); }), ErrorKind::WrongContext);
  try {
    on_cpu.fill(gpu_stream, 1.0);
    ADD_FAILURE() << "no error";
  } catch (const oxide::Error &e) {
    EXPECT_NE(std::string(e.what()).find("fill: the buffer belongs to"), std::string::npos) << e.what();
  }
  EXPECT_EQ(on_gpu.to_host(gpu_stream), std::vector<float>(16, 0.0f)); // untouched
  EXPECT_EQ(on_cpu.to_host(cpu_stream), std::vector<double>(16, 0.0));
}

} // namespace
