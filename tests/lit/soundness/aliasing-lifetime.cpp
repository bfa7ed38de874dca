// Undefined behaviour through memory: `__restrict__` parameters that alias, an object read
// through a pointer of another type (strict aliasing), a union written as one member and read
// as another, a local read through a pointer after its lifetime ended. LLVM may reorder,
// forward or drop such accesses, and the value it reads may be one the program never wrote
// (poison or undef). None of that may reach a guard: what a guard tests is a register (a
// witness, an index frozen where it is defined) or a field of the launch's own copy of a span,
// which no checked write reaches, so the test of each index below stays in front of its atomic
// or store. Both compilers, before and after the fix, keep these guards.
// RUN: oxcc build %s --arch=sm_90 --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
#include <oxide/oxide.hpp>

#include <cstddef>

inline void store_twice(float *__restrict__ x, float *__restrict__ y) {
  *x = 1.0f;
  *y = 2.0f;
}
// CHECK-LABEL: .entry _Z21restrict_same_elementN5oxide12DisjointSpanIfEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(_Z21restrict_same_elementN5oxide12DisjointSpanIfEE_param_0|%rd[0-9]+)}}+8];
// CHECK: setp.{{[a-z]+}}.u64 [[PAST:%p[0-9]+]], {{.*}}[[SIZE]]{{[,;]}}
// CHECK: @%p{{[0-9]+}} bra [[SKIP:\$L__BB[0-9_]+]];
// CHECK: st.global.b32
// CHECK: [[SKIP]]:
// CHECK: ret;
[[kernel, oxide::launch_contract("domain = 1")]] void restrict_same_element(oxide::DisjointSpan<float> out) {
  if (float *o = out.get_mut(oxide::thread::index_1d()))
    store_twice(o, o); // both restrict pointers name the same element
}

inline void count(unsigned *__restrict__ hits, const unsigned *__restrict__ limit) {
  if (*hits < *limit)
    ++*hits;
}
// CHECK-LABEL: .entry _Z16restrict_counterN5oxide10AtomicSpanIjLNS_5ScopeE1EEENS_4SpanIKjEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(%rd[0-9]+|_Z[A-Za-z0-9_]+_param_0)}}+8];
// CHECK: setp.{{(lt|ge)}}.u64 [[IN:%p[0-9]+]], [[K:%rd[0-9]+]], [[SIZE]];
// CHECK: @%p{{[0-9]+}} bra
// CHECK: shl.b64 {{%rd[0-9]+}}, [[K]], 2;
// CHECK: atom.global.add.u32
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1")]] void restrict_counter(oxide::AtomicSpan<unsigned> bins,
                                                                       oxide::Span<const unsigned> in) {
  unsigned hits = 0;
  if (const unsigned *x = in.get(oxide::thread::index_1d().get())) {
    hits = *x;
    count(&hits, &hits);
  }
  bins.fetch_add(hits, 1u);
}

// CHECK-LABEL: .entry _Z17float_read_as_intN5oxide10AtomicSpanIjLNS_5ScopeE1EEENS_4SpanIKfEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(%rd[0-9]+|_Z[A-Za-z0-9_]+_param_0)}}+8];
// CHECK: setp.{{(gt|le)}}.u64 [[IN:%p[0-9]+]], [[SIZE]], [[K:%rd[0-9]+]];
// CHECK: @%p{{[0-9]+}} bra
// CHECK: shl.b64 {{%rd[0-9]+}}, [[K]], 2;
// CHECK: atom.global.add.u32
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1")]] void float_read_as_int(oxide::AtomicSpan<unsigned> bins,
                                                                        oxide::Span<const float> in) {
  if (const float *x = in.get(oxide::thread::index_1d().get())) {
    float f = *x;
    const int k = *reinterpret_cast<int *>(&f); // the bits of f, "as everyone does"
    bins.fetch_add(k, 1u);
  }
}

