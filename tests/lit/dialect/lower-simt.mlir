// RUN: oxide-opt %s -oxide-to-nvvm | FileCheck %s

// CHECK-DAG: llvm.mlir.global internal @__oxide_shared_tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<1024 x i8>
// CHECK-DAG: llvm.mlir.global external @__oxide_dynamic_shared() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK-DAG: llvm.func @__assertfail(!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64)

// CHECK-LABEL: llvm.func @simt
llvm.func @simt(%mask: i32, %v: i32, %msg: !llvm.ptr) {
  // CHECK: nvvm.read.ptx.sreg.tid.y : i32
  %ty = oxide.geometry thread_idx y : i32
  // CHECK: nvvm.read.ptx.sreg.nctaid.x : i32
  %gx = oxide.geometry grid_dim x : i32
  // CHECK: nvvm.barrier0
  oxide.barrier
  // bar.sync / bar.arrive id, n.
  // CHECK: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.aligned.count"(%arg1, %arg1) : (i32, i32) -> ()
  oxide.named_barrier %v, %v
  // CHECK: llvm.call_intrinsic "llvm.nvvm.barrier.cta.arrive.aligned.count"(%arg1, %arg1) : (i32, i32) -> ()
  oxide.named_barrier %v, %v arrive
  // CHECK: llvm.fence syncscope("block") seq_cst
  oxide.fence block
  // CHECK: llvm.fence seq_cst
  oxide.fence system
  // Two allocations of one site share one global.
  // CHECK: %[[A:.*]] = llvm.mlir.addressof @__oxide_shared_tile : !llvm.ptr<3>
  // CHECK: llvm.addrspacecast %[[A]] : !llvm.ptr<3> to !llvm.ptr
  %s1 = oxide.shared_alloc @tile size 1024 align 16 : !llvm.ptr
  // CHECK: llvm.mlir.addressof @__oxide_shared_tile : !llvm.ptr<3>
  %s2 = oxide.shared_alloc @tile size 1024 align 16 : !llvm.ptr
  // CHECK: llvm.mlir.addressof @__oxide_dynamic_shared : !llvm.ptr<3>
  %d = oxide.dynamic_shared : !llvm.ptr
  // CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.dynamic_smem_size"() : () -> i32
  %ds = oxide.dynamic_shared_size : i32
  // CHECK: nvvm.read.ptx.sreg.laneid : i32
  %lane = oxide.lane_id : i32
  // CHECK: %[[C31:.*]] = llvm.mlir.constant(31 : i32) : i32
  // CHECK: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %{{.*}}, %[[C31]] : i32 -> i32
  %x = oxide.warp_shuffle xor %mask, %v, %lane : i32
  // CHECK: %[[C0:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK: nvvm.shfl.sync up %{{.*}}, %{{.*}}, %{{.*}}, %[[C0]] : i32 -> i32
  %u = oxide.warp_shuffle up %mask, %v, %lane : i32
  // A tile of 8 lanes: c = (32 - 8) << 8 | clamp.
  // CHECK: %[[C6175:.*]] = llvm.mlir.constant(6175 : i32) : i32
  // CHECK: nvvm.shfl.sync down %{{.*}}, %{{.*}}, %{{.*}}, %[[C6175]] : i32 -> i32
  %t = oxide.warp_shuffle down %mask, %v, %lane width 8 : i32
  // CHECK: %[[C7680:.*]] = llvm.mlir.constant(7680 : i32) : i32
  // CHECK: nvvm.shfl.sync up %{{.*}}, %{{.*}}, %{{.*}}, %[[C7680]] : i32 -> i32
  %t2 = oxide.warp_shuffle up %mask, %v, %lane width 2 : i32
  // CHECK: nvvm.vote.sync ballot %{{.*}}, %{{.*}} -> i32
  %b = oxide.warp_vote ballot %mask, %v : i32
  // CHECK: %[[ALL:.*]] = nvvm.vote.sync all %{{.*}}, %{{.*}} -> i1
  // CHECK: llvm.zext %[[ALL]] : i1 to i32
  %a = oxide.warp_vote all %mask, %v : i32
  // CHECK: nvvm.bar.warp.sync %{{.*}}
  oxide.warp_sync %mask
  // CHECK: llvm.call @__assertfail(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
  // CHECK: llvm.intr.trap
  oxide.trap %msg : !llvm.ptr
  llvm.return
}

// The report is out of line (see lower-to-nvvm.mlir): the check's cold path is one call.
// CHECK-LABEL: llvm.func @bounds
llvm.func @bounds(%i: i64, %n: i64) {
  // CHECK-NOT: llvm.alloca
  // CHECK: llvm.call @__oxide_bounds_failure(%arg0, %arg1,
  // CHECK: llvm.intr.trap
  oxide.bounds_fail %i, %n : i64
  llvm.return
}

