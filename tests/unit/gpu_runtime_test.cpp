// The runtime against a real GPU: contexts, buffers, module loading and launches of a
// hand-registered PTX kernel. Skipped, with the reason printed, where there is no CUDA device.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "oxide/oxide.hpp"
#include "sim_test_support.hpp"

namespace {

using oxide::DeviceBuffer;
using oxide::DisjointSpan;
using oxide::Span;

// What clang emits for the brief's vecadd over {pointer, size} spans, with a C entry name.
constexpr const char *kVecaddPtx = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry oxide_test_vecadd(
	.param .align 8 .b8 oxide_test_vecadd_param_0[16],
	.param .align 8 .b8 oxide_test_vecadd_param_1[16],
	.param .align 8 .b8 oxide_test_vecadd_param_2[16]
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<7>;
	.reg .f32 	%f<4>;
	.reg .b64 	%rd<18>;
	mov.u32 	%r1, %ctaid.x;
	mov.u32 	%r2, %ntid.x;
	mul.wide.u32 	%rd5, %r1, %r2;
	mov.u32 	%r3, %tid.x;
	cvt.u64.u32 	%rd6, %r3;
	add.s64 	%rd4, %rd5, %rd6;
	ld.param.u64 	%rd7, [oxide_test_vecadd_param_2+8];
	setp.ge.u64 	%p1, %rd4, %rd7;
	@%p1 bra 	$L__BB0_2;
	ld.param.u64 	%rd8, [oxide_test_vecadd_param_0];
	cvta.to.global.u64 	%rd9, %rd8;
	shl.b64 	%rd10, %rd4, 2;
	add.s64 	%rd11, %rd9, %rd10;
	ld.global.f32 	%f1, [%rd11];
	ld.param.u64 	%rd12, [oxide_test_vecadd_param_1];
	cvta.to.global.u64 	%rd13, %rd12;
	add.s64 	%rd14, %rd13, %rd10;
	ld.global.f32 	%f2, [%rd14];
	add.f32 	%f3, %f1, %f2;
	ld.param.u64 	%rd15, [oxide_test_vecadd_param_2];
	cvta.to.global.u64 	%rd16, %rd15;
	add.s64 	%rd17, %rd16, %rd10;
	st.global.f32 	[%rd17], %f3;
$L__BB0_2:
	ret;
}
)";

// Each thread writes its threadIdx and blockIdx, packed, at its global linear position.
constexpr const char *kGeometryPtx = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry oxide_test_geometry(
	.param .u64 .ptr .align 1 oxide_test_geometry_param_0
)
{
	.reg .b32 	%r<27>;
	.reg .b64 	%rd<5>;
	ld.param.b64 	%rd1, [oxide_test_geometry_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %ctaid.z;
	mov.u32 	%r2, %nctaid.y;
	mov.u32 	%r3, %ctaid.y;
	mad.lo.s32 	%r4, %r1, %r2, %r3;
	mov.u32 	%r5, %nctaid.x;
	mov.u32 	%r6, %ctaid.x;
	mad.lo.s32 	%r7, %r4, %r5, %r6;
	mov.u32 	%r8, %tid.z;
	mov.u32 	%r9, %ntid.y;
	mov.u32 	%r10, %tid.y;
	mov.u32 	%r11, %ntid.x;
	mov.u32 	%r12, %tid.x;
	mov.u32 	%r13, %ntid.z;
	shl.b32 	%r14, %r10, 8;
	shl.b32 	%r15, %r8, 16;
	shl.b32 	%r16, %r6, 20;
	shl.b32 	%r17, %r3, 24;
	shl.b32 	%r18, %r1, 28;
	or.b32 	%r19, %r15, %r14;
	or.b32 	%r20, %r19, %r16;
	or.b32 	%r21, %r20, %r17;
	or.b32 	%r22, %r21, %r18;
	or.b32 	%r23, %r22, %r12;
	mad.lo.s32 	%r24, %r7, %r13, %r8;
	mad.lo.s32 	%r25, %r24, %r9, %r10;
	mad.lo.s32 	%r26, %r25, %r11, %r12;
	mul.wide.u32 	%rd3, %r26, 4;
	add.s64 	%rd4, %rd2, %rd3;
	st.global.b32 	[%rd4], %r23;
	ret;
}
)";

constexpr const char *kBrokenPtx = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry oxide_test_broken(.param .u32 oxide_test_broken_param_0)
{
	not_an_instruction %r1;
	ret;
}
)";

