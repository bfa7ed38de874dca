// RUN: oxide-opt %s -oxide-raise -split-input-file -verify-diagnostics | FileCheck %s

llvm.func @__oxide_shared_address(!llvm.ptr) -> i32
llvm.func @__oxide_mbarrier_init(!llvm.ptr, i32)
llvm.func @__oxide_mbarrier_init_fence()
llvm.func @__oxide_mbarrier_arrive(!llvm.ptr)
llvm.func @__oxide_mbarrier_arrive_expect_tx(!llvm.ptr, i32)
llvm.func @__oxide_mbarrier_arrive_cluster(!llvm.ptr, i32)
llvm.func @__oxide_mbarrier_try_wait_parity(!llvm.ptr, i32) -> i32
llvm.func @__oxide_mbarrier_inval(!llvm.ptr)
llvm.func @__oxide_fence_proxy_async_shared()
llvm.func @__oxide_tma_load(!llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, i32, i32, i32)
llvm.func @__oxide_tma_load_multicast(!llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, i32, i32, i32, i16)
llvm.func @__oxide_tma_prefetch(!llvm.ptr)
llvm.func @__oxide_wgmma(!llvm.ptr, i64, i64, i32, i32, i32, i32, i32)
llvm.func @__oxide_wgmma_rs(!llvm.ptr, !llvm.ptr, i64, i32, i32, i32, i32)
llvm.func @__oxide_wgmma_fence()
llvm.func @__oxide_wgmma_commit_group()
llvm.func @__oxide_wgmma_wait_group(i32)
llvm.func @__oxide_setmaxnreg(i32, i32)

// CHECK-LABEL: llvm.func @mbarriers
llvm.func @mbarriers(%bar: !llvm.ptr, %n: i32) -> i32 {
  %c1 = llvm.mlir.constant(1 : i32) : i32
  // CHECK: oxide.shared_address %{{.*}} : !llvm.ptr -> i32
  %a = llvm.call @__oxide_shared_address(%bar) : (!llvm.ptr) -> i32
  // A count that is not a constant is the program's to keep in range.
  // CHECK: oxide.mbarrier_init %{{.*}}, %{{.*}} : !llvm.ptr
  llvm.call @__oxide_mbarrier_init(%bar, %c1) : (!llvm.ptr, i32) -> ()
  llvm.call @__oxide_mbarrier_init(%bar, %n) : (!llvm.ptr, i32) -> ()
  // CHECK: oxide.mbarrier_init_fence
  llvm.call @__oxide_mbarrier_init_fence() : () -> ()
  // CHECK: oxide.mbarrier_arrive %{{.*}} : !llvm.ptr
  llvm.call @__oxide_mbarrier_arrive(%bar) : (!llvm.ptr) -> ()
  // CHECK: oxide.mbarrier_arrive_expect_tx %{{.*}}, %{{.*}} : !llvm.ptr
  llvm.call @__oxide_mbarrier_arrive_expect_tx(%bar, %n) : (!llvm.ptr, i32) -> ()
  // CHECK: oxide.mbarrier_arrive_cluster %{{.*}}, %{{.*}} : !llvm.ptr
  llvm.call @__oxide_mbarrier_arrive_cluster(%bar, %c1) : (!llvm.ptr, i32) -> ()
  // CHECK: %[[W:.*]] = oxide.mbarrier_try_wait_parity %{{.*}}, %{{.*}} : !llvm.ptr -> i32
  %w = llvm.call @__oxide_mbarrier_try_wait_parity(%bar, %n) : (!llvm.ptr, i32) -> i32
  // CHECK: oxide.mbarrier_inval %{{.*}} : !llvm.ptr
  llvm.call @__oxide_mbarrier_inval(%bar) : (!llvm.ptr) -> ()
  // CHECK: oxide.fence_proxy_async_shared
  llvm.call @__oxide_fence_proxy_async_shared() : () -> ()
  // CHECK-NOT: llvm.call
  %r = llvm.add %a, %w : i32
  llvm.return %r : i32
}

