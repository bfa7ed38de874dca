// RUN: oxide-opt %s -oxide-to-nvvm | FileCheck %s

// A warp's index in a 1-D contracted kernel reads only x registers: block * ceil(threads / 32)
// + tid / 32; its leader element is written by lane 0 only.
// CHECK-LABEL: llvm.func ptx_kernelcc @warp_leader
// CHECK-NOT: ctaid.y
// CHECK: %[[CTA:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK: %[[NTID:.*]] = nvvm.read.ptx.sreg.ntid.x : i32
// CHECK: %[[ROUND:.*]] = llvm.add %{{.*}}, %{{.*}} overflow<nuw> : i64
// CHECK: %[[WARPS:.*]] = llvm.lshr %[[ROUND]], %{{.*}} : i64
// CHECK: %[[BASE:.*]] = llvm.mul %{{.*}}, %[[WARPS]] overflow<nuw> : i64
// CHECK: nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[W:.*]] = llvm.add %[[BASE]], %{{.*}} overflow<nuw> : i64
// CHECK: %[[LANE:.*]] = nvvm.read.ptx.sreg.laneid : i32
// CHECK: %[[LANE64:.*]] = llvm.zext nneg %[[LANE]] : i32 to i64
// CHECK: %[[LEAD:.*]] = llvm.icmp "eq" %[[LANE64]], %{{.*}} : i64
// CHECK: %[[IN:.*]] = llvm.icmp "ult" %[[W]], %arg1 : i64
// CHECK: %[[OK:.*]] = llvm.and %[[LEAD]], %[[IN]] : i1
// CHECK: llvm.select %[[OK]], %{{.*}}, %{{.*}} : i1, !llvm.ptr
llvm.func @warp_leader(%p: !llvm.ptr, %n: i64, %v: f32) attributes {oxide.kernel = #oxide.kernel<params = [p: other, n: unsigned_integer, v: other], contract = "domain = 1, block = (64), dynamic_shared = 0..0">} {
  %j = llvm.mlir.constant(0 : i64) : i64
  %w = oxide.group_index warp : i64
  %e = oxide.owned_elem %p [%n] owner [%w] at %j elem 4 shape warp_leader : !llvm.ptr
  llvm.store %v, %e : f32, !llvm.ptr
  llvm.return
}

// Outside a 1-D kernel a block's index is linear over x, y and z (never limited by gridDim.y),
// and its stride is the grid's block count.
// CHECK-LABEL: llvm.func @block_any_rank
// CHECK-DAG: nvvm.read.ptx.sreg.ctaid.y : i32
// CHECK-DAG: nvvm.read.ptx.sreg.ctaid.z : i32
// CHECK-DAG: nvvm.read.ptx.sreg.nctaid.z : i32
// CHECK: llvm.return
llvm.func @block_any_rank() -> i64 {
  %b = oxide.group_index block : i64
  %n = oxide.group_stride_next %b block : i64
  llvm.return %n : i64
}

// A pair at distance h: lo = (i / h) h + i, the element lo + h j, in the set only for
// 0 < h < size, j < 2 and both below the size; h = 0 divides by 1 instead.
// CHECK-LABEL: llvm.func @pair
// CHECK: %[[FH:.*]] = llvm.freeze %arg2 : i64
// CHECK: %[[ZERO:.*]] = llvm.icmp "eq" %[[FH]], %{{.*}} : i64
// CHECK: %[[H:.*]] = llvm.select %[[ZERO]], %{{.*}}, %[[FH]] : i1, i64
// CHECK: %[[Q:.*]] = llvm.udiv %{{.*}}, %[[H]] : i64
// CHECK: %[[QH:.*]] = llvm.mul %[[Q]], %[[H]] : i64
// CHECK: %[[LO:.*]] = llvm.add %[[QH]], %{{.*}} : i64
// CHECK: llvm.icmp "ult" %[[FH]], %arg1 : i64
// CHECK: llvm.icmp "ult" %[[LO]], %arg1 : i64
// CHECK: %[[E:.*]] = llvm.add %[[LO]], %{{.*}} : i64
// CHECK: llvm.icmp "ult" %[[E]], %arg1 : i64
llvm.func @pair(%p: !llvm.ptr, %n: i64, %h: i64, %j: i64) -> !llvm.ptr {
  %i = oxide.thread_index rank 1 dim x : i64
  %e = oxide.owned_elem %p [%n] owner [%i] at %j uniform %h elem 8 shape pair : !llvm.ptr
  llvm.return %e : !llvm.ptr
}

