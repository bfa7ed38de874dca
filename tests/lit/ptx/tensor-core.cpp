// The tensor-core operations become their PTX instructions (mma.sync, ldmatrix, cp.async with its
// groups), in a kernel with a contract, and the PTX assembles for sm_80 and sm_90. The fragments
// stay in registers: no local memory.
// RUN: oxcc build %s --emit=ptx --arch=sm_80 -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: oxcc build %s --emit=cubin --arch=sm_80 -o %t.sm80.cubin
// RUN: oxcc build %s --emit=cubin --arch=sm_90 -o %t.sm90.cubin
// RUN: not oxcc build %s --emit=ptx --arch=sm_75 -o - 2>&1 | FileCheck %s --check-prefix=SM75
#include <oxide/oxide.hpp>

// SM75: tensor-core.cpp:[[@LINE+17]]:{{[0-9]+}}: error: kernel 'tile_product{{.*}}' uses asynchronous copies to shared memory (oxide::cp_async), which needs sm_80 or newer, but this build targets sm_75
// SM75: tensor-core.cpp:[[@LINE+25]]:{{[0-9]+}}: note: used here

// CHECK-LABEL: .entry {{.*}}tile_product
// CHECK-NOT: .local
// CHECK-DAG: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// CHECK-DAG: cp.async.ca.shared.global [{{.*}}], [{{.*}}], 4;
// CHECK-DAG: cp.async.commit_group;
// CHECK-DAG: cp.async.wait_group 0;
// CHECK-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-DAG: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// CHECK-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-DAG: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// CHECK-DAG: mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32
[[kernel, oxide::launch_contract("domain = 1, block = 32, requires = (a.size() >= 256, b.size() >= 128, "
                                 "out.size() == 32)")]] void
tile_product(oxide::Span<const oxide::bfloat16> a, oxide::Span<const oxide::bfloat16> b,
             oxide::Span<const float> scale, oxide::DisjointSpan<float> out) {
  struct alignas(16) Tiles {
    oxide::bfloat16 a[16 * 16], b[16 * 8];
    float scale[32];
  };
  Tiles &tiles = oxide::shared_array<Tiles, 1>()[0];
  const auto i = oxide::thread::index_1d();
  const unsigned lane = oxide::warp::lane_id();
  oxide::cp_async::copy<16>(&tiles.a[lane * 8], a, lane * 8);
  if (lane < 16)
    oxide::cp_async::copy<16>(&tiles.b[lane * 8], b, lane * 8);
  oxide::cp_async::copy<4>(&tiles.scale[lane], scale, lane);
  oxide::cp_async::commit_group();
  oxide::cp_async::wait_group<0>();
  oxide::sync_threads();

  oxide::mma::FragmentA<oxide::bfloat16> fa;
  oxide::mma::FragmentB<oxide::bfloat16> fb;
  oxide::mma::FragmentC<float> acc;
  oxide::mma::load_a(fa, tiles.a, 16);
  oxide::mma::load_b_trans(fb, tiles.b, 8);
  oxide::mma::mma_sync(acc, fa, fb, acc);

  // The other shapes, on the same registers reinterpreted.
  oxide::mma::FragmentA<oxide::half> ha;
  oxide::mma::FragmentB<oxide::half> hb;
  oxide::mma::FragmentA<oxide::tf32> ta;
  oxide::mma::FragmentB<oxide::tf32> tb;
  oxide::mma::FragmentA<std::int8_t> ia;
  oxide::mma::FragmentB<std::int8_t> ib;
  oxide::mma::FragmentC<std::int32_t> iacc;
  for (unsigned r = 0; r < 4; ++r)
    ha.reg[r] = ta.reg[r] = ia.reg[r] = fa.reg[r];
  for (unsigned r = 0; r < 2; ++r)
    hb.reg[r] = tb.reg[r] = ib.reg[r] = fb.reg[r];
  oxide::mma::mma_sync(acc, ha, hb, acc);
  oxide::mma::mma_sync(acc, ta, tb, acc);
  oxide::mma::mma_sync(iacc, ia, ib, iacc);
  if (float *o = out.get_mut(i))
    *o = (acc.x[0] + acc.x[1] + acc.x[2] + acc.x[3]) * tiles.scale[lane] + static_cast<float>(iacc.x[0]);
}
