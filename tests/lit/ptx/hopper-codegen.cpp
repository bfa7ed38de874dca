// What the device API's Hopper, constant-memory and clock features become in PTX.
// RUN: oxcc build %s --emit=ptx -o - | FileCheck %s
#include <oxide/oxide.hpp>

#include <array>

// An oxide::constant is a .const variable the host can set (never folded into the code).
// CHECK-DAG: .visible .const .align 4 .b8 [[TAPS:_?[A-Za-z0-9_]*taps[A-Za-z0-9_]*]][16];
// CHECK-DAG: .visible .const .align 4 .b8 [[GAIN:_?[A-Za-z0-9_]*gain[A-Za-z0-9_]*]][4] = {0, 0, 128, 63};
oxide::constant<std::array<float, 4>> taps;
oxide::constant<float> gain{1.0f};

// CHECK-LABEL: .entry {{.*}}scaled
// CHECK: ld.const
// CHECK: ld.const.{{.*}}[[[GAIN]]]
[[kernel, oxide::launch_contract("domain = 1, requires = (in.size() == out.size())")]] void
scaled(oxide::Span<const float> in, oxide::DisjointSpan<float> out) {
  const auto i = oxide::thread::index_1d();
  if (float *o = out.get_mut(i))
    *o = in[i.get()] * taps[i.get() % 4] * *gain;
}

// The grid barrier: the driver's workspace from %envreg1/2, a release fence before the arrival
// and acquire loads while waiting.
// CHECK-LABEL: .entry {{.*}}cooperative
// CHECK: %envreg1
// CHECK: %envreg2
// CHECK: fence.release.gpu
// CHECK: atom.add.u32
// CHECK: ld.acquire.gpu
[[kernel, oxide::launch_contract("domain = 1, cooperative = true")]] void
cooperative(oxide::Span<const float> in, oxide::AtomicSpan<float> total, oxide::DisjointSpan<float> out) {
  const auto i = oxide::thread::index_1d();
  if (i.get() < in.size())
    total.fetch_add(0, in[i.get()]);
  oxide::grid::sync();
  if (float *o = out.get_mut(i))
    *o = total.load(0);
}

// Cluster rank and size, cluster barriers and distributed shared memory (mapa).
// CHECK-LABEL: .entry {{.*}}clustered
// CHECK: barrier.cluster.arrive
// CHECK-NEXT: barrier.cluster.wait
// CHECK-DAG: %cluster_ctarank
// CHECK-DAG: %cluster_nctarank
// CHECK: mapa.u64
// CHECK: barrier.cluster.arrive
// CHECK-NEXT: barrier.cluster.wait
[[kernel, oxide::launch_contract("domain = 1, block = 64, cluster = 2")]] void
clustered(oxide::Span<const float> in, oxide::DisjointSpan<float> out) {
  auto part = oxide::shared_array<float, 64>();
  const auto i = oxide::thread::index_1d();
  const std::uint32_t t = oxide::thread_idx().x;
  part[t] = i.get() < in.size() ? in[i.get()] : 0.0f;
  oxide::cluster::sync();
  const float other = oxide::cluster::map_shared(part, oxide::cluster::block_rank() ^ 1u)[t];
  oxide::cluster::sync();
  if (float *o = out.get_mut(i))
    *o = other;
}

// CHECK-LABEL: .entry {{.*}}timed
// CHECK: mov.u64 {{.*}}%clock64
// CHECK: mov.u64 {{.*}}%globaltimer
[[kernel, oxide::launch_contract("domain = 1")]] void timed(oxide::DisjointSpan<std::uint64_t> out) {
  const auto i = oxide::thread::index_1d();
  const std::uint64_t start = oxide::clock64();
  if (std::uint64_t *o = out.get_mut(i))
    *o = oxide::global_timer_ns() + start;
}

int main() {}