// Host stand-ins for kernels, as the compiler would register them.
volatile int side_effect = 0;
void gpu_vecadd(Span<const float>, Span<const float>, DisjointSpan<float>) { side_effect = 1; }
void gpu_vecadd_wrong_layout(Span<const float>, Span<const float>, int) { side_effect = 2; }
void gpu_vecadd_cubin(Span<const float>, Span<const float>, DisjointSpan<float>) { side_effect = 3; }
void gpu_broken(int) { side_effect = 4; }
void gpu_no_code(int) { side_effect = 5; }
void gpu_not_a_kernel(int) { side_effect = 6; }
void gpu_geometry(Span<std::uint32_t>) { side_effect = 7; }
void simulator_only(Span<std::uint32_t>) { side_effect = 8; }

using oxide::detail::CodeKind;
using oxide::detail::DeviceImage;

void register_kernels(const DeviceImage &image, std::vector<const void *> addresses,
                      std::vector<const char *> names) {
  const std::string bytes = oxide::detail::encode_image(image);
  __oxide_register_image(reinterpret_cast<const unsigned char *>(bytes.data()), bytes.size(),
                         addresses.data(), names.data(), addresses.size());
}

// The contract oxcc would store for [[oxide::launch_contract("domain = 1, dynamic_shared = 0..4294967295,
// requires = (a.size() == c.size(), b.size() == c.size())")]].
const oxide::detail::KernelInfo kVecaddInfo{
    "oxide_test_vecadd",
    {{16, 8}, {16, 8}, {16, 8}},
    "domain = 1, dynamic_shared = 0..4294967295, requires = ($0.size() == $2.size(), $1.size() == $2.size())",
    "a=i,b=i,c=o"};

class GpuRuntime : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    DeviceImage vecadd;
    vecadd.code.push_back({CodeKind::Ptx, 70, kVecaddPtx});
    vecadd.kernels.push_back(kVecaddInfo);
    register_kernels(vecadd,
                     {reinterpret_cast<const void *>(&gpu_vecadd),
                      reinterpret_cast<const void *>(&gpu_vecadd_wrong_layout)},
                     {"oxide_test_vecadd", "oxide_test_vecadd"});

    DeviceImage geometry;
    geometry.code.push_back({CodeKind::Ptx, 70, kGeometryPtx});
    geometry.kernels.push_back({"oxide_test_geometry", {{16, 8}}});
    register_kernels(geometry, {reinterpret_cast<const void *>(&gpu_geometry)}, {"oxide_test_geometry"});
    oxide::sim::register_kernel(simulator_only, "simulator_only");

    DeviceImage broken;
    broken.code.push_back({CodeKind::Ptx, 70, kBrokenPtx});
    broken.kernels.push_back({"oxide_test_broken", {{4, 4}}});
    register_kernels(broken, {reinterpret_cast<const void *>(&gpu_broken)}, {"oxide_test_broken"});

    DeviceImage no_code;
    no_code.code.push_back({CodeKind::Cubin, 10, "not for this device"});
    no_code.kernels.push_back({"oxide_test_no_code", {{4, 4}}});
    register_kernels(no_code, {reinterpret_cast<const void *>(&gpu_no_code)}, {"oxide_test_no_code"});
  }

  void SetUp() override {
    if (oxide::Device::count() == 0)
      GTEST_SKIP() << "skipped: no CUDA device";
  }

  /// Launches vecadd(a, b) -> c through `kernel` and checks every element.
  static void check_vecadd(void (*kernel)(Span<const float>, Span<const float>, DisjointSpan<float>)) {
    auto ctx = oxide::Context::create();
    auto stream = ctx.default_stream();
    std::vector<float> ha(1 << 20), hb(1 << 20);
    std::iota(ha.begin(), ha.end(), 0.0f);
    std::fill(hb.begin(), hb.end(), 2.0f);
    auto a = DeviceBuffer<float>::from_host(stream, ha);
    auto b = DeviceBuffer<float>::from_host(stream, hb);
    auto c = DeviceBuffer<float>::zeroed(stream, ha.size());
    auto launch = oxide::prepare(ctx, kernel, oxide::LaunchConfig1D::for_elements(ha.size()));
    launch(stream, a, b, c);
    const std::vector<float> hc = c.to_host(stream);
    ASSERT_EQ(hc.size(), ha.size());
    for (std::size_t i = 0; i < hc.size(); ++i)
      ASSERT_EQ(hc[i], ha[i] + 2.0f) << "element " << i;
  }
};

