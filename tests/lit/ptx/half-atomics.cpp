// 16-bit float atomics: fetch_add of oxide::half / oxide::bfloat16 is one atom.add.noftz.f16 /
// .bf16 on global and shared memory (sm_90); sm_80 has no bf16 atom, so it is a compare-and-swap
// loop there; the other operations are compare-and-swap loops on the 32-bit word. Packed pairs
// and bitwise operations are refused with a line that says what to use instead.
// RUN: oxcc build %s --arch=sm_90 --emit=ptx -o - | FileCheck %s
// RUN: oxcc build %s --arch=sm_80 --emit=ptx -o - | FileCheck %s --check-prefix=SM80
// RUN: not oxcc build %s -DPAIR -o %t.pair 2>&1 | FileCheck %s --check-prefix=PAIR
// RUN: not oxcc build %s -DBITS -o %t.bits 2>&1 | FileCheck %s --check-prefix=BITS
// RUN: not oxcc build %s -DSHORT -o %t.short 2>&1 | FileCheck %s --check-prefix=SHORT
#include <oxide/oxide.hpp>

// CHECK-LABEL: .entry {{.*}}sum_half
// CHECK: atom.global.add.noftz.f16
// CHECK-NOT: atom.{{.*}}cas
// CHECK: ret;
// SM80-LABEL: .entry {{.*}}sum_half
// SM80: atom.global.add.noftz.f16
[[kernel, oxide::launch_contract("domain = 1")]] void sum_half(oxide::Span<const oxide::half> in,
                                                               oxide::AtomicSpan<oxide::half> bins) {
  const std::size_t i = oxide::thread::index_1d().get();
  if (i < in.size())
    bins.fetch_add(i % bins.size(), in[i]);
}

// CHECK-LABEL: .entry {{.*}}sum_bf16
// CHECK: atom.relaxed.cta.shared.add.noftz.bf16
// CHECK: atom.global.add.noftz.bf16
// CHECK-NOT: atom.{{.*}}cas
// CHECK: ret;
// SM80-LABEL: .entry {{.*}}sum_bf16
// SM80-NOT: add.noftz.bf16
// SM80: atom.{{.*}}shared.cas.b32
// SM80-NOT: add.noftz.bf16
// SM80: atom.{{.*}}global.cas.b32
// SM80-NOT: add.noftz.bf16
// SM80: ret;
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void
sum_bf16(oxide::Span<const oxide::bfloat16> in, oxide::AtomicSpan<oxide::bfloat16> total) {
  auto block_sum = oxide::shared_array<oxide::bfloat16, 1>();
  if (oxide::thread_idx().x == 0)
    block_sum[0] = oxide::bfloat16(0.0f);
  oxide::sync_threads();
  const std::size_t i = oxide::thread::index_1d().get();
  if (i < in.size())
    oxide::AtomicRef<oxide::bfloat16, oxide::Scope::block>(block_sum[0]).fetch_add(in[i]);
  oxide::sync_threads();
  if (oxide::thread_idx().x == 0)
    total.fetch_add(0, block_sum[0]);
}

// CHECK-LABEL: .entry {{.*}}extremes
// CHECK: atom.relaxed.gpu.global.cas.b32
// CHECK: atom.relaxed.gpu.global.cas.b32
[[kernel, oxide::launch_contract("domain = 1")]] void extremes(oxide::Span<const oxide::half> in,
                                                               oxide::AtomicSpan<oxide::half> out) {
  const std::size_t i = oxide::thread::index_1d().get();
  if (i < in.size()) {
    out.fetch_min(0, in[i]);
    out.fetch_max(1, in[i]);
  }
}

#ifdef PAIR
// PAIR: half-atomics.cpp:[[@LINE+5]]:{{[0-9]+}}: error: constraints not satisfied
// PAIR-SAME: for class template 'AtomicSpan'
// PAIR: because 'oxide::halfx2' (vector of 2 'half' values) does not satisfy 'AtomicValue'
// PAIR: halfx2/bfloat16x2 have no atomics:
// PAIR-SAME: add each lane through AtomicRef<half> or AtomicRef<bfloat16>
[[kernel, oxide::launch_contract("domain = 1")]] void pairs(oxide::AtomicSpan<oxide::halfx2> bins) {}
#endif
#ifdef BITS
[[kernel, oxide::launch_contract("domain = 1")]] void bits(oxide::AtomicSpan<oxide::bfloat16> bins) {
  // BITS: half-atomics.cpp:[[@LINE+3]]:11: error: invalid reference to function 'fetch_or':
  // BITS-SAME: constraints not satisfied
  // BITS: because 'std::is_integral_v<__bf16>' evaluated to false
  bins[0].fetch_or(oxide::bfloat16(1.0f));
}
#endif
#ifdef SHORT
// SHORT: half-atomics.cpp:[[@LINE+3]]:{{[0-9]+}}: error: constraints not satisfied
// SHORT-SAME: for class template 'AtomicRef'
// SHORT: atomics take 32/64-bit integers, float, double, half or bfloat16
void shorts(short &s) { oxide::AtomicRef<short>(s).fetch_add(1); }
#endif

int main() {}