// The rank keeps that many coordinates; the multicast form keeps its mask.
// CHECK-LABEL: llvm.func @tma
llvm.func @tma(%dst: !llvm.ptr, %map: !llvm.ptr, %bar: !llvm.ptr, %x: i32, %y: i32, %mask: i16) {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c2 = llvm.mlir.constant(2 : i32) : i32
  %c5 = llvm.mlir.constant(5 : i32) : i32
  // CHECK: oxide.tma_load %{{.*}}, %{{.*}}, %{{.*}} box [%{{.*}}, %{{.*}}] : !llvm.ptr, !llvm.ptr, !llvm.ptr
  llvm.call @__oxide_tma_load(%dst, %map, %bar, %c2, %x, %y, %c0, %c0, %c0) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, i32, i32, i32) -> ()
  // CHECK: oxide.tma_load %{{.*}}, %{{.*}}, %{{.*}} box [%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] :
  llvm.call @__oxide_tma_load(%dst, %map, %bar, %c5, %x, %y, %x, %y, %x) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, i32, i32, i32) -> ()
  // CHECK: oxide.tma_load %{{.*}}, %{{.*}}, %{{.*}} box [%{{.*}}, %{{.*}}] multicast %{{.*}} :
  llvm.call @__oxide_tma_load_multicast(%dst, %map, %bar, %c2, %x, %y, %c0, %c0, %c0, %mask) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, i32, i32, i32, i16) -> ()
  // CHECK: oxide.tma_prefetch %{{.*}} : !llvm.ptr
  llvm.call @__oxide_tma_prefetch(%map) : (!llvm.ptr) -> ()
  llvm.return
}

// The accumulator's n / 2 registers are loaded before the op and stored back after it.
// CHECK-LABEL: llvm.func @wgmma
llvm.func @wgmma(%acc: !llvm.ptr, %da: i64, %db: i64) {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %c5 = llvm.mlir.constant(5 : i32) : i32
  %c8 = llvm.mlir.constant(8 : i32) : i32
  %c16 = llvm.mlir.constant(16 : i32) : i32
  // CHECK: oxide.wgmma_fence
  llvm.call @__oxide_wgmma_fence() : () -> ()
  // CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> f32
  // CHECK: %[[D:.*]]:4 = oxide.wgmma bf16 n 8 %{{.*}}, %{{.*}}, [{{.*}}] accumulate trans_b : f32, f32, f32, f32 -> f32, f32, f32, f32
  // CHECK: llvm.store %[[D]]#0, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr
  // CHECK: %[[A3:.*]] = llvm.getelementptr %{{.*}}[3] : (!llvm.ptr) -> !llvm.ptr, f32
  // CHECK: llvm.store %[[D]]#3, %[[A3]]
  llvm.call @__oxide_wgmma(%acc, %da, %db, %c8, %c0, %c1, %c0, %c1) : (!llvm.ptr, i64, i64, i32, i32, i32, i32, i32) -> ()
  // CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> i32
  // CHECK: oxide.wgmma s8 n 16 {{.*}} : i32, i32, i32, i32, i32, i32, i32, i32 -> i32, i32, i32, i32, i32, i32, i32, i32
  llvm.call @__oxide_wgmma(%acc, %da, %db, %c16, %c5, %c0, %c0, %c0) : (!llvm.ptr, i64, i64, i32, i32, i32, i32, i32) -> ()
  // CHECK: oxide.wgmma_commit_group
  llvm.call @__oxide_wgmma_commit_group() : () -> ()
  // CHECK: oxide.wgmma_wait_group 1
  llvm.call @__oxide_wgmma_wait_group(%c1) : (i32) -> ()
  // CHECK: oxide.setmaxnreg 24 increase
  %c24 = llvm.mlir.constant(24 : i32) : i32
  llvm.call @__oxide_setmaxnreg(%c24, %c1) : (i32, i32) -> ()
  // CHECK: oxide.setmaxnreg 256 decrease
  %c256 = llvm.mlir.constant(256 : i32) : i32
  llvm.call @__oxide_setmaxnreg(%c256, %c0) : (i32, i32) -> ()
  // CHECK-NOT: llvm.call
  llvm.return
}

// The register-A form: A's 4 registers are loaded as the accumulator's are.
// CHECK-LABEL: llvm.func @wgmma_register_a
llvm.func @wgmma_register_a(%acc: !llvm.ptr, %a: !llvm.ptr, %db: i64) {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %c8 = llvm.mlir.constant(8 : i32) : i32
  // CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> i32
  // CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> f32
  // CHECK: %[[D:.*]]:4 = oxide.wgmma_register_a bf16 n 8 [{{.*}}], %{{.*}}, [{{.*}}] accumulate trans_b : f32, f32, f32, f32 -> f32, f32, f32, f32
  // CHECK: llvm.store %[[D]]#0
  llvm.call @__oxide_wgmma_rs(%acc, %a, %db, %c8, %c0, %c1, %c1) : (!llvm.ptr, !llvm.ptr, i64, i32, i32, i32, i32) -> ()
  // CHECK-NOT: llvm.call
  llvm.return
}

// -----

llvm.func @__oxide_wgmma_rs(!llvm.ptr, !llvm.ptr, i64, i32, i32, i32, i32)

