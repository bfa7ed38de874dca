// The host API on the CPU simulator: contexts, streams, buffers, prepare and launch, with the
// same checks as on a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <vector>

#include "oxide/oxide.hpp"
#include "sim_test_support.hpp"

namespace {

using oxide::DeviceBuffer;
using oxide::Dim3;
using oxide::DisjointSpan;
using oxide::Span;
using oxide_test::error_of;
using oxide_test::simulator;

void vecadd(Span<const float> a, Span<const float> b, DisjointSpan<float> c) {
  const auto idx = oxide::thread::index_1d();
  if (float *out = c.get_mut(idx))
    *out = a[idx.get()] + b[idx.get()];
}

void saxpy(float alpha, Span<const float> x, Span<float> y) {
  const std::size_t i = oxide::thread::index_1d().get();
  if (i < y.size())
    y[i] += alpha * x[i];
}

struct Coordinates {
  std::uint32_t thread[3];
  std::uint32_t block[3];
  std::uint32_t block_dim[3];
  std::uint32_t grid_dim[3];
  std::uint64_t index_1d;
};

/// Each thread records what the geometry intrinsics tell it, at its global linear position.
void record_geometry(Span<Coordinates> out) {
  const Dim3 t = oxide::thread_idx(), b = oxide::block_idx(), bd = oxide::block_dim(), gd = oxide::grid_dim();
  const std::size_t block_linear = (std::size_t(b.z) * gd.y + b.y) * gd.x + b.x;
  const std::size_t thread_linear = (std::size_t(t.z) * bd.y + t.y) * bd.x + t.x;
  const std::size_t threads_per_block = std::size_t(bd.x) * bd.y * bd.z;
  out[block_linear * threads_per_block + thread_linear] = {{t.x, t.y, t.z},
                                                           {b.x, b.y, b.z},
                                                           {bd.x, bd.y, bd.z},
                                                           {gd.x, gd.y, gd.z},
                                                           oxide::thread::index_1d().get()};
}

// Each thread writes its own element through the 2-D and 3-D witnesses.
void fill_2d(oxide::DisjointSpan2D<std::uint32_t> out) {
  const auto idx = oxide::thread::index_2d();
  if (std::uint32_t *element = out.get_mut(idx))
    *element = static_cast<std::uint32_t>(idx.y() * 1000 + idx.x());
}

void fill_3d(oxide::DisjointSpan3D<std::uint32_t> out) {
  const auto idx = oxide::thread::index_3d();
  if (std::uint32_t *element = out.get_mut(idx))
    *element = static_cast<std::uint32_t>(idx.z() * 1000000 + idx.y() * 1000 + idx.x());
}

// A few blocks cover any size: each thread walks the grid, writing through every step's witness.
void doubled(Span<const float> in, DisjointSpan<float> out) {
  for (const auto &i : oxide::thread::grid_stride(out.size()))
    if (float *o = out.get_mut(i))
      *o = in[i.get()] * 2.0f;
}

// Each thread writes its own four consecutive elements.
void quads(DisjointSpan<std::uint32_t> out) {
  const auto idx = oxide::thread::index_1d();
  auto tile = out.tile_mut<4>(idx);
  for (std::size_t k = 0; k < tile.size(); ++k)
    tile[k] = static_cast<std::uint32_t>(idx.get() * 10 + k);
}

void launches_a_kernel(Span<float> data) {
  auto ctx = oxide::Context::cpu();
  auto stream = ctx.default_stream();
  oxide::unsafe_launch(stream, saxpy, oxide::LaunchConfig1D::for_elements(1), 1.0f, Span<const float>{},
                       data);
}

void never_registered(int) {}

class SimRuntime : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    oxide::sim::register_kernel(vecadd, "vecadd",
                                "domain = 1, requires = (a.size() == c.size(), b.size() == c.size())",
                                {"a", "b", "c"});
    oxide::sim::register_kernel(saxpy, "saxpy");
    oxide::sim::register_kernel(record_geometry, "record_geometry");
    oxide::sim::register_kernel(launches_a_kernel, "launches_a_kernel");
    oxide::sim::register_kernel(fill_2d, "fill_2d", "domain = 2", {"out"});
    oxide::sim::register_kernel(doubled, "doubled", "domain = 1, requires = (in.size() == out.size())",
                                {"in", "out"});
    oxide::sim::register_kernel(quads, "quads", "domain = 1", {"out"});
    oxide::sim::register_kernel(fill_3d, "fill_3d", "domain = 3", {"out"});
  }
};

