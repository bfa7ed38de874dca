// KNOWN GAP, expected to fail: every kernel here is compiled WITHOUT its guard by the current
// compiler (and by the one before the fix). Threads past the end of `out` store past its end, and
// in block_leader_else / warp_leader_else every thread of a block (lane of a warp) stores the
// leader's element. Run on an H200 with canaries behind the output (as tests/lang/ub_guards.cpp
// does), else_shift_atomic, atomic_or_miss and block_leader_else overwrote them.
//
// Each kernel handles "no element" on a second path with an index that is poison whatever the
// thread (a shift by the type's width, a negative float converted to an unsigned index), used
// for an AtomicSpan update. The index is a constant, and freezeGuardedIndices (oxide-to-nvvm)
// freezes no constant, so after the lowering the AtomicSpan's bounds test is
// `icmp ult i64 poison, %size`; the branch on it is undefined, LLVM deletes that path, and with
// it the program's own null test (`if (p)`) of the element pointer, which was the only guard of
// the store: the store's address, select(i < size, data + i, null), becomes data + i.
// oxide-guard-element-accesses put no trap there (the program tested the pointer), and the audit
// finds nothing (the deleted path leaves no `unreachable`). With the index on every path
// instead, the audit refuses the kernel (poison-constants.test). A fix would freeze constant
// indices too (or materialise a frozen value for poison/undef operands of the accessors).
// The CHECK lines say what a guarded kernel has: the compare with out.size() (or the leader's
// thread test) before the store.
// XFAIL: *
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
