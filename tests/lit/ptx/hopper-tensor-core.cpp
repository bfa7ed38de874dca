// The Hopper operations become their PTX instructions: mbarriers, TMA bulk tensor copies, the
// async-proxy fence, warpgroup MMA (wgmma) with its fence, commit and wait, and setmaxnreg. A
// kernel using wgmma or setmaxnreg makes the module sm_90a code, chosen automatically for
// --arch=sm_90, and ptxas assembles it. The intrinsics are called directly here (the device
// headers wrap them).
// RUN: oxcc build %s --emit=ptx --arch=sm_90 -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: oxcc build %s --emit=cubin --arch=sm_90 -o %t.cubin
#include <oxide/oxide.hpp>

#include <bit>
#include <cstdint>

// CHECK: .target sm_90a

// CHECK-LABEL: .entry {{.*}}copy_tile
// CHECK-DAG: mbarrier.init.shared{{.*}}.b64
// CHECK-DAG: fence.mbarrier_init.release.cluster;
// CHECK-DAG: fence.proxy.async.shared::cta;
// CHECK-DAG: prefetch.tensormap [
// CHECK-DAG: mbarrier.arrive.expect_tx{{.*}}.b64
// (.tile is the default load mode, which LLVM spells out.)
// CHECK-DAG: cp.async.bulk.tensor.2d.shared::cluster.global{{(.tile)?}}.mbarrier::complete_tx::bytes [{{.*}}], [{{.*}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [{{.*}}];
// CHECK-DAG: cp.async.bulk.tensor.1d.shared::cluster.global{{(.tile)?}}.mbarrier::complete_tx::bytes [{{.*}}], [{{.*}}, {%r{{[0-9]+}}}], [{{.*}}];
// CHECK-DAG: cp.async.bulk.tensor.5d.shared::cluster.global{{(.tile)?}}.mbarrier::complete_tx::bytes
// CHECK-DAG: cp.async.bulk.tensor.2d.shared::cluster.global{{(.tile)?}}.mbarrier::complete_tx::bytes.multicast::cluster [{{.*}}], [{{.*}}, {{{.*}}}], [{{.*}}], {{%rs[0-9]+}};
// CHECK-DAG: mbarrier.try_wait.parity{{.*}}.b64
// CHECK-DAG: mapa.shared::cluster
// CHECK-DAG: mbarrier.arrive.release.cluster.shared::cluster.b64 _, [{{.*}}]
// CHECK-DAG: mbarrier.arrive.shared.b64
// CHECK-DAG: mbarrier.inval.shared{{.*}}.b64
// A multicast copy and a remote arrival need a cluster launch.
[[kernel, oxide::launch_contract("domain = 1, block = 128, cluster = 2")]] void
copy_tile(oxide::TensorMap<const float, oxide::Box<64, 64>> tensor, oxide::DisjointSpan<float> out, std::int32_t x,
          std::int32_t y, std::uint16_t mask) {
  // The pointer to the descriptor's 128 bytes in global memory, the map's one field (what
  // oxide::tma::load passes).
  const void *map = std::bit_cast<const void *>(tensor);
  struct alignas(128) Stage {
    float tile[64 * 64];
  };
  Stage &stage = oxide::shared_array<Stage, 1>()[0];
  std::uint64_t *bar = &oxide::shared_array<std::uint64_t, 1>()[0];
  if (oxide::thread_idx().x == 0) {
    __oxide_mbarrier_init(bar, 1);
    __oxide_mbarrier_init_fence();
    __oxide_tma_prefetch(map);
  }
  __oxide_fence_proxy_async_shared();
  oxide::sync_threads();
  if (oxide::thread_idx().x == 0) {
    __oxide_mbarrier_arrive_expect_tx(bar, sizeof stage.tile);
    __oxide_tma_load(stage.tile, map, bar, 2, x, y, 0, 0, 0);
    __oxide_tma_load(stage.tile, map, bar, 1, x, 0, 0, 0, 0);
    __oxide_tma_load(stage.tile, map, bar, 5, x, y, x, y, x);
    __oxide_tma_load_multicast(stage.tile, map, bar, 2, x, y, 0, 0, 0, mask);
  }
  while (!__oxide_mbarrier_try_wait_parity(bar, 0)) {
  }
  if (float *o = out.get_mut(oxide::thread::index_1d()))
    *o = stage.tile[oxide::thread_idx().x];
  __oxide_mbarrier_arrive_cluster(bar, 1);
  __oxide_mbarrier_arrive(bar);
  oxide::sync_threads();
  if (oxide::thread_idx().x == 0)
    __oxide_mbarrier_inval(bar);
}

// One wgmma of each multiplicand family; accumulate (scale-d) is the predicate operand, and the
// shared-memory address feeds a descriptor.
// CHECK-LABEL: .entry {{.*}}wgmma_forms
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK: wgmma.fence.sync.aligned;
// CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32
// CHECK: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
// CHECK: wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16
// CHECK: wgmma.mma_async.sync.aligned.m64n16k32.s32.s8.s8
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK-NOT: .local
[[kernel]] void wgmma_forms(float *out, std::int32_t *iout) {
  struct alignas(1024) Tiles {
    unsigned char a[64 * 64], b[256 * 64];
  };
  Tiles &tiles = oxide::shared_array<Tiles, 1>()[0];
  const std::uint64_t da = (__oxide_shared_address(tiles.a) >> 4) | (1ull << 62);
  const std::uint64_t db = (__oxide_shared_address(tiles.b) >> 4) | (1ull << 62);
  __oxide_setmaxnreg(232, 1);
  float big[128], tf[64], fp8[32], half[16];
  std::int32_t s8[8];
  __oxide_wgmma_fence();
  __oxide_wgmma(big, da, db, 256, oxide::intrinsic::code(oxide::intrinsic::WgmmaType::bf16), 0, 0, 0);
  __oxide_wgmma(tf, da, db, 128, oxide::intrinsic::code(oxide::intrinsic::WgmmaType::tf32), 0, 0, 0);
  __oxide_wgmma(fp8, da, db, 64, oxide::intrinsic::code(oxide::intrinsic::WgmmaType::e4m3), 0, 0, 0);
  __oxide_wgmma(half, da, db, 32, oxide::intrinsic::code(oxide::intrinsic::WgmmaType::f16), 0, 1, 1);
  __oxide_wgmma(s8, da, db, 16, oxide::intrinsic::code(oxide::intrinsic::WgmmaType::s8), 0, 0, 0);
  __oxide_wgmma_commit_group();
  __oxide_wgmma_wait_group(0);
  __oxide_setmaxnreg(40, 0);
  const unsigned t = oxide::thread_idx().x;
  float sum = 0;
#pragma unroll
  for (float v : big)
    sum += v;
#pragma unroll
  for (float v : tf)
    sum += v;
#pragma unroll
  for (float v : fp8)
    sum += v;
#pragma unroll
  for (float v : half)
    sum += v;
  out[t] = sum;
  iout[t] = s8[0] + s8[7];
}

int main() {}