// A strided set's index is (b K + j) B + t from the registers, in bounds for j < K.
// CHECK-LABEL: llvm.func @block_strided
// CHECK: %[[FJ:.*]] = llvm.freeze %arg2 : i64
// CHECK: %[[K:.*]] = llvm.mlir.constant(4 : i64) : i64
// CHECK: nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK: %[[BK:.*]] = llvm.mul %{{.*}}, %[[K]] overflow<nuw> : i64
// CHECK: %[[CHUNK:.*]] = llvm.add %[[BK]], %[[FJ]] overflow<nuw> : i64
// CHECK: nvvm.read.ptx.sreg.ntid.x : i32
// CHECK: llvm.mul %[[CHUNK]], %{{.*}} overflow<nuw> : i64
// CHECK: llvm.icmp "ult" %[[FJ]], %[[K]] : i64
llvm.func @block_strided(%p: !llvm.ptr, %n: i64, %j: i64) -> !llvm.ptr {
  %i = oxide.thread_index rank 1 dim x : i64
  %e = oxide.owned_elem %p [%n] owner [%i] at %j elem 4 shape block_strided count 4 : !llvm.ptr
  llvm.return %e : !llvm.ptr
}

// A reservation is a relaxed device-scope atomic add; slot j is in it for j < count, start <
// size, j < size - start (so start + j cannot wrap) and size <= 2^40. So that the counter cannot
// wrap, a count above 256 adds at most 2^40, and nothing once the counter holds 2^40; that test
// is on a branch of its own.
// CHECK-LABEL: llvm.func @reserve
// CHECK-DAG: %[[FJ:.*]] = llvm.freeze %arg4 : i64
// CHECK-DAG: %[[FC:.*]] = llvm.freeze %arg3 : i64
// CHECK: %[[SMALL:.*]] = llvm.icmp "ule" %[[FC]], %{{.*}} : i64
// CHECK: llvm.cond_br %[[SMALL]], ^[[ADDBB:.*]](%[[FC]] : i64), ^[[LARGE:.*]]
// CHECK: ^[[LARGE]]:
// CHECK: %[[LIMIT:.*]] = llvm.mlir.constant(1099511627776 : i64) : i64
// CHECK: %[[NOW:.*]] = llvm.load %arg1 atomic syncscope("device") monotonic {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK: %[[CLAMPED:.*]] = llvm.intr.umin(%[[FC]], %[[LIMIT]]) : (i64, i64) -> i64
// CHECK: %[[ROOMY:.*]] = llvm.icmp "ult" %[[NOW]], %[[LIMIT]] : i64
// CHECK: %[[INC:.*]] = llvm.select %[[ROOMY]], %[[CLAMPED]], %{{.*}} : i1, i64
// CHECK: llvm.br ^[[ADDBB]](%[[INC]] : i64)
// CHECK: ^[[ADDBB]](%[[ADD:.*]]: i64):
// CHECK: %[[S:.*]] = llvm.atomicrmw add %arg1, %[[ADD]] syncscope("device") monotonic {alignment = 8 : i64} : !llvm.ptr, i64
// CHECK: %[[ROOM:.*]] = llvm.sub %arg2, %[[S]] : i64
// CHECK: llvm.icmp "ult" %[[FJ]], %[[FC]] : i64
// CHECK: llvm.icmp "ult" %[[S]], %arg2 : i64
// CHECK: llvm.icmp "ult" %[[FJ]], %[[ROOM]] : i64
// CHECK: llvm.mlir.constant(1099511627777 : i64) : i64
// CHECK: llvm.add %[[S]], %[[FJ]] : i64
llvm.func @reserve(%data: !llvm.ptr, %counter: !llvm.ptr, %n: i64, %count: i64, %j: i64) -> !llvm.ptr {
  %s = oxide.reserve %counter, %count : !llvm.ptr -> i64
  %e = oxide.reserved_elem %data [%n] slot %s count %count at %j elem 4 : !llvm.ptr
  llvm.return %e : !llvm.ptr
}

