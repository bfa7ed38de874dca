// RUN: oxide-opt %s -oxide-to-nvvm | FileCheck %s

// A claim is one relaxed device-scope atomic or on word j / 32 of the bits (word 0 and an empty
// mask when j is out of range), and gives data + j * 8 when j < n, j < m and the bit was clear,
// else null: no branch. The index is frozen first, as every computed index of an element op.
// CHECK-LABEL: llvm.func @claim
// CHECK: %[[J:.*]] = llvm.freeze %arg4 : i64
// CHECK-DAG: %[[IN_DATA:.*]] = llvm.icmp "ult" %[[J]], %arg1 : i64
// CHECK-DAG: %[[IN_BITS:.*]] = llvm.icmp "ult" %[[J]], %arg3 : i64
// CHECK: %[[IN:.*]] = llvm.and %[[IN_DATA]], %[[IN_BITS]] : i1
// CHECK: %[[WORD:.*]] = llvm.lshr %[[J]], %{{.*}} : i64
// CHECK: %[[AT:.*]] = llvm.select %[[IN]], %[[WORD]], %{{.*}} : i1, i64
// CHECK: %[[BIT:.*]] = llvm.select %[[IN]], %{{.*}}, %{{.*}} : i1, i32
// CHECK: %[[ADDR:.*]] = llvm.getelementptr inbounds %arg2[%[[AT]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK: %[[BEFORE:.*]] = llvm.atomicrmw _or %[[ADDR]], %[[BIT]] syncscope("device") monotonic {alignment = 4 : i64} : !llvm.ptr, i32
// CHECK: %[[SET:.*]] = llvm.and %[[BEFORE]], %[[BIT]] : i32
// CHECK: %[[TAKEN:.*]] = llvm.icmp "ne" %[[SET]], %{{.*}} : i32
// CHECK: %[[FREE:.*]] = llvm.xor %[[TAKEN]], %{{.*}} : i1
// CHECK: %[[OK:.*]] = llvm.and %[[IN]], %[[FREE]] : i1
// CHECK: %[[OFF:.*]] = llvm.mul %[[J]], %{{.*}} overflow<nuw> : i64
// CHECK: %[[E:.*]] = llvm.getelementptr inbounds %arg0[%[[OFF]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK: llvm.select %[[OK]], %[[E]], %{{.*}} : i1, !llvm.ptr
llvm.func @claim(%data: !llvm.ptr, %n: i64, %bits: !llvm.ptr, %m: i64, %j: i64) -> !llvm.ptr {
  %e = oxide.claimed_elem %data [%n] claims %bits [%m] at %j elem 8 : !llvm.ptr, !llvm.ptr
  llvm.return %e : !llvm.ptr
}
