// A path that handles "no element" with an index that is poison whatever the thread (a shift by
// the type's width, a negative float converted to an unsigned index), used for an AtomicSpan
// update. Before freezeGuardedIndices froze poison and undef constants too, the AtomicSpan's
// bounds test became `icmp ult i64 poison, %size`; the branch on it is undefined, so LLVM deleted
// that path, and with it the program's own null test (`if (p)`) of the element pointer, the only
// guard of the store: select(i < size, data + i, null) became data + i. On an H200 with canaries
// behind the output, else_shift_atomic, atomic_or_miss and block_leader_else overwrote them.
// Now the poison is one frozen value: the atomic's test stays, and so does the program's.
// The CHECK lines say what a guarded kernel has: the compare with out.size() (or the leader's
// thread test) before the store.
// RUN: oxcc build %s --arch=sm_90 --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
#include <oxide/oxide.hpp>

#include <cstddef>

// CHECK-LABEL: .entry _Z17else_shift_atomicN5oxide12DisjointSpanIfEENS_10AtomicSpanIjLNS_5ScopeE1EEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [_Z17else_shift_atomicN5oxide12DisjointSpanIfEENS_10AtomicSpanIjLNS_5ScopeE1EEE_param_0+8];
// CHECK: setp.{{[a-z]+}}.u64 [[P:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @[[P]] bra
// CHECK: st.global.b32
[[kernel, oxide::launch_contract("domain = 1")]] void else_shift_atomic(oxide::DisjointSpan<float> out,
                                                                        oxide::AtomicSpan<unsigned> misses) {
  if (float *p = out.get_mut(oxide::thread::index_1d())) {
    *p = 1.0f;
  } else {
    unsigned bits = 64; // "the miss counter's slot"
    misses.fetch_add(std::size_t{1} << bits, 1u);
  }
}

// CHECK-LABEL: .entry _Z16else_float_indexN5oxide12DisjointSpanIfEENS_10AtomicSpanIjLNS_5ScopeE1EEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [_Z16else_float_indexN5oxide12DisjointSpanIfEENS_10AtomicSpanIjLNS_5ScopeE1EEE_param_0+8];
// CHECK: setp.{{[a-z]+}}.u64 [[P:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @[[P]] bra
// CHECK: st.global.b32
[[kernel, oxide::launch_contract("domain = 1")]] void else_float_index(oxide::DisjointSpan<float> out,
                                                                       oxide::AtomicSpan<unsigned> misses) {
  if (float *p = out.get_mut(oxide::thread::index_1d())) {
    *p = 1.0f;
  } else {
    const float below = -1.0f;
    misses.fetch_add(std::size_t(below), 1u);
  }
}

inline std::size_t bin_of(float v) { return std::size_t(v * 4.0f); }
// CHECK-LABEL: .entry _Z17else_helper_indexN5oxide12DisjointSpanIfEENS_10AtomicSpanIjLNS_5ScopeE1EEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [_Z17else_helper_indexN5oxide12DisjointSpanIfEENS_10AtomicSpanIjLNS_5ScopeE1EEE_param_0+8];
// CHECK: setp.{{[a-z]+}}.u64 [[P:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @[[P]] bra
// CHECK: st.global.b32
[[kernel, oxide::launch_contract("domain = 1")]] void else_helper_index(oxide::DisjointSpan<float> out,
                                                                        oxide::AtomicSpan<unsigned> misses) {
  if (float *p = out.get_mut(oxide::thread::index_1d()))
    *p = 1.0f;
  else
    misses.fetch_add(bin_of(-1.0f), 1u);
}

// CHECK-LABEL: .entry _Z9two_testsN5oxide12DisjointSpanIfEENS_10AtomicSpanIjLNS_5ScopeE1EEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [_Z9two_testsN5oxide12DisjointSpanIfEENS_10AtomicSpanIjLNS_5ScopeE1EEE_param_0+8];
// CHECK: setp.{{[a-z]+}}.u64 [[P:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @[[P]] bra
// CHECK: st.global.b32
[[kernel, oxide::launch_contract("domain = 1")]] void two_tests(oxide::DisjointSpan<float> out,
                                                                oxide::AtomicSpan<unsigned> misses) {
  float *p = out.get_mut(oxide::thread::index_1d());
  if (p)
    *p = 1.0f;
  const unsigned bits = 32;
  if (!p)
    misses.fetch_add(1u << bits, 1u);
}

// CHECK-LABEL: .entry _Z17block_leader_elseN5oxide12DisjointSpanIfEENS_10AtomicSpanIjLNS_5ScopeE1EEE(
// CHECK: mov.u32 [[TID:%r[0-9]+]], %tid.x;
// CHECK: setp.{{[a-z]+}}.b32 [[P:%p[0-9]+]], [[TID]], 0;
// CHECK: st.global.b32
[[kernel, oxide::launch_contract("domain = 1")]] void block_leader_else(oxide::DisjointSpan<float> out,
                                                                        oxide::AtomicSpan<unsigned> misses) {
  if (float *o = out.get_mut(oxide::block::index())) {
    *o = 1.0f;
  } else {
    unsigned bits = 64;
    misses.fetch_add(std::size_t{1} << bits, 1u);
  }
}

// CHECK-LABEL: .entry _Z16warp_leader_elseN5oxide12DisjointSpanIfEENS_10AtomicSpanIjLNS_5ScopeE1EEE(
// CHECK: mov.u32 [[LANE:%r[0-9]+]], %laneid;
// CHECK: setp.{{[a-z]+}}.b32 [[P:%p[0-9]+]], [[LANE]], 0;
// CHECK: st.global.b32
[[kernel, oxide::launch_contract("domain = 1")]] void warp_leader_else(oxide::DisjointSpan<float> out,
                                                                       oxide::AtomicSpan<unsigned> misses) {
  if (float *o = out.get_mut(oxide::warp::index()))
    *o = 1.0f;
  else
    misses.fetch_add(bin_of(-2.0f), 1u);
}

// Here the lost guard is the AtomicSpan's own: bins[*x] is updated with no test of *x.
// CHECK-LABEL: .entry _Z14atomic_or_missN5oxide10AtomicSpanIjLNS_5ScopeE1EEENS_4SpanIKjEE(
// CHECK: ld.global.nc.b32
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{.*}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[P:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @[[P]] bra
// CHECK: atom.global.add.u32
[[kernel, oxide::launch_contract("domain = 1")]] void atomic_or_miss(oxide::AtomicSpan<unsigned> bins,
                                                                     oxide::Span<const unsigned> in) {
  if (const unsigned *x = in.get(oxide::thread::index_1d().get())) {
    if (*x < bins.size())
      bins.fetch_add(*x, 1u);
    else
      bins.fetch_add(bin_of(-1.0f), 1u); // "count out-of-range values in the underflow bin"
  }
}

int main() {}
