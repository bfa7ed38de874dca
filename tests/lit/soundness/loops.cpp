// Loops assumed to terminate: C++ lets the compiler assume that a loop without side effects
// ends, so `while (!p) {}` is read as "p is not null" and `while (i >= n) {}` as "i < n", and
// LLVM deletes the bounds test after the loop. A thread past the end really spins there. With
// defineUndefinedBehaviour no loop or function is assumed to make progress: the loop stays, as
// written, and so does the guard after it. Kernels marked OLD lost their guard with the compiler
// before that fix (their CHECK lines fail on its PTX); spin_tile kept its bounds test there, but
// trapped instead of spinning. None of these kernels may be launched with more threads than
// elements: the threads past the end spin forever.
// RUN: oxcc build %s --arch=sm_90 --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
#include <oxide/oxide.hpp>

#include <cstddef>

// OLD: the loop and the bounds test went; every thread stored.
// CHECK-LABEL: .entry _Z14while_not_nullN5oxide12DisjointSpanIfEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z14while_not_nullN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[IN:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
// CHECK: [[SPIN:\$L__BB[0-9_]+]]:
// CHECK: bra.uni [[SPIN]];
[[kernel, oxide::launch_contract("domain = 1")]] void while_not_null(oxide::DisjointSpan<float> out) {
  float *p = out.get_mut(oxide::thread::index_1d());
  while (!p) {
  }
  *p = 3.0f;
}

// OLD: as above.
// CHECK-LABEL: .entry _Z9for_breakN5oxide12DisjointSpanIfEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z9for_breakN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[IN:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
// CHECK: [[SPIN:\$L__BB[0-9_]+]]:
// CHECK: bra.uni [[SPIN]];
[[kernel, oxide::launch_contract("domain = 1")]] void for_break(oxide::DisjointSpan<float> out) {
  float *p = out.get_mut(oxide::thread::index_1d());
  for (;;) {
    if (p)
      break;
  }
  *p = 3.0f;
}

// OLD: as above.
// CHECK-LABEL: .entry _Z8do_whileN5oxide12DisjointSpanIfEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z8do_whileN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[IN:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
// CHECK: [[SPIN:\$L__BB[0-9_]+]]:
// CHECK: bra.uni [[SPIN]];
[[kernel, oxide::launch_contract("domain = 1")]] void do_while(oxide::DisjointSpan<float> out) {
  float *p = out.get_mut(oxide::thread::index_1d());
  do {
  } while (!p);
  *p = 3.0f;
}

// OLD: as above.
// CHECK-LABEL: .entry _Z13spin_on_indexN5oxide12DisjointSpanIfEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z13spin_on_indexN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[IN:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
// CHECK: [[SPIN:\$L__BB[0-9_]+]]:
// CHECK: bra.uni [[SPIN]];
[[kernel, oxide::launch_contract("domain = 1")]] void spin_on_index(oxide::DisjointSpan<float> out) {
  const auto &i = oxide::thread::index_1d();
  while (i.get() >= out.size()) {
  }
  *out.get_mut(i) = 3.0f;
}

// OLD: as above.
inline void wait_until(bool ready) {
  while (!ready) {
  }
}
// CHECK-LABEL: .entry _Z14spin_in_helperN5oxide12DisjointSpanIfEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z14spin_in_helperN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[IN:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
// CHECK: [[SPIN:\$L__BB[0-9_]+]]:
// CHECK: bra.uni [[SPIN]];
[[kernel, oxide::launch_contract("domain = 1")]] void spin_in_helper(oxide::DisjointSpan<float> out) {
  float *p = out.get_mut(oxide::thread::index_1d());
  wait_until(p != nullptr);
  *p = 3.0f;
}