// CHECK-LABEL: llvm.func @collectives
llvm.func @collectives(%mask: i32, %v: i32) {
  // CHECK: nvvm.redux.sync add %arg1, %arg0 : i32 -> i32
  %s = oxide.warp_redux add %mask, %v : i32
  // CHECK: nvvm.redux.sync umin %arg1, %arg0 : i32 -> i32
  %u = oxide.warp_redux umin %mask, %v : i32
  // CHECK: nvvm.redux.sync xor %arg1, %arg0 : i32 -> i32
  %x = oxide.warp_redux xor %mask, %v : i32
  // CHECK: nvvm.match.sync any %arg0, %arg1 : i32 -> i32
  %a = oxide.warp_match any %mask, %v : i32
  // match.sync.all's {mask, all-equal}: the op is the mask.
  // CHECK: %[[ALL:.*]] = nvvm.match.sync all %arg0, %arg1 : i32 -> !llvm.struct<(i32, i1)>
  // CHECK: llvm.extractvalue %[[ALL]][0] : !llvm.struct<(i32, i1)>
  %b = oxide.warp_match all %mask, %v : i32
  // CHECK: nvvm.match.sync any %arg0, %{{.*}} : i64 -> i32
  %w = llvm.zext %v : i32 to i64
  %c = oxide.warp_match any %mask, %w : i64
  // CHECK: llvm.call_intrinsic "llvm.nvvm.activemask"() : () -> i32
  %am = oxide.active_mask : i32
  // CHECK: nvvm.read.ptx.sreg.lanemask.lt : i32
  %lt = oxide.lane_mask lt : i32
  // CHECK: nvvm.read.ptx.sreg.lanemask.gt : i32
  %gt = oxide.lane_mask gt : i32
  llvm.return
}

// CHECK-LABEL: llvm.func @time
llvm.func @time() -> i64 {
  // CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.clock64"() : () -> i64
  %c = oxide.clock clock64 : i64
  // CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.globaltimer"() : () -> i64
  %g = oxide.clock globaltimer : i64
  %d = llvm.sub %g, %c : i64
  llvm.return %d : i64
}

// CHECK-LABEL: llvm.func @clusters
llvm.func @clusters(%rank: i32) {
  // CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.cluster.ctarank"() : () -> i32
  %r = oxide.cluster_geometry block_rank x : i32
  // CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.cluster.nctarank"() : () -> i32
  %n = oxide.cluster_geometry block_count x : i32
  // CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.cluster.ctaid.y"() : () -> i32
  %b = oxide.cluster_geometry block_idx y : i32
  // CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.cluster.nctaid.z"() : () -> i32
  %d = oxide.cluster_geometry cluster_dim z : i32
  // CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.clusterid.x"() : () -> i32
  %c = oxide.cluster_geometry cluster_idx x : i32
  // CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.nclusterid.y"() : () -> i32
  %g = oxide.cluster_geometry grid_clusters y : i32
  // The non-.aligned barrier: arrive, then wait.
  // CHECK: llvm.call_intrinsic "llvm.nvvm.barrier.cluster.arrive"() : () -> ()
  // CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.barrier.cluster.wait"() : () -> ()
  oxide.cluster_sync
  // CHECK: %[[LOCAL:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr<3> to !llvm.ptr
  %s = oxide.shared_alloc @cluster_tile size 256 align 4 : !llvm.ptr
  // CHECK: llvm.call_intrinsic "llvm.nvvm.mapa"(%[[LOCAL]], %arg0) : (!llvm.ptr, i32) -> !llvm.ptr
  %remote = oxide.map_shared %s, %rank : !llvm.ptr
  llvm.return
}

// In a contracted kernel the dynamic shared size is assumed within the contract's range, so that
// a kernel's check for enough of it folds away (no call, which would serialise wgmma).
// CHECK-LABEL: llvm.func ptx_kernelcc @dynamic_shared_range
// CHECK: %[[SIZE:.*]] = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.dynamic_smem_size"() : () -> i32
// CHECK: %[[LO:.*]] = llvm.mlir.constant(4096 : i32) : i32
// CHECK: %[[GE:.*]] = llvm.icmp "uge" %[[SIZE]], %[[LO]] : i32
// CHECK: llvm.intr.assume %[[GE]]
// CHECK: %[[HI:.*]] = llvm.mlir.constant(8192 : i32) : i32
// CHECK: %[[LE:.*]] = llvm.icmp "ule" %[[SIZE]], %[[HI]] : i32
// CHECK: llvm.intr.assume %[[LE]]
llvm.func @dynamic_shared_range(%out: !llvm.ptr) attributes {oxide.kernel = #oxide.kernel<params = [out: other], contract = "domain = 1, block = (64), dynamic_shared = 4096..8192">} {
  %ds = oxide.dynamic_shared_size : i32
  llvm.store %ds, %out : i32, !llvm.ptr
  llvm.return
}

// Without a contract, only the register.
// CHECK-LABEL: llvm.func @dynamic_shared_unbounded
// CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.dynamic_smem_size"() : () -> i32
// CHECK-NOT: llvm.intr.assume
// CHECK: llvm.return
llvm.func @dynamic_shared_unbounded(%out: !llvm.ptr) {
  %ds = oxide.dynamic_shared_size : i32
  llvm.store %ds, %out : i32, !llvm.ptr
  llvm.return
}