inline unsigned written_then_read(float *f, unsigned *u, float v) {
  *u = 7;
  *f = v;
  return *u; // TBAA: the float store cannot change *u
}
// CHECK-LABEL: .entry _Z14float_over_intN5oxide10AtomicSpanIjLNS_5ScopeE1EEENS_4SpanIKfEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(%rd[0-9]+|_Z[A-Za-z0-9_]+_param_0)}}+8];
// CHECK: setp.{{(gt|le)}}.u64 [[IN:%p[0-9]+]], [[SIZE]], 7;
// CHECK: @%p{{[0-9]+}} bra
// CHECK: atom.global.add.u32 %r{{[0-9]+}}, [%rd{{[0-9]+}}+28], 1;
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1")]] void float_over_int(oxide::AtomicSpan<unsigned> bins,
                                                                     oxide::Span<const float> in) {
  if (const float *x = in.get(oxide::thread::index_1d().get())) {
    unsigned slot;
    bins.fetch_add(written_then_read(reinterpret_cast<float *>(&slot), &slot, *x), 1u);
  }
}

// CHECK-LABEL: .entry _Z9union_punN5oxide10AtomicSpanIjLNS_5ScopeE1EEENS_4SpanIKfEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(%rd[0-9]+|_Z[A-Za-z0-9_]+_param_0)}}+8];
// CHECK: setp.{{(gt|le)}}.u64 [[IN:%p[0-9]+]], [[SIZE]], [[K:%rd[0-9]+]];
// CHECK: @%p{{[0-9]+}} bra
// CHECK: shl.b64 {{%rd[0-9]+}}, [[K]], 2;
// CHECK: atom.global.add.u32
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1")]] void union_pun(oxide::AtomicSpan<unsigned> bins,
                                                                oxide::Span<const float> in) {
  union {
    float f;
    unsigned u;
  } pun;
  if (const float *x = in.get(oxide::thread::index_1d().get())) {
    pun.f = *x;
    bins.fetch_add(pun.u, 1u);
  }
}

// CHECK-LABEL: .entry _Z11after_scopeN5oxide10AtomicSpanIjLNS_5ScopeE1EEENS_4SpanIKjEE(
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(%rd[0-9]+|_Z[A-Za-z0-9_]+_param_0)}}+8];
// CHECK: setp.{{(gt|le)}}.u64 [[IN:%p[0-9]+]], [[SIZE]], [[K:%rd[0-9]+]];
// CHECK: @%p{{[0-9]+}} bra
// CHECK: shl.b64 {{%rd[0-9]+}}, [[K]], 2;
// CHECK: atom.global.add.u32
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1")]] void after_scope(oxide::AtomicSpan<unsigned> bins,
                                                                  oxide::Span<const unsigned> in) {
  const unsigned *q;
  {
    const unsigned k = in[oxide::thread::index_1d().get()];
    q = &k;
  }
  bins.fetch_add(*q, 1u); // k's lifetime has ended
}

inline const unsigned *dangling(unsigned v) {
  unsigned local = v * 2;
  return &local;
}
// CHECK-LABEL: .entry _Z14returned_localN5oxide10AtomicSpanIjLNS_5ScopeE1EEENS_4SpanIKjEE(
// (With the helper inlined before its local is promoted, the read gives the value stored, 2 x;
// frozen, it is one value for the test and the address either way.)
// CHECK: ld.param.b64 [[SIZE:%rd[0-9]+]], [{{(%rd[0-9]+|_Z[A-Za-z0-9_]+_param_0)}}+8];
// CHECK: setp.gt.u64 [[IN:%p[0-9]+]], [[SIZE]], %rd{{[0-9]+}};
// CHECK: @[[IN]] bra
// CHECK: atom.global.add.u32
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1")]] void returned_local(oxide::AtomicSpan<unsigned> bins,
                                                                     oxide::Span<const unsigned> in) {
  if (const unsigned *x = in.get(oxide::thread::index_1d().get()))
    bins.fetch_add(*dangling(*x), 1u);
}

// The tile index read from a dead local is frozen: tested against the tile before the store.
// CHECK-LABEL: .entry _Z10after_loopN5oxide12DisjointSpanIfEEj(
// CHECK: setp.lt.u64 [[EXISTS:%p[0-9]+]]
// CHECK: and.pred [[IN:%p[0-9]+]], [[EXISTS]], %p{{[0-9]+}};
// CHECK: @[[IN]] bra
// CHECK: st.global.b32
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1")]] void after_loop(oxide::DisjointSpan<float> out, unsigned n) {
  const float *last = nullptr;
  for (unsigned k = 0; k < n; ++k) {
    const float v = float(k);
    last = &v;
  }
  const auto t = out.tile_mut<4>(oxide::thread::index_1d());
  if (last)
    t[static_cast<std::size_t>(*last)] = 1.0f; // the tile index read from a dead local
}

int main() {}
