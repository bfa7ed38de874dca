// An access through get_mut's result that no null test guards stops the kernel with a message
// where the thread owns no element (oxide-guard-element-accesses): LLVM may no longer drop the
// null and write past the end of the span. An access behind the program's own test costs
// nothing: its kernel has no trap.
// RUN: oxcc build %s --arch=sm_90 --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: oxcc build %s -o %t && env OXIDE_DEVICE=cpu %t 2>&1 | FileCheck %s --check-prefix=SIM
#include <oxide/oxide.hpp>

#include <cstdio>

// CHECK: __oxide_null_element_$_str[{{[0-9]+}}] = {{.*}}
// CHECK-LABEL: .entry _Z7checkedN5oxide12DisjointSpanIfEE(
// CHECK-NOT: trap;
// CHECK: st.global.b32
// CHECK-NOT: trap;
// CHECK: ret;
[[kernel, oxide::launch_contract("domain = 1")]] void checked(oxide::DisjointSpan<float> out) {
  if (float *o = out.get_mut(oxide::thread::index_1d()))
    *o = 1.0f;
}

// CHECK-LABEL: .entry _Z9uncheckedN5oxide12DisjointSpanIfEE(
// CHECK: setp.lt.u64 [[IN:%p[0-9]+]]
// CHECK: st.global.b32
// CHECK: __oxide_null_element_$_str
// CHECK: call.uni __assertfail
// CHECK: trap;
[[kernel, oxide::launch_contract("domain = 1")]] void unchecked(oxide::DisjointSpan<float> out) {
  *out.get_mut(oxide::thread::index_1d()) = 1.0f;
}

// On the simulator the thread past the end faults at address 0 instead.
// SIM: in bounds: 1 1 1 1
// SIM: KernelFault: oxide: kernel 'unchecked' block (0,0,0) thread (4,0,0): illegal address: a write to address 0x0
int main() {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  auto out = oxide::DeviceBuffer<float>::zeroed(stream, 4);
  oxide::prepare(ctx, checked, oxide::LaunchConfig1D{1, 32})(stream, out);
  oxide::prepare(ctx, unchecked, oxide::LaunchConfig1D{1, 4})(stream, out);
  const auto host = out.to_host(stream);
  std::printf("in bounds: %g %g %g %g\n", host[0], host[1], host[2], host[3]);
  try {
    oxide::prepare(ctx, unchecked, oxide::LaunchConfig1D{1, 32})(stream, out);
    stream.synchronize();
  } catch (const oxide::Error &e) {
    std::printf("%s: %s\n", oxide::to_string(e.kind()).data(), e.what());
  }
}