TEST_F(GpuRuntime, DeviceProperties) {
  const oxide::Device device = oxide::Device::get(0);
  EXPECT_FALSE(device.name().empty());
  EXPECT_GE(device.compute_capability().major, 5);
  EXPECT_GT(device.sm_count(), 0);
  EXPECT_GT(device.total_memory(), 0u);
  EXPECT_GE(device.max_threads_per_block(), 1024);
  auto ctx = oxide::Context::create();
  EXPECT_EQ(ctx.device().name(), device.name());
  EXPECT_NE(ctx.native_handle(), nullptr);
  std::printf("device 0: %s, sm_%d, %d SMs, %zu MiB\n", device.name().c_str(),
              device.compute_capability().as_int(), device.sm_count(), device.total_memory() >> 20);
  EXPECT_THROW((void)oxide::Context::create(oxide::Device::count()), oxide::Error);
}

TEST_F(GpuRuntime, BuffersRoundTrip) {
  auto ctx = oxide::Context::create();
  auto stream = ctx.create_stream();
  EXPECT_FALSE(stream.is_default());
  const std::vector<int> host{1, 2, 3, 4, 5};
  auto buffer = DeviceBuffer<int>::from_host(stream, host);
  EXPECT_EQ(buffer.size(), 5u);
  EXPECT_EQ(buffer.size_bytes(), 20u);
  EXPECT_NE(buffer.device_ptr(), 0u);
  EXPECT_EQ(buffer.to_host(stream), host);

  auto zeros = DeviceBuffer<double>::zeroed(stream, 1000);
  EXPECT_EQ(zeros.to_host(stream), std::vector<double>(1000, 0.0));

  std::vector<int> wrong(4);
  EXPECT_THROW(buffer.copy_to_host(stream, wrong), oxide::Error);
  EXPECT_THROW(buffer.copy_from_host(stream, wrong), oxide::Error);

  auto moved = std::move(buffer);
  EXPECT_EQ(buffer.size(), 0u);
  EXPECT_EQ(moved.to_host(stream), host);

  auto empty = DeviceBuffer<int>::from_host(stream, std::vector<int>{});
  EXPECT_EQ(empty.device_ptr(), 0u);
  EXPECT_TRUE(empty.to_host(stream).empty());
  stream.synchronize();
  ctx.synchronize();
}

TEST_F(GpuRuntime, BuffersOutliveTheirContextObject) {
  auto stream = oxide::Context::create().create_stream();
  auto buffer = DeviceBuffer<int>::from_host(stream, std::vector<int>{7, 8});
  EXPECT_EQ(buffer.to_host(stream), (std::vector<int>{7, 8}));
}

TEST_F(GpuRuntime, LaunchesVecAddFromPtx) { check_vecadd(&gpu_vecadd); }

// One context per device, all alive in one thread, with launches interleaved between them: each
// runs on the device of its stream's context, whose module is loaded there.
TEST_F(GpuRuntime, LaunchesOnEveryDevice) {
  const int devices = oxide::Device::count();
  const std::size_t n = 1 << 16;
  std::vector<float> ha(n), hb(n, 2.0f);
  std::iota(ha.begin(), ha.end(), 0.0f);
  std::vector<oxide::Context> contexts;
  std::vector<oxide::Stream> streams;
  std::vector<DeviceBuffer<float>> a, b, c;
  for (int d = 0; d < devices; ++d) {
    contexts.push_back(oxide::Context::create(d));
    streams.push_back(contexts.back().create_stream());
    a.push_back(DeviceBuffer<float>::from_host(streams.back(), ha));
    b.push_back(DeviceBuffer<float>::from_host(streams.back(), hb));
    c.push_back(DeviceBuffer<float>::zeroed(streams.back(), n));
  }
  for (int d = 0; d < devices; ++d) {
    auto launch = oxide::prepare(contexts[d], gpu_vecadd, oxide::LaunchConfig1D::for_elements(n));
    launch(streams[d], a[d], b[d], c[d]);
  }
  for (int d = 0; d < devices; ++d) {
    const std::vector<float> hc = c[d].to_host(streams[d]);
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_EQ(hc[i], ha[i] + 2.0f) << "device " << d << ", element " << i;
  }
  if (devices >= 2) {
    auto launch = oxide::prepare(contexts[0], gpu_vecadd, oxide::LaunchConfig1D::for_elements(n));
    try {
      launch(streams[0], a[0], b[1], c[0]);
      FAIL() << "expected oxide::Error";
    } catch (const oxide::Error &e) {
      EXPECT_EQ(e.kind(), oxide::ErrorKind::WrongContext);
    }
  }
}

