// User assumptions about an index ([[assume]], __builtin_assume, __builtin_assume_aligned, an
// assumption wrapped in a helper, a lambda or a template). An assumption is a promise the
// compiler cannot check: a thread past the end of the output makes it false, and LLVM would
// delete the bounds test that the assumption makes redundant and write past the end of the
// span. defineUndefinedBehaviour drops every assumption of the user's code before the write
// checks, so the compare with the span's size and the branch around each st.global /
// atom.global below must stay. Kernels marked OLD lost their guard with the compiler before
// that fix (their CHECK lines fail on its PTX); the others kept it there too.
// RUN: oxcc build %s --arch=sm_90 --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
#include <oxide/oxide.hpp>

#include <cstddef>

inline void expect(bool condition) { __builtin_assume(condition); }

// CHECK-LABEL: .entry _Z10attr_indexN5oxide12DisjointSpanIfEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z10attr_indexN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[PAST:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra [[SKIP:\$L__BB[0-9_]+]];
// CHECK: st.global.b32
// CHECK: [[SKIP]]:
// CHECK: ret;
[[kernel, oxide::launch_contract("domain = 1")]] void attr_index(oxide::DisjointSpan<float> out) {
  const auto &i = oxide::thread::index_1d();
  [[assume(i.get() < out.size())]];
  if (float *o = out.get_mut(i))
    *o = 1.0f;
}

// CHECK-LABEL: .entry _Z13builtin_indexN5oxide12DisjointSpanIfEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z13builtin_indexN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[IN:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
// CHECK: __oxide_null_element_$_str
// CHECK: trap;
[[kernel, oxide::launch_contract("domain = 1")]] void builtin_index(oxide::DisjointSpan<float> out) {
  const auto &i = oxide::thread::index_1d();
  __builtin_assume(i.get() < out.size());
  *out.get_mut(i) = 1.0f; // "the assumption says it is in bounds"
}

// OLD: the assumption, inlined from a lambda, deleted the bounds test and the null trap.
// CHECK-LABEL: .entry _Z12lambda_indexN5oxide12DisjointSpanIfEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z12lambda_indexN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[IN:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
// CHECK: __oxide_null_element_$_str
// CHECK: trap;
[[kernel, oxide::launch_contract("domain = 1")]] void lambda_index(oxide::DisjointSpan<float> out) {
  const auto &i = oxide::thread::index_1d();
  auto in_range = [](std::size_t k, std::size_t n) { [[assume(k < n)]]; };
  in_range(i.get(), out.size());
  *out.get_mut(i) = 1.0f;
}

// OLD: an expect() helper: the bounds test went, and every thread stored.
// CHECK-LABEL: .entry _Z12helper_indexN5oxide12DisjointSpanIfEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z12helper_indexN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[PAST:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra [[SKIP:\$L__BB[0-9_]+]];
// CHECK: st.global.b32
// CHECK: [[SKIP]]:
// CHECK: ret;
[[kernel, oxide::launch_contract("domain = 1")]] void helper_index(oxide::DisjointSpan<float> out) {
  const auto &i = oxide::thread::index_1d();
  expect(i.get() < out.size());
  if (float *o = out.get_mut(i))
    *o = 1.0f;
}

template <class T> void put(oxide::DisjointSpan<T> out, const oxide::thread::ThreadIndex1D &i, T v) {
  [[assume(i.get() < out.size())]];
  *out.get_mut(i) = v;
}
// CHECK-LABEL: .entry _Z14template_indexN5oxide12DisjointSpanIfEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z14template_indexN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[IN:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
// CHECK: __oxide_null_element_$_str
// CHECK: trap;
[[kernel, oxide::launch_contract("domain = 1")]] void template_index(oxide::DisjointSpan<float> out) {
  put(out, oxide::thread::index_1d(), 2.0f);
}

// OLD: with the contract's bins.size() == 64, the assumption on the loaded value removed the
// AtomicSpan's bounds test: a value of 64 or more updated a counter past the end.
// CHECK-LABEL: .entry _Z13atomic_loadedN5oxide10AtomicSpanIjLNS_5ScopeE1EEENS_4SpanIKjEE(
// CHECK: ld.global.nc.b32 [[X:%r[0-9]+]]
// CHECK: setp.{{(lt|ge)}}.u32 [[IN:%p[0-9]+]], [[X]], 64;
// CHECK: @%p{{[0-9]+}} bra
// CHECK: atom.global.add.u32
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1, requires = (bins.size() == 64)")]] void
atomic_loaded(oxide::AtomicSpan<unsigned> bins, oxide::Span<const unsigned> in) {
  if (const unsigned *x = in.get(oxide::thread::index_1d().get())) {
    [[assume(*x < 64)]];
    bins.fetch_add(*x, 1u);
  }
}

