// What the launch contract buys in the PTX: exact block -> .reqntid; read-only inputs that
// cannot alias the output -> ld.global.nc; `requires` sizes -> the inputs' bounds checks vanish
// (no failure report); non-null span data -> only the bounds test guards the store.
// RUN: oxcc build %s --emit=ptx -o - | FileCheck %s
// RUN: oxcc build %s --emit=ptx -o - | FileCheck %s --check-prefix=UNCHECKED
#include <oxide/oxide.hpp>

// CHECK-LABEL: .visible .entry _Z6vecaddN5oxide4SpanIKfEES2_NS_12DisjointSpanIfEE(
// CHECK: .reqntid 256, 1, 1
// CHECK-NOT: [__oxide_failure_record]
// CHECK: setp.ge.u64
// CHECK-NOT: setp
// CHECK: ld.global.nc.b32
// CHECK: ld.global.nc.b32
// CHECK: st.global.b32
// CHECK-NOT: [__oxide_failure_record]
// CHECK: ret;
[[kernel, oxide::launch_contract("domain = 1, block = 256, requires = (a.size() == c.size(), b.size() == c.size())")]]
void vecadd(oxide::Span<const float> a, oxide::Span<const float> b, oxide::DisjointSpan<float> c) {
  const auto idx = oxide::thread::index_1d();
  if (float *out = c.get_mut(idx))
    *out = a[idx.get()] + b[idx.get()];
}

// A grid-stride loop: one compare per iteration, no bounds checks, cached loads.
// CHECK-LABEL: .visible .entry _Z5twiceN5oxide4SpanIKfEENS_12DisjointSpanIfEE(
// CHECK: mov.u32 {{.*}}%nctaid.x
// CHECK: $[[LOOP:L__BB[0-9]+_2]]:
// CHECK-NOT: [__oxide_failure_record]
// CHECK: ld.global.nc.b32
// CHECK: st.global.b32
// CHECK: setp.lt.u64
// CHECK-NOT: setp
// CHECK: bra $[[LOOP]];
[[kernel, oxide::launch_contract("domain = 1, requires = (in.size() == out.size())")]]
void twice(oxide::Span<const float> in, oxide::DisjointSpan<float> out) {
  for (const auto &i : oxide::thread::grid_stride(out.size()))
    if (float *o = out.get_mut(i))
      *o = in[i.get()] * 2.0f;
}

// Without a contract the same kernel keeps plain loads and its input bounds check.
// UNCHECKED-LABEL: .visible .entry _Z9uncheckedN5oxide4SpanIKfEENS_12DisjointSpanIfEE(
// UNCHECKED-NOT: .reqntid
// UNCHECKED-NOT: ld.global.nc
// UNCHECKED: [__oxide_failure_record]
[[kernel]] void unchecked(oxide::Span<const float> in, oxide::DisjointSpan<float> out) {
  const auto idx = oxide::thread::index_1d();
  if (float *o = out.get_mut(idx))
    *o = in[idx.get()];
}
