// The shared-memory and global stores of sm_90 become their PTX instructions: stmatrix (the
// inverse of ldmatrix) and the TMA store with its bulk group's commit and wait. Both need sm_90
// (plain sm_90: neither is architecture-specific), and ptxas assembles them. A TMA store is for
// kernels without a launch contract (oxide::unsafe_launch): the safe tier refuses it
// (tests/lit/safety/writes-hopper-stores.test).
// RUN: oxcc build %s --emit=ptx --arch=sm_90 -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: oxcc build %s --emit=cubin --arch=sm_90 -o %t.cubin
// RUN: not oxcc build %s --emit=ptx --arch=sm_80 -o - 2>&1 | FileCheck %s --check-prefix=SM80
#include <oxide/oxide.hpp>

#include <cstdint>

// CHECK: .target sm_90{{$}}

// SM80: hopper-stores.cpp:[[@LINE+8]]:{{[0-9]+}}: error: kernel 'write_fragments{{.*}}' uses a warp matrix store to shared memory (oxide::mma::stmatrix), which needs sm_90 or newer, but this build targets sm_80
// CHECK-LABEL: .entry {{.*}}write_fragments
// CHECK-DAG: stmatrix.sync.aligned.m8n8.x4.shared.b16 [{{.*}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
// CHECK-DAG: stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [{{.*}}], {%r{{[0-9]+}}, %r{{[0-9]+}}};
// CHECK-DAG: stmatrix.sync.aligned.m8n8.x1.shared.b16 [{{.*}}], {%r{{[0-9]+}}};
// CHECK-DAG: stmatrix.sync.aligned.m8n8.x1.trans.shared.b16
// CHECK-DAG: stmatrix.sync.aligned.m8n8.x2.shared.b16
// CHECK-DAG: stmatrix.sync.aligned.m8n8.x4.trans.shared.b16
[[kernel, oxide::launch_contract("domain = 1, block = 32")]] void write_fragments(oxide::DisjointSpan<std::uint32_t> out) {
  struct alignas(16) Tile {
    std::uint16_t v[32 * 16];
  };
  std::uint16_t *tile = oxide::shared_array<Tile, 1>()[0].v;
  const std::uint32_t lane = oxide::thread_idx().x;
  std::uint32_t x4[4] = {lane, lane + 1, lane + 2, lane + 3}, x2[2] = {lane, ~lane}, x1[1] = {lane * 3};
  oxide::mma::stmatrix<4>(&tile[lane * 16], x4);
  oxide::mma::stmatrix_trans<2>(&tile[(lane % 16) * 16], x2);
  oxide::mma::stmatrix<1>(&tile[(lane % 8) * 16 + 8], x1);
  oxide::mma::stmatrix_trans<1>(&tile[(lane % 8) * 16], x1);
  oxide::mma::stmatrix<2>(&tile[(lane % 16) * 16 + 8], x2);
  oxide::mma::stmatrix_trans<4>(&tile[lane * 16], x4);
  oxide::sync_threads();
  if (std::uint32_t *o = out.get_mut(oxide::thread::index_1d()))
    *o = tile[lane * 16] + tile[lane * 16 + 9];
}

// CHECK-LABEL: .entry {{.*}}store_tiles
// (.tile is the default store mode, which LLVM may spell out.)
// CHECK-DAG: cp.async.bulk.tensor.2d.global.shared::cta{{(.tile)?}}.bulk_group [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [%r{{[0-9]+}}];
// CHECK-DAG: cp.async.bulk.tensor.3d.global.shared::cta{{(.tile)?}}.bulk_group [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}], [%r{{[0-9]+}}];
// CHECK-DAG: cp.async.bulk.commit_group;
// CHECK-DAG: cp.async.bulk.wait_group.read 0;
// CHECK-DAG: cp.async.bulk.wait_group.read 1;
using CMap = oxide::TensorMap<float, oxide::Box<32, 32>>;
using VMap = oxide::TensorMap<oxide::bfloat16, oxide::Box<4, 8, 64>, oxide::Swizzle::b128>;
struct Stage {
  CMap::matrix_type c;
  VMap::matrix_type v;
};
[[kernel]] void store_tiles(CMap c, VMap v, std::int32_t row, std::int32_t col) {
  auto &s = oxide::dynamic_shared_object<Stage>();
  const std::uint32_t t = oxide::thread_idx().x;
  for (std::uint32_t i = t; i < 32 * 32; i += 128)
    s.c(i / 32, i % 32) = static_cast<float>(i);
  for (std::uint32_t i = t; i < 32 * 64; i += 128)
    s.v(i / 64, i % 64) = oxide::bfloat16(static_cast<float>(i));
  oxide::fence_async_shared();
  oxide::sync_threads();
  if (t == 0) {
    oxide::tma::store(c, {row, col}, s.c);
    oxide::tma::store_commit();
    oxide::tma::store(v, {0, row, col}, s.v);
    oxide::tma::store_commit();
    oxide::tma::store_wait<1>();
    oxide::tma::store_wait<0>();
  }
}
