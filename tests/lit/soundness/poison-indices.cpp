// Indices that are poison or undef: a signed overflow (`int j = i + INT_MAX`), an uninitialised
// local, an uninitialised array element, a tile index read before it is written. LLVM may give
// such a value one meaning in the bounds test and another in the address (undef may differ at
// each use, poison makes the test's branch undefined). oxide-to-nvvm freezes every index the
// guards test where it is defined, so the compare and the address below use one value and the
// test stays in front of the atomic or the store. Both compilers keep the guards of these
// kernels (the old one by luck of the folds); tests/lit/soundness/poison-constants.test and
// sibling-poison.cpp have the constant poison that the freeze does not reach.
// RUN: oxcc build %s --arch=sm_90 --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
#include <oxide/oxide.hpp>

#include <climits>
#include <cstddef>

// CHECK-LABEL: .entry _Z21overflow_thread_indexN5oxide10AtomicSpanIjLNS_5ScopeE1EEE(
// CHECK: shr.s64 [[J:%rd[0-9]+]], %rd{{[0-9]+}}, 32;
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z21overflow_thread_indexN5oxide10AtomicSpanIjLNS_5ScopeE1EEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{(lt|ge)}}.u64 [[IN:%p[0-9]+]], [[J]], [[SIZE]];
// CHECK: @%p{{[0-9]+}} bra
// CHECK: atom.global.add.u32
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1")]] void
overflow_thread_index(oxide::AtomicSpan<unsigned> bins) {
  int j = int(oxide::thread::index_1d().get()) + INT_MAX; // overflows for every thread but 0
  bins.fetch_add(j, 1u);
}

// CHECK-LABEL: .entry _Z15overflow_loadedN5oxide10AtomicSpanIjLNS_5ScopeE1EEENS_4SpanIKiEE(
// CHECK: add.s32 {{%r[0-9]+}}, %r{{[0-9]+}}, 2147483647;
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(%rd[0-9]+|_Z[A-Za-z0-9_]+_param_0)}}+8];
// CHECK: setp.{{(gt|le)}}.u64 [[IN:%p[0-9]+]], [[SIZE]], [[J:%rd[0-9]+]];
// CHECK: @%p{{[0-9]+}} bra
// CHECK: shl.b64 {{%rd[0-9]+}}, [[J]], 2;
// CHECK: atom.global.add.u32
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1")]] void overflow_loaded(oxide::AtomicSpan<unsigned> bins,
                                                                      oxide::Span<const int> in) {
  if (const int *x = in.get(oxide::thread::index_1d().get())) {
    const int j = *x + INT_MAX;
    if (j >= 0) // "j cannot be negative, x is positive"
      bins.fetch_add(j, 1u);
  }
}

// The test and the address use the wrapped 32-bit product, frozen. (The compiler before the
// fix tested and addressed sext(x) * 65536, wide, using the overflow's undefinedness: one value
// too, so a guard all the same; these CHECK lines ask for the wrapped one.)
// CHECK-LABEL: .entry _Z15overflow_scaledN5oxide10AtomicSpanIjLNS_5ScopeE1EEENS_4SpanIKiEE(
// CHECK: shl.b32 [[J32:%r[0-9]+]], %r{{[0-9]+}}, 16;
// CHECK: cvt.s64.s32 [[J:%rd[0-9]+]], [[J32]];
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(%rd[0-9]+|_Z[A-Za-z0-9_]+_param_0)}}+8];
// CHECK: setp.{{(gt|le)}}.u64 [[IN:%p[0-9]+]], [[SIZE]], [[J]];
// CHECK: @%p{{[0-9]+}} bra
// CHECK: shl.b64 {{%rd[0-9]+}}, [[J]], 2;
// CHECK: atom.global.add.u32
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1")]] void overflow_scaled(oxide::AtomicSpan<unsigned> bins,
                                                                      oxide::Span<const int> in) {
  if (const int *x = in.get(oxide::thread::index_1d().get()))
    bins.fetch_add(*x * 65536, 1u); // wraps to 0 for *x = 65536
}

// CHECK-LABEL: .entry _Z17overflow_constantN5oxide10AtomicSpanIjLNS_5ScopeE1EEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z17overflow_constantN5oxide10AtomicSpanIjLNS_5ScopeE1EEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{(gt|le)}}.u64 [[IN:%p[0-9]+]], [[SIZE]], -2147483648;
// CHECK: @%p{{[0-9]+}} bra
// CHECK: add.s64 {{%rd[0-9]+}}, %rd{{[0-9]+}}, -8589934592;
// CHECK: atom.global.add.u32
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1")]] void overflow_constant(oxide::AtomicSpan<unsigned> bins) {
  int j = INT_MAX;
  j = j + 1;
  bins.fetch_add(j, 1u);
}

