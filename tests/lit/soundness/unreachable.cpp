// Code marked unreachable that is reached: `if (!p) __builtin_unreachable();` on an element
// pointer, an ASSUME macro built on it, a [[noreturn]] function that returns, a value-returning
// helper that flows off its end, a switch whose default is __builtin_unreachable(). LLVM takes
// each as proof that the path is never taken and deletes the test in front of it: the bounds
// test of the element, the AtomicSpan's bounds test, the block leader's thread test. With
// defineUndefinedBehaviour such code traps, so the guard stays (or becomes a trap of its own,
// before the store). Kernels marked OLD lost their guard with the compiler before that fix
// (their CHECK lines fail on its PTX); the others kept it, but their CHECK lines ask for the
// trap the unreachable path now is, which that compiler did not emit.
// RUN: oxcc build %s --arch=sm_90 --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
#include <oxide/oxide.hpp>

#include <cstddef>

#define ASSUME(c)                                                                                            \
  do {                                                                                                       \
    if (!(c))                                                                                                \
      __builtin_unreachable();                                                                               \
  } while (0)

// OLD: the bounds test went; every thread stored.
// CHECK-LABEL: .entry _Z16null_unreachableN5oxide12DisjointSpanIfEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z16null_unreachableN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[IN:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
// CHECK: trap;
[[kernel, oxide::launch_contract("domain = 1")]] void null_unreachable(oxide::DisjointSpan<float> out) {
  float *p = out.get_mut(oxide::thread::index_1d());
  if (!p)
    __builtin_unreachable();
  *p = 3.0f;
}

// OLD: the bounds test and the null trap went.
// CHECK-LABEL: .entry _Z12assume_macroN5oxide12DisjointSpanIfEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z12assume_macroN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[IN:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
// CHECK: trap;
[[kernel, oxide::launch_contract("domain = 1")]] void assume_macro(oxide::DisjointSpan<float> out) {
  const auto &i = oxide::thread::index_1d();
  ASSUME(i.get() < out.size());
  *out.get_mut(i) = 3.0f;
}

// OLD: the bounds test and the null trap went.
// CHECK-LABEL: .entry _Z18lambda_unreachableN5oxide12DisjointSpanIfEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z18lambda_unreachableN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[IN:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
// CHECK: trap;
[[kernel, oxide::launch_contract("domain = 1")]] void lambda_unreachable(oxide::DisjointSpan<float> out) {
  auto must = [](float *p) {
    if (!p)
      __builtin_unreachable();
    return p;
  };
  *must(out.get_mut(oxide::thread::index_1d())) = 3.0f;
}

[[noreturn]] inline void fail() {}
// OLD: fail() was taken at its word: no test before the store.
// CHECK-LABEL: .entry _Z16noreturn_returnsN5oxide12DisjointSpanIfEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z16noreturn_returnsN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[IN:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
// CHECK: trap;
[[kernel, oxide::launch_contract("domain = 1")]] void noreturn_returns(oxide::DisjointSpan<float> out) {
  float *p = out.get_mut(oxide::thread::index_1d());
  if (!p)
    fail();
  *p = 1.0f;
}

// A [[noreturn]] function that prints and returns. (The old compiler kept the bounds test here,
// but nothing followed the call, which returns: the code ran off the end of the kernel.)
[[noreturn]] inline void fail_with(const char *message) { oxide::printf("%s\n", message); }
// CHECK-LABEL: .entry _Z15noreturn_printsN5oxide12DisjointSpanIfEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z15noreturn_printsN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[IN:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
// (fail_with is inlined: its printf, then the trap where it would return.)
// CHECK: vprintf
// CHECK: trap;
[[kernel, oxide::launch_contract("domain = 1")]] void noreturn_prints(oxide::DisjointSpan<float> out) {
  float *p = out.get_mut(oxide::thread::index_1d());
  if (!p)
    fail_with("no element");
  *p = 1.0f;
}

inline float *mine(oxide::DisjointSpan<float> out, const oxide::thread::ThreadIndex1D &i) {
  if (float *p = out.get_mut(i))
    return p;
} // no return: flowing off the end is undefined
// CHECK-LABEL: .entry _Z13falls_off_endN5oxide12DisjointSpanIfEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z13falls_off_endN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[IN:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
// CHECK: trap;
[[kernel, oxide::launch_contract("domain = 1")]] void falls_off_end(oxide::DisjointSpan<float> out) {
  if (float *p = mine(out, oxide::thread::index_1d()))
    *p = 1.0f;
}

