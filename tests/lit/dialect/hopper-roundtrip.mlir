// RUN: oxide-opt %s | FileCheck %s
// RUN: oxide-opt %s | oxide-opt | FileCheck %s

// CHECK-LABEL: llvm.func @mbarriers
llvm.func @mbarriers(%bar: !llvm.ptr, %sbar: !llvm.ptr<3>, %n: i32) -> i32 {
  // CHECK: oxide.shared_address %{{.*}} : !llvm.ptr -> i32
  %a = oxide.shared_address %bar : !llvm.ptr -> i32
  // CHECK: oxide.mbarrier_init %{{.*}}, %{{.*}} : !llvm.ptr
  oxide.mbarrier_init %bar, %n : !llvm.ptr
  // CHECK: oxide.mbarrier_init %{{.*}}, %{{.*}} : !llvm.ptr<3>
  oxide.mbarrier_init %sbar, %n : !llvm.ptr<3>
  // CHECK: oxide.mbarrier_init_fence
  oxide.mbarrier_init_fence
  // CHECK: oxide.mbarrier_arrive %{{.*}} : !llvm.ptr
  oxide.mbarrier_arrive %bar : !llvm.ptr
  // CHECK: oxide.mbarrier_arrive_expect_tx %{{.*}}, %{{.*}} : !llvm.ptr
  oxide.mbarrier_arrive_expect_tx %bar, %n : !llvm.ptr
  // CHECK: oxide.mbarrier_arrive_cluster %{{.*}}, %{{.*}} : !llvm.ptr
  oxide.mbarrier_arrive_cluster %bar, %n : !llvm.ptr
  // CHECK: oxide.mbarrier_try_wait_parity %{{.*}}, %{{.*}} : !llvm.ptr -> i32
  %done = oxide.mbarrier_try_wait_parity %bar, %n : !llvm.ptr -> i32
  // CHECK: oxide.mbarrier_inval %{{.*}} : !llvm.ptr
  oxide.mbarrier_inval %bar : !llvm.ptr
  // CHECK: oxide.fence_proxy_async_shared
  oxide.fence_proxy_async_shared
  %r = llvm.add %a, %done : i32
  llvm.return %r : i32
}

// CHECK-LABEL: llvm.func @tma
llvm.func @tma(%dst: !llvm.ptr, %map: !llvm.ptr, %bar: !llvm.ptr, %x: i32, %y: i32, %mask: i16) {
  // CHECK: oxide.tma_load %{{.*}}, %{{.*}}, %{{.*}} box [%{{.*}}] : !llvm.ptr, !llvm.ptr, !llvm.ptr
  oxide.tma_load %dst, %map, %bar box [%x] : !llvm.ptr, !llvm.ptr, !llvm.ptr
  // CHECK: oxide.tma_load %{{.*}}, %{{.*}}, %{{.*}} box [%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : !llvm.ptr, !llvm.ptr, !llvm.ptr
  oxide.tma_load %dst, %map, %bar box [%x, %y, %x, %y, %x] : !llvm.ptr, !llvm.ptr, !llvm.ptr
  // CHECK: oxide.tma_load %{{.*}}, %{{.*}}, %{{.*}} box [%{{.*}}, %{{.*}}] multicast %{{.*}} : !llvm.ptr, !llvm.ptr, !llvm.ptr
  oxide.tma_load %dst, %map, %bar box [%x, %y] multicast %mask : !llvm.ptr, !llvm.ptr, !llvm.ptr
  // CHECK: oxide.tma_prefetch %{{.*}} : !llvm.ptr
  oxide.tma_prefetch %map : !llvm.ptr
  llvm.return
}

// CHECK-LABEL: llvm.func @wgmma
llvm.func @wgmma(%da: i64, %db: i64, %f: f32, %i: i32) {
  // CHECK: oxide.wgmma_fence
  oxide.wgmma_fence
  // CHECK: %[[D:.*]]:4 = oxide.wgmma bf16 n 8 %{{.*}}, %{{.*}}, [%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : f32, f32, f32, f32 -> f32, f32, f32, f32
  %d:4 = oxide.wgmma bf16 n 8 %da, %db, [%f, %f, %f, %f] : f32, f32, f32, f32 -> f32, f32, f32, f32
  // CHECK: oxide.wgmma f16 n 8 {{.*}} accumulate trans_a trans_b : f32, f32, f32, f32 -> f32, f32, f32, f32
  %e:4 = oxide.wgmma f16 n 8 %da, %db, [%d#0, %d#1, %d#2, %d#3] accumulate trans_a trans_b : f32, f32, f32, f32 -> f32, f32, f32, f32
  // CHECK: oxide.wgmma tf32 n 8 {{.*}} accumulate :
  %t:4 = oxide.wgmma tf32 n 8 %da, %db, [%e#0, %e#1, %e#2, %e#3] accumulate : f32, f32, f32, f32 -> f32, f32, f32, f32
  // CHECK: oxide.wgmma e4m3 n 8
  %g:4 = oxide.wgmma e4m3 n 8 %da, %db, [%t#0, %t#1, %t#2, %t#3] accumulate : f32, f32, f32, f32 -> f32, f32, f32, f32
  // CHECK: oxide.wgmma e5m2 n 8 %{{.*}}, %{{.*}}, [%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : f32
  %h:4 = oxide.wgmma e5m2 n 8 %da, %db, [%t#0, %t#1, %t#2, %t#3] : f32, f32, f32, f32 -> f32, f32, f32, f32
  // CHECK: oxide.wgmma s8 n 16 {{.*}} : i32, i32, i32, i32, i32, i32, i32, i32 -> i32, i32, i32, i32, i32, i32, i32, i32
  %s:8 = oxide.wgmma s8 n 16 %da, %db, [%i, %i, %i, %i, %i, %i, %i, %i] accumulate : i32, i32, i32, i32, i32, i32, i32, i32 -> i32, i32, i32, i32, i32, i32, i32, i32
  // CHECK: oxide.wgmma_register_a bf16 n 8 [%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}}, [%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] accumulate trans_b : f32, f32, f32, f32 -> f32, f32, f32, f32
  %ra:4 = oxide.wgmma_register_a bf16 n 8 [%i, %i, %i, %i], %db, [%d#0, %d#1, %d#2, %d#3] accumulate trans_b : f32, f32, f32, f32 -> f32, f32, f32, f32
  // CHECK: oxide.wgmma_register_a s8 n 16 [{{.*}}], %{{.*}}, [{{.*}}] : i32, i32, i32, i32, i32, i32, i32, i32 -> i32
  %rs:8 = oxide.wgmma_register_a s8 n 16 [%i, %i, %i, %i], %db, [%i, %i, %i, %i, %i, %i, %i, %i] : i32, i32, i32, i32, i32, i32, i32, i32 -> i32, i32, i32, i32, i32, i32, i32, i32
  // CHECK: oxide.wgmma_commit_group
  oxide.wgmma_commit_group
  // CHECK: oxide.wgmma_wait_group 1
  oxide.wgmma_wait_group 1
  // CHECK: oxide.setmaxnreg 232 increase
  oxide.setmaxnreg 232 increase
  // CHECK: oxide.setmaxnreg 40 decrease
  oxide.setmaxnreg 40 decrease
  llvm.return
}
