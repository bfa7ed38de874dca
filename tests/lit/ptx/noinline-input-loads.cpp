// Loads of a Span<const T> input keep ld.global.nc in helpers the compiler does not inline,
// whether they take the span by value, by reference or its data pointer, and through a helper
// of a helper: oxide-optimize marks them invariant when every call passes input memory. A
// helper that one call passes other memory (an output the kernel wrote) keeps a plain load,
// which stays right if the memory changes during the launch.
// RUN: oxcc build --arch=sm_90 %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: oxcc build --arch=sm_90 %s -o %t && env OXIDE_DEVICE=cpu %t | FileCheck %s --check-prefix=SIM
#include <oxide/oxide.hpp>

#include <cstdio>
#include <vector>

[[gnu::noinline]] float by_value(oxide::Span<const float> in, std::size_t i) { return in[i] * 2.0f; }

[[gnu::noinline]] float by_reference_inner(const oxide::Span<const float> &in, std::size_t i) { return in[i] + 1.0f; }
[[gnu::noinline]] float by_reference(const oxide::Span<const float> &in, std::size_t i) {
  return by_reference_inner(in, i) * 3.0f;
}

[[gnu::noinline]] float window_sum(const float *p, std::size_t count) {
  float sum = 0.0f;
  for (std::size_t k = 0; k < count; ++k)
    sum += p[k];
  return sum;
}

// Called with an input and with the thread's output element: plain loads.
[[gnu::noinline]] float mixed_sum(const float *p, std::size_t count) {
  float sum = 0.0f;
  for (std::size_t k = 0; k < count; ++k)
    sum += p[k];
  return sum;
}

[[kernel, oxide::launch_contract("domain = 1, requires = (in.size() == out.size())")]] void
helpers(oxide::Span<const float> in, oxide::DisjointSpan<float> out) {
  const auto i = oxide::thread::index_1d();
  if (float *o = out.get_mut(i)) {
    const std::size_t n = in.size() - i.get() < 4 ? in.size() - i.get() : 4;
    *o = by_value(in, i.get()) + by_reference(in, i.get()) + window_sum(in.data() + i.get(), n) +
         mixed_sum(in.data() + i.get(), n);
    *o += mixed_sum(o, 1);
  }
}

int main() {
  const std::size_t n = 300;
  std::vector<float> host(n);
  for (std::size_t i = 0; i < n; ++i)
    host[i] = static_cast<float>(i % 17);
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  auto in = oxide::DeviceBuffer<float>::from_host(stream, host);
  auto out = oxide::DeviceBuffer<float>::zeroed(stream, n);
  oxide::prepare(ctx, helpers, oxide::LaunchConfig1D::for_elements(n, 64))(stream, in, out);
  const std::vector<float> got = out.to_host(stream);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    float window = 0.0f;
    for (std::size_t k = i; k < n && k < i + 4; ++k)
      window += host[k];
    const float first = host[i] * 2.0f + (host[i] + 1.0f) * 3.0f + window + window;
    wrong += got[i] != first + first;
  }
  std::printf("%s\n", wrong == 0 ? "PASS" : "FAIL");
  return wrong == 0 ? 0 : 1;
}
// SIM: PASS

// The helpers' definitions, in the PTX's order.
// CHECK-LABEL: .func {{.*}}_ZL8by_valueN5oxide4SpanIKfEEm(
// CHECK: ld.global.nc.b32
// CHECK: ret;
// CHECK-LABEL: .func {{.*}}_ZL12by_referenceRKN5oxide4SpanIKfEEm(
// CHECK-LABEL: .func {{.*}}_ZL10window_sumPKfm(
// CHECK: ld.global.nc.b32
// CHECK: ret;
// CHECK-LABEL: .func {{.*}}_ZL9mixed_sumPKfm(
// CHECK-NOT: ld.global.nc
// CHECK: ld.b32
// CHECK-NOT: ld.global.nc
// CHECK: ret;
// CHECK-LABEL: .func {{.*}}_ZL18by_reference_innerRKN5oxide4SpanIKfEEm(
// CHECK: ld.global.nc.b32
// CHECK: ret;
