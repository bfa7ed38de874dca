// RUN: oxide-opt %s -oxide-raise -split-input-file -verify-diagnostics | FileCheck %s

llvm.func @__oxide_thread_idx(i32) -> i32
llvm.func @__oxide_grid_dim(i32) -> i32
llvm.func @__oxide_sync_threads()
llvm.func @__oxide_named_barrier(i32, i32, i32)
llvm.func @__oxide_fence(i32)
llvm.func @__oxide_shared_alloc(i64, i64, !llvm.ptr) -> !llvm.ptr
llvm.func @__oxide_dynamic_shared() -> !llvm.ptr
llvm.func @__oxide_dynamic_shared_size() -> i32
llvm.func @__oxide_lane_id() -> i32
llvm.func @__oxide_warp_shuffle(i32, i32, i32, i32, i32) -> i32
llvm.func @__oxide_warp_vote(i32, i32, i32) -> i32
llvm.func @__oxide_warp_sync(i32)
llvm.func @__oxide_warp_match_b64(i32, i64, i32) -> i32
llvm.func @__oxide_active_mask(!llvm.ptr, i32, i32) -> i32
llvm.func @__oxide_lane_mask(i32) -> i32
llvm.func @__oxide_trap(!llvm.ptr)
llvm.mlir.global internal constant @site(0 : i8) {addr_space = 4 : i32} : i8

// CHECK-LABEL: llvm.func @simt
llvm.func @simt(%v: i32, %msg: !llvm.ptr) {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %c2 = llvm.mlir.constant(2 : i32) : i32
  %c3 = llvm.mlir.constant(3 : i32) : i32
  %full = llvm.mlir.constant(-1 : i32) : i32
  %c8 = llvm.mlir.constant(8 : i32) : i32
  %c32 = llvm.mlir.constant(32 : i32) : i32
  %bytes = llvm.mlir.constant(1024 : i64) : i64
  %align = llvm.mlir.constant(4 : i64) : i64
  // CHECK: oxide.geometry thread_idx y : i32
  %0 = llvm.call @__oxide_thread_idx(%c1) : (i32) -> i32
  // CHECK: oxide.geometry grid_dim z : i32
  %1 = llvm.call @__oxide_grid_dim(%c2) : (i32) -> i32
  // CHECK: oxide.barrier
  llvm.call @__oxide_sync_threads() : () -> ()
  // CHECK: oxide.named_barrier %{{.*}}, %{{.*}}{{$}}
  llvm.call @__oxide_named_barrier(%c1, %c32, %c0) : (i32, i32, i32) -> ()
  // CHECK: oxide.named_barrier %{{.*}}, %{{.*}} arrive
  llvm.call @__oxide_named_barrier(%c2, %c32, %c1) : (i32, i32, i32) -> ()
  // CHECK: oxide.fence system
  llvm.call @__oxide_fence(%c2) : (i32) -> ()
  // CHECK: oxide.shared_alloc @site size 1024 align 4 : !llvm.ptr
  %a = llvm.mlir.addressof @site : !llvm.ptr<4>
  %g = llvm.addrspacecast %a : !llvm.ptr<4> to !llvm.ptr
  %2 = llvm.call @__oxide_shared_alloc(%bytes, %align, %g) : (i64, i64, !llvm.ptr) -> !llvm.ptr
  // CHECK: oxide.dynamic_shared : !llvm.ptr
  %3 = llvm.call @__oxide_dynamic_shared() : () -> !llvm.ptr
  // CHECK: oxide.dynamic_shared_size : i32
  %4 = llvm.call @__oxide_dynamic_shared_size() : () -> i32
  // CHECK: oxide.lane_id : i32
  %5 = llvm.call @__oxide_lane_id() : () -> i32
  // The whole warp's width is the op's default.
  // CHECK: oxide.warp_shuffle down %{{.*}}, %{{.*}}, %{{.*}} : i32
  %6 = llvm.call @__oxide_warp_shuffle(%full, %v, %c1, %c2, %c32) : (i32, i32, i32, i32, i32) -> i32
  // CHECK: oxide.warp_shuffle xor %{{.*}}, %{{.*}}, %{{.*}} width 8 : i32
  %7 = llvm.call @__oxide_warp_shuffle(%full, %v, %c1, %c3, %c8) : (i32, i32, i32, i32, i32) -> i32
  // CHECK: oxide.warp_match any %{{.*}}, %{{.*}} : i64
  %w = llvm.zext %v : i32 to i64
  %m = llvm.call @__oxide_warp_match_b64(%full, %w, %c0) : (i32, i64, i32) -> i32
  // The call's source location is the simulator's; the op has none.
  // CHECK: oxide.active_mask : i32
  %am = llvm.call @__oxide_active_mask(%msg, %c1, %c2) : (!llvm.ptr, i32, i32) -> i32
  // CHECK: oxide.lane_mask ge : i32
  %lm = llvm.call @__oxide_lane_mask(%c3) : (i32) -> i32
  // CHECK: oxide.warp_vote any
  %8 = llvm.call @__oxide_warp_vote(%full, %v, %c1) : (i32, i32, i32) -> i32
  // CHECK: oxide.warp_sync
  llvm.call @__oxide_warp_sync(%full) : (i32) -> ()
  // CHECK: oxide.trap
  llvm.call @__oxide_trap(%msg) : (!llvm.ptr) -> ()
  llvm.return
}