// OLD: the AtomicSpan's bounds test of *x went.
// CHECK-LABEL: .entry _Z18atomic_unreachableN5oxide10AtomicSpanIjLNS_5ScopeE1EEENS_4SpanIKjEE(
// CHECK: ld.global.nc.b32
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(%rd[0-9]+|_Z[A-Za-z0-9_]+_param_0)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[IN:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra
// CHECK: atom.global.add.u32
// CHECK: trap;
[[kernel, oxide::launch_contract("domain = 1")]] void atomic_unreachable(oxide::AtomicSpan<unsigned> bins,
                                                                         oxide::Span<const unsigned> in) {
  if (const unsigned *x = in.get(oxide::thread::index_1d().get())) {
    if (*x >= bins.size())
      __builtin_unreachable();
    bins.fetch_add(*x, 1u);
  }
}

// CHECK-LABEL: .entry _Z16tile_unreachableN5oxide12DisjointSpanIfEE(
// The guard of t[3] (the tile exists and holds more than 3 elements) is the size test itself:
// every thread whose tile is not full reaches the trap the `unreachable` became.
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z16tile_unreachableN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: shr.u64 [[WHOLE:%rd[0-9]+]], [[SIZE]], 2;
// CHECK: add.s64 [[TILES:%rd[0-9]+]], [[WHOLE]], %rd{{[0-9]+}};
// CHECK: setp.lt.u64 [[EXISTS:%p[0-9]+]], %rd{{[0-9]+}}, [[TILES]];
// CHECK: setp.gt.u64 [[FOUR_LEFT:%p[0-9]+]], %rd{{[0-9]+}}, 3;
// CHECK: and.pred [[TILE_FULL:%p[0-9]+]], [[EXISTS]], [[FOUR_LEFT]];
// CHECK: @[[TILE_FULL]] bra [[STORE:\$L__BB[0-9_]+]];
// CHECK: [[STORE]]:
// CHECK: st.global.b32 [%rd{{[0-9]+}}+12]
// CHECK: trap;
[[kernel, oxide::launch_contract("domain = 1")]] void tile_unreachable(oxide::DisjointSpan<float> out) {
  const auto t = out.tile_mut<4>(oxide::thread::index_1d());
  if (t.size() != 4)
    __builtin_unreachable();
  t[3] = 1.0f;
}

// CHECK-LABEL: .entry _Z24block_leader_unreachableN5oxide12DisjointSpanIfEE(
// CHECK: mov.u32 [[TID:%r[0-9]+]], %tid.x;
// CHECK: setp.{{(ne|eq)}}.b32 [[LEADER:%p[0-9]+]], [[TID]], 0;
// CHECK: @%p{{[0-9]+}} bra
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(%rd[0-9]+|_Z[A-Za-z0-9_]+_param_0)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[PAST:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
// CHECK: trap;
[[kernel, oxide::launch_contract("domain = 1")]] void
block_leader_unreachable(oxide::DisjointSpan<float> out) {
  if (oxide::thread_idx().x != 0)
    __builtin_unreachable();
  if (float *o = out.get_mut(oxide::block::index()))
    *o = 1.0f;
}

// CHECK-LABEL: .entry _Z23warp_leader_unreachableN5oxide12DisjointSpanIfEE(
// CHECK: mov.u32 [[LANE:%r[0-9]+]], %laneid;
// CHECK: setp.{{(ne|eq)}}.b32 [[LEADER:%p[0-9]+]], [[LANE]], 0;
// CHECK: @%p{{[0-9]+}} bra
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(%rd[0-9]+|_Z[A-Za-z0-9_]+_param_0)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[PAST:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
// CHECK: trap;
[[kernel, oxide::launch_contract("domain = 1")]] void
warp_leader_unreachable(oxide::DisjointSpan<float> out) {
  ASSUME(oxide::warp::lane_id() == 0);
  if (float *o = out.get_mut(oxide::warp::index()))
    *o = 1.0f;
}

// OLD: i in 0..3 made the bounds test (out.size() >= 4) redundant: threads 4 and up read past
// the switch's table and stored past the end of the output.
// CHECK-LABEL: .entry _Z20switch_default_indexN5oxide12DisjointSpanIfEE(
// CHECK: setp.{{(lt|ge)}}.u64 [[CASE:%p[0-9]+]], %rd{{[0-9]+}}, 4;
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
// CHECK: trap;
[[kernel, oxide::launch_contract("domain = 1, requires = (out.size() >= 4)")]] void
switch_default_index(oxide::DisjointSpan<float> out) {
  const auto &i = oxide::thread::index_1d();
  float v = 0.0f;
  switch (i.get()) {
  case 0:
    v = 1.0f;
    break;
  case 1:
    v = 2.0f;
    break;
  case 2:
    v = 4.0f;
    break;
  case 3:
    v = 8.0f;
    break;
  default:
    __builtin_unreachable(); // "we launch 4 threads"
  }
  if (float *o = out.get_mut(i))
    *o = v;
}

// CHECK-LABEL: .entry _Z21switch_default_atomicN5oxide10AtomicSpanIjLNS_5ScopeE1EEE(
// CHECK: setp.{{(lt|ge)}}.u64 [[CASE:%p[0-9]+]], %rd{{[0-9]+}}, 4;
// CHECK: @%p{{[0-9]+}} bra
// CHECK: atom.global.add.u32
// CHECK: trap;
[[kernel, oxide::launch_contract("domain = 1, requires = (bins.size() >= 4)")]] void
switch_default_atomic(oxide::AtomicSpan<unsigned> bins) {
  const auto &i = oxide::thread::index_1d();
  switch (i.get()) {
  case 0:
  case 1:
  case 2:
  case 3:
    break;
  default:
    __builtin_unreachable();
  }
  bins.fetch_add(i.get(), 1u);
}

int main() {}
