// User assumptions about ownership: that the calling thread is its block's or its warp's
// leader, that a tile is full or a tile index inside it, that an element pointer is not null.
// Each is false for some thread of a launch, and each would let LLVM delete the test that
// keeps the other threads from writing: every thread of a block storing the leader's element,
// a tile index running into the next thread's tile, a pair or grid-stride element past the end.
// defineUndefinedBehaviour drops the assumptions before the write checks; the ownership and
// bounds tests below must stay. Kernels marked OLD lost their guard with the compiler before
// that fix (their CHECK lines fail on its PTX); the others kept it there too.
// RUN: oxcc build %s --arch=sm_90 --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
#include <oxide/oxide.hpp>

#include <cstddef>

inline void expect(bool condition) { __builtin_assume(condition); }
inline void expect_attr(bool condition) { [[assume(condition)]]; }

// CHECK-LABEL: .entry _Z17block_leader_attrN5oxide12DisjointSpanIfEE(
// CHECK: mov.u32 [[TID:%r[0-9]+]], %tid.x;
// CHECK: setp.{{(ne|eq)}}.b32 [[NOT_LEADER:%p[0-9]+]], [[TID]], 0;
// CHECK: or.pred [[SKIP:%p[0-9]+]], [[NOT_LEADER]],
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
[[kernel, oxide::launch_contract("domain = 1")]] void block_leader_attr(oxide::DisjointSpan<float> out) {
  [[assume(oxide::thread_idx().x == 0)]]; // "only the leader gets here" (clang ignores it: a call)
  if (float *o = out.get_mut(oxide::block::index()))
    *o = 2.0f;
}

// The thread index read once, assumed to be 0 and stored: the stored value may be folded to 0
// (the old compiler did), the leader's thread test must stay.
// CHECK-LABEL: .entry _Z18block_leader_valueN5oxide12DisjointSpanIfEE(
// CHECK: mov.u32 [[TID:%r[0-9]+]], %tid.x;
// CHECK: setp.{{(ne|eq)}}.b32 [[NOT_LEADER:%p[0-9]+]], [[TID]], 0;
// CHECK: or.pred [[SKIP:%p[0-9]+]], [[NOT_LEADER]],
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
[[kernel, oxide::launch_contract("domain = 1")]] void block_leader_value(oxide::DisjointSpan<float> out) {
  const unsigned t = oxide::thread_idx().x;
  [[assume(t == 0)]];
  if (float *o = out.get_mut(oxide::block::index()))
    *o = float(t);
}

// CHECK-LABEL: .entry _Z17warp_leader_valueN5oxide12DisjointSpanIfEE(
// CHECK: mov.u32 [[LANE:%r[0-9]+]], %laneid;
// CHECK: setp.{{(ne|eq)}}.b32 [[NOT_LEADER:%p[0-9]+]], [[LANE]], 0;
// CHECK: or.pred [[SKIP:%p[0-9]+]], [[NOT_LEADER]],
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
[[kernel, oxide::launch_contract("domain = 1")]] void warp_leader_value(oxide::DisjointSpan<float> out) {
  const unsigned lane = oxide::warp::lane_id();
  __builtin_assume(lane == 0);
  if (float *o = out.get_mut(oxide::warp::index()))
    *o = float(lane);
}

// CHECK-LABEL: .entry _Z19block_leader_helperN5oxide12DisjointSpanIfEE(
// CHECK: mov.u32 [[TID:%r[0-9]+]], %tid.x;
// CHECK: setp.{{(ne|eq)}}.b32 [[NOT_LEADER:%p[0-9]+]], [[TID]], 0;
// CHECK: or.pred [[SKIP:%p[0-9]+]], [[NOT_LEADER]],
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
[[kernel, oxide::launch_contract("domain = 1")]] void block_leader_helper(oxide::DisjointSpan<float> out) {
  expect_attr(oxide::thread_idx().x == 0);
  if (float *o = out.get_mut(oxide::block::index()))
    *o = 2.0f;
}