TEST_F(SimRuntime, ContextDescribesTheSimulator) {
  oxide_test::ScopedEnv threads("OXIDE_SIM_THREADS", "3");
  const auto ctx = oxide::Context::cpu();
  EXPECT_TRUE(ctx.is_simulator());
  EXPECT_EQ(ctx.native_handle(), nullptr);
  const oxide::Device &device = ctx.device();
  EXPECT_TRUE(device.is_simulator());
  EXPECT_EQ(device.name(), "Oxide CPU simulator");
  EXPECT_EQ(device.ordinal(), -1);
  EXPECT_EQ(device.sm_count(), 3);
  EXPECT_EQ(device.max_threads_per_block(), 1024);
  EXPECT_EQ(device.max_shared_memory_per_block_optin(), 48 * 1024);
  EXPECT_GT(device.total_memory(), 0u);
  ctx.synchronize();
}

TEST_F(SimRuntime, BuffersAreAlignedHostMemory) {
  auto ctx = simulator();
  auto stream = ctx.create_stream();
  EXPECT_FALSE(stream.is_default());
  EXPECT_EQ(stream.native_handle(), nullptr);
  EXPECT_TRUE(ctx.default_stream().is_default());
  const std::vector<int> host{1, 2, 3, 4, 5};
  auto buffer = DeviceBuffer<int>::from_host(stream, host);
  EXPECT_EQ(buffer.device_ptr() % 256, 0u);
  EXPECT_EQ(buffer.to_host(stream), host);
  auto zeros = DeviceBuffer<double>::zeroed(stream, 1000);
  EXPECT_EQ(zeros.to_host(stream), std::vector<double>(1000, 0.0));
  std::vector<int> wrong(4);
  EXPECT_THROW(buffer.copy_to_host(stream, wrong), oxide::Error);
  EXPECT_THROW(buffer.copy_from_host(stream, wrong), oxide::Error);
  auto empty = DeviceBuffer<int>::uninitialized(stream, 0);
  EXPECT_EQ(empty.device_ptr(), 0u);
  EXPECT_TRUE(empty.to_host(stream).empty());
  stream.synchronize();
  auto moved = std::move(stream);
  EXPECT_FALSE(moved.is_default());
  EXPECT_THROW(stream.synchronize(), oxide::Error);
}

// std::vector<bool> packs bits and has no data(): to_host copies the bytes, then builds it.
TEST_F(SimRuntime, BoolBuffersComeBackAsVectorsOfBool) {
  auto ctx = simulator();
  auto stream = ctx.default_stream();
  const bool host[] = {true, false, false, true, true};
  auto flags = DeviceBuffer<bool>::from_host(stream, host);
  EXPECT_EQ(flags.to_host(stream), (std::vector<bool>{true, false, false, true, true}));
}

TEST_F(SimRuntime, CheckingModePoisonsUninitializedBuffers) {
  auto ctx = simulator(/*check=*/true);
  auto stream = ctx.default_stream();
  auto buffer = DeviceBuffer<std::uint32_t>::uninitialized(stream, 3);
  EXPECT_EQ(buffer.to_host(stream), std::vector<std::uint32_t>(3, 0xffffffffu));
}

