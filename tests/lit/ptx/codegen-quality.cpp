// Code-quality fixes found by the benchmark suite (benchmarks/gpu/README.md), pinned in PTX.
// RUN: oxcc build %s --emit=ptx -o - | FileCheck %s
#include <oxide/oxide.hpp>

struct alignas(16) F4 {
  float x, y, z, w;
};

// A struct assignment from an input span: one 128-bit read-only load and one 128-bit store,
// not a memcpy split into plain 64-bit loads.
// CHECK-LABEL: .entry {{.*}}copy4
// CHECK: ld.global.nc.v4.b32
// CHECK: st.global.v4.b32
// CHECK: ret;
[[kernel, oxide::launch_contract("domain = 1, block = 256, requires = (in.size() == out.size())")]] void
copy4(oxide::Span<const F4> in, oxide::DisjointSpan<F4> out) {
  for (const auto &i : oxide::thread::grid_stride(out.size()))
    if (F4 *o = out.get_mut(i))
      *o = in[i.get()];
}

// With the exact block known, threadIdx is bounded by it: a shared-tile index built from it
// needs no bounds check (no failure path calling vprintf/__assertfail). Shared memory is
// addressed with 32-bit registers, as nvcc does (-fcuda-short-ptr), not 64-bit ones.
// CHECK-LABEL: .entry {{.*}}tiled
// CHECK-NOT: vprintf
// CHECK: mov.b32 %r{{[0-9]+}}, __oxide_shared_
// CHECK: st.shared.b32 [%r{{[0-9]+}}]
// CHECK-NOT: vprintf
// CHECK: ld.shared.b32 %r{{[0-9]+}}, [%r{{[0-9]+}}]
// CHECK-NOT: vprintf
// CHECK: ret;
[[kernel, oxide::launch_contract("domain = 2, block = (32, 8)")]] void tiled(oxide::DisjointSpan2D<float> out) {
  auto tile = oxide::shared_array<float, 32 * 33>();
  const auto t = oxide::thread_idx();
  tile[t.y * 33 + t.x] = static_cast<float>(t.x);
  oxide::sync_threads();
  if (float *o = out.get_mut(oxide::thread::index_2d()))
    *o = tile[t.x * 33 + t.y];
}

// Launch bounds reach ptxas for kernels without a contract too.
// CHECK-LABEL: .entry {{.*}}bounded
// CHECK: .maxntid 256, 1, 1
// CHECK-NEXT: .minnctapersm 2
[[kernel, oxide::launch_bounds(256, 2)]] void bounded(oxide::Span<float> data) {
  if (float *x = data.get(oxide::thread::index_1d().get()))
    *x = 1.0f;
}

// The grid barrier is one call site: it must not be duplicated into divergent paths, where the
// copies' aligned bar.sync would deadlock (the barrier function is convergent).
// CHECK-LABEL: .entry {{.*}}coop
// CHECK-COUNT-1: %envreg1
// CHECK-NOT: %envreg1
// CHECK: ret;
[[kernel, oxide::launch_contract("domain = 1, cooperative = true")]] void
coop(oxide::Span<const float> in, oxide::AtomicSpan<float> total, oxide::DisjointSpan<float> out) {
  const auto i = oxide::thread::index_1d();
  if (oxide::warp::lane_id() == 0 && i.get() < in.size())
    total.fetch_add(0, in[i.get()]);
  oxide::grid::sync();
  if (float *o = out.get_mut(i))
    *o = total.load(0);
}

int main() {}

// Launch bounds and exact blocks also bound threadIdx inside helpers that LLVM inlines into the
// kernel (its own range pass runs before inlining): the per-warp slot index needs no check, and
// with a 1-D exact block the lane id is threadIdx.x % 32, not a %laneid read.
template <unsigned kBlock> float block_total(float v) {
  auto per_warp = oxide::shared_array<float, kBlock / 32>();
  const std::uint32_t t = oxide::thread_idx().x;
  v = oxide::warp::sum(v);
  if (oxide::warp::lane_id() == 0)
    per_warp[t / 32] = v;
  oxide::sync_threads();
  return t < 32 ? oxide::warp::sum(t < kBlock / 32 ? per_warp[t] : 0.0f) : 0.0f;
}

// CHECK-LABEL: .entry {{.*}}bounded_sum
// CHECK-NOT: vprintf
// CHECK: ret;
[[kernel, oxide::launch_bounds(256)]] void bounded_sum(oxide::Span<const float> in, oxide::Span<float> out) {
  const float total = block_total<256>(in.size() > 0 ? in[0] : 0.0f);
  if (float *o = out.get(oxide::block_idx().x))
    *o = total;
}

// CHECK-LABEL: .entry {{.*}}exact_sum
// CHECK-NOT: %laneid
// CHECK-NOT: vprintf
// CHECK: ret;
[[kernel, oxide::launch_contract("domain = 1, block = 256")]] void exact_sum(oxide::Span<const float> in,
                                                                              oxide::DisjointSpan<float> out) {
  const float total = block_total<256>(in.size() > 0 ? in[0] : 0.0f);
  if (float *o = out.get_mut(oxide::thread::index_1d()))
    *o = total;
}

// Checked loads staged through shared memory: both checks come first, then both loads and the
// stores in one block, so ptxas can have the second load in flight before the first one's data
// arrives (no branch between the loads).
// CHECK-LABEL: .entry {{.*}}two_stages
// CHECK: ld.global.nc
// CHECK-NOT: bra
// CHECK: ld.global.nc
// CHECK: bar.sync
[[kernel, oxide::launch_contract("domain = 1, block = 256, requires = (a.size() == out.size())")]] void
two_stages(std::uint32_t k, oxide::Span<const float> a, oxide::Span<const float> b, oxide::DisjointSpan<float> out) {
  auto stage = oxide::shared_array<float, 512>();
  const std::uint32_t t = oxide::thread_idx().x;
  stage[t] = a[std::size_t{k} * 256 + t];
  stage[256 + t] = b[std::size_t{k} * 512 + t];
  oxide::sync_threads();
  if (float *o = out.get_mut(oxide::thread::index_1d()))
    *o = stage[t] + stage[511 - t];
}