// CHECK-LABEL: .entry _Z19block_leader_lambdaN5oxide12DisjointSpanIfEE(
// CHECK: mov.u32 [[TID:%r[0-9]+]], %tid.x;
// CHECK: setp.{{(ne|eq)}}.b32 [[NOT_LEADER:%p[0-9]+]], [[TID]], 0;
// CHECK: or.pred [[SKIP:%p[0-9]+]], [[NOT_LEADER]],
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
[[kernel, oxide::launch_contract("domain = 1")]] void block_leader_lambda(oxide::DisjointSpan<float> out) {
  auto leader_only = [] { __builtin_assume(oxide::thread_idx().x == 0); };
  leader_only();
  if (float *o = out.get_mut(oxide::block::index()))
    *o = 2.0f;
}

// CHECK-LABEL: .entry _Z16warp_leader_attrN5oxide12DisjointSpanIfEE(
// CHECK: mov.u32 [[LANE:%r[0-9]+]], %laneid;
// CHECK: setp.{{(ne|eq)}}.b32 [[NOT_LEADER:%p[0-9]+]], [[LANE]], 0;
// CHECK: or.pred [[SKIP:%p[0-9]+]], [[NOT_LEADER]],
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
[[kernel, oxide::launch_contract("domain = 1")]] void warp_leader_attr(oxide::DisjointSpan<float> out) {
  [[assume(oxide::warp::lane_id() == 0)]]; // ignored by clang too (a call)
  if (float *o = out.get_mut(oxide::warp::index()))
    *o = 2.0f;
}

// CHECK-LABEL: .entry _Z18warp_leader_helperN5oxide12DisjointSpanIfEE(
// CHECK: mov.u32 [[LANE:%r[0-9]+]], %laneid;
// CHECK: setp.{{(ne|eq)}}.b32 [[NOT_LEADER:%p[0-9]+]], [[LANE]], 0;
// CHECK: or.pred [[SKIP:%p[0-9]+]], [[NOT_LEADER]],
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
[[kernel, oxide::launch_contract("domain = 1")]] void warp_leader_helper(oxide::DisjointSpan<float> out) {
  expect(oxide::warp::lane_id() == 0);
  if (float *o = out.get_mut(oxide::warp::index()))
    *o = 2.0f;
}

// CHECK-LABEL: .entry _Z14tile_full_attrN5oxide12DisjointSpanIfEE(
// The guard of element 3: the thread's tile exists (index < ceil(size / 4)) and holds more than
// 3 elements (size - 4 index > 3).
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z14tile_full_attrN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: shr.u64 [[WHOLE:%rd[0-9]+]], [[SIZE]], 2;
// CHECK: add.s64 [[TILES:%rd[0-9]+]], [[WHOLE]], %rd{{[0-9]+}};
// CHECK: setp.lt.u64 [[EXISTS:%p[0-9]+]], %rd{{[0-9]+}}, [[TILES]];
// CHECK: sub.s64 [[LEFT:%rd[0-9]+]], [[SIZE]], %rd{{[0-9]+}};
// CHECK: setp.gt.u64 [[ROOM:%p[0-9]+]], [[LEFT]], 3;
// CHECK: and.pred [[IN:%p[0-9]+]], [[EXISTS]], [[ROOM]];
// CHECK: @[[IN]] bra
// CHECK: st.global.b32 [%rd{{[0-9]+}}+12]
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1")]] void tile_full_attr(oxide::DisjointSpan<float> out) {
  const auto t = out.tile_mut<4>(oxide::thread::index_1d());
  [[assume(t.full())]];
  t[3] = 1.0f;
}