// A constant count of at most 256 adds as asked.
// CHECK-LABEL: llvm.func @reserve_one
// CHECK-NOT: llvm.load
// CHECK: llvm.atomicrmw add %arg0, %{{.*}} syncscope("device") monotonic
llvm.func @reserve_one(%counter: !llvm.ptr) -> i64 {
  %one = llvm.mlir.constant(1 : i64) : i64
  %s = oxide.reserve %counter, %one : !llvm.ptr -> i64
  llvm.return %s : i64
}

// A warpgroup tile: block b's tile (bm, bn) in groups of 16 tile rows (divisions by the tile
// counts, guarded for blocks past the last tile), then the consumer warpgroup (thread / 128 in
// [1, 3)) and the accumulator layout; written only inside the output.
// CHECK-LABEL: llvm.func @warpgroup_tile
// CHECK: %[[TM:.*]] = llvm.udiv %{{.*}}, %{{.*}} : i64
// CHECK: %[[TN:.*]] = llvm.udiv %{{.*}}, %{{.*}} : i64
// CHECK: %[[TILES:.*]] = llvm.mul %[[TM]], %[[TN]] overflow<nuw> : i64
// CHECK: %[[INSIDE:.*]] = llvm.icmp "ult" %{{.*}}, %[[TILES]] : i64
// CHECK: llvm.select %[[INSIDE]]
// CHECK: llvm.udiv %{{.*}}, %{{.*}} : i64
// CHECK: llvm.urem
// CHECK: llvm.icmp "uge"
// CHECK: llvm.icmp "ult" %{{.*}}, %arg2 : i64
// CHECK: llvm.icmp "ult" %{{.*}}, %arg1 : i64
// CHECK: llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, !llvm.ptr
llvm.func @warpgroup_tile(%p: !llvm.ptr, %w: i64, %h: i64, %j: i64) -> !llvm.ptr {
  %b = oxide.group_index block : i64
  %e = oxide.owned_elem %p [%w, %h] owner [%b] at %j elem 4 shape warpgroup_tile tile [256, 2, 1, 16] : !llvm.ptr
  llvm.return %e : !llvm.ptr
}

// The pair of elements j, j + 1 (lanes 2): the second column inside the output too, j even, and
// the pair's address a multiple of 8; one pointer to both.
// CHECK-LABEL: llvm.func @warpgroup_tile_pair
// CHECK: llvm.icmp "ult" %{{.*}}, %arg2 : i64
// CHECK-NEXT: llvm.icmp "ult" %{{.*}}, %arg1 : i64
// CHECK: %[[ODD:.*]] = llvm.urem %{{.*}}, %{{.*}} : i64
// CHECK: llvm.icmp "eq" %[[ODD]], %{{.*}} : i64
// CHECK: %[[ADDR:.*]] = llvm.ptrtoint %arg0 : !llvm.ptr to i64
// CHECK: %[[AT:.*]] = llvm.add %[[ADDR]], %{{.*}} : i64
// CHECK: %[[MIS:.*]] = llvm.and %[[AT]], %{{.*}} : i64
// CHECK: %[[ALIGNED:.*]] = llvm.icmp "eq" %[[MIS]], %{{.*}} : i64
// CHECK: %[[OK:.*]] = llvm.and %{{.*}}, %[[ALIGNED]] : i1
// CHECK: llvm.select %[[OK]], %{{.*}}, %{{.*}} : i1, !llvm.ptr
llvm.func @warpgroup_tile_pair(%p: !llvm.ptr, %w: i64, %h: i64, %j: i64) -> !llvm.ptr {
  %b = oxide.group_index block : i64
  %e = oxide.owned_elem %p [%w, %h] owner [%b] at %j elem 4 shape warpgroup_tile tile [256, 2, 1, 16] lanes 2 : !llvm.ptr
  llvm.return %e : !llvm.ptr
}