TEST_F(SimRuntime, RunsVecAddOverManyBlocks) {
  auto ctx = simulator();
  auto stream = ctx.default_stream();
  const std::size_t n = 100'003; // not a multiple of the block
  std::vector<float> ha(n), hb(n, 0.5f);
  std::iota(ha.begin(), ha.end(), 0.0f);
  auto a = DeviceBuffer<float>::from_host(stream, ha);
  auto b = DeviceBuffer<float>::from_host(stream, hb);
  auto c = DeviceBuffer<float>::from_host(stream, std::vector<float>(n, -1.0f));
  auto launch = oxide::prepare(ctx, vecadd, oxide::LaunchConfig1D::for_elements(n, 128));
  EXPECT_TRUE(launch.is_simulated());
  EXPECT_EQ(launch.kernel_name(), "vecadd");
  EXPECT_EQ(launch.config(), oxide::LaunchConfig1D::for_elements(n, 128));
  launch(stream, a, b, c);
  const std::vector<float> hc = c.to_host(stream);
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_EQ(hc[i], ha[i] + 0.5f) << i;
}

TEST_F(SimRuntime, ScalarsAndWritableSpans) {
  auto ctx = simulator();
  auto stream = ctx.default_stream();
  auto x = DeviceBuffer<float>::from_host(stream, std::vector<float>(1000, 2.0f));
  auto y = DeviceBuffer<float>::from_host(stream, std::vector<float>(1000, 1.0f));
  oxide::unsafe_launch(stream, saxpy, oxide::LaunchConfig1D::for_elements(1000), 3.0f, x, y);
  EXPECT_EQ(y.to_host(stream), std::vector<float>(1000, 7.0f));
}

TEST_F(SimRuntime, EmptyGridRunsNothing) {
  auto ctx = simulator();
  auto stream = ctx.default_stream();
  auto none = DeviceBuffer<float>::uninitialized(stream, 0);
  oxide::prepare(ctx, vecadd, oxide::LaunchConfig1D::for_elements(0))(stream, none, none, none);
  auto out = DeviceBuffer<Coordinates>::uninitialized(stream, 0);
  oxide::unsafe_launch(stream, record_geometry, oxide::LaunchConfig2D{{4, 0, 1}, {8, 8, 1}}, out);
}

TEST_F(SimRuntime, TwoDimensionalLaunchGeometry) {
  auto ctx = simulator();
  auto stream = ctx.default_stream();
  const auto config = oxide::LaunchConfig2D::for_elements(20, 10, {8, 4, 1});
  EXPECT_EQ(config.grid, (Dim3{3, 3, 1}));
  auto out = DeviceBuffer<Coordinates>::zeroed(stream, config.total_threads());
  oxide::unsafe_launch(stream, record_geometry, config, out);
  const auto host = out.to_host(stream);
  std::size_t i = 0;
  for (std::uint32_t by = 0; by < 3; ++by)
    for (std::uint32_t bx = 0; bx < 3; ++bx)
      for (std::uint32_t ty = 0; ty < 4; ++ty)
        for (std::uint32_t tx = 0; tx < 8; ++tx, ++i) {
          const Coordinates &c = host[i];
          ASSERT_EQ((Dim3{c.thread[0], c.thread[1], c.thread[2]}), (Dim3{tx, ty, 0})) << i;
          ASSERT_EQ((Dim3{c.block[0], c.block[1], c.block[2]}), (Dim3{bx, by, 0})) << i;
          ASSERT_EQ((Dim3{c.block_dim[0], c.block_dim[1], c.block_dim[2]}), (Dim3{8, 4, 1}));
          ASSERT_EQ((Dim3{c.grid_dim[0], c.grid_dim[1], c.grid_dim[2]}), (Dim3{3, 3, 1}));
          ASSERT_EQ(c.index_1d, bx * 8u + tx) << "index_1d ignores y, as on the GPU";
        }
}

