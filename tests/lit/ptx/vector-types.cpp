// Whole-vector loads, stores, copies and selects of oxide::Float4 / Float2 / Int4 / Double2 are
// single 16- or 8-byte accesses (ld.global.nc.v4 out of an input span), never a memcpy through
// local memory.
// RUN: oxcc build %s --arch=sm_90 --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: FileCheck %s --check-prefix=NOLOCAL < %t.ptx
// NOLOCAL-NOT: __local_depot
// NOLOCAL-NOT: .local
#include <oxide/oxide.hpp>

using oxide::Double2, oxide::Float2, oxide::Float4, oxide::Int4;

// CHECK-LABEL: .entry {{.*}}copy4
// CHECK: ld.global.nc.v4.b32
// CHECK-NEXT: st.global.v4.b32
// CHECK: ret;
[[kernel, oxide::launch_contract("domain = 1, requires = (in.size() == out.size())")]] void
copy4(oxide::Span<const Float4> in, oxide::DisjointSpan<Float4> out) {
  const auto i = oxide::thread::index_1d();
  if (Float4 *o = out.get_mut(i))
    *o = in[i.get()];
}

// `c ? a[i] : b[i]` picks one of two input elements: one read-only 128-bit load of the chosen
// one, not a memcpy split into 64-bit loads.
// CHECK-LABEL: .entry {{.*}}select4
// CHECK-NOT: ld.global.b64
// CHECK: ld.global.nc.v4.b32
// CHECK-NEXT: st.global.v4.b32
// CHECK: ret;
[[kernel,
  oxide::launch_contract("domain = 1, requires = (a.size() == out.size(), b.size() == out.size())")]] void
select4(oxide::Span<const Float4> a, oxide::Span<const Float4> b, oxide::DisjointSpan<Float4> out) {
  const auto i = oxide::thread::index_1d();
  if (Float4 *o = out.get_mut(i))
    *o = i.get() % 3 == 0 ? a[i.get()] : b[i.get()];
}

// CHECK-LABEL: .entry {{.*}}select2
// CHECK: ld.global.nc.b64
// CHECK-NEXT: st.global.b64
// CHECK: ret;
[[kernel,
  oxide::launch_contract("domain = 1, requires = (a.size() == out.size(), b.size() == out.size())")]] void
select2(oxide::Span<const Float2> a, oxide::Span<const Float2> b, oxide::DisjointSpan<Float2> out) {
  const auto i = oxide::thread::index_1d();
  if (Float2 *o = out.get_mut(i))
    *o = i.get() & 1 ? a[i.get()] : b[i.get()];
}

// A select of computed values and element-wise arithmetic stay in registers.
// CHECK-LABEL: .entry {{.*}}axpy4
// CHECK: ld.global.nc.v4.b32
// CHECK: ld.global.nc.v4.b32
// CHECK: st.global.v4.b32
// CHECK: ret;
[[kernel,
  oxide::launch_contract("domain = 1, requires = (x.size() == out.size(), y.size() == out.size())")]] void
axpy4(float alpha, oxide::Span<const Float4> x, oxide::Span<const Float4> y,
      oxide::DisjointSpan<Float4> out) {
  const auto i = oxide::thread::index_1d();
  if (Float4 *o = out.get_mut(i)) {
    const Float4 v = alpha * x[i.get()] + y[i.get()];
    *o = v.x < 0.0f ? -v : v;
  }
}

// Through shared memory, both ways: 128-bit shared accesses.
// CHECK-LABEL: .entry {{.*}}reverse4
// CHECK: ld.global.nc.v4.b32
// CHECK: st.shared.v4.b32
// CHECK: bar.sync
// CHECK: ld.shared.v4.b32
// CHECK-NEXT: st.global.v4.b32
// CHECK: ret;
[[kernel, oxide::launch_contract("domain = 1, block = 128, requires = (in.size() == out.size())")]] void
reverse4(oxide::Span<const Int4> in, oxide::DisjointSpan<Int4> out) {
  auto tile = oxide::shared_array<Int4, 128>();
  const auto i = oxide::thread::index_1d();
  const std::uint32_t t = oxide::thread_idx().x;
  tile[t] = i.get() < in.size() ? in[i.get()] : Int4{};
  oxide::sync_threads();
  if (Int4 *o = out.get_mut(i))
    *o = tile[127 - t];
}

// Double2: the same 128-bit accesses.
// CHECK-LABEL: .entry {{.*}}copy_double2
// CHECK: ld.global.nc.v4.b32
// CHECK-NEXT: st.global.v4.b32
// CHECK: ret;
[[kernel, oxide::launch_contract("domain = 1, requires = (in.size() == out.size())")]] void
copy_double2(oxide::Span<const Double2> in, oxide::DisjointSpan<Double2> out) {
  const auto i = oxide::thread::index_1d();
  if (Double2 *o = out.get_mut(i))
    *o = in[i.get()];
}

// A Float2 goes through a warp shuffle as one 64-bit value: two shfl.sync, no local memory.
// CHECK-LABEL: .entry {{.*}}rotate2
// CHECK: ld.global{{(.nc)?}}.b64
// CHECK-COUNT-2: shfl.sync.idx.b32
// CHECK-NOT: shfl.sync
// CHECK: st.global.v2.b32
// CHECK: ret;
[[kernel, oxide::launch_contract("domain = 1, block = 32, requires = (in.size() == out.size())")]] void
rotate2(oxide::Span<const Float2> in, oxide::DisjointSpan<Float2> out) {
  const auto i = oxide::thread::index_1d();
  const Float2 mine = i.get() < in.size() ? in[i.get()] : Float2{};
  const Float2 next = oxide::warp::shuffle(mine, oxide::warp::lane_id() + 1);
  if (Float2 *o = out.get_mut(i))
    *o = next;
}

int main() {}

// A pair of floats becomes a bfloat16x2 in one conversion and both lanes are fused in one fma;
// halfx2 likewise, with one packed multiply (issues 38, 39: attention's output conversions).
// CHECK-LABEL: .entry {{.*}}pack_pairs
// CHECK: cvt.rn.bf16x2.f32
// CHECK: fma.rn.bf16x2
// CHECK: st.global.b32
// CHECK: cvt.rn.f16x2.f32
// CHECK: mul{{(.rn)?}}.f16x2
// CHECK: st.global.b32
// CHECK: ret;
[[kernel, oxide::launch_contract("domain = 1, requires = (in.size() == 2 * out.size(), "
                                 "hout.size() == out.size())")]] void
pack_pairs(oxide::Span<const float> in, oxide::bfloat16x2 scale, oxide::DisjointSpan<oxide::bfloat16x2> out,
           oxide::DisjointSpan<oxide::halfx2> hout) {
  const auto i = oxide::thread::index_1d();
  if (oxide::bfloat16x2 *o = out.get_mut(i)) {
    const oxide::bfloat16x2 p = oxide::to_bfloat16x2(in[2 * i.get()], in[2 * i.get() + 1]);
    *o = oxide::fma(p, scale, p);
  }
  if (oxide::halfx2 *o = hout.get_mut(i))
    *o = oxide::to_halfx2(in[2 * i.get()], in[2 * i.get() + 1]) * oxide::to_halfx2(2.0f, 0.5f);
}
