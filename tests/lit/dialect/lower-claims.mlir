// RUN: oxide-opt %s -oxide-to-nvvm | FileCheck %s

// A claim is a bit of word j / 32 of the bits (word 0 and an empty mask when j is out of range),
// aggregated over the warp: of the lanes that claim one j only the lowest may win (match.any on
// j), the lanes of one word OR their bits (match.any on the word, then five doubling steps over
// their ranks: fns finds the lane, shfl.sync.idx brings its bits), and rank 0 alone makes the one
// relaxed device-scope atomic or, whose previous value it shares (shfl from the group's lowest
// lane). The element is data + j * 8 when j < n, j < m, the lane was the lowest for j and the bit
// was clear, else null. The index is frozen first, as every computed index of an element op.
// CHECK-LABEL: llvm.func @claim
// CHECK: %[[J:.*]] = llvm.freeze %arg4 : i64
// CHECK-DAG: %[[IN_DATA:.*]] = llvm.icmp "ult" %[[J]], %arg1 : i64
// CHECK-DAG: %[[IN_BITS:.*]] = llvm.icmp "ult" %[[J]], %arg3 : i64
// CHECK: %[[IN:.*]] = llvm.and %[[IN_DATA]], %[[IN_BITS]] : i1
// CHECK: %[[WORD:.*]] = llvm.lshr %[[J]], %{{.*}} : i64
// CHECK: %[[AT:.*]] = llvm.select %[[IN]], %[[WORD]], %{{.*}} : i1, i64
// CHECK: %[[BIT:.*]] = llvm.select %[[IN]], %{{.*}}, %{{.*}} : i1, i32
// CHECK: %[[ACTIVE:.*]] = llvm.call_intrinsic "llvm.nvvm.activemask"() : () -> i32
// CHECK: %[[BELOW:.*]] = nvvm.read.ptx.sreg.lanemask.lt : i32
// CHECK: %[[SAMEJ:.*]] = nvvm.match.sync  any %[[ACTIVE]], %[[J]] : i64 -> i32
// CHECK: %[[LOWER:.*]] = llvm.and %[[SAMEJ]], %[[BELOW]] : i32
// CHECK: %[[FIRST:.*]] = llvm.icmp "eq" %[[LOWER]], %{{.*}} : i32
// CHECK: %[[GROUP:.*]] = nvvm.match.sync  any %[[ACTIVE]], %[[AT]] : i64 -> i32
// CHECK-COUNT-5: llvm.call_intrinsic "llvm.nvvm.fns"(%[[GROUP]]
// CHECK: %[[BITS:.*]] = llvm.or
// CHECK: llvm.cond_br %{{.*}}, ^[[ATOMIC:.*]], ^[[JOIN:.*]](%{{.*}} : i32)
// CHECK: ^[[ATOMIC]]:
// CHECK: %[[ADDR:.*]] = llvm.getelementptr inbounds %arg2[%[[AT]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK: %[[OLD:.*]] = llvm.atomicrmw _or %[[ADDR]], %[[BITS]] syncscope("device") monotonic {alignment = 4 : i64} : !llvm.ptr, i32
// CHECK: llvm.br ^[[JOIN]](%[[OLD]] : i32)
// CHECK: ^[[JOIN]](%[[PREV:.*]]: i32):
// CHECK: %[[LEADER:.*]] = "llvm.intr.cttz"(%[[GROUP]])
// CHECK: %[[BEFORE:.*]] = nvvm.shfl.sync  idx %[[GROUP]], %[[PREV]], %[[LEADER]], %{{.*}} : i32 -> i32
// CHECK: %[[SET:.*]] = llvm.and %[[BEFORE]], %[[BIT]] : i32
// CHECK: %[[TAKEN:.*]] = llvm.icmp "ne" %[[SET]], %{{.*}} : i32
// CHECK: %[[FREE:.*]] = llvm.xor %[[TAKEN]], %{{.*}} : i1
// CHECK: %[[MINE:.*]] = llvm.and %[[IN]], %[[FIRST]] : i1
// CHECK: %[[OK:.*]] = llvm.and %[[MINE]], %[[FREE]] : i1
// CHECK: %[[OFF:.*]] = llvm.mul %[[J]], %{{.*}} overflow<nuw> : i64
// CHECK: %[[E:.*]] = llvm.getelementptr inbounds %arg0[%[[OFF]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK: llvm.select %[[OK]], %[[E]], %{{.*}} : i1, !llvm.ptr
llvm.func @claim(%data: !llvm.ptr, %n: i64, %bits: !llvm.ptr, %m: i64, %j: i64) -> !llvm.ptr {
  %e = oxide.claimed_elem %data [%n] claims %bits [%m] at %j elem 8 : !llvm.ptr, !llvm.ptr
  llvm.return %e : !llvm.ptr
}
