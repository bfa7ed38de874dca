// Helpers need no annotations; template, internal-linkage kernels and lambdas all reach PTX,
// while host-only code (main, std::vector) is never compiled for the device.
// RUN: oxcc build %s --emit=ptx -o - | FileCheck %s
#include <oxide/oxide.hpp>

#include <array>
#include <cmath>
#include <vector>

float later(float x); // defined after the kernel that uses it

template <class T> T square(T x) { return x * x; }

struct Accumulator {
  float sum = 0;
  void add(float v) { sum += v; }
  float get() const;
};
float Accumulator::get() const { return sum; }

// CHECK-DAG: .visible .entry _Z7helpersN5oxide4SpanIKfEENS_12DisjointSpanIfEE(
[[kernel]] void helpers(oxide::Span<const float> in, oxide::DisjointSpan<float> out) {
  const auto idx = oxide::thread::index_1d();
  auto poly = [](float x) { return std::array<float, 2>{1.0f, 2.0f}[1] * x; };
  Accumulator acc;
  acc.add(square(in[idx.get()]));
  if (float *o = out.get_mut(idx))
    *o = poly(acc.get()) + later(std::sqrt(in[idx.get()]));
}

float later(float x) { return x * 0.5f; }

namespace {
// CHECK-DAG: .visible .entry _ZN12_GLOBAL__N_18internalEN5oxide12DisjointSpanIiEE(
[[oxide::kernel]] void internal(oxide::DisjointSpan<int> out) {
  const auto idx = oxide::thread::index_1d();
  if (int *o = out.get_mut(idx))
    *o = 7;
}
} // namespace

// CHECK-DAG: .visible .entry _Z5scaleIdEvN5oxide12DisjointSpanIT_EES2_(
template <class T> [[kernel]] void scale(oxide::DisjointSpan<T> data, T factor) {
  const auto idx = oxide::thread::index_1d();
  if (T *o = data.get_mut(idx))
    *o *= factor;
}

// libdevice's IEEE square root, as nvcc's default -prec-sqrt=true.
// CHECK-DAG: sqrt.rn.f32

// CHECK-NOT: {{\.(func|entry) .*}}main
// CHECK-NOT: _Z9host_onlyv
void host_only() { std::vector<float> v(10); }

int main() {
  host_only();
  auto launchable = &scale<double>;
  auto other = &internal;
  (void)launchable;
  (void)other;
}
