// oxide::Graph: capture and replay of launches, copies and host callbacks, and the errors of a
// capture, on the CPU simulator and on a GPU.
#include <gtest/gtest.h>

#include <atomic>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "oxide/oxide.hpp"
#include "runtime_test_kernels.hpp"
#include "sim_test_support.hpp"

namespace {

using oxide::DeviceBuffer;
using oxide::ErrorKind;
using oxide::Graph;
using oxide::PinnedBuffer;
using oxide::Stream;
using oxide_test::cover;
using oxide_test::kind_of;

/// Reads past the end of its span: a kernel fault.
void out_of_bounds(oxide::Span<float> data) {
  if (oxide::thread::index_1d().get() == 0)
    data[data.size()] = 0.0f;
}

class Graphs : public oxide_test::OnEachBackend {
protected:
  static void SetUpTestSuite() {
    oxide_test::register_runtime_test_kernels();
    oxide::sim::register_kernel(out_of_bounds, "out_of_bounds");
  }
};

TEST_P(Graphs, CaptureRecordsAndLaunchReplays) {
  auto ctx = context();
  auto stream = ctx.create_stream();
  const std::size_t n = 1 << 16;
  auto buffer = DeviceBuffer<float>::zeroed(stream, n);
  auto pinned = PinnedBuffer<float>::zeroed(ctx, n);
  stream.synchronize();
  std::atomic<int> callbacks = 0;
  std::vector<float> seen;

  Graph graph = Graph::capture(stream, [&](Stream &s) {
    EXPECT_TRUE(s.is_capturing());
    oxide::unsafe_launch(s, oxide_test::add_one, cover(n), buffer);
    oxide::unsafe_launch(s, oxide_test::add_one, cover(n), buffer);
    buffer.copy_to_async(s, pinned);
    s.then([&] {
      seen.push_back(pinned[n - 1]);
      ++callbacks;
    });
  });
  EXPECT_FALSE(stream.is_capturing());
  EXPECT_EQ(graph.is_simulated(), !GetParam());
  EXPECT_EQ(graph.node_count(), 4u);
  EXPECT_EQ(graph.native_handle() != nullptr, GetParam());
  EXPECT_EQ(graph.graph_handle() != nullptr, GetParam());
  EXPECT_EQ(buffer.to_host(stream), std::vector<float>(n, 0.0f)); // nothing ran during the capture
  EXPECT_EQ(callbacks.load(), 0);

  for (int i = 0; i < 3; ++i)
    graph.launch(stream);
  stream.synchronize();
  EXPECT_EQ(callbacks.load(), 3);
  EXPECT_EQ(seen, (std::vector<float>{2.0f, 4.0f, 6.0f}));
  EXPECT_EQ(buffer.to_host(stream), std::vector<float>(n, 6.0f));

  // On another stream of the context, and after the Graph object moved.
  auto other = ctx.create_stream();
  Graph moved = std::move(graph);
  moved.launch(other);
  other.synchronize();
  EXPECT_EQ(buffer.to_host(other), std::vector<float>(n, 8.0f));
  EXPECT_EQ(oxide_test::error_of([&] { graph.launch(stream); }), // NOLINT(bugprone-use-after-move)
            "oxide: use of a moved-from oxide::Graph");
}

TEST_P(Graphs, ArgumentsAreThoseOfTheCaptureAndHostMemoryIsReadAtLaunch) {
  auto ctx = context();
  auto stream = ctx.create_stream();
  const std::size_t n = 4096;
  auto input = PinnedBuffer<float>::zeroed(ctx, n);
  auto in = DeviceBuffer<float>::zeroed(stream, n);
  auto out = DeviceBuffer<float>::zeroed(stream, n);
  auto result = PinnedBuffer<float>::zeroed(ctx, n);
  auto launch = oxide::prepare(ctx, oxide_test::scale, cover(n));
  float factor = 2.0f;
  Graph graph = Graph::capture(stream, [&](Stream &s) {
    in.copy_from_async(s, input); // reads `input` at every launch
    launch(s, in, factor, out);   // `factor` is copied now
    out.copy_to_async(s, result);
  });
  factor = 100.0f;
  std::iota(input.begin(), input.end(), 1.0f);
  graph.launch(stream);
  stream.synchronize();
  for (std::size_t i = 0; i < n; i += 511)
    ASSERT_EQ(result[i], 2.0f * static_cast<float>(i + 1)) << "element " << i;
  std::fill(input.begin(), input.end(), 3.0f);
  graph.launch(stream);
  stream.synchronize();
  EXPECT_EQ(std::vector<float>(result.begin(), result.end()), std::vector<float>(n, 6.0f));
}

TEST_P(Graphs, EmptyCaptureAndGraphsOfOtherContexts) {
  auto ctx = context();
  auto stream = ctx.create_stream();
  Graph empty = Graph::capture(stream, [](Stream &) {});
  EXPECT_EQ(empty.node_count(), 0u);
  empty.launch(stream);
  stream.synchronize();
  if (GetParam()) {
    auto cpu = oxide::Context::cpu();
    auto cpu_stream = cpu.create_stream();
    EXPECT_EQ(kind_of([&] { empty.launch(cpu_stream); }), ErrorKind::WrongStreamContext);
  }
}

TEST_P(Graphs, WhatACaptureForbids) {
  auto ctx = context();
  auto stream = ctx.create_stream();
  const std::size_t n = 1024;
  auto buffer = DeviceBuffer<float>::zeroed(stream, n);
  stream.synchronize();
  auto capture_error = [&](auto body) {
    try {
      (void)Graph::capture(stream, body);
    } catch (const oxide::Error &e) {
      EXPECT_FALSE(stream.is_capturing());
      return std::string(e.kind_name()) + ": " + e.what();
    }
    ADD_FAILURE() << "expected oxide::Error";
    return std::string();
  };
  auto expect_capture_error = [&](auto body, const std::string &needle) {
    const std::string what = capture_error(body);
    EXPECT_EQ(what.rfind("GraphCapture: ", 0), 0u) << what;
    EXPECT_NE(what.find(needle), std::string::npos) << what;
  };

  expect_capture_error([](Stream &s) { s.synchronize(); },
                       "Stream::synchronize is not allowed while the stream is being captured into a graph");
  expect_capture_error([](Stream &s) { (void)s.query(); }, "Stream::query is not allowed");
  expect_capture_error([&](Stream &s) { (void)buffer.to_host(s); }, "use copy_to_async with a PinnedBuffer");
  expect_capture_error([&](Stream &s) { (void)DeviceBuffer<float>::zeroed(s, 4); },
                       "DeviceBuffer allocation is not allowed while this thread captures a stream");
  expect_capture_error([&](Stream &s) { (void)DeviceBuffer<float>::allocate_async(s, 4); },
                       "DeviceBuffer::allocate_async is not allowed");
  expect_capture_error([&](Stream &) { (void)PinnedBuffer<float>::zeroed(ctx, 4); },
                       "PinnedBuffer allocation is not allowed");
  expect_capture_error([&](Stream &) { ctx.synchronize(); }, "Context::synchronize is not allowed");
  auto doomed = DeviceBuffer<float>::zeroed(stream, n);
  expect_capture_error(
      [&](Stream &s) {
        oxide::unsafe_launch(s, oxide_test::add_one, cover(n), doomed);
        doomed.reset(); // freed after the capture, which then fails
      },
      "a DeviceBuffer was freed during the capture");
  EXPECT_TRUE(doomed.empty());
  expect_capture_error([](Stream &s) { (void)Graph::capture(s, [](Stream &) {}); },
                       "the stream is already being captured");
  // After all these, the stream captures and runs normally.
  Graph graph = Graph::capture(
      stream, [&](Stream &s) { oxide::unsafe_launch(s, oxide_test::add_one, cover(n), buffer); });
  graph.launch(stream);
  EXPECT_EQ(buffer.to_host(stream), std::vector<float>(n, 1.0f));
}

TEST_P(Graphs, TheDefaultStreamCannotBeCaptured) {
  auto ctx = context();
  auto standard = ctx.default_stream();
  EXPECT_EQ(kind_of([&] { (void)Graph::capture(standard, [](Stream &) {}); }), ErrorKind::GraphCapture);
}

TEST_P(Graphs, ExceptionsFromTheBodyEndTheCaptureAndPropagate) {
  auto ctx = context();
  auto stream = ctx.create_stream();
  const std::size_t n = 256;
  auto buffer = DeviceBuffer<float>::zeroed(stream, n);
  EXPECT_THROW((void)Graph::capture(stream,
                                    [&](Stream &s) {
                                      oxide::unsafe_launch(s, oxide_test::add_one, cover(n), buffer);
                                      throw std::runtime_error("user error");
                                    }),
               std::runtime_error);
  EXPECT_FALSE(stream.is_capturing());
  // The stream works normally again: the launch runs now.
  oxide::unsafe_launch(stream, oxide_test::add_one, cover(n), buffer);
  EXPECT_EQ(buffer.to_host(stream), std::vector<float>(n, 1.0f));
}

TEST_P(Graphs, GraphsLaunchedInACaptureAreReplayedWithIt) {
  if (GetParam())
    GTEST_SKIP() << "simulator only: whether a GPU captures cuGraphLaunch is the driver's business";
  auto ctx = context();
  auto stream = ctx.create_stream();
  const std::size_t n = 128;
  auto buffer = DeviceBuffer<float>::zeroed(stream, n);
  Graph inner = Graph::capture(
      stream, [&](Stream &s) { oxide::unsafe_launch(s, oxide_test::add_one, cover(n), buffer); });
  Graph outer = Graph::capture(stream, [&](Stream &s) {
    inner.launch(s);
    inner.launch(s);
  });
  EXPECT_EQ(buffer.to_host(stream), std::vector<float>(n, 0.0f));
  outer.launch(stream);
  EXPECT_EQ(buffer.to_host(stream), std::vector<float>(n, 2.0f));
}

TEST_P(Graphs, KernelFaultsSurfaceAtLaunchOnTheSimulator) {
  if (GetParam())
    GTEST_SKIP() << "simulator only: a fault on a GPU loses the context";
  auto ctx = context();
  auto stream = ctx.create_stream();
  auto buffer = DeviceBuffer<float>::zeroed(stream, 10);
  Graph graph =
      Graph::capture(stream, [&](Stream &s) { oxide::unsafe_launch(s, out_of_bounds, cover(10), buffer); });
  EXPECT_EQ(kind_of([&] { graph.launch(stream); }), ErrorKind::KernelFault);
}

TEST_P(Graphs, UsingTheDefaultStreamDuringACaptureFailsTheCapture) {
  if (!GetParam())
    GTEST_SKIP() << "GPU only: the simulator's default stream does not depend on other streams";
  auto ctx = context();
  auto stream = ctx.create_stream();
  auto standard = ctx.default_stream();
  const std::size_t n = 256;
  auto buffer = DeviceBuffer<float>::zeroed(stream, n);
  stream.synchronize();
  EXPECT_EQ(kind_of([&] {
              (void)Graph::capture(stream, [&](Stream &) {
                // The legacy default stream would wait for the stream being captured.
                oxide::unsafe_launch(standard, oxide_test::add_one, cover(n), buffer);
              });
            }),
            ErrorKind::GraphCapture);
  EXPECT_FALSE(stream.is_capturing());
  oxide::unsafe_launch(stream, oxide_test::add_one, cover(n), buffer);
  stream.synchronize();
  ctx.synchronize();
}

INSTANTIATE_TEST_SUITE_P(Backends, Graphs, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool> &info) {
                           return std::string(info.param ? "Gpu" : "Simulator");
                         });

} // namespace
