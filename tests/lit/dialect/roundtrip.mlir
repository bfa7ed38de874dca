// RUN: oxide-opt %s | FileCheck %s
// RUN: oxide-opt %s | oxide-opt | FileCheck %s

// CHECK-LABEL: llvm.func @kernel
// CHECK-SAME: oxide.kernel
llvm.func @kernel(%size: i64) attributes {oxide.kernel = #oxide.kernel} {
  // CHECK: %[[I:.*]] = oxide.thread_index rank 1 dim x : i64
  %i = oxide.thread_index rank 1 dim x : i64
  // CHECK: oxide.bounds_fail %[[I]], %{{.*}} : i64
  oxide.bounds_fail %i, %size : i64
  llvm.return
}

// CHECK-LABEL: llvm.func @ranks
llvm.func @ranks() {
  // CHECK: oxide.thread_index rank 2 dim y : i64
  %a = oxide.thread_index rank 2 dim y : i64
  // CHECK: oxide.thread_index rank 3 dim z : i64
  %b = oxide.thread_index rank 3 dim z : i64
  llvm.return
}

// CHECK-LABEL: llvm.func @simt
llvm.func @simt(%mask: i32, %v: i32, %msg: !llvm.ptr) {
  // CHECK: oxide.geometry thread_idx x : i32
  %tx = oxide.geometry thread_idx x : i32
  // CHECK: oxide.geometry grid_dim z : i32
  %gz = oxide.geometry grid_dim z : i32
  // CHECK: oxide.barrier
  oxide.barrier
  // CHECK: oxide.named_barrier %{{.*}}, %{{.*}}{{$}}
  oxide.named_barrier %v, %v
  // CHECK: oxide.named_barrier %{{.*}}, %{{.*}} arrive
  oxide.named_barrier %v, %v arrive
  // CHECK: oxide.fence block
  oxide.fence block
  // CHECK: oxide.shared_alloc @site size 1024 align 16 : !llvm.ptr
  %s = oxide.shared_alloc @site size 1024 align 16 : !llvm.ptr
  // CHECK: oxide.dynamic_shared : !llvm.ptr
  %d = oxide.dynamic_shared : !llvm.ptr
  // CHECK: oxide.dynamic_shared_size : i32
  %ds = oxide.dynamic_shared_size : i32
  // CHECK: oxide.lane_id : i32
  %lane = oxide.lane_id : i32
  // CHECK: oxide.warp_shuffle xor %{{.*}}, %{{.*}}, %{{.*}} : i32
  %x = oxide.warp_shuffle xor %mask, %v, %lane : i32
  // CHECK: oxide.warp_shuffle up
  %u = oxide.warp_shuffle up %mask, %v, %lane : i32
  // CHECK: oxide.warp_shuffle idx %{{.*}}, %{{.*}}, %{{.*}} width 16 : i32
  %t = oxide.warp_shuffle idx %mask, %v, %lane width 16 : i32
  // CHECK: oxide.active_mask : i32
  %am = oxide.active_mask : i32
  // CHECK: oxide.lane_mask le : i32
  %le = oxide.lane_mask le : i32
  // CHECK: oxide.warp_vote ballot %{{.*}}, %{{.*}} : i32
  %b = oxide.warp_vote ballot %mask, %v : i32
  // CHECK: oxide.warp_sync %{{.*}}
  oxide.warp_sync %mask
  // CHECK: oxide.trap %{{.*}} : !llvm.ptr
  oxide.trap %msg : !llvm.ptr
  llvm.return
}

// CHECK-LABEL: llvm.func @elements
// CHECK: oxide.disjoint_get %{{.*}}[%{{.*}}] at[%{{.*}}] within[%{{.*}}] elem 4 tile 8 : !llvm.ptr
// CHECK: oxide.disjoint_get %{{.*}}[%{{.*}}, %{{.*}}] at[%{{.*}}, %{{.*}}] within[%{{.*}}, %{{.*}}] elem 16 tile 2 tile_rows 4 : !llvm.ptr
// CHECK: oxide.span_elem %{{.*}}[%{{.*}}] at %{{.*}} elem 8 : !llvm.ptr
llvm.func @elements(%p: !llvm.ptr, %n: i64, %j: i64) {
  %x = oxide.thread_index rank 2 dim x : i64
  %y = oxide.thread_index rank 2 dim y : i64
  %a = oxide.disjoint_get %p [%n] at [%x] within [%j] elem 4 tile 8 : !llvm.ptr
  %b = oxide.disjoint_get %p [%n, %n] at [%x, %y] within [%j, %j] elem 16 tile 2 tile_rows 4 : !llvm.ptr
  %c = oxide.span_elem %p [%n] at %j elem 8 : !llvm.ptr
  llvm.return
}

