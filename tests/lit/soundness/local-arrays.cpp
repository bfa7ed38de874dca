// Out-of-bounds accesses to a thread's own arrays in a loop that also updates an AtomicSpan at
// the loop counter. C++ lets LLVM assume an index of a local array stays inside it, so it bounds
// the loop's trip count by the array's length (ScalarEvolution reads the `inbounds` of each
// address); with the contract's bins.size() equal to that length, the AtomicSpan's bounds test
// looks redundant and goes, and a loop that runs past the array's end (n > length) updates
// counters past the end of the output. defineUndefinedBehaviour takes `inbounds` off addresses
// into local arrays, so the test stays: at k == length the kernel stops. Kernels marked OLD lost
// their guard with the compiler before that fix (their CHECK lines fail on its PTX); in the
// others that compiler unrolled the loop up to the array's length and kept the test after it.
// RUN: oxcc build %s --arch=sm_90 --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
#include <oxide/oxide.hpp>

// OLD: no bounds test at all in the loop: with n > 256 it updated bins[256], bins[257]...
// CHECK-LABEL: .entry _Z14histogram_loopN5oxide10AtomicSpanIjLNS_5ScopeE1EEENS_4SpanIKjEEj(
// CHECK: setp.{{(ne|eq)}}.b64 [[IN:%p[0-9]+]], %rd{{[0-9]+}}, 256;
// CHECK: @%p{{[0-9]+}} bra [[UPDATE:\$L__BB[0-9_]+]];
// CHECK: bra.uni [[FAIL:\$L__BB[0-9_]+]];
// CHECK: [[UPDATE]]:
// CHECK: atom.global.add.u32
// CHECK: [[FAIL]]:
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1, requires = (bins.size() == 256)")]] void
histogram_loop(oxide::AtomicSpan<unsigned> bins, oxide::Span<const unsigned> in, unsigned n) {
  unsigned hist[256] = {};
  for (unsigned k = 0; k < n; ++k) { // "n is at most 256"
    hist[k] += in[k % in.size()];
    bins.fetch_add(k, hist[k]);
  }
}

// CHECK-LABEL: .entry _Z10write_loopN5oxide10AtomicSpanIjLNS_5ScopeE1EEENS_12DisjointSpanIjEENS_4SpanIKjEEj(
// CHECK: st.local.b32
// CHECK: setp.{{(ne|eq)}}.b64 [[IN:%p[0-9]+]], %rd{{[0-9]+}}, 64;
// CHECK: @%p{{[0-9]+}} bra [[UPDATE:\$L__BB[0-9_]+]];
// CHECK: bra.uni [[FAIL:\$L__BB[0-9_]+]];
// CHECK: [[UPDATE]]:
// CHECK: atom.global.add.u32
// CHECK: [[FAIL]]:
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1, requires = (bins.size() == 64)")]] void
write_loop(oxide::AtomicSpan<unsigned> bins, oxide::DisjointSpan<unsigned> out,
           oxide::Span<const unsigned> in, unsigned n) {
  const auto &i = oxide::thread::index_1d();
  unsigned local[64];
  for (unsigned k = 0; k < n; ++k) {
    local[k] = in[k % in.size()] * 3 + k;
    bins.fetch_add(k, local[k]);
  }
  if (unsigned *o = out.get_mut(i))
    *o = local[i.get() % 64];
}

// CHECK-LABEL: .entry _Z9read_loopN5oxide10AtomicSpanIjLNS_5ScopeE1EEENS_12DisjointSpanIjEENS_4SpanIKjEEj(
// CHECK: atom.global.add.u32
// CHECK: setp.{{(ne|eq)}}.b64 [[PAST:%p[0-9]+]], %rd{{[0-9]+}}, 64;
// CHECK: @%p{{[0-9]+}} bra [[FAIL:\$L__BB[0-9_]+]];
// CHECK: atom.global.add.u32
// CHECK: [[FAIL]]:
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1, requires = (bins.size() == 64)")]] void
read_loop(oxide::AtomicSpan<unsigned> bins, oxide::DisjointSpan<unsigned> out, oxide::Span<const unsigned> in,
          unsigned n) {
  unsigned local[64];
  for (unsigned k = 0; k < 64; ++k)
    local[k] = in[k % in.size()];
  unsigned sum = 0;
  for (unsigned k = 0; k < n; ++k) {
    sum += local[k];
    bins.fetch_add(k, sum);
  }
  if (unsigned *o = out.get_mut(oxide::thread::index_1d()))
    *o = sum;
}

// The same with a table in constant memory read past its end.
oxide::constant<unsigned[64]> weights;
// CHECK-LABEL: .entry _Z14constant_tableN5oxide10AtomicSpanIjLNS_5ScopeE1EEEj(
// CHECK: atom.global.add.u32
// CHECK: setp.{{(ne|eq)}}.b64 [[PAST:%p[0-9]+]], %rd{{[0-9]+}}, 64;
// CHECK: @%p{{[0-9]+}} bra [[FAIL:\$L__BB[0-9_]+]];
// CHECK: ld.const.b32
// CHECK: atom.global.add.u32
// CHECK: [[FAIL]]:
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1, requires = (bins.size() == 64)")]] void
constant_table(oxide::AtomicSpan<unsigned> bins, unsigned n) {
  for (unsigned k = 0; k < n; ++k)
    bins.fetch_add(k, weights.get()[k]);
}

// A while loop whose only bound is the local array it fills.
// CHECK-LABEL: .entry _Z12search_arrayN5oxide10AtomicSpanIjLNS_5ScopeE1EEENS_4SpanIKjEE(
// CHECK: atom.global.add.u32 %r{{[0-9]+}}, [%rd{{[0-9]+}}+60], 1;
// CHECK: ld.global.nc.b32 [[NEXT:%r[0-9]+]]
// CHECK: setp.{{(ne|eq)}}.b32 [[DONE:%p[0-9]+]], [[NEXT]], 0;
// CHECK: @%p{{[0-9]+}} bra [[END:\$L__BB[0-9_]+]];
// CHECK: bra.uni [[FAIL:\$L__BB[0-9_]+]];
// CHECK: [[END]]:
// CHECK: ret;
// CHECK: [[FAIL]]:
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1, requires = (bins.size() == 16)")]] void
search_array(oxide::AtomicSpan<unsigned> bins, oxide::Span<const unsigned> in) {
  unsigned seen[16] = {};
  unsigned k = 0;
  while (in[k % in.size()] != 0) { // "the input has a zero among its first 16"
    seen[k] = 1;
    bins.fetch_add(k, seen[k]);
    ++k;
  }
}

int main() {}
