// RUN: oxide-opt %s -oxide-to-nvvm | FileCheck %s

// Mbarriers are shared-memory (addrspace 3) objects for NVVM; a remote arrival goes through the
// cluster window (mapa, addrspace 7).
// CHECK-LABEL: llvm.func @mbarriers
llvm.func @mbarriers(%bar: !llvm.ptr, %sbar: !llvm.ptr<3>, %n: i32) -> i32 {
  // CHECK: %[[S:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr to !llvm.ptr<3>
  // CHECK: llvm.ptrtoint %[[S]] : !llvm.ptr<3> to i32
  %a = oxide.shared_address %bar : !llvm.ptr -> i32
  // CHECK: %[[B:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr to !llvm.ptr<3>
  // CHECK: nvvm.mbarrier.init %[[B]], %{{.*}} : !llvm.ptr<3>, i32
  oxide.mbarrier_init %bar, %n : !llvm.ptr
  // A shared pointer needs no cast.
  // CHECK-NOT: llvm.addrspacecast
  // CHECK: nvvm.mbarrier.init %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
  oxide.mbarrier_init %sbar, %n : !llvm.ptr<3>
  // CHECK: nvvm.fence.mbarrier.init
  oxide.mbarrier_init_fence
  // CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
  oxide.mbarrier_arrive %bar : !llvm.ptr
  // CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
  oxide.mbarrier_arrive_expect_tx %bar, %n : !llvm.ptr
  // CHECK: %[[R:.*]] = nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
  // CHECK: nvvm.mbarrier.arrive %[[R]] {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
  oxide.mbarrier_arrive_cluster %bar, %n : !llvm.ptr
  // A 32-bit phase: the .parity form; the i1 result widened to the intrinsic's i32.
  // CHECK: %[[W:.*]] = nvvm.mbarrier.try_wait %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32 -> i1
  // CHECK: llvm.zext %[[W]] : i1 to i32
  %done = oxide.mbarrier_try_wait_parity %bar, %n : !llvm.ptr -> i32
  // CHECK: nvvm.mbarrier.inval %{{.*}} : !llvm.ptr<3>
  oxide.mbarrier_inval %bar : !llvm.ptr
  // CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
  oxide.fence_proxy_async_shared
  %r = llvm.add %a, %done : i32
  llvm.return %r : i32
}

// The copy's destination is in the cluster window (the .shared::cluster form), its barrier in
// shared memory, the TensorMap a generic pointer.
// CHECK-LABEL: llvm.func @tma
llvm.func @tma(%dst: !llvm.ptr, %map: !llvm.ptr, %gmap: !llvm.ptr<1>, %bar: !llvm.ptr, %x: i32, %y: i32, %mask: i16) {
  // CHECK: %[[D3:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr to !llvm.ptr<3>
  // CHECK: %[[D7:.*]] = llvm.addrspacecast %[[D3]] : !llvm.ptr<3> to !llvm.ptr<7>
  // CHECK: %[[B:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr to !llvm.ptr<3>
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[D7]], %{{.*}}, %[[B]], box[%{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
  oxide.tma_load %dst, %map, %bar box [%x, %y] : !llvm.ptr, !llvm.ptr, !llvm.ptr
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}}, box[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
  oxide.tma_load %dst, %map, %bar box [%x, %y, %x, %y, %x] : !llvm.ptr, !llvm.ptr, !llvm.ptr
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}}, box[%{{.*}}] multicast_mask = %{{.*}} : !llvm.ptr<7>, !llvm.ptr
  oxide.tma_load %dst, %map, %bar box [%x] multicast %mask : !llvm.ptr, !llvm.ptr, !llvm.ptr
  // CHECK: nvvm.prefetch tensormap, %{{.*}} : !llvm.ptr
  oxide.tma_prefetch %map : !llvm.ptr
  // A global (addrspace 1) map becomes generic.
  // CHECK: %[[G:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr<1> to !llvm.ptr
  // CHECK: nvvm.prefetch tensormap, %[[G]] : !llvm.ptr
  oxide.tma_prefetch %gmap : !llvm.ptr<1>
  llvm.return
}

