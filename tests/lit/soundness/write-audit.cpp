// The audit of the optimised code (compiler/passes/GuardedWrites.cpp): every write that reaches
// NVPTX is proven inside its span from the facts of the optimised code, or tested again ahead
// of it. The first kernel's guard survives optimisation and is proven: nothing is added. In the
// second, LLVM unrolls the loop by four and tests bins[k] < 256 once per four iterations (k is a
// multiple of 4 there, and 256 is too): right, but by an induction the audit does not follow,
// so the three other updates are tested again, on the address itself.
// RUN: oxcc build %s --arch=sm_90 --emit=llvm -o %t.ll
// RUN: FileCheck %s < %t.ll
#include <oxide/oxide.hpp>

#include <cstdint>

// CHECK-LABEL: define {{.*}} @_Z6scaledN5oxide4SpanIKfEENS_12DisjointSpanIfEE(
// CHECK-NOT: !oxide.guard.again
// CHECK: ret void
[[kernel, oxide::launch_contract("domain = 1, requires = (in.size() == out.size())")]] void
scaled(oxide::Span<const float> in, oxide::DisjointSpan<float> out) {
  const auto &i = oxide::thread::index_1d();
  if (float *o = out.get_mut(i))
    *o = 2.0f * in[i.get()];
}

// CHECK-LABEL: define {{.*}} @_Z12counted_binsN5oxide10AtomicSpanIjLNS_5ScopeE1EEEj(
// The update of bins[k], under the test LLVM kept:
// CHECK: atomicrmw add
// Each of the next three, tested again first:
// CHECK: br i1 %{{.*}}, !oxide.guard.again
// CHECK: call void @llvm.trap()
// CHECK: atomicrmw add
// CHECK: br i1 %{{.*}}, !oxide.guard.again
// CHECK: atomicrmw add
// CHECK: br i1 %{{.*}}, !oxide.guard.again
// CHECK: atomicrmw add
[[kernel, oxide::launch_contract("domain = 1, requires = (bins.size() == 256)")]] void
counted_bins(oxide::AtomicSpan<unsigned> bins, std::uint32_t n) {
  for (std::uint32_t k = 0; k < n; ++k)
    bins.fetch_add(k, 1u);
}
