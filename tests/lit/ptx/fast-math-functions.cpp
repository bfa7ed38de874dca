// oxide::fast (fast_math.hpp) is CUDA's intrinsic functions: each becomes its approximate
// instruction (through libdevice's __nv_fast_*, as nvcc's __expf...), without denormal flushing
// by default and with it under --fast-math. On the simulator they are <cmath>'s functions
// (tests/gpu/math compares both devices).
// RUN: oxcc build %s --emit=ptx -o - | FileCheck %s
// RUN: oxcc build %s --fast-math --emit=ptx -o - | FileCheck %s --check-prefix=FTZ
// RUN: oxcc build %s -o %t && env OXIDE_DEVICE=cpu %t | FileCheck %s --check-prefix=SIM
#include <oxide/oxide.hpp>

#include <cstdio>
#include <vector>

// One function per case, so that no two share an instruction.
[[kernel, oxide::launch_contract("domain = 1, requires = (a.size() == out.size())")]] void
fast(int f, oxide::Span<const float> a, oxide::DisjointSpan<float> out) {
  const auto i = oxide::thread::index_1d();
  float *o = out.get_mut(i);
  if (o == nullptr)
    return;
  const float x = a[i.get()];
  float r = 0.0f, s = 0.0f, c = 0.0f;
  switch (f) {
  case 0:
    r = oxide::fast::exp(x);
    break;
  case 1:
    r = oxide::fast::log2(x);
    break;
  case 2:
    r = oxide::fast::sin(x);
    break;
  case 3:
    r = oxide::fast::cos(x);
    break;
  case 4:
    r = oxide::fast::div(x, 3.0f);
    break;
  case 5:
    r = oxide::fast::rsqrt(x);
    break;
  case 6:
    r = oxide::fast::saturate(x);
    break;
  case 7:
    oxide::fast::sincos(x, s, c);
    r = s * c;
    break;
  case 8:
    r = oxide::fast::exp2(x);
    break;
  default:
    r = static_cast<float>(oxide::fast::rsqrt(static_cast<double>(x)));
  }
  *o = r;
}
// CHECK-LABEL: .entry {{.*}}fast
// CHECK-DAG: ex2.approx.f32
// CHECK-DAG: lg2.approx.f32
// CHECK-DAG: sin.approx.f32
// CHECK-DAG: cos.approx.f32
// CHECK-DAG: div.approx.f32
// CHECK-DAG: rsqrt.approx.f32
// CHECK-DAG: cvt.sat.f32.f32
// fast::exp2 flushes denormals in every build: one MUFU.EX2, no scaling around it.
// CHECK-DAG: ex2.approx.ftz.f32
// CHECK-DAG: rsqrt.approx.f64
// FTZ-LABEL: .entry {{.*}}fast
// FTZ-DAG: ex2.approx.ftz.f32
// FTZ-DAG: lg2.approx.ftz.f32
// FTZ-DAG: sin.approx.ftz.f32
// FTZ-DAG: rsqrt.approx.ftz.f32

int main() {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  const std::vector<float> in = {0.25f, 1.0f, 2.0f, -0.5f};
  auto a = oxide::DeviceBuffer<float>::from_host(stream, in);
  auto out = oxide::DeviceBuffer<float>::zeroed(stream, in.size());
  auto launch = oxide::prepare(ctx, fast, oxide::LaunchConfig1D::for_elements(in.size(), 32));
  for (int f : {0, 5, 6, 8}) {
    launch(stream, f, a, out);
    for (float v : out.to_host(stream))
      std::printf("%d %.6g\n", f, v);
  }
}
// The simulator computes <cmath>'s values: e^x, 1/sqrt(x) (NaN for -0.5), and the clamp to [0, 1].
// SIM: 0 1.28403
// SIM: 0 2.71828
// SIM: 0 7.38906
// SIM: 0 0.606531
// SIM: 5 2
// SIM: 5 1
// SIM: 5 0.707107
// SIM: 5 {{-?nan}}
// SIM: 6 0.25
// SIM: 6 1
// SIM: 6 1
// SIM: 6 0
// SIM: 8 1.18921
// SIM: 8 2
// SIM: 8 4
// SIM: 8 0.707107