TEST_F(SimRuntime, ThreeDimensionalLaunchGeometry) {
  auto ctx = simulator();
  auto stream = ctx.default_stream();
  const oxide::LaunchConfig3D config{{2, 3, 4}, {4, 2, 3}, 0};
  auto out = DeviceBuffer<Coordinates>::zeroed(stream, config.total_threads());
  oxide::unsafe_launch(stream, record_geometry, config, out);
  const auto host = out.to_host(stream);
  std::size_t i = 0;
  for (std::uint32_t bz = 0; bz < 4; ++bz)
    for (std::uint32_t by = 0; by < 3; ++by)
      for (std::uint32_t bx = 0; bx < 2; ++bx)
        for (std::uint32_t tz = 0; tz < 3; ++tz)
          for (std::uint32_t ty = 0; ty < 2; ++ty)
            for (std::uint32_t tx = 0; tx < 4; ++tx, ++i) {
              ASSERT_EQ((Dim3{host[i].thread[0], host[i].thread[1], host[i].thread[2]}), (Dim3{tx, ty, tz}));
              ASSERT_EQ((Dim3{host[i].block[0], host[i].block[1], host[i].block[2]}), (Dim3{bx, by, bz}));
              ASSERT_EQ((Dim3{host[i].grid_dim[0], host[i].grid_dim[1], host[i].grid_dim[2]}),
                        (Dim3{2, 3, 4}));
            }
}

TEST_F(SimRuntime, MultiDimensionalWitnessesAndDisjointSpans) {
  for (const bool check : {false, true}) {
    auto ctx = simulator(check);
    auto stream = ctx.default_stream();
    const std::size_t w = 37, h = 21, d = 5;
    auto out2 = DeviceBuffer<std::uint32_t>::zeroed(stream, w * h);
    oxide::prepare(ctx, fill_2d, oxide::LaunchConfig2D::for_elements(w, h, {8, 4, 1}))(stream,
                                                                                       out2.view_2d(w, h));
    auto out3 = DeviceBuffer<std::uint32_t>::zeroed(stream, w * h * d);
    oxide::prepare(ctx, fill_3d,
                   oxide::LaunchConfig3D::for_elements(w, h, d, {4, 4, 2}))(stream, out3.view_3d(w, h, d));
    const auto host2 = out2.to_host(stream);
    const auto host3 = out3.to_host(stream);
    for (std::size_t z = 0; z < d; ++z)
      for (std::size_t y = 0; y < h; ++y)
        for (std::size_t x = 0; x < w; ++x) {
          if (z == 0)
            ASSERT_EQ(host2[y * w + x], y * 1000 + x);
          ASSERT_EQ(host3[(z * h + y) * w + x], z * 1000000 + y * 1000 + x);
        }
  }
}

TEST_F(SimRuntime, GridStrideLoopsAndTiles) {
  for (const bool check : {false, true}) {
    auto ctx = simulator(check);
    auto stream = ctx.default_stream();
    const std::size_t n = 10'007;
    std::vector<float> host(n);
    std::iota(host.begin(), host.end(), 0.0f);
    auto in = DeviceBuffer<float>::from_host(stream, host);
    auto out = DeviceBuffer<float>::from_host(stream, std::vector<float>(n, -1.0f));
    oxide::prepare(ctx, doubled, oxide::LaunchConfig1D{3, 64})(stream, in, out);
    const auto result = out.to_host(stream);
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_EQ(result[i], 2.0f * host[i]) << i;

    auto tiles = DeviceBuffer<std::uint32_t>::zeroed(stream, 4 * 9 + 2); // the last tile is cut short
    oxide::prepare(ctx, quads, oxide::LaunchConfig1D{1, 16})(stream, tiles);
    const auto t = tiles.to_host(stream);
    for (std::size_t i = 0; i < t.size(); ++i)
      ASSERT_EQ(t[i], i / 4 * 10 + i % 4) << i;
  }
}

TEST_F(SimRuntime, RejectsAliasedOutput) {
  auto ctx = simulator();
  auto stream = ctx.default_stream();
  auto b = DeviceBuffer<float>::zeroed(stream, 256);
  auto c = DeviceBuffer<float>::zeroed(stream, 256);
  auto launch = oxide::prepare(ctx, vecadd, oxide::LaunchConfig1D::for_elements(256));
  EXPECT_EQ(
      error_of([&] { launch(stream, c, b, c); }),
      "oxide: kernel 'vecadd': argument 1 (a) and argument 3 (c) refer to overlapping device memory and "
      "the kernel may write argument 3 (c); pass distinct buffers");
  launch(stream, b, b, c); // the same buffer twice as input is fine
}