llvm.func @wgmma_register_a_transposed_tf32(%acc: !llvm.ptr, %a: !llvm.ptr, %d: i64) {
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %c2 = llvm.mlir.constant(2 : i32) : i32
  %c8 = llvm.mlir.constant(8 : i32) : i32
  // expected-error @+1 {{oxide intrinsic '__oxide_wgmma_rs' transposes only bf16 and f16 operands, not tf32}}
  llvm.call @__oxide_wgmma_rs(%acc, %a, %d, %c8, %c2, %c1, %c1) : (!llvm.ptr, !llvm.ptr, i64, i32, i32, i32, i32) -> ()
  llvm.return
}

// -----

llvm.func @__oxide_mbarrier_init(!llvm.ptr, i32)

llvm.func @mbarrier_count(%bar: !llvm.ptr) {
  %c = llvm.mlir.constant(1048576 : i32) : i32
  // expected-error @+1 {{oxide intrinsic '__oxide_mbarrier_init' expects 1 to 1048575 arrivals per phase, not 1048576}}
  llvm.call @__oxide_mbarrier_init(%bar, %c) : (!llvm.ptr, i32) -> ()
  llvm.return
}

// -----

llvm.func @__oxide_mbarrier_init(!llvm.ptr, i32)

llvm.func @mbarrier_count_zero(%bar: !llvm.ptr) {
  %c = llvm.mlir.constant(0 : i32) : i32
  // expected-error @+1 {{oxide intrinsic '__oxide_mbarrier_init' expects 1 to 1048575 arrivals per phase, not 0}}
  llvm.call @__oxide_mbarrier_init(%bar, %c) : (!llvm.ptr, i32) -> ()
  llvm.return
}

// -----

llvm.func @__oxide_tma_load(!llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, i32, i32, i32)

llvm.func @tma_rank_variable(%p: !llvm.ptr, %rank: i32, %x: i32) {
  // expected-error @+1 {{argument 3 of oxide intrinsic '__oxide_tma_load' must be a compile-time constant; call it through the oxide device API}}
  llvm.call @__oxide_tma_load(%p, %p, %p, %rank, %x, %x, %x, %x, %x) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, i32, i32, i32) -> ()
  llvm.return
}

// -----

llvm.func @__oxide_tma_load(!llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, i32, i32, i32)

llvm.func @tma_rank_six(%p: !llvm.ptr, %x: i32) {
  %c6 = llvm.mlir.constant(6 : i32) : i32
  // expected-error @+1 {{argument 3 of oxide intrinsic '__oxide_tma_load' is 6, outside 0..5}}
  llvm.call @__oxide_tma_load(%p, %p, %p, %c6, %x, %x, %x, %x, %x) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, i32, i32, i32) -> ()
  llvm.return
}

// -----

llvm.func @__oxide_tma_load_multicast(!llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, i32, i32, i32, i16)

llvm.func @tma_rank_zero(%p: !llvm.ptr, %x: i32, %m: i16) {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  // expected-error @+1 {{oxide intrinsic '__oxide_tma_load_multicast' copies a box of rank 1 to 5, not 0}}
  llvm.call @__oxide_tma_load_multicast(%p, %p, %p, %c0, %x, %x, %x, %x, %x, %m) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, i32, i32, i32, i16) -> ()
  llvm.return
}

// -----

llvm.func @__oxide_wgmma(!llvm.ptr, i64, i64, i32, i32, i32, i32, i32)

llvm.func @wgmma_n_variable(%acc: !llvm.ptr, %d: i64, %n: i32) {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  // expected-error @+1 {{argument 3 of oxide intrinsic '__oxide_wgmma' must be a compile-time constant; call it through the oxide device API}}
  llvm.call @__oxide_wgmma(%acc, %d, %d, %n, %c0, %c0, %c0, %c0) : (!llvm.ptr, i64, i64, i32, i32, i32, i32, i32) -> ()
  llvm.return
}

// -----

llvm.func @__oxide_wgmma(!llvm.ptr, i64, i64, i32, i32, i32, i32, i32)

llvm.func @wgmma_n_step(%acc: !llvm.ptr, %d: i64) {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c5 = llvm.mlir.constant(5 : i32) : i32
  %c24 = llvm.mlir.constant(24 : i32) : i32
  // expected-error @+1 {{oxide intrinsic '__oxide_wgmma': n of a s8 wgmma is 16..256 in steps of 16, not 24}}
  llvm.call @__oxide_wgmma(%acc, %d, %d, %c24, %c5, %c0, %c0, %c0) : (!llvm.ptr, i64, i64, i32, i32, i32, i32, i32) -> ()
  llvm.return
}

// -----

llvm.func @__oxide_wgmma(!llvm.ptr, i64, i64, i32, i32, i32, i32, i32)