// CHECK-LABEL: .entry _Z16tile_full_helperN5oxide12DisjointSpanIfEE(
// The guard of element 3: the thread's tile exists (index < ceil(size / 4)) and holds more than
// 3 elements (size - 4 index > 3).
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z16tile_full_helperN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: shr.u64 [[WHOLE:%rd[0-9]+]], [[SIZE]], 2;
// CHECK: add.s64 [[TILES:%rd[0-9]+]], [[WHOLE]], %rd{{[0-9]+}};
// CHECK: setp.lt.u64 [[EXISTS:%p[0-9]+]], %rd{{[0-9]+}}, [[TILES]];
// CHECK: sub.s64 [[LEFT:%rd[0-9]+]], [[SIZE]], %rd{{[0-9]+}};
// CHECK: setp.gt.u64 [[ROOM:%p[0-9]+]], [[LEFT]], 3;
// CHECK: and.pred [[IN:%p[0-9]+]], [[EXISTS]], [[ROOM]];
// CHECK: @[[IN]] bra
// CHECK: st.global.b32 [%rd{{[0-9]+}}+12]
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1")]] void tile_full_helper(oxide::DisjointSpan<float> out) {
  const auto t = out.tile_mut<4>(oxide::thread::index_1d());
  expect(t.full());
  t[3] = 1.0f;
}

// OLD: the test j < 4 went: with j >= 4 a thread wrote into the next threads' tiles.
// CHECK-LABEL: .entry _Z17tile_index_helperN5oxide12DisjointSpanIfEEj(
// The guard: j below the tile's extent, min(size - 4 index, 4), itself at most 4.
// CHECK: ld.param.b32 [[J32:%r[0-9]+]], [_Z17tile_index_helperN5oxide12DisjointSpanIfEEj_param_1];
// CHECK: cvt.u64.u32 [[J:%rd[0-9]+]], [[J32]];
// CHECK: min.u64 [[EXTENT:%rd[0-9]+]], %rd{{[0-9]+}}, 4;
// CHECK: setp.gt.u64 [[IN_TILE:%p[0-9]+]], [[EXTENT]], [[J]];
// CHECK: and.pred [[OK:%p[0-9]+]], %p{{[0-9]+}}, [[IN_TILE]];
// CHECK: @[[OK]] bra
// CHECK: st.global.b32
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1")]] void tile_index_helper(oxide::DisjointSpan<float> out,
                                                                        unsigned j) {
  const auto t = out.tile_mut<4>(oxide::thread::index_1d());
  expect(j < t.size());
  t[j] = 1.0f;
}

// OLD: both elements of the pair were stored with no bounds test and no null trap.
// CHECK-LABEL: .entry _Z11pair_helperN5oxide12DisjointSpanIfEEj(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z11pair_helperN5oxide12DisjointSpanIfEEj_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[LO:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: and.pred [[LO_OK:%p[0-9]+]], %p{{[0-9]+}}, [[LO]];
// CHECK: @%p{{[0-9]+}} bra
// CHECK: setp.{{[a-z]+}}.u64 [[HI:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: st.global.b32
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
// CHECK: __oxide_null_element_$_str
// CHECK: trap;
// CHECK: __oxide_null_element_$_str
// CHECK: trap;
[[kernel, oxide::launch_contract("domain = 1")]] void pair_helper(oxide::DisjointSpan<float> out,
                                                                  unsigned distance) {
  const auto pair = out.pair_mut(oxide::thread::index_1d(), distance);
  float *lo = pair.get_mut(0), *hi = pair.get_mut(1);
  expect(lo && hi);
  *lo = 1.0f;
  *hi = 2.0f;
}

