// Kernels for the tests of streams, events, pinned memory and graphs: each is an ordinary host
// function (what the CPU simulator runs) registered with hand-written PTX (what a GPU runs), as
// oxcc would register it, so one test body exercises both backends.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "oxide/detail/device_image.hpp"
#include "oxide/oxide.hpp"

namespace oxide_test {

/// data[i] += 1 for every element.
inline void add_one(oxide::Span<float> data) {
  const std::size_t i = oxide::thread::index_1d().get();
  if (i < data.size())
    data[i] += 1.0f;
}

/// out[i] = in[i] * factor, under a launch contract (for oxide::prepare).
inline void scale(oxide::Span<const float> in, float factor, oxide::DisjointSpan<float> out) {
  const auto idx = oxide::thread::index_1d();
  if (float *o = out.get_mut(idx))
    *o = in[idx.get()] * factor;
}

/// Busy-waits `cycles` GPU clock cycles (one thread is enough); nothing on the simulator.
inline void spin(std::uint64_t cycles) { (void)cycles; }

constexpr const char *kAddOnePtx = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry oxide_test_add_one(
	.param .align 8 .b8 oxide_test_add_one_param_0[16]
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<4>;
	.reg .f32 	%f<3>;
	.reg .b64 	%rd<9>;
	mov.u32 	%r1, %ctaid.x;
	mov.u32 	%r2, %ntid.x;
	mul.wide.u32 	%rd1, %r1, %r2;
	mov.u32 	%r3, %tid.x;
	cvt.u64.u32 	%rd2, %r3;
	add.s64 	%rd3, %rd1, %rd2;
	ld.param.u64 	%rd4, [oxide_test_add_one_param_0+8];
	setp.ge.u64 	%p1, %rd3, %rd4;
	@%p1 bra 	$L__BB0_2;
	ld.param.u64 	%rd5, [oxide_test_add_one_param_0];
	cvta.to.global.u64 	%rd6, %rd5;
	shl.b64 	%rd7, %rd3, 2;
	add.s64 	%rd8, %rd6, %rd7;
	ld.global.f32 	%f1, [%rd8];
	add.f32 	%f2, %f1, 0f3F800000;
	st.global.f32 	[%rd8], %f2;
$L__BB0_2:
	ret;
}
)";

constexpr const char *kScalePtx = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry oxide_test_scale(
	.param .align 8 .b8 oxide_test_scale_param_0[16],
	.param .f32 oxide_test_scale_param_1,
	.param .align 8 .b8 oxide_test_scale_param_2[16]
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<4>;
	.reg .f32 	%f<4>;
	.reg .b64 	%rd<13>;
	mov.u32 	%r1, %ctaid.x;
	mov.u32 	%r2, %ntid.x;
	mul.wide.u32 	%rd1, %r1, %r2;
	mov.u32 	%r3, %tid.x;
	cvt.u64.u32 	%rd2, %r3;
	add.s64 	%rd3, %rd1, %rd2;
	ld.param.u64 	%rd4, [oxide_test_scale_param_2+8];
	setp.ge.u64 	%p1, %rd3, %rd4;
	@%p1 bra 	$L__BB0_2;
	ld.param.u64 	%rd5, [oxide_test_scale_param_0];
	cvta.to.global.u64 	%rd6, %rd5;
	shl.b64 	%rd7, %rd3, 2;
	add.s64 	%rd8, %rd6, %rd7;
	ld.global.f32 	%f1, [%rd8];
	ld.param.f32 	%f2, [oxide_test_scale_param_1];
	mul.f32 	%f3, %f1, %f2;
	ld.param.u64 	%rd9, [oxide_test_scale_param_2];
	cvta.to.global.u64 	%rd10, %rd9;
	add.s64 	%rd11, %rd10, %rd7;
	st.global.f32 	[%rd11], %f3;
$L__BB0_2:
	ret;
}
)";

constexpr const char *kSpinPtx = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry oxide_test_spin(
	.param .u64 oxide_test_spin_param_0
)
{
	.reg .pred 	%p<2>;
	.reg .b64 	%rd<5>;
	ld.param.u64 	%rd1, [oxide_test_spin_param_0];
	mov.u64 	%rd2, %clock64;
$L__BB0_1:
	mov.u64 	%rd3, %clock64;
	sub.s64 	%rd4, %rd3, %rd2;
	setp.lt.u64 	%p1, %rd4, %rd1;
	@%p1 bra 	$L__BB0_1;
	ret;
}
)";

/// Registers add_one, scale and spin once per process.
inline void register_runtime_test_kernels() {
  static std::once_flag once;
  std::call_once(once, [] {
    using oxide::detail::CodeKind;
    using oxide::detail::DeviceImage;
    auto add = [](const char *ptx, oxide::detail::KernelInfo info, const void *host) {
      DeviceImage image;
      image.code.push_back({CodeKind::Ptx, 70, ptx});
      const std::string name = info.name;
      image.kernels.push_back(std::move(info));
      const std::string bytes = oxide::detail::encode_image(image);
      const char *names[] = {name.c_str()};
      __oxide_register_image(reinterpret_cast<const unsigned char *>(bytes.data()), bytes.size(), &host,
                             names, 1);
    };
    add(kAddOnePtx, {"oxide_test_add_one", {{16, 8}}}, reinterpret_cast<const void *>(&add_one));
    // The canonical contract oxcc stores for [[oxide::launch_contract("domain = 1, requires =
    // (in.size() == out.size())")]].
    add(kScalePtx,
        {"oxide_test_scale",
         {{16, 8}, {4, 4}, {16, 8}},
         "domain = 1, dynamic_shared = 0..4294967295, requires = ($0.size() == $2.size())",
         "in=i,factor=x,out=o"},
        reinterpret_cast<const void *>(&scale));
    add(kSpinPtx, {"oxide_test_spin", {{8, 8}}}, reinterpret_cast<const void *>(&spin));
  });
}

/// Skips the test where there is no CUDA device.
#define OXIDE_REQUIRE_GPU()                                                                                  \
  do {                                                                                                       \
    if (oxide::Device::count() == 0)                                                                         \
      GTEST_SKIP() << "skipped: no CUDA device";                                                             \
  } while (0)

/// The oxide::ErrorKind that `body` throws; fails the test when it throws none.
template <class Body> oxide::ErrorKind kind_of(Body &&body) {
  try {
    body();
  } catch (const oxide::Error &e) {
    return e.kind();
  }
  ADD_FAILURE() << "expected an oxide::Error";
  return oxide::ErrorKind::Other;
}

/// A 1-D configuration covering `n` elements.
inline oxide::LaunchConfig1D cover(std::size_t n) { return oxide::LaunchConfig1D::for_elements(n); }

} // namespace oxide_test