// CHECK-LABEL: llvm.func @grid_stride
llvm.func @grid_stride() {
  %i = oxide.thread_index rank 2 dim y : i64
  // CHECK: oxide.grid_stride_next %{{.*}} rank 2 dim y : i64
  %n = oxide.grid_stride_next %i rank 2 dim y : i64
  llvm.return
}

// CHECK-LABEL: llvm.func @disjoint_plain
// CHECK: oxide.disjoint_get %{{.*}}[%{{.*}}] at[%{{.*}}] elem 4 : !llvm.ptr
// CHECK: oxide.disjoint_get %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] at[%{{.*}}, %{{.*}}, %{{.*}}] elem 8 : !llvm.ptr<1>
llvm.func @disjoint_plain(%p: !llvm.ptr, %g: !llvm.ptr<1>, %n: i64) {
  %x = oxide.thread_index rank 3 dim x : i64
  %y = oxide.thread_index rank 3 dim y : i64
  %z = oxide.thread_index rank 3 dim z : i64
  %a = oxide.disjoint_get %p [%n] at [%x] elem 4 : !llvm.ptr
  %b = oxide.disjoint_get %g [%n, %n, %n] at [%x, %y, %z] elem 8 : !llvm.ptr<1>
  llvm.return
}

// CHECK-LABEL: llvm.func @warp_collectives
llvm.func @warp_collectives(%mask: i32, %v: i32) {
  // CHECK: oxide.warp_redux add %{{.*}}, %{{.*}} : i32
  %s = oxide.warp_redux add %mask, %v : i32
  // CHECK: oxide.warp_redux umax %{{.*}}, %{{.*}} : i32
  %m = oxide.warp_redux umax %mask, %v : i32
  // CHECK: oxide.warp_redux xor %{{.*}}, %{{.*}} : i32
  %x = oxide.warp_redux xor %mask, %v : i32
  // CHECK: oxide.warp_match any %{{.*}}, %{{.*}} : i32
  %a = oxide.warp_match any %mask, %v : i32
  // CHECK: oxide.warp_match all %{{.*}}, %{{.*}} : i32
  %b = oxide.warp_match all %mask, %v : i32
  // CHECK: oxide.warp_match all %{{.*}}, %{{.*}} : i64
  %w = llvm.zext %v : i32 to i64
  %c = oxide.warp_match all %mask, %w : i64
  llvm.return
}

// CHECK-LABEL: llvm.func @time
llvm.func @time() {
  // CHECK: oxide.clock clock64 : i64
  %c = oxide.clock clock64 : i64
  // CHECK: oxide.clock globaltimer : i64
  %g = oxide.clock globaltimer : i64
  llvm.return
}

// CHECK-LABEL: llvm.func @clusters
llvm.func @clusters(%rank: i32) {
  // CHECK: oxide.cluster_geometry block_rank x : i32
  %r = oxide.cluster_geometry block_rank x : i32
  // CHECK: oxide.cluster_geometry grid_clusters z : i32
  %n = oxide.cluster_geometry grid_clusters z : i32
  // CHECK: oxide.cluster_sync
  oxide.cluster_sync
  %s = oxide.shared_alloc @cluster_tile size 256 align 4 : !llvm.ptr
  // CHECK: oxide.map_shared %{{.*}}, %{{.*}} : !llvm.ptr
  %remote = oxide.map_shared %s, %rank : !llvm.ptr
  llvm.return
}

// CHECK-LABEL: llvm.func @cooperative
llvm.func @cooperative() {
  // CHECK: oxide.grid_sync
  oxide.grid_sync
  // CHECK: oxide.fence device
  oxide.fence device
  // CHECK: oxide.fence system
  oxide.fence system
  llvm.return
}