// CHECK-LABEL: .entry _Z19strided_rows_helperN5oxide14DisjointSpan2DIfEE(
// CHECK: ld.param.b64 [[W:%rd[0-9]+]], [{{(_Z19strided_rows_helperN5oxide14DisjointSpan2DIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: ld.param.b64 [[H:%rd[0-9]+]], [_Z19strided_rows_helperN5oxide14DisjointSpan2DIfEE_param_0+16];
// CHECK: setp.{{[a-z]+}}.u64 [[X_IN:%p[0-9]+]], {{.*}}[[W]]{{[,;]}}
// CHECK: setp.{{[a-z]+}}.u64 [[Y_IN:%p[0-9]+]], {{.*}}[[H]]{{[,;]}}
// CHECK: and.pred [[IN:%p[0-9]+]], [[X_IN]], [[Y_IN]];
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
// CHECK: setp.{{[a-z]+}}.u64 [[ROW1:%p[0-9]+]], {{.*}}[[H]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
// CHECK: setp.{{[a-z]+}}.u64 [[ROW2:%p[0-9]+]], {{.*}}[[H]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
// CHECK: setp.{{[a-z]+}}.u64 [[ROW3:%p[0-9]+]], {{.*}}[[H]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
// CHECK: trap;
[[kernel, oxide::launch_contract("domain = 2, block = (8, 4)")]] void
strided_rows_helper(oxide::DisjointSpan2D<float> out) {
  const auto rows = out.strided_rows_mut<4>(oxide::thread::index_2d());
  for (std::size_t j = 0; j < rows.size(); ++j) {
    expect(rows.get_mut(j) != nullptr);
    *rows.get_mut(j) = 1.0f;
  }
}

// OLD: assuming the element pointer non-null removed the null trap and the bounds test.
// CHECK-LABEL: .entry _Z15element_nonnullN5oxide12DisjointSpanIfEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z15element_nonnullN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[IN:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
// CHECK: __oxide_null_element_$_str
// CHECK: trap;
[[kernel, oxide::launch_contract("domain = 1")]] void element_nonnull(oxide::DisjointSpan<float> out) {
  float *p = out.get_mut(oxide::thread::index_1d());
  __builtin_assume(p != nullptr);
  *p = 1.0f;
}

// OLD: the assumption made the program's own test vanish, and with it the bounds test.
// CHECK-LABEL: .entry _Z20element_nonnull_testN5oxide12DisjointSpanIfEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z20element_nonnull_testN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[PAST:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra [[SKIP:\$L__BB[0-9_]+]];
// CHECK: st.global.b32
// CHECK: [[SKIP]]:
// CHECK: ret;
[[kernel, oxide::launch_contract("domain = 1")]] void element_nonnull_test(oxide::DisjointSpan<float> out) {
  float *p = out.get_mut(oxide::thread::index_1d());
  [[assume(p)]];
  if (p)
    *p = 1.0f;
}

// A grid-stride loop over n (a parameter) with the assumption that n <= out.size().
// CHECK-LABEL: .entry _Z18grid_stride_assumeN5oxide12DisjointSpanIfEEj(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(%rd[0-9]+|_Z[A-Za-z0-9_]+_param_0)}}+8];
// CHECK: [[LOOP:\$L__BB[0-9_]+]]:
// CHECK: setp.{{[a-z]+}}.u64 [[IN:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
// CHECK: bra [[LOOP]];
// CHECK: __oxide_null_element_$_str
// CHECK: trap;
[[kernel, oxide::launch_contract("domain = 1")]] void grid_stride_assume(oxide::DisjointSpan<float> out,
                                                                         unsigned n) {
  for (const auto &i : oxide::thread::grid_stride(n)) {
    [[assume(i.get() < out.size())]];
    *out.get_mut(i) = 3.0f;
  }
}

int main() {}

// An accumulator pair assumed to exist (store_pair's fast path written by hand): the pair is null
// for odd j, outside the output or misaligned, and the null guard before the 8-byte store stays.
// CHECK-LABEL: .entry _Z12assumed_pairN5oxide14DisjointSpan2DIfEE(
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.v2.b32
// CHECK: trap;
[[kernel, oxide::launch_contract("domain = 1, block = 384")]] void assumed_pair(oxide::DisjointSpan2D<float> out) {
  const auto mine = out.warpgroup_tile_mut<64, 2, 1, 1>(oxide::block::index());
  oxide::Float2 *pair = mine.get_mut_pair(6);
  expect(pair != nullptr);
  *pair = {1.0f, 2.0f};
}
