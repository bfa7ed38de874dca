// Streams (query, host callbacks, waits on events, adoption of foreign CUstreams) and events
// (record, synchronize, query, elapsed time), on the CPU simulator and on a GPU.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "oxide/oxide.hpp"
#include "runtime_test_kernels.hpp"
#include "sim_test_support.hpp"

namespace {

using oxide::DeviceBuffer;
using oxide::ErrorKind;
using oxide::Event;
using oxide::PinnedBuffer;
using oxide::Stream;
using oxide_test::cover;
using oxide_test::kind_of;

// A GPU clock runs at 1-2 GHz: this many cycles keeps one thread busy for roughly 100-200 ms.
constexpr std::uint64_t kLongSpin = 200'000'000;

class SimStreams : public ::testing::Test {
protected:
  static void SetUpTestSuite() { oxide_test::register_runtime_test_kernels(); }
  oxide::Context ctx = oxide::Context::cpu();
};

TEST_F(SimStreams, KindsAndHandles) {
  auto owned = ctx.create_stream();
  EXPECT_EQ(owned.kind(), Stream::Kind::Owned);
  EXPECT_FALSE(owned.is_default());
  EXPECT_EQ(owned.native_handle(), nullptr);
  auto standard = ctx.default_stream();
  EXPECT_EQ(standard.kind(), Stream::Kind::Default);
  EXPECT_TRUE(standard.is_default());
  EXPECT_FALSE(owned.is_capturing());
  EXPECT_FALSE(standard.is_capturing());
}

TEST_F(SimStreams, QueryIsTrueOnceWorkIsSubmitted) {
  auto stream = ctx.create_stream();
  EXPECT_TRUE(stream.query());
  auto buffer = DeviceBuffer<float>::zeroed(stream, 1000);
  oxide::unsafe_launch(stream, oxide_test::add_one, cover(1000), buffer);
  EXPECT_TRUE(stream.query()); // the simulator ran the launch before it returned
  EXPECT_EQ(buffer.to_host(stream), std::vector<float>(1000, 1.0f));
}

TEST_F(SimStreams, CallbacksRunInStreamOrder) {
  auto stream = ctx.create_stream();
  auto buffer = DeviceBuffer<float>::zeroed(stream, 16);
  auto pinned = PinnedBuffer<float>::zeroed(ctx, 16);
  std::vector<float> seen;
  oxide::unsafe_launch(stream, oxide_test::add_one, cover(16), buffer);
  buffer.copy_to_async(stream, pinned);
  stream.then([&] { seen.push_back(pinned[15]); });
  oxide::unsafe_launch(stream, oxide_test::add_one, cover(16), buffer);
  buffer.copy_to_async(stream, pinned);
  stream.then([&] { seen.push_back(pinned[15]); });
  stream.synchronize();
  EXPECT_EQ(seen, (std::vector<float>{1.0f, 2.0f}));

  auto standard = ctx.default_stream(); // the default stream takes callbacks too
  bool ran = false;
  standard.then([&] { ran = true; });
  standard.synchronize();
  EXPECT_TRUE(ran);
}

TEST_F(SimStreams, CallbackExceptionsAreReportedBySynchronizeOnce) {
  auto stream = ctx.create_stream();
  stream.then([] { throw std::runtime_error("boom"); });
  try {
    stream.synchronize();
    FAIL() << "expected oxide::Error";
  } catch (const oxide::Error &e) {
    EXPECT_EQ(e.kind(), ErrorKind::HostCallbackFailed);
    EXPECT_STREQ(e.what(), "oxide: a host callback (Stream::then) threw: boom");
  }
  stream.synchronize(); // reported once

  stream.then([] { throw std::runtime_error("first"); });
  stream.then([] { throw 42; });
  try {
    (void)stream.query();
    FAIL() << "expected oxide::Error";
  } catch (const oxide::Error &e) {
    EXPECT_EQ(e.kind(), ErrorKind::HostCallbackFailed);
    EXPECT_STREQ(e.what(), "oxide: 2 host callbacks (Stream::then) threw; the first: first");
  }
  EXPECT_TRUE(stream.query());

  stream.then([] { throw 42; });
  const std::string what = oxide_test::error_of([&] { stream.synchronize(); });
  EXPECT_NE(what.find("an exception not derived from std::exception"), std::string::npos) << what;
  EXPECT_THROW(stream.then(std::function<void()>{}), oxide::Error);
}

TEST_F(SimStreams, AdoptOnlyTheDefaultStream) {
  auto adopted = Stream::adopt(ctx, nullptr);
  EXPECT_TRUE(adopted.is_default());
  int foreign = 0;
  EXPECT_EQ(kind_of([&] { (void)Stream::adopt(ctx, &foreign); }), ErrorKind::UnsupportedOnSimulator);
}

TEST_F(SimStreams, WaitingForASimulatorEventReturnsAtOnce) {
  auto first = ctx.create_stream(), second = ctx.create_stream();
  auto event = Event::create(ctx);
  second.wait(event); // never recorded: complete
  event.record(first);
  second.wait(event);
  EXPECT_TRUE(second.query());
}

TEST_F(SimStreams, MovedFromStreamsAreRejected) {
  auto stream = ctx.create_stream();
  auto moved = std::move(stream);
  EXPECT_TRUE(stream.is_default()); // NOLINT(bugprone-use-after-move): what moved-from objects say
  EXPECT_EQ(stream.native_handle(), nullptr);
  auto event = Event::create(ctx);
  for (const std::function<void()> &use : std::vector<std::function<void()>>{
           [&] { stream.synchronize(); }, [&] { (void)stream.query(); }, [&] { stream.then([] {}); },
           [&] { stream.wait(event); }, [&] { event.record(stream); },
           [&] { (void)stream.is_capturing(); }}) {
    const std::string what = oxide_test::error_of(use);
    EXPECT_EQ(what, "oxide: use of a moved-from oxide::Stream");
  }
  moved.synchronize();
}

class SimEvents : public ::testing::Test {
protected:
  oxide::Context ctx = oxide::Context::cpu();
};

TEST_F(SimEvents, ElapsedTimeIsHostTimeBetweenRecords) {
  auto stream = ctx.create_stream();
  auto start = Event::create(ctx), end = Event::create(ctx);
  EXPECT_TRUE(start.timing_enabled());
  EXPECT_EQ(start.native_handle(), nullptr);
  EXPECT_TRUE(start.query()); // never recorded: complete
  start.record(stream);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  end.record(stream);
  EXPECT_TRUE(end.query());
  end.synchronize();
  const float ms = Event::elapsed_ms(start, end);
  EXPECT_GE(ms, 19.0f);
  EXPECT_LT(ms, 10'000.0f);
  EXPECT_LE(Event::elapsed_ms(end, start), -19.0f);

  end.record(stream); // re-recording moves the event
  EXPECT_GE(Event::elapsed_ms(start, end), ms);

  auto moved = std::move(start);
  EXPECT_GE(Event::elapsed_ms(moved, end), ms);
  EXPECT_EQ(oxide_test::error_of([&] { (void)start.query(); }), "oxide: use of a moved-from oxide::Event");
}

TEST_F(SimEvents, ElapsedTimeNeedsTwoRecordedTimedEvents) {
  auto stream = ctx.default_stream();
  auto recorded = Event::create(ctx), never = Event::create(ctx);
  auto untimed = Event::create(ctx, Event::Timing::Disabled);
  EXPECT_FALSE(untimed.timing_enabled());
  recorded.record(stream);
  untimed.record(stream);
  try {
    (void)Event::elapsed_ms(recorded, never);
    FAIL() << "expected oxide::Error";
  } catch (const oxide::Error &e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidEvent);
    EXPECT_STREQ(e.what(),
                 "oxide: Event::elapsed_ms: the end event was never recorded (outside a graph capture)");
  }
  try {
    (void)Event::elapsed_ms(untimed, recorded);
    FAIL() << "expected oxide::Error";
  } catch (const oxide::Error &e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidEvent);
    EXPECT_STREQ(e.what(),
                 "oxide: Event::elapsed_ms: the start event was created with Event::Timing::Disabled");
  }
}