llvm.func @wgmma_n_large(%acc: !llvm.ptr, %d: i64) {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c264 = llvm.mlir.constant(264 : i32) : i32
  // expected-error @+1 {{argument 3 of oxide intrinsic '__oxide_wgmma' is 264, outside 0..256}}
  llvm.call @__oxide_wgmma(%acc, %d, %d, %c264, %c0, %c0, %c0, %c0) : (!llvm.ptr, i64, i64, i32, i32, i32, i32, i32) -> ()
  llvm.return
}

// -----

llvm.func @__oxide_wgmma(!llvm.ptr, i64, i64, i32, i32, i32, i32, i32)

llvm.func @wgmma_type(%acc: !llvm.ptr, %d: i64) {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c6 = llvm.mlir.constant(6 : i32) : i32
  %c8 = llvm.mlir.constant(8 : i32) : i32
  // expected-error @+1 {{argument 4 of oxide intrinsic '__oxide_wgmma' is 6, outside 0..5}}
  llvm.call @__oxide_wgmma(%acc, %d, %d, %c8, %c6, %c0, %c0, %c0) : (!llvm.ptr, i64, i64, i32, i32, i32, i32, i32) -> ()
  llvm.return
}

// -----

llvm.func @__oxide_wgmma(!llvm.ptr, i64, i64, i32, i32, i32, i32, i32)

llvm.func @wgmma_accumulate_variable(%acc: !llvm.ptr, %d: i64, %flag: i32) {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c8 = llvm.mlir.constant(8 : i32) : i32
  // expected-error @+1 {{argument 5 of oxide intrinsic '__oxide_wgmma' must be a compile-time constant; call it through the oxide device API}}
  llvm.call @__oxide_wgmma(%acc, %d, %d, %c8, %c0, %flag, %c0, %c0) : (!llvm.ptr, i64, i64, i32, i32, i32, i32, i32) -> ()
  llvm.return
}

// -----

llvm.func @__oxide_wgmma(!llvm.ptr, i64, i64, i32, i32, i32, i32, i32)

llvm.func @wgmma_transpose(%acc: !llvm.ptr, %d: i64) {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %c2 = llvm.mlir.constant(2 : i32) : i32
  %c8 = llvm.mlir.constant(8 : i32) : i32
  // expected-error @+1 {{oxide intrinsic '__oxide_wgmma' transposes only bf16 and f16 operands, not tf32}}
  llvm.call @__oxide_wgmma(%acc, %d, %d, %c8, %c2, %c0, %c1, %c0) : (!llvm.ptr, i64, i64, i32, i32, i32, i32, i32) -> ()
  llvm.return
}

// -----

llvm.func @__oxide_wgmma_wait_group(i32)

llvm.func @wgmma_wait(%n: i32) {
  // expected-error @+1 {{argument 0 of oxide intrinsic '__oxide_wgmma_wait_group' must be a compile-time constant; call it through the oxide device API}}
  llvm.call @__oxide_wgmma_wait_group(%n) : (i32) -> ()
  llvm.return
}

// -----

llvm.func @__oxide_wgmma_wait_group(i32)

llvm.func @wgmma_wait_eight() {
  %c8 = llvm.mlir.constant(8 : i32) : i32
  // expected-error @+1 {{argument 0 of oxide intrinsic '__oxide_wgmma_wait_group' is 8, outside 0..7}}
  llvm.call @__oxide_wgmma_wait_group(%c8) : (i32) -> ()
  llvm.return
}

// -----

llvm.func @__oxide_setmaxnreg(i32, i32)

llvm.func @setmaxnreg_step() {
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %c100 = llvm.mlir.constant(100 : i32) : i32
  // expected-error @+1 {{oxide intrinsic '__oxide_setmaxnreg' sets a register count that is a multiple of 8 in 24..256, not 100}}
  llvm.call @__oxide_setmaxnreg(%c100, %c1) : (i32, i32) -> ()
  llvm.return
}

// -----

llvm.func @__oxide_setmaxnreg(i32, i32)

llvm.func @setmaxnreg_variable(%n: i32) {
  %c1 = llvm.mlir.constant(1 : i32) : i32
  // expected-error @+1 {{argument 0 of oxide intrinsic '__oxide_setmaxnreg' must be a compile-time constant; call it through the oxide device API}}
  llvm.call @__oxide_setmaxnreg(%n, %c1) : (i32, i32) -> ()
  llvm.return
}

// -----

llvm.func @__oxide_setmaxnreg(i32, i32)

llvm.func @setmaxnreg_direction(%n: i32) {
  %c2 = llvm.mlir.constant(2 : i32) : i32
  %c64 = llvm.mlir.constant(64 : i32) : i32
  // expected-error @+1 {{argument 1 of oxide intrinsic '__oxide_setmaxnreg' is 2, outside 0..1}}
  llvm.call @__oxide_setmaxnreg(%c64, %c2) : (i32, i32) -> ()
  llvm.return
}