// Longest-first (a fifth tile field, the order as 'uniform': the period in its low 40 bits, the
// runs taken at once above): first the step's round of the grid (nctaid.x * y * z blocks) is
// reversed when odd (a persistent launch's blocks share long and short tiles); the period must
// be nonzero and divide the tiles; the runs at once
// are clamped to the runs (0: all); then with span = period * runs at once, block b becomes
// (first run of b's group + b % span % n) period + period - 1 - b % span / n before the grouped
// order, n the runs in b's group.
// CHECK-LABEL: llvm.func @warpgroup_tile_longest_first
// CHECK: %[[U:.*]] = llvm.freeze %arg4 : i64
// CHECK: nvvm.read.ptx.sreg.nctaid.z
// CHECK: llvm.mul
// CHECK: %[[BLOCKS:.*]] = llvm.mul %{{.*}}, %{{.*}} overflow<nuw> : i64
// CHECK: %[[GRIDOK:.*]] = llvm.icmp "ne" %[[BLOCKS]], %{{.*}} : i64
// CHECK: %[[ROUNDOF:.*]] = llvm.select %[[GRIDOK]], %[[BLOCKS]], %{{.*}} : i1, i64
// CHECK: %[[ROUND:.*]] = llvm.udiv %[[STEP:[0-9]+]], %[[ROUNDOF]] : i64
// CHECK: %[[POS:.*]] = llvm.urem %[[STEP]], %[[ROUNDOF]] : i64
// CHECK: %[[RSTART0:.*]] = llvm.mul %[[ROUND]], %[[ROUNDOF]] overflow<nuw> : i64
// CHECK: %[[RSTART:.*]] = llvm.select %{{.*}}, %[[RSTART0]], %{{.*}} : i1, i64
// CHECK: %[[REMAINING:.*]] = llvm.sub %{{.*}}, %[[RSTART]] : i64
// CHECK: %[[SHORTROUND:.*]] = llvm.icmp "ult" %[[REMAINING]], %[[ROUNDOF]] : i64
// CHECK: %[[LENGTH:.*]] = llvm.select %[[SHORTROUND]], %[[REMAINING]], %[[ROUNDOF]] : i1, i64
// CHECK: %[[PARITY:.*]] = llvm.urem %[[ROUND]], %{{.*}} : i64
// CHECK: %[[ISODD:.*]] = llvm.icmp "eq" %[[PARITY]], %{{.*}} : i64
// CHECK: %[[ODD:.*]] = llvm.and %{{.*}}, %[[ISODD]] : i1
// CHECK: %[[LAST0:.*]] = llvm.sub %[[LENGTH]], %{{.*}} : i64
// CHECK: %[[BACK0:.*]] = llvm.sub %[[LAST0]], %[[POS]] : i64
// CHECK: %[[SERP0:.*]] = llvm.add %[[RSTART]], %[[BACK0]] overflow<nuw> : i64
// CHECK: %[[SERP:.*]] = llvm.select %[[ODD]], %[[SERP0]], %[[STEP]] : i1, i64
// CHECK: %[[SPLIT:.*]] = llvm.mlir.constant(1099511627776 : i64) : i64
// CHECK: %[[P0:.*]] = llvm.urem %[[U]], %[[SPLIT]] : i64
// CHECK: %[[G0:.*]] = llvm.udiv %[[U]], %[[SPLIT]] : i64
// CHECK: %[[NZ:.*]] = llvm.icmp "ne" %[[P0]], %{{.*}} : i64
// CHECK: %[[REM:.*]] = llvm.urem %[[TILES:[0-9]+]], %{{.*}} : i64
// CHECK: %[[DIVIDES:.*]] = llvm.icmp "eq" %[[REM]], %{{.*}} : i64
// CHECK: %[[POK:.*]] = llvm.and %[[NZ]], %[[DIVIDES]] : i1
// CHECK: %[[INSIDE:.*]] = llvm.and %{{.*}}, %[[POK]] : i1
// CHECK: %[[P:.*]] = llvm.select %[[POK]], %[[P0]], %{{.*}} : i1, i64
// CHECK: %[[RUNS0:.*]] = llvm.udiv %[[TILES]], %[[P]] : i64
// CHECK: %[[RUNS:.*]] = llvm.select %[[INSIDE]], %[[RUNS0]], %{{.*}} : i1, i64
// CHECK: %[[GNZ:.*]] = llvm.icmp "ne" %[[G0]], %{{.*}} : i64
// CHECK: %[[GLT:.*]] = llvm.icmp "ult" %[[G0]], %[[RUNS]] : i64
// CHECK: %[[GOK:.*]] = llvm.and %[[GNZ]], %[[GLT]] : i1
// CHECK: %[[G:.*]] = llvm.select %[[GOK]], %[[G0]], %[[RUNS]] : i1, i64
// CHECK: %[[SPAN:.*]] = llvm.mul %[[P]], %[[G]] overflow<nuw> : i64
// CHECK: %[[GROUP:.*]] = llvm.udiv %[[SERP]], %[[SPAN]] : i64
// CHECK: %[[FIRST0:.*]] = llvm.mul %[[GROUP]], %[[G]] overflow<nuw> : i64
// CHECK: %[[FIRST:.*]] = llvm.select %[[INSIDE]], %[[FIRST0]], %{{.*}} : i1, i64
// CHECK: %[[LEFT:.*]] = llvm.sub %[[RUNS]], %[[FIRST]] : i64
// CHECK: %[[SHORT:.*]] = llvm.icmp "ult" %[[LEFT]], %[[G]] : i64
// CHECK: %[[N:.*]] = llvm.select %[[SHORT]], %[[LEFT]], %[[G]] : i1, i64
// CHECK: %[[R:.*]] = llvm.urem %[[SERP]], %[[SPAN]] : i64
// CHECK: %[[SLOT:.*]] = llvm.urem %[[R]], %[[N]] : i64
// CHECK: %[[WHICH:.*]] = llvm.add %[[FIRST]], %[[SLOT]] overflow<nuw> : i64
// CHECK: %[[START:.*]] = llvm.mul %[[WHICH]], %[[P]] overflow<nuw> : i64
// CHECK: %[[LAST:.*]] = llvm.sub %[[P]], %{{.*}} : i64
// CHECK: %[[STEP:.*]] = llvm.udiv %[[R]], %[[N]] : i64
// CHECK: %[[BACK:.*]] = llvm.sub %[[LAST]], %[[STEP]] : i64
// CHECK: %[[REORDERED:.*]] = llvm.add %[[START]], %[[BACK]]
// CHECK: llvm.select %[[INSIDE]], %[[REORDERED]], %{{.*}} : i1, i64
llvm.func @warpgroup_tile_longest_first(%p: !llvm.ptr, %w: i64, %h: i64, %j: i64, %period: i64) -> !llvm.ptr {
  %b = oxide.group_index block : i64
  %e = oxide.owned_elem %p [%w, %h] owner [%b] at %j uniform %period elem 2 shape warpgroup_tile tile [64, 2, 1, 1, 1] : !llvm.ptr
  llvm.return %e : !llvm.ptr
}