// ------------------------------------------------------------------------------------------------
// On a GPU.

class GpuStreams : public ::testing::Test {
protected:
  static void SetUpTestSuite() { oxide_test::register_runtime_test_kernels(); }
  void SetUp() override { OXIDE_REQUIRE_GPU(); }
};

TEST_F(GpuStreams, QueryTellsWhetherWorkIsDone) {
  auto ctx = oxide::Context::create(0);
  auto stream = ctx.create_stream();
  EXPECT_NE(stream.native_handle(), nullptr);
  EXPECT_TRUE(stream.query());
  oxide::unsafe_launch(stream, oxide_test::spin, oxide::LaunchConfig1D{1, 1}, kLongSpin);
  EXPECT_FALSE(stream.query()); // the kernel runs for about 100 ms
  stream.synchronize();
  EXPECT_TRUE(stream.query());
}

TEST_F(GpuStreams, CallbacksRunAfterTheWorkBeforeThem) {
  auto ctx = oxide::Context::create(0);
  auto stream = ctx.create_stream();
  const std::size_t n = 1 << 16;
  auto buffer = DeviceBuffer<float>::zeroed(stream, n);
  auto pinned = PinnedBuffer<float>::zeroed(ctx, n);
  std::atomic<int> calls = 0;
  std::vector<float> seen;
  oxide::unsafe_launch(stream, oxide_test::spin, oxide::LaunchConfig1D{1, 1}, kLongSpin / 4);
  for (int i = 0; i < 3; ++i) {
    oxide::unsafe_launch(stream, oxide_test::add_one, cover(n), buffer);
    buffer.copy_to_async(stream, pinned);
    stream.then([&] {
      seen.push_back(pinned[n - 1]);
      ++calls;
    });
  }
  EXPECT_LT(calls.load(), 3); // the spin is still running
  stream.synchronize();
  EXPECT_EQ(calls.load(), 3);
  EXPECT_EQ(seen, (std::vector<float>{1.0f, 2.0f, 3.0f}));
}

