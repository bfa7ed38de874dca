// A dereference taken as proof that a pointer is not null: get_mut's element pointer written or
// read before the program tests it (or never tested), bound to a reference, passed to a helper
// whose parameter is a float& or __attribute__((nonnull)), returned by a helper that promises
// __attribute__((returns_nonnull)). get_mut returns null past the end of the span; if LLVM takes
// the access, the reference or the attribute as proof that it is not, it drops the bounds test
// and the access lands past the end. oxide-guard-element-accesses puts a null test that traps in
// front of every access the program did not test, and defineUndefinedBehaviour drops the nonnull,
// dereferenceable and returns_nonnull promises, so the program's own test stays too. Both
// compilers, before and after the fix, keep a guard in every kernel here (the attribute cases
// trapped before; now the program's own test skips the store).
// RUN: oxcc build %s --arch=sm_90 --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
#include <oxide/oxide.hpp>

// CHECK-LABEL: .entry _Z14untested_writeN5oxide12DisjointSpanIfEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z14untested_writeN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[IN:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
// CHECK: __oxide_null_element_$_str
// CHECK: trap;
[[kernel, oxide::launch_contract("domain = 1")]] void untested_write(oxide::DisjointSpan<float> out) {
  *out.get_mut(oxide::thread::index_1d()) = 1.0f;
}

// CHECK-LABEL: .entry _Z15write_then_testN5oxide12DisjointSpanIfEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z15write_then_testN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[IN:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
// CHECK: __oxide_null_element_$_str
// CHECK: trap;
[[kernel, oxide::launch_contract("domain = 1")]] void write_then_test(oxide::DisjointSpan<float> out) {
  float *p = out.get_mut(oxide::thread::index_1d());
  *p = 0.0f;
  if (p)
    *p = 1.0f;
}

// CHECK-LABEL: .entry _Z14read_then_testN5oxide12DisjointSpanIfEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z14read_then_testN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[IN:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
// CHECK: __oxide_null_element_$_str
// CHECK: trap;
[[kernel, oxide::launch_contract("domain = 1")]] void read_then_test(oxide::DisjointSpan<float> out) {
  float *p = out.get_mut(oxide::thread::index_1d());
  const float before = *p;
  if (p)
    *p = before + 1.0f;
}

inline void set_ref(float &x) { x = 2.0f; }
// CHECK-LABEL: .entry _Z16reference_helperN5oxide12DisjointSpanIfEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z16reference_helperN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[IN:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32
// CHECK: __oxide_null_element_$_str
// CHECK: trap;
[[kernel, oxide::launch_contract("domain = 1")]] void reference_helper(oxide::DisjointSpan<float> out) {
  set_ref(*out.get_mut(oxide::thread::index_1d()));
}

__attribute__((nonnull)) inline void store_if(float *p, float v) {
  if (p)
    *p = v;
}
// CHECK-LABEL: .entry _Z17nonnull_parameterN5oxide12DisjointSpanIfEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z17nonnull_parameterN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[PAST:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra [[SKIP:\$L__BB[0-9_]+]];
// CHECK: st.global.b32
// CHECK: [[SKIP]]:
// CHECK: ret;
[[kernel, oxide::launch_contract("domain = 1")]] void nonnull_parameter(oxide::DisjointSpan<float> out) {
  store_if(out.get_mut(oxide::thread::index_1d()), 3.0f);
}

__attribute__((returns_nonnull)) inline float *element(oxide::DisjointSpan<float> out,
                                                       const oxide::thread::ThreadIndex1D &i) {
  return out.get_mut(i);
}
// CHECK-LABEL: .entry _Z15returns_nonnullN5oxide12DisjointSpanIfEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z15returns_nonnullN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[PAST:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra [[SKIP:\$L__BB[0-9_]+]];
// CHECK: st.global.b32
// CHECK: [[SKIP]]:
// CHECK: ret;
[[kernel, oxide::launch_contract("domain = 1")]] void returns_nonnull(oxide::DisjointSpan<float> out) {
  if (float *p = element(out, oxide::thread::index_1d()))
    *p = 4.0f;
}

// CHECK-LABEL: .entry _Z17reference_addressN5oxide12DisjointSpanIfEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z17reference_addressN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[PAST:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra [[SKIP:\$L__BB[0-9_]+]];
// CHECK: st.global.b32
// CHECK: [[SKIP]]:
// CHECK: ret;
[[kernel, oxide::launch_contract("domain = 1")]] void reference_address(oxide::DisjointSpan<float> out) {
  float &r = *out.get_mut(oxide::thread::index_1d());
  if (&r != nullptr) // "a reference is never null", says the compiler's warning
    r = 5.0f;
}

struct Pair {
  float a, b;
};
// CHECK-LABEL: .entry _Z16member_then_testN5oxide12DisjointSpanI4PairEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z16member_then_testN5oxide12DisjointSpanI4PairEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[IN:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra
// CHECK: st.global.b32 [[[A:%rd[0-9]+]]], 1065353216;
// CHECK: st.global.b32 [[[A]]+4], 1073741824;
// CHECK: __oxide_null_element_$_str
// CHECK: trap;
[[kernel, oxide::launch_contract("domain = 1")]] void member_then_test(oxide::DisjointSpan<Pair> out) {
  Pair *p = out.get_mut(oxide::thread::index_1d());
  p->a = 1.0f;
  if (p)
    p->b = 2.0f;
}

__attribute__((noinline, nonnull)) void store_call(float *p, float v) {
  if (p)
    *p = v;
}
// CHECK-LABEL: .entry _Z12nonnull_callN5oxide12DisjointSpanIfEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z12nonnull_callN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[IN:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: selp.b64 [[P:%rd[0-9]+]], %rd{{[0-9]+}}, 0, [[IN]];
// CHECK: st.param.b64 [param0], [[P]];
// CHECK: call.uni _ZL10store_callPff,
// CHECK-LABEL: .func _ZL10store_callPff(
// CHECK: ld.param.b64 [[Q:%rd[0-9]+]], [_ZL10store_callPff_param_0];
// CHECK: setp.{{(ne|eq)}}.b64 [[NULL:%p[0-9]+]], [[Q]], 0;
// CHECK: @%p{{[0-9]+}} bra [[SKIP:\$L__BB[0-9_]+]];
// CHECK: st.b32 [[[Q]]], 1086324736;
// CHECK: [[SKIP]]:
// CHECK: ret;
[[kernel, oxide::launch_contract("domain = 1")]] void nonnull_call(oxide::DisjointSpan<float> out) {
  store_call(out.get_mut(oxide::thread::index_1d()), 6.0f);
}

int main() {}