// OLD: the thread test went: every thread of a block stored the block's element.
// CHECK-LABEL: .entry _Z17spin_block_leaderN5oxide12DisjointSpanIfEE(
// CHECK: mov.u32 [[ID:%r[0-9]+]], %tid.x;
// CHECK: setp.{{(ne|eq)}}.b32 [[LEADER:%p[0-9]+]], [[ID]], 0;
// CHECK: @%p{{[0-9]+}} bra [[GO:\$L__BB[0-9_]+]];
// CHECK: [[SPIN:\$L__BB[0-9_]+]]:
// CHECK: bra.uni [[SPIN]];
// CHECK: [[GO]]:
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(%rd[0-9]+|_Z[A-Za-z0-9_]+_param_0)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[PAST:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
[[kernel, oxide::launch_contract("domain = 1")]] void spin_block_leader(oxide::DisjointSpan<float> out) {
  while (oxide::thread_idx().x != 0) {
  }
  if (float *o = out.get_mut(oxide::block::index()))
    *o = 1.0f;
}

// OLD: the lane test went: every lane of a warp stored the warp's element.
// CHECK-LABEL: .entry _Z16spin_warp_leaderN5oxide12DisjointSpanIfEE(
// CHECK: mov.u32 [[ID:%r[0-9]+]], %laneid;
// CHECK: setp.{{(ne|eq)}}.b32 [[LEADER:%p[0-9]+]], [[ID]], 0;
// CHECK: @%p{{[0-9]+}} bra [[GO:\$L__BB[0-9_]+]];
// CHECK: [[SPIN:\$L__BB[0-9_]+]]:
// CHECK: bra.uni [[SPIN]];
// CHECK: [[GO]]:
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(%rd[0-9]+|_Z[A-Za-z0-9_]+_param_0)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[PAST:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
[[kernel, oxide::launch_contract("domain = 1")]] void spin_warp_leader(oxide::DisjointSpan<float> out) {
  while (oxide::warp::lane_id() != 0) {
  }
  if (float *o = out.get_mut(oxide::warp::index()))
    *o = 1.0f;
}

// OLD: the AtomicSpan's bounds test went.
// CHECK-LABEL: .entry _Z11spin_atomicN5oxide10AtomicSpanIjLNS_5ScopeE1EEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z11spin_atomicN5oxide10AtomicSpanIjLNS_5ScopeE1EEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[IN:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra
// CHECK: atom.global.add.u32
// CHECK: [[SPIN:\$L__BB[0-9_]+]]:
// CHECK: bra.uni [[SPIN]];
[[kernel, oxide::launch_contract("domain = 1")]] void spin_atomic(oxide::AtomicSpan<unsigned> bins) {
  const auto &i = oxide::thread::index_1d();
  while (i.get() >= bins.size()) {
  }
  bins.fetch_add(i.get(), 1u);
}

// CHECK-LABEL: .entry _Z9spin_tileN5oxide12DisjointSpanIfEE(
// The element guard of t[3] is the tile's extent as full() computes it (the tile exists and
// holds more than 3 elements), so the spin's exit test is that guard, kept: a thread whose tile
// is not full spins forever and never stores.
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z9spin_tileN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: shr.u64 [[WHOLE:%rd[0-9]+]], [[SIZE]], 2;
// CHECK: add.s64 [[TILES:%rd[0-9]+]], [[WHOLE]], %rd{{[0-9]+}};
// CHECK: setp.lt.u64 [[EXISTS:%p[0-9]+]], %rd{{[0-9]+}}, [[TILES]];
// CHECK: setp.gt.u64 [[FOUR_LEFT:%p[0-9]+]], %rd{{[0-9]+}}, 3;
// CHECK: and.pred [[TILE_FULL:%p[0-9]+]], [[EXISTS]], [[FOUR_LEFT]];
// CHECK: @[[TILE_FULL]] bra [[STORE:\$L__BB[0-9_]+]];
// CHECK: [[STORE]]:
// CHECK: st.global.b32 [%rd{{[0-9]+}}+12]
// CHECK: [[SPIN:\$L__BB[0-9_]+]]:
// CHECK-NEXT: bra.uni [[SPIN]];
[[kernel, oxide::launch_contract("domain = 1")]] void spin_tile(oxide::DisjointSpan<float> out) {
  const auto t = out.tile_mut<4>(oxide::thread::index_1d());
  while (!t.full()) {
  }
  t[3] = 1.0f;
}

int main() {}