TEST_F(GpuRuntime, PreparedLaunchIsReusableOnOtherStreams) {
  auto ctx = oxide::Context::create();
  auto stream = ctx.create_stream();
  const std::vector<float> ha(1000, 1.5f), hb(1000, 2.5f);
  auto a = DeviceBuffer<float>::from_host(stream, ha);
  auto b = DeviceBuffer<float>::from_host(stream, hb);
  auto c = DeviceBuffer<float>::uninitialized(stream, 1000);
  auto launch = oxide::prepare(ctx, gpu_vecadd, oxide::LaunchConfig1D::for_elements(1000, 128));
  EXPECT_EQ(launch.kernel_name(), "oxide_test_vecadd");
  EXPECT_EQ(launch.config().grid, 8u);
  for (int i = 0; i < 3; ++i)
    launch(stream, a, b, c);
  EXPECT_EQ(c.to_host(stream), std::vector<float>(1000, 4.0f));

  auto empty = oxide::prepare(ctx, gpu_vecadd, oxide::LaunchConfig1D::for_elements(0));
  auto none = DeviceBuffer<float>::uninitialized(stream, 0);
  empty(stream, none, none, none); // grid 0: nothing is launched
}

TEST_F(GpuRuntime, ThreadsShareOneContextAndModule) {
  auto ctx = oxide::Context::create();
  std::vector<std::thread> threads;
  std::vector<int> ok(8, 0);
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      auto stream = ctx.create_stream();
      const std::vector<float> ha(4096, static_cast<float>(t)), hb(4096, 1.0f);
      auto a = DeviceBuffer<float>::from_host(stream, ha);
      auto b = DeviceBuffer<float>::from_host(stream, hb);
      auto c = DeviceBuffer<float>::uninitialized(stream, 4096);
      auto launch = oxide::prepare(ctx, gpu_vecadd, oxide::LaunchConfig1D::for_elements(4096));
      launch(stream, a, b, c);
      ok[t] = c.to_host(stream) == std::vector<float>(4096, static_cast<float>(t) + 1.0f);
    });
  for (auto &thread : threads)
    thread.join();
  EXPECT_EQ(ok, std::vector<int>(8, 1));
}

TEST_F(GpuRuntime, RejectsAliasedOutput) {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  auto b = DeviceBuffer<float>::zeroed(stream, 256);
  auto c = DeviceBuffer<float>::zeroed(stream, 256);
  auto launch = oxide::prepare(ctx, gpu_vecadd, oxide::LaunchConfig1D::for_elements(256));
  try {
    launch(stream, c, b, c);
    FAIL() << "expected oxide::Error";
  } catch (const oxide::Error &e) {
    EXPECT_EQ(e.kind(), oxide::ErrorKind::OverlappingArguments);
    EXPECT_STREQ(e.what(), "oxide: kernel 'oxide_test_vecadd': argument 1 (a) and argument 3 (c) refer to "
                           "overlapping device memory and the kernel may write argument 3 (c); pass distinct "
                           "buffers");
  }
  launch(stream, b, b, c); // the same buffer twice as input is fine
}

TEST_F(GpuRuntime, LayoutMismatchIsReportedAtPrepare) {
  auto ctx = oxide::Context::create();
  try {
    (void)oxide::prepare(ctx, gpu_vecadd_wrong_layout, oxide::LaunchConfig1D::for_elements(10));
    FAIL() << "expected oxide::Error";
  } catch (const oxide::Error &e) {
    EXPECT_NE(
        std::string(e.what()).find("parameter 3 (int) is 4 bytes aligned to 4 on the host but 16 bytes"),
        std::string::npos)
        << e.what();
  }
}

TEST_F(GpuRuntime, UnregisteredFunctionIsRejected) {
  auto ctx = oxide::Context::create();
  try {
    (void)oxide::prepare(ctx, gpu_not_a_kernel, oxide::LaunchConfig1D::for_elements(10));
    FAIL() << "expected oxide::Error";
  } catch (const oxide::Error &e) {
    EXPECT_NE(
        std::string(e.what()).find("is not a registered kernel; mark it [[kernel]] and build with oxcc"),
        std::string::npos);
  }
}