TEST_F(SimRuntime, PrepareChecksLikeOnAGpu) {
  auto ctx = simulator();
  auto stream = ctx.default_stream();
  EXPECT_NE(error_of([&] {
              (void)oxide::prepare(ctx, never_registered, oxide::LaunchConfig1D{});
            }).find("is not a registered kernel; mark it [[kernel]] and build with oxcc"),
            std::string::npos);
  EXPECT_EQ(error_of([&] { (void)oxide::prepare(ctx, vecadd, oxide::LaunchConfig1D{1, 1025, 0}); }),
            "oxide: launch configuration: block size 1025 is outside 1..1024");
  auto out = DeviceBuffer<Coordinates>::zeroed(stream, 1);
  auto y = DeviceBuffer<float>::zeroed(stream, 1);
  EXPECT_EQ(
      error_of([&] {
        oxide::unsafe_launch(stream, saxpy, oxide::LaunchConfig1D{1, 32, 227 * 1024 + 1}, 1.0f, y, y);
      }),
      "oxide: kernel 'saxpy' asks for 232449 bytes of dynamic shared memory, more than the 232448 bytes per "
      "block of the CPU simulator");
  EXPECT_EQ(
      error_of([&] {
        oxide::unsafe_launch(stream, record_geometry, oxide::LaunchConfig2D{{1, 1, 1}, {64, 32, 1}}, out);
      }),
      "oxide: launch configuration: block (64,32,1) is outside CUDA's limits (each extent at least 1, at "
      "most (1024,1024,64), and at most 1024 threads in all)");
}

TEST_F(SimRuntime, PrepareRejectsAMismatchedLayout) {
  void (*as_int)(int) = [](int) {};
  oxide::sim::register_kernel(as_int, "as_int");
  // The same address registered again with other parameter types keeps its first layout.
  oxide::sim::register_kernel(reinterpret_cast<void (*)(double)>(as_int), "as_double");
  auto ctx = simulator();
  EXPECT_NE(error_of([&] {
              (void)oxide::prepare(ctx, reinterpret_cast<void (*)(double)>(as_int), oxide::LaunchConfig1D{});
            }).find("kernel 'as_int' parameter 1 (double) is 8 bytes aligned to 8 on the host but 4 bytes"),
            std::string::npos);
}

TEST_F(SimRuntime, HostThreadsLaunchConcurrently) {
  auto ctx = simulator(false, 2);
  std::vector<std::thread> threads;
  std::vector<int> ok(6, 0);
  for (int t = 0; t < 6; ++t)
    threads.emplace_back([&, t] {
      auto stream = ctx.create_stream();
      auto a = DeviceBuffer<float>::from_host(stream, std::vector<float>(5000, float(t)));
      auto b = DeviceBuffer<float>::from_host(stream, std::vector<float>(5000, 1.0f));
      auto c = DeviceBuffer<float>::uninitialized(stream, 5000);
      oxide::prepare(ctx, vecadd, oxide::LaunchConfig1D::for_elements(5000, 64))(stream, a, b, c);
      ok[t] = c.to_host(stream) == std::vector<float>(5000, float(t) + 1.0f);
    });
  for (auto &thread : threads)
    thread.join();
  EXPECT_EQ(ok, std::vector<int>(6, 1));
}

TEST_F(SimRuntime, KernelsCannotLaunchKernels) {
  auto ctx = simulator();
  auto stream = ctx.default_stream();
  auto data = DeviceBuffer<float>::zeroed(stream, 1);
  EXPECT_EQ(
      error_of([&] { oxide::unsafe_launch(stream, launches_a_kernel, oxide::LaunchConfig1D{}, data); }),
      "oxide: kernel 'launches_a_kernel' block (0,0,0) thread (0,0,0): the kernel threw an exception: oxide: "
      "kernel 'saxpy' launched from kernel code; launch kernels from the host");
}

} // namespace