// wgmma.mma_async is one inline-PTX statement whose accumulators are tied operands ("=f" and
// "0".."n-1"); scale-d is accumulate, and the transposes are imm-trans-a and imm-trans-b
// (bf16/f16 only). The constants after the descriptors: scale-d, scale-a, scale-b, then the
// transposes.
// CHECK-LABEL: llvm.func @wgmma
llvm.func @wgmma(%da: i64, %db: i64, %f: f32, %i: i32) -> i32 {
  // CHECK: nvvm.wgmma.fence.aligned
  oxide.wgmma_fence
  // CHECK: %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK: %[[O:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK: %[[D:.*]] = llvm.inline_asm has_side_effects {{.*}}setp.ne.b32 p, $10, 0;{{.*}}wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {$0, $1, $2, $3}, $8, $9, p, $11,  $12, $13,  $14;{{.*}}"=f,=f,=f,=f,0,1,2,3,l,l,n,n,n,n,n" %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[Z]], %[[O]], %{{.*}}, %{{.*}}, %{{.*}} :
  %d:4 = oxide.wgmma bf16 n 8 %da, %db, [%f, %f, %f, %f] : f32, f32, f32, f32 -> f32, f32, f32, f32
  // CHECK: %[[D0:.*]] = llvm.extractvalue %[[D]][0]
  // Accumulate, both transposed: scale-d 1, trans-a 1, trans-b 1.
  // CHECK-COUNT-5: llvm.mlir.constant(1 : i32) : i32
  // CHECK: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {{.*}}"=f,=f,=f,=f,0,1,2,3,l,l,n,n,n,n,n" %[[D0]],
  %e:4 = oxide.wgmma f16 n 8 %da, %db, [%d#0, %d#1, %d#2, %d#3] accumulate trans_a trans_b : f32, f32, f32, f32 -> f32, f32, f32, f32
  // tf32 and the 8-bit types have no transposes.
  // CHECK: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {$0, $1, $2, $3}, $8, $9, p, $11,  $12;{{.*}}"=f,=f,=f,=f,0,1,2,3,l,l,n,n,n"
  %t:4 = oxide.wgmma tf32 n 8 %da, %db, [%e#0, %e#1, %e#2, %e#3] accumulate : f32, f32, f32, f32 -> f32, f32, f32, f32
  // CHECK: wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3
  %g:4 = oxide.wgmma e4m3 n 8 %da, %db, [%t#0, %t#1, %t#2, %t#3] accumulate : f32, f32, f32, f32 -> f32, f32, f32, f32
  // CHECK: wgmma.mma_async.sync.aligned.m64n8k32.f32.e5m2.e5m2
  %h:4 = oxide.wgmma e5m2 n 8 %da, %db, [%g#0, %g#1, %g#2, %g#3] accumulate : f32, f32, f32, f32 -> f32, f32, f32, f32
  // CHECK: wgmma.mma_async.sync.aligned.m64n16k32.s32.s8.s8 {{.*}}"=r,=r,=r,=r,=r,=r,=r,=r,0,1,2,3,4,5,6,7,l,l,n"
  %s:8 = oxide.wgmma s8 n 16 %da, %db, [%i, %i, %i, %i, %i, %i, %i, %i] : i32, i32, i32, i32, i32, i32, i32, i32 -> i32, i32, i32, i32, i32, i32, i32, i32
  // A in registers: written out as PTX, A's four registers ("r") between the accumulators and
  // B's descriptor; scale-d from the accumulate constant, imm-trans-b for bf16/f16 only.
  // CHECK: llvm.inline_asm has_side_effects {{.*}}setp.ne.b32 p, 1, 0;{{.*}}wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {$0, $1, $2, $3}, {$4, $5, $6, $7}, $8, p, 1, 1, 1;{{.*}}"=f,=f,=f,=f,r,r,r,r,l,0,1,2,3" %[[RA:.*]], %[[RA]], %[[RA]], %[[RA]], %{{.*}}, %[[D0]],
  %ra:4 = oxide.wgmma_register_a bf16 n 8 [%i, %i, %i, %i], %db, [%d#0, %d#1, %d#2, %d#3] accumulate trans_b : f32, f32, f32, f32 -> f32, f32, f32, f32
  // CHECK: llvm.inline_asm has_side_effects {{.*}}setp.ne.b32 p, 0, 0;{{.*}}wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, $8, p, 1, 1;
  %rt:4 = oxide.wgmma_register_a tf32 n 8 [%i, %i, %i, %i], %db, [%f, %f, %f, %f] : f32, f32, f32, f32 -> f32, f32, f32, f32
  // CHECK: wgmma.mma_async.sync.aligned.m64n16k32.s32.s8.s8 {$0, $1, $2, $3, $4, $5, $6, $7}, {$8, $9, $10, $11}, $12, p;{{.*}}"=r,=r,=r,=r,=r,=r,=r,=r,r,r,r,r,l,0,1,2,3,4,5,6,7"
  %rs:8 = oxide.wgmma_register_a s8 n 16 [%i, %i, %i, %i], %db, [%i, %i, %i, %i, %i, %i, %i, %i] : i32, i32, i32, i32, i32, i32, i32, i32 -> i32, i32, i32, i32, i32, i32, i32, i32
  // CHECK: nvvm.wgmma.commit.group.sync.aligned
  oxide.wgmma_commit_group
  // CHECK: nvvm.wgmma.wait.group.sync.aligned 1
  oxide.wgmma_wait_group 1
  // CHECK: nvvm.setmaxregister  increase 232
  oxide.setmaxnreg 232 increase
  // CHECK: nvvm.setmaxregister  decrease 40
  oxide.setmaxnreg 40 decrease
  // CHECK-NOT: nvvm.wgmma.mma_async
  %r = llvm.add %s#0, %s#7 : i32
  llvm.return %r : i32
}
