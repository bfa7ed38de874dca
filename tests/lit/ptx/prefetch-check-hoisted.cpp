// A double-buffered loop's prefetch keeps no bounds check in the loop (issue 41): the next
// tile's checked read `a[row + k + 256]` under `if (k + 256 < n)` (sgemm_128x8's form) is tested
// once, before the loop, at the largest k the loop goes on with, by oxide-loop-bounds-checks.
// With the check in the loop, ptxas wrapped the loop in a convergence barrier for the report's
// branch (611 instructions a k-tile against nvcc's 572; 0.905 of nvcc's speed on an H100, 0.955
// with the check before the loop).
// RUN: oxcc build %s --arch=sm_90 --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
#include <oxide/oxide.hpp>
#include <cstdint>

// The test before the loop. LLVM merges the prefetch's `k + 256 < n` into the loop's own test:
// the loop's counter starts at 256 and the read's k lags one iteration behind it. So the reads
// are tested at the first k and, when the loop goes on at all (n > 512), at the k before the
// last counter, (n - 1) - ((n - 1) mod 256) (and at that counter too, for a loop whose counter
// would wrap past 2^32 and never end).
// CHECK-LABEL: .entry _Z12prefetch_sumjN5oxide4SpanIKfEENS_12DisjointSpanIfEE(
// CHECK: setp.gt.u32 {{%p[0-9]+}}, {{%r[0-9]+}}, 512;
// CHECK: setp.ge.u64
// Then the loop: its prefetch is a load with no 64-bit compare (the bounds test) and no branch
// to the report before the back edge.
// CHECK: [[LOOP:\$L__BB[0-9]+_[0-9]+]]:
// CHECK-NOT: .u64
// CHECK: ld.global.nc.b32
// CHECK-NOT: .u64
// CHECK: bra{{(.uni)?}} [[LOOP]];
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1, block = 256")]] void
prefetch_sum(std::uint32_t n, oxide::Span<const float> a, oxide::DisjointSpan<float> out) {
  const std::uint32_t t = oxide::thread_idx().x;
  const std::size_t row = std::size_t{oxide::block_idx().x} * n;
  float next = a[row + t], sum = 0.0f;
  for (std::uint32_t k = 0; k < n; k += 256) {
    const float now = next;
    if (k + 256 < n)
      next = a[row + k + 256 + t];
    sum += now * now;
  }
  if (float *o = out.get_mut(oxide::thread::index_1d()))
    *o = sum;
}

// sgemm_128x8's shape: a barrier in the loop keeps the prefetch's `k + 256 < n` inside it, and
// the read's index is the counter's (`size_t{k} + 256 + t`): tested before the loop at the last
// counter the loop goes on from. In the loop: the prefetch under `k + 256 < n` (32-bit), no 64-bit
// compare.
// CHECK-LABEL: .entry _Z15prefetch_stagedjN5oxide4SpanIKfEENS_12DisjointSpanIfEE(
// CHECK: setp.{{(lt|ge)}}.u64
// CHECK: [[LOOP:\$L__BB[0-9]+_[0-9]+]]:
// CHECK-NOT: .u64
// CHECK: bar.sync 0;
// CHECK-NOT: .u64
// CHECK: ld.global.nc.b32
// CHECK-NOT: .u64
// CHECK: bra{{(.uni)?}} [[LOOP]];
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1, block = 256")]] void
prefetch_staged(std::uint32_t n, oxide::Span<const float> a, oxide::DisjointSpan<float> out) {
  auto staged = oxide::shared_array<float, 256>();
  const std::uint32_t t = oxide::thread_idx().x;
  float next = a[t], sum = 0.0f;
  for (std::uint32_t k = 0; k < n; k += 256) {
    staged[t] = next;
    oxide::sync_threads();
    if (k + 256 < n)
      next = a[std::size_t{k} + 256 + t];
    sum += staged[255 - t];
    oxide::sync_threads();
  }
  if (float *o = out.get_mut(oxide::thread::index_1d()))
    *o = sum;
}