// CHECK-LABEL: .entry _Z17uninitialised_intN5oxide10AtomicSpanIjLNS_5ScopeE1EEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z17uninitialised_intN5oxide10AtomicSpanIjLNS_5ScopeE1EEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{(ne|eq)}}.b64 [[IN:%p[0-9]+]], [[SIZE]], 0;
// CHECK: @%p{{[0-9]+}} bra
// CHECK: atom.global.add.u32
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1")]] void uninitialised_int(oxide::AtomicSpan<unsigned> bins) {
  int k;
  bins.fetch_add(k, 1u);
}

// An uninitialised index is frozen (oxide-to-nvvm): one value, tested before the atomic uses it.
// CHECK-LABEL: .entry _Z18uninitialised_sizeN5oxide10AtomicSpanIjLNS_5ScopeE1EEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z18uninitialised_sizeN5oxide10AtomicSpanIjLNS_5ScopeE1EEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{(ne|eq)}}.b64 {{%p[0-9]+}}, [[SIZE]], 0;
// CHECK: @%p{{[0-9]+}} bra
// CHECK: atom.global.add.u32
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1")]] void uninitialised_size(oxide::AtomicSpan<unsigned> bins) {
  std::size_t k;
  bins.fetch_add(k, 1u);
}

// CHECK-LABEL: .entry _Z25uninitialised_on_one_pathN5oxide10AtomicSpanIjLNS_5ScopeE1EEENS_4SpanIKiEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(%rd[0-9]+|_Z[A-Za-z0-9_]+_param_0)}}+8];
// CHECK: setp.{{(lt|ge)}}.u64 [[IN:%p[0-9]+]], [[K:%rd[0-9]+]], [[SIZE]];
// CHECK: @%p{{[0-9]+}} bra
// CHECK: shl.b64 {{%rd[0-9]+}}, [[K]], 2;
// CHECK: atom.global.add.u32
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1")]] void
uninitialised_on_one_path(oxide::AtomicSpan<unsigned> bins, oxide::Span<const int> in) {
  int k;
  if (const int *x = in.get(oxide::thread::index_1d().get()))
    k = *x;
  bins.fetch_add(k, 1u); // threads past the end of `in` use k uninitialised
}

// CHECK-LABEL: .entry _Z21uninitialised_elementN5oxide10AtomicSpanIjLNS_5ScopeE1EEENS_4SpanIKjEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z21uninitialised_elementN5oxide10AtomicSpanIjLNS_5ScopeE1EEENS_4SpanIKjEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{(ne|eq)}}.b64 {{%p[0-9]+}}, [[SIZE]], 0;
// CHECK: @%p{{[0-9]+}} bra
// CHECK: atom.global.add.u32
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1")]] void uninitialised_element(oxide::AtomicSpan<unsigned> bins,
                                                                            oxide::Span<const unsigned> in) {
  std::size_t index[2];
  index[0] = in[0];
  bins.fetch_add(index[1], 1u);
}

// CHECK-LABEL: .entry _Z24uninitialised_tile_indexN5oxide12DisjointSpanIfEE(
// The frozen index (LLVM picks 0) tested against the tile: it exists (index < ceil(size / 4))
// and holds an element (size != 4 index).
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z24uninitialised_tile_indexN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: shr.u64 [[WHOLE:%rd[0-9]+]], [[SIZE]], 2;
// CHECK: add.s64 [[TILES:%rd[0-9]+]], [[WHOLE]], %rd{{[0-9]+}};
// CHECK: setp.lt.u64 [[EXISTS:%p[0-9]+]], %rd{{[0-9]+}}, [[TILES]];
// CHECK: and.pred [[IN:%p[0-9]+]], [[EXISTS]], %p{{[0-9]+}};
// CHECK: @[[IN]] bra
// CHECK: st.global.b32
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1")]] void
uninitialised_tile_index(oxide::DisjointSpan<float> out) {
  unsigned j;
  const auto t = out.tile_mut<4>(oxide::thread::index_1d());
  t[j] = 1.0f;
}

// CHECK-LABEL: .entry _Z19overflow_tile_indexN5oxide12DisjointSpanIfEENS_4SpanIKiEE(
// The wrapped index, sign-extended, below the tile's extent min(size - 4 index, 4):
// CHECK: add.s32 [[J32:%r[0-9]+]], %r{{[0-9]+}}, 2147483647;
// CHECK: cvt.s64.s32 [[J:%rd[0-9]+]], [[J32]];
// CHECK: min.u64 [[EXTENT:%rd[0-9]+]], %rd{{[0-9]+}}, 4;
// CHECK: setp.gt.u64 [[IN_TILE:%p[0-9]+]], [[EXTENT]], [[J]];
// CHECK: and.pred [[IN:%p[0-9]+]], %p{{[0-9]+}}, [[IN_TILE]];
// CHECK: @[[IN]] bra
// CHECK: st.global.b32
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1")]] void overflow_tile_index(oxide::DisjointSpan<float> out,
                                                                          oxide::Span<const int> in) {
  const auto &i = oxide::thread::index_1d();
  const auto t = out.tile_mut<4>(i);
  if (const int *x = in.get(i.get()))
    t[*x + INT_MAX] = 1.0f;
}

int main() {}