TEST_F(GpuStreams, CallbackExceptionsStayOnTheHostThread) {
  auto ctx = oxide::Context::create(0);
  auto stream = ctx.create_stream();
  stream.then([] { throw std::runtime_error("from the driver's thread"); });
  EXPECT_EQ(kind_of([&] { stream.synchronize(); }), ErrorKind::HostCallbackFailed);
  stream.synchronize();
  auto standard = ctx.default_stream();
  std::atomic<bool> ran = false;
  standard.then([&] { ran = true; });
  standard.synchronize();
  EXPECT_TRUE(ran.load());
}

TEST_F(GpuStreams, WaitOrdersAnotherStreamAfterAnEvent) {
  auto ctx = oxide::Context::create(0);
  auto producer = ctx.create_stream(), consumer = ctx.create_stream();
  const std::size_t n = 1 << 20;
  auto buffer = DeviceBuffer<float>::zeroed(producer, n);
  producer.synchronize();
  auto pinned = PinnedBuffer<float>::zeroed(ctx, n);
  auto ready = Event::create(ctx, Event::Timing::Disabled);
  // Load add_one's module first: loading a module waits for the kernels running in the
  // context (the driver allocates its code), which would let the spin finish before record.
  oxide::unsafe_launch(producer, oxide_test::add_one, cover(n), buffer);
  oxide::unsafe_launch(producer, oxide_test::spin, oxide::LaunchConfig1D{1, 1}, kLongSpin / 2);
  oxide::unsafe_launch(producer, oxide_test::add_one, cover(n), buffer);
  ready.record(producer);
  EXPECT_FALSE(ready.query());
  consumer.wait(ready);
  buffer.copy_to_async(consumer, pinned);
  consumer.synchronize();
  EXPECT_TRUE(ready.query());
  for (std::size_t i = 0; i < n; i += 4099)
    ASSERT_EQ(pinned[i], 2.0f) << "element " << i;

  // A simulator stream waits for a GPU event on the host.
  auto cpu = oxide::Context::cpu();
  auto cpu_stream = cpu.create_stream();
  oxide::unsafe_launch(producer, oxide_test::spin, oxide::LaunchConfig1D{1, 1}, kLongSpin / 4);
  ready.record(producer);
  cpu_stream.wait(ready);
  EXPECT_TRUE(ready.query());
}