// OLD: the same through the helper: no test of *x against bins.size().
// CHECK-LABEL: .entry _Z13atomic_helperN5oxide10AtomicSpanIjLNS_5ScopeE1EEENS_4SpanIKjEE(
// CHECK: ld.global.nc.b32 [[X:%r[0-9]+]]
// CHECK: cvt.u64.u32 [[X64:%rd[0-9]+]], [[X]];
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(%rd[0-9]+|_Z[A-Za-z0-9_]+_param_0)}}+8];
// CHECK: setp.{{(gt|le)}}.u64 [[IN:%p[0-9]+]], [[SIZE]], [[X64]];
// CHECK: @%p{{[0-9]+}} bra
// CHECK: atom.global.add.u32
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1")]] void atomic_helper(oxide::AtomicSpan<unsigned> bins,
                                                                    oxide::Span<const unsigned> in) {
  if (const unsigned *x = in.get(oxide::thread::index_1d().get())) {
    expect(*x < bins.size());
    bins.fetch_add(*x, 1u);
  }
}

// CHECK-LABEL: .entry _Z13atomic_moduloN5oxide10AtomicSpanIjLNS_5ScopeE1EEE(
// CHECK: and.b64 [[K:%rd[0-9]+]], %rd{{[0-9]+}}, 255;
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z13atomic_moduloN5oxide10AtomicSpanIjLNS_5ScopeE1EEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{(lt|ge)}}.u64 [[IN:%p[0-9]+]], [[K]], [[SIZE]];
// CHECK: @%p{{[0-9]+}} bra
// CHECK: atom.global.add.u32
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1")]] void atomic_modulo(oxide::AtomicSpan<unsigned> bins) {
  const auto &i = oxide::thread::index_1d();
  __builtin_assume(i.get() % 256 == 0);
  bins.fetch_add(i.get() % 256, 1u);
}

// OLD: i % 256 folded to 0 and the test against bins.size() (1 by the contract) went: every
// thread updated bins[0], where a thread with i % 256 != 0 must stop the kernel.
// CHECK-LABEL: .entry _Z20atomic_modulo_helperN5oxide10AtomicSpanIjLNS_5ScopeE1EEE(
// CHECK: and.b64 [[K:%rd[0-9]+]], %rd{{[0-9]+}}, 255;
// CHECK: setp.{{(ne|eq)}}.b64 [[IN:%p[0-9]+]], [[K]], 0;
// CHECK: @%p{{[0-9]+}} bra
// CHECK: atom.global.add.u32
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1, requires = (bins.size() == 1)")]] void
atomic_modulo_helper(oxide::AtomicSpan<unsigned> bins) {
  const auto &i = oxide::thread::index_1d();
  expect(i.get() % 256 == 0);
  bins.fetch_add(i.get() % 256, 1u);
}

// CHECK-LABEL: .entry _Z24attr_index_with_requiresN5oxide12DisjointSpanIfEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z24attr_index_with_requiresN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[PAST:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra [[SKIP:\$L__BB[0-9_]+]];
// CHECK: st.global.b32
// CHECK: [[SKIP]]:
// CHECK: ret;
[[kernel, oxide::launch_contract("domain = 1, requires = (out.size() >= 256)")]] void
attr_index_with_requires(oxide::DisjointSpan<float> out) {
  const auto &i = oxide::thread::index_1d();
  [[assume(i.get() < 256)]]; // "we always launch 256 threads"
  if (float *o = out.get_mut(i))
    *o = 1.0f;
}

// CHECK-LABEL: .entry _Z14assume_alignedN5oxide12DisjointSpanIfEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z14assume_alignedN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[PAST:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra [[SKIP:\$L__BB[0-9_]+]];
// CHECK: st.global.b32
// CHECK: [[SKIP]]:
// CHECK: ret;
[[kernel, oxide::launch_contract("domain = 1")]] void assume_aligned(oxide::DisjointSpan<float> out) {
  auto *p = static_cast<float *>(__builtin_assume_aligned(out.get_mut(oxide::thread::index_1d()), 16));
  if (p)
    *p = 1.0f;
}

int main() {}
