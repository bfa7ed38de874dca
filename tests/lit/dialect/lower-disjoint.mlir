// RUN: oxide-opt %s -oxide-to-nvvm | FileCheck %s

// A 2-D witness reads the y registers; a 2-D disjoint_get checks both coordinates and
// linearises row-major.
// CHECK-LABEL: llvm.func @rows
llvm.func @rows(%data: !llvm.ptr, %w: i64, %h: i64) -> !llvm.ptr {
  // CHECK-DAG: nvvm.read.ptx.sreg.tid.y : i32
  // CHECK-DAG: nvvm.read.ptx.sreg.ctaid.y : i32
  // CHECK-DAG: nvvm.read.ptx.sreg.ntid.y : i32
  %x = oxide.thread_index rank 2 dim x : i64
  %y = oxide.thread_index rank 2 dim y : i64
  // CHECK: %[[YIN:.*]] = llvm.icmp "ult" %[[Y:.*]], %{{.*}} : i64
  // CHECK: %[[XIN:.*]] = llvm.icmp "ult" %[[X:.*]], %{{.*}} : i64
  // CHECK: %[[IN:.*]] = llvm.and %[[YIN]], %[[XIN]] : i1
  // CHECK: %[[ROW:.*]] = llvm.mul %[[Y]], %{{.*}} overflow<nuw> : i64
  // CHECK: %[[LIN:.*]] = llvm.add %[[ROW]], %[[X]] overflow<nuw> : i64
  // CHECK: %[[OFF:.*]] = llvm.mul %[[LIN]], %{{.*}} overflow<nuw> : i64
  // CHECK: %[[EL:.*]] = llvm.getelementptr inbounds %{{.*}}[%[[OFF]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
  // CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
  // CHECK: llvm.select %[[IN]], %[[EL]], %[[NULL]] : i1, !llvm.ptr
  %p = oxide.disjoint_get %data [%w, %h] at [%x, %y] elem 4 : !llvm.ptr
  llvm.return %p : !llvm.ptr
}