TEST_F(GpuStreams, AdoptedStreamsAreUsedButNotDestroyed) {
  auto ctx = oxide::Context::create(0);
  auto owner = ctx.create_stream(); // stands for a CUstream made by other CUDA code
  const std::size_t n = 4096;
  auto buffer = DeviceBuffer<float>::zeroed(owner, n);
  {
    auto adopted = Stream::adopt(ctx, owner.native_handle());
    EXPECT_EQ(adopted.kind(), Stream::Kind::Adopted);
    EXPECT_EQ(adopted.native_handle(), owner.native_handle());
    oxide::unsafe_launch(adopted, oxide_test::add_one, cover(n), buffer);
    adopted.synchronize();
  } // not destroyed here
  oxide::unsafe_launch(owner, oxide_test::add_one, cover(n), buffer);
  EXPECT_EQ(buffer.to_host(owner), std::vector<float>(n, 2.0f));
  EXPECT_TRUE(Stream::adopt(ctx, nullptr).is_default());
  auto cpu = oxide::Context::cpu();
  EXPECT_EQ(kind_of([&] { (void)Stream::adopt(cpu, owner.native_handle()); }),
            ErrorKind::UnsupportedOnSimulator);
  if (oxide::Device::count() >= 2) {
    auto other = oxide::Context::create(1);
    EXPECT_EQ(kind_of([&] { (void)Stream::adopt(other, owner.native_handle()); }),
              ErrorKind::WrongStreamContext);
  }
}

TEST_F(GpuStreams, EventsTimeDeviceWork) {
  auto ctx = oxide::Context::create(0);
  auto stream = ctx.create_stream();
  auto start = Event::create(ctx), end = Event::create(ctx);
  EXPECT_NE(start.native_handle(), nullptr);
  start.record(stream);
  oxide::unsafe_launch(stream, oxide_test::spin, oxide::LaunchConfig1D{1, 1}, kLongSpin / 4);
  end.record(stream);
  EXPECT_FALSE(end.query());
  const float ms = Event::elapsed_ms(start, end); // waits for `end`
  EXPECT_TRUE(end.query());
  EXPECT_GT(ms, 1.0f);
  end.synchronize();
  std::printf("%llu cycles of spin: %.3f ms\n", static_cast<unsigned long long>(kLongSpin / 4), ms);

  auto untimed = Event::create(ctx, Event::Timing::Disabled);
  untimed.record(stream);
  EXPECT_EQ(kind_of([&] { (void)Event::elapsed_ms(start, untimed); }), ErrorKind::InvalidEvent);
  auto never = Event::create(ctx);
  EXPECT_EQ(kind_of([&] { (void)Event::elapsed_ms(start, never); }), ErrorKind::InvalidEvent);

  auto cpu = oxide::Context::cpu();
  auto cpu_stream = cpu.create_stream();
  EXPECT_EQ(kind_of([&] { start.record(cpu_stream); }), ErrorKind::WrongStreamContext);
  auto cpu_event = Event::create(cpu);
  cpu_event.record(cpu_stream);
  EXPECT_EQ(kind_of([&] { (void)Event::elapsed_ms(start, cpu_event); }), ErrorKind::WrongContext);
  stream.wait(cpu_event); // complete: nothing to wait for
  stream.synchronize();
}

} // namespace