TEST_F(GpuRuntime, JitFailureIncludesTheLog) {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  try {
    oxide::unsafe_launch(stream, gpu_broken, oxide::LaunchConfig1D::for_elements(10), 0);
    FAIL() << "expected oxide::Error";
  } catch (const oxide::Error &e) {
    std::printf("%s\n", e.what());
    EXPECT_EQ(e.api(), "cuModuleLoadDataEx");
    EXPECT_EQ(e.kernel(), "oxide_test_broken");
    EXPECT_NE(std::string(e.what()).find("JIT error log:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not_an_instruction"), std::string::npos) << e.what();
  }
}

TEST_F(GpuRuntime, ImageWithoutCodeForTheDeviceIsRejected) {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  try {
    oxide::unsafe_launch(stream, gpu_no_code, oxide::LaunchConfig1D::for_elements(10), 0);
    FAIL() << "expected oxide::Error";
  } catch (const oxide::Error &e) {
    EXPECT_EQ(e.kind(), oxide::ErrorKind::NoDeviceCode);
    EXPECT_NE(std::string(e.what()).find("cannot run on"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cubin for sm_10"), std::string::npos) << e.what();
  }
}

TEST_F(GpuRuntime, BlockLargerThanTheDeviceAllowsIsRejected) {
  auto ctx = oxide::Context::create();
  auto big_shared = oxide::LaunchConfig1D{1, 256, 16u << 20};
  try {
    (void)oxide::prepare(ctx, gpu_vecadd, big_shared);
    FAIL() << "expected oxide::Error";
  } catch (const oxide::Error &e) {
    EXPECT_EQ(e.kind(), oxide::ErrorKind::DynamicSharedOverDeviceLimit) << e.what();
  }
  // More than 48 KiB (but within the device) raises the function's limit, and launches.
  const int optin = oxide::Device::get(0).max_shared_memory_per_block_optin();
  auto stream = ctx.default_stream();
  auto a = DeviceBuffer<float>::from_host(stream, std::vector<float>(256, 1.0f));
  auto c = DeviceBuffer<float>::zeroed(stream, 256);
  oxide::prepare(ctx, gpu_vecadd, oxide::LaunchConfig1D{1, 256, static_cast<std::uint32_t>(optin)})(stream, a,
                                                                                                    a, c);
  oxide::prepare(ctx, gpu_vecadd, oxide::LaunchConfig1D{1, 256, 64 * 1024})(stream, a, a, c); // never lowered
  EXPECT_EQ(c.to_host(stream), std::vector<float>(256, 2.0f));
}

TEST_F(GpuRuntime, LaunchesInTwoAndThreeDimensions) {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  auto check = [&](const auto &config) {
    const oxide::detail::LaunchGeometry g = oxide::detail::geometry_of(config);
    auto out = DeviceBuffer<std::uint32_t>::zeroed(stream, config.total_threads());
    oxide::unsafe_launch(stream, gpu_geometry, config, out);
    const auto host = out.to_host(stream);
    std::size_t i = 0;
    for (std::uint32_t bz = 0; bz < g.grid.z; ++bz)
      for (std::uint32_t by = 0; by < g.grid.y; ++by)
        for (std::uint32_t bx = 0; bx < g.grid.x; ++bx)
          for (std::uint32_t tz = 0; tz < g.block.z; ++tz)
            for (std::uint32_t ty = 0; ty < g.block.y; ++ty)
              for (std::uint32_t tx = 0; tx < g.block.x; ++tx, ++i)
                ASSERT_EQ(host[i], tx | ty << 8 | tz << 16 | bx << 20 | by << 24 | bz << 28) << i;
  };
  check(oxide::LaunchConfig2D::for_elements(40, 20, {16, 8, 1}));
  check(oxide::LaunchConfig3D{{3, 2, 2}, {4, 2, 3}, 0});
}

TEST_F(GpuRuntime, OxideDeviceChoosesTheBackend) {
  {
    oxide_test::ScopedEnv device("OXIDE_DEVICE", std::nullopt);
    EXPECT_FALSE(oxide::Context::create().is_simulator());
  }
  {
    oxide_test::ScopedEnv device("OXIDE_DEVICE", "cpu");
    EXPECT_TRUE(oxide::Context::create().is_simulator());
  }
  {
    oxide_test::ScopedEnv device("OXIDE_DEVICE", "cuda:0");
    EXPECT_FALSE(oxide::Context::create().is_simulator());
  }
  oxide_test::ScopedEnv device("OXIDE_DEVICE", "cuda:99");
  EXPECT_EQ(oxide_test::error_of([] { (void)oxide::Context::create(); }),
            "oxide: OXIDE_DEVICE=cuda:99 asks for a CUDA device, but no CUDA device 99 (this machine has " +
                std::to_string(oxide::Device::count()) + ")");
}

TEST_F(GpuRuntime, SimulatorOnlyKernelsDoNotRunOnTheGpu) {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  auto out = DeviceBuffer<std::uint32_t>::zeroed(stream, 1);
  const std::string what = oxide_test::error_of(
      [&] { oxide::unsafe_launch(stream, simulator_only, oxide::LaunchConfig1D{}, out); });
  EXPECT_NE(what.find("the device code of kernel 'simulator_only' cannot run on"), std::string::npos) << what;
  EXPECT_NE(what.find("the image has no code at all"), std::string::npos) << what;
}

TEST_F(GpuRuntime, SimulatorAndGpuBuffersDoNotMix) {
  auto gpu = oxide::Context::create();
  auto cpu = oxide::Context::cpu();
  auto gpu_stream = gpu.default_stream();
  auto cpu_stream = cpu.default_stream();
  auto on_cpu = DeviceBuffer<std::uint32_t>::zeroed(cpu_stream, 8);
  EXPECT_EQ(oxide_test::error_of([&] { (void)on_cpu.to_host(gpu_stream); }),
            "oxide: copy_to_host: the buffer belongs to the CPU simulator but the stream to device 0");
  EXPECT_EQ(
      oxide_test::error_of(
          [&] { oxide::unsafe_launch(gpu_stream, gpu_geometry, oxide::LaunchConfig1D{1, 8}, on_cpu); }),
      "oxide: kernel 'oxide_test_geometry': argument 1 is a buffer of the CPU simulator, but the kernel was "
      "prepared for device 0");
  auto launch = oxide::prepare(gpu, gpu_vecadd, oxide::LaunchConfig1D{1, 8});
  auto cpu_floats = DeviceBuffer<float>::zeroed(cpu_stream, 8);
  auto gpu_floats = DeviceBuffer<float>::zeroed(gpu_stream, 8);
  try {
    launch(gpu_stream, gpu_floats, cpu_floats, gpu_floats);
    FAIL() << "expected oxide::Error";
  } catch (const oxide::Error &e) {
    EXPECT_EQ(e.kind(), oxide::ErrorKind::WrongContext);
    EXPECT_STREQ(e.what(),
                 "oxide: kernel 'oxide_test_vecadd': argument 2 (b) is a buffer of the CPU simulator, "
                 "but the kernel was prepared for device 0");
  }
  try {
    launch(cpu_stream, cpu_floats, cpu_floats, cpu_floats);
    FAIL() << "expected oxide::Error";
  } catch (const oxide::Error &e) {
    EXPECT_EQ(e.kind(), oxide::ErrorKind::WrongStreamContext);
    EXPECT_STREQ(e.what(), "oxide: kernel 'oxide_test_vecadd' was prepared for device 0 but launched on a "
                           "stream of the CPU simulator");
  }
}

TEST_F(GpuRuntime, LoadsACubinForTheExactArch) {
  const char *env = std::getenv("OXIDE_TEST_PTXAS");
  const std::filesystem::path ptxas = env ? env : "/usr/local/cuda/bin/ptxas";
  if (!std::filesystem::exists(ptxas))
    GTEST_SKIP() << "skipped: no ptxas at " << ptxas << " (set OXIDE_TEST_PTXAS)";
  const int arch = oxide::Device::get(0).compute_capability().as_int();
  const auto dir = std::filesystem::temp_directory_path();
  const auto ptx = dir / "oxide_unit_vecadd.ptx";
  const auto cubin = dir / "oxide_unit_vecadd.cubin";
  std::ofstream(ptx) << kVecaddPtx;
  const std::string command =
      ptxas.string() + " -arch=sm_" + std::to_string(arch) + " " + ptx.string() + " -o " + cubin.string();
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream in(cubin, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(bytes.empty());

  DeviceImage image; // only the cubin: loading it is the only way the launch can work
  image.code.push_back({CodeKind::Cubin, static_cast<std::uint32_t>(arch), bytes});
  image.kernels.push_back(kVecaddInfo);
  register_kernels(image, {reinterpret_cast<const void *>(&gpu_vecadd_cubin)}, {"oxide_test_vecadd"});
  check_vecadd(&gpu_vecadd_cubin);
}

} // namespace