// -----

llvm.func @__oxide_thread_idx(i32) -> i32

llvm.func @dynamic_dim(%d: i32) {
  // expected-error @+1 {{argument 0 of oxide intrinsic '__oxide_thread_idx' must be a compile-time constant}}
  %0 = llvm.call @__oxide_thread_idx(%d) : (i32) -> i32
  llvm.return
}

// -----

llvm.func @__oxide_warp_shuffle(i32, i32, i32, i32, i32) -> i32

llvm.func @bad_mode(%v: i32) {
  %c9 = llvm.mlir.constant(9 : i32) : i32
  %c32 = llvm.mlir.constant(32 : i32) : i32
  // expected-error @+1 {{argument 3 of oxide intrinsic '__oxide_warp_shuffle' is 9, outside 0..3}}
  %0 = llvm.call @__oxide_warp_shuffle(%v, %v, %v, %c9, %c32) : (i32, i32, i32, i32, i32) -> i32
  llvm.return
}

// -----

llvm.func @__oxide_warp_shuffle(i32, i32, i32, i32, i32) -> i32

llvm.func @bad_width(%v: i32) {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c12 = llvm.mlir.constant(12 : i32) : i32
  // expected-error @+1 {{argument 4 of oxide intrinsic '__oxide_warp_shuffle' is 12, not a power of two (1..32)}}
  %0 = llvm.call @__oxide_warp_shuffle(%v, %v, %v, %c0, %c12) : (i32, i32, i32, i32, i32) -> i32
  llvm.return
}

// -----

llvm.func @__oxide_lane_mask(i32) -> i32

llvm.func @bad_lane_mask(%v: i32) {
  %c5 = llvm.mlir.constant(5 : i32) : i32
  // expected-error @+1 {{argument 0 of oxide intrinsic '__oxide_lane_mask' is 5, outside 0..4}}
  %0 = llvm.call @__oxide_lane_mask(%c5) : (i32) -> i32
  llvm.return
}

// -----

llvm.func @__oxide_shared_alloc(i64, i64, !llvm.ptr) -> !llvm.ptr

llvm.func @dynamic_size(%n: i64, %site: !llvm.ptr) {
  %c4 = llvm.mlir.constant(4 : i64) : i64
  // expected-error @+1 {{shared memory size and alignment must be compile-time constants}}
  %0 = llvm.call @__oxide_shared_alloc(%n, %c4, %site) : (i64, i64, !llvm.ptr) -> !llvm.ptr
  llvm.return
}
