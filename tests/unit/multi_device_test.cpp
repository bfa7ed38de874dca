// Several contexts in one process: DeviceBuffer::copy_from within and across contexts, and peer
// access. The simulator paths always run; the GPU ones skip, with the reason printed, without
// one CUDA device (or two, for the tests across devices).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <numeric>
#include <vector>

#include "oxide/oxide.hpp"
#include "sim_test_support.hpp"

namespace {

using oxide::DeviceBuffer;
using oxide::ErrorKind;
using oxide_test::error_of;
using oxide_test::simulator;

std::vector<std::uint32_t> iota_vector(std::size_t n, std::uint32_t first = 0) {
  std::vector<std::uint32_t> v(n);
  std::iota(v.begin(), v.end(), first);
  return v;
}

ErrorKind kind_of(const std::function<void()> &body) {
  try {
    body();
  } catch (const oxide::Error &e) {
    return e.kind();
  }
  ADD_FAILURE() << "expected an oxide::Error";
  return ErrorKind::Other;
}

TEST(MultiDeviceSim, CopyFromWithinOneContext) {
  auto ctx = simulator();
  auto stream = ctx.default_stream();
  auto src = DeviceBuffer<std::uint32_t>::from_host(stream, iota_vector(1000));
  auto dst = DeviceBuffer<std::uint32_t>::zeroed(stream, 1000);
  dst.copy_from(stream, src);
  EXPECT_EQ(dst.to_host(stream), iota_vector(1000));
  dst.copy_from(stream, dst); // a copy onto itself changes nothing
  EXPECT_EQ(dst.to_host(stream), iota_vector(1000));
  DeviceBuffer<std::uint32_t> empty_dst, empty_src;
  empty_dst.copy_from(stream, empty_src); // nothing to copy
}

TEST(MultiDeviceSim, CopyFromChecksSizes) {
  auto ctx = simulator();
  auto stream = ctx.default_stream();
  auto src = DeviceBuffer<float>::zeroed(stream, 10);
  auto dst = DeviceBuffer<float>::zeroed(stream, 11);
  EXPECT_EQ(error_of([&] { dst.copy_from(stream, src); }),
            "oxide: copy_from: the destination buffer has 11 elements but the source buffer has 10");
  EXPECT_EQ(kind_of([&] { dst.copy_from(stream, src); }), ErrorKind::SizeMismatch);
  DeviceBuffer<float> empty;
  EXPECT_EQ(kind_of([&] { empty.copy_from(stream, src); }), ErrorKind::SizeMismatch);
}

TEST(MultiDeviceSim, CopyFromBetweenTwoSimulatorContexts) {
  auto first = simulator();
  auto second = simulator(/*check=*/true, /*threads=*/2);
  auto s1 = first.create_stream();
  auto s2 = second.create_stream();
  auto src = DeviceBuffer<std::uint32_t>::from_host(s1, iota_vector(4097, 5));
  auto dst = DeviceBuffer<std::uint32_t>::uninitialized(s2, 4097);
  dst.copy_from(s2, src);
  EXPECT_EQ(dst.to_host(s2), iota_vector(4097, 5));
  // The other way, on a stream of the destination's context.
  auto back = DeviceBuffer<std::uint32_t>::zeroed(s1, 4097);
  back.copy_from(s1, dst);
  EXPECT_EQ(back.to_host(s1), iota_vector(4097, 5));
}

TEST(MultiDeviceSim, PeerQueriesAnswerNo) {
  auto first = simulator();
  auto second = simulator();
  EXPECT_FALSE(first.can_access_peer(second));
  EXPECT_FALSE(first.can_access_peer(first));
  EXPECT_EQ(kind_of([&] { first.enable_peer_access(second); }), ErrorKind::PeerAccessUnavailable);
  EXPECT_EQ(
      error_of([&] { first.enable_peer_access(second); }),
      "oxide: enable_peer_access: no peer access between the CPU simulator and the CPU simulator: the CPU "
      "simulator's memory is host memory (copies between it and a GPU go through the host)");
  EXPECT_EQ(oxide::to_string(ErrorKind::PeerAccessUnavailable), "PeerAccessUnavailable");
}

// --- GPUs ---

class MultiDeviceGpu : public ::testing::Test {
protected:
  void SetUp() override {
    if (oxide::Device::count() == 0)
      GTEST_SKIP() << "skipped: no CUDA device";
  }
};

TEST_F(MultiDeviceGpu, CopyFromWithinOneDevice) {
  auto ctx = oxide::Context::create(0);
  auto other = oxide::Context::create(0); // another Context of the same device and primary context
  auto stream = ctx.create_stream();
  auto src = DeviceBuffer<std::uint32_t>::from_host(stream, iota_vector(1 << 20));
  auto dst = DeviceBuffer<std::uint32_t>::zeroed(stream, 1 << 20);
  dst.copy_from(stream, src);
  EXPECT_EQ(dst.to_host(stream), iota_vector(1 << 20));
  auto other_stream = other.create_stream();
  auto third = DeviceBuffer<std::uint32_t>::zeroed(other_stream, 1 << 20);
  third.copy_from(other_stream, dst);
  EXPECT_EQ(third.to_host(other_stream), iota_vector(1 << 20));
  EXPECT_TRUE(ctx.can_access_peer(other));
  ctx.enable_peer_access(other); // one device: nothing to enable
  auto small = DeviceBuffer<std::uint32_t>::zeroed(stream, 3);
  EXPECT_EQ(kind_of([&] { small.copy_from(stream, src); }), ErrorKind::SizeMismatch);
  dst.copy_from(other_stream, src); // the same primary context: the stream may belong to either
  EXPECT_EQ(dst.to_host(other_stream), iota_vector(1 << 20));
}

TEST_F(MultiDeviceGpu, CopyFromBetweenGpuAndSimulator) {
  auto gpu = oxide::Context::create(0);
  auto cpu = oxide::Context::cpu();
  auto gpu_stream = gpu.create_stream();
  auto cpu_stream = cpu.default_stream();
  EXPECT_FALSE(gpu.can_access_peer(cpu));
  EXPECT_EQ(kind_of([&] { gpu.enable_peer_access(cpu); }), ErrorKind::PeerAccessUnavailable);
  auto on_gpu = DeviceBuffer<std::uint32_t>::from_host(gpu_stream, iota_vector(100000));
  auto on_cpu = DeviceBuffer<std::uint32_t>::zeroed(cpu_stream, 100000);
  on_cpu.copy_from(cpu_stream, on_gpu);
  EXPECT_EQ(on_cpu.to_host(cpu_stream), iota_vector(100000));
  auto back = DeviceBuffer<std::uint32_t>::zeroed(gpu_stream, 100000);
  back.copy_from(gpu_stream, on_cpu);
  EXPECT_EQ(back.to_host(gpu_stream), iota_vector(100000));
  EXPECT_EQ(kind_of([&] { back.copy_from(cpu_stream, on_cpu); }), ErrorKind::WrongContext);
}

class TwoGpus : public ::testing::Test {
protected:
  void SetUp() override {
    if (oxide::Device::count() < 2)
      GTEST_SKIP() << "skipped: fewer than two CUDA devices";
  }
};

TEST_F(TwoGpus, ContextsOfEveryDeviceInOneThread) {
  std::vector<oxide::Context> contexts;
  std::vector<oxide::Stream> streams;
  std::vector<DeviceBuffer<std::uint32_t>> buffers;
  for (int d = 0; d < oxide::Device::count(); ++d) {
    contexts.push_back(oxide::Context::create(d));
    EXPECT_EQ(contexts.back().device().ordinal(), d);
    streams.push_back(contexts.back().create_stream());
  }
  for (std::size_t d = 0; d < contexts.size(); ++d) // interleaved: each call makes its own context current
    buffers.push_back(
        DeviceBuffer<std::uint32_t>::from_host(streams[d], iota_vector(1000, std::uint32_t(d))));
  for (std::size_t d = 0; d < contexts.size(); ++d)
    EXPECT_EQ(buffers[d].to_host(streams[d]), iota_vector(1000, std::uint32_t(d)));
  EXPECT_EQ(kind_of([&] { (void)buffers[1].to_host(streams[0]); }), ErrorKind::WrongContext);
}

TEST_F(TwoGpus, PeerAndStagedCopies) {
  auto d0 = oxide::Context::create(0);
  auto d1 = oxide::Context::create(1);
  auto s0 = d0.create_stream();
  auto s1 = d1.create_stream();
  // Over one staging chunk (64 MiB), so the staged copy takes several rounds.
  const std::size_t n = (std::size_t{80} << 20) / sizeof(std::uint32_t) + 3;
  const std::vector<std::uint32_t> expected = iota_vector(n, 11);
  auto src = DeviceBuffer<std::uint32_t>::from_host(s1, expected);

  auto staged = DeviceBuffer<std::uint32_t>::zeroed(s0, n);
  staged.copy_from(s0, src); // no peer access enabled through these contexts: staged
  EXPECT_EQ(staged.to_host(s0), expected);

  const bool peer = d0.can_access_peer(d1);
  std::printf("device 0 -> device 1 peer access: %s\n", peer ? "yes" : "no");
  if (!peer) {
    EXPECT_EQ(kind_of([&] { d0.enable_peer_access(d1); }), ErrorKind::PeerAccessUnavailable);
    return;
  }
  d0.enable_peer_access(d1);
  d0.enable_peer_access(d1); // idempotent
  auto direct = DeviceBuffer<std::uint32_t>::zeroed(s0, n);
  direct.copy_from(s0, src);
  EXPECT_EQ(direct.to_host(s0), expected);
  auto back = DeviceBuffer<std::uint32_t>::zeroed(s1, n);
  back.copy_from(s1, direct); // d0 enabled access to d1: the peer path serves both directions
  EXPECT_EQ(back.to_host(s1), expected);
}

} // namespace
