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

// A 2-D tile of 8 rows x 2 columns per thread: in bounds when its first element is (x below
// ceil(w / 2), y below ceil(h / 8)), which is at row y * 8, column x * 2.
// CHECK-LABEL: llvm.func @register_tile
llvm.func @register_tile(%data: !llvm.ptr, %w: i64, %h: i64) -> !llvm.ptr {
  %x = oxide.thread_index rank 2 dim x : i64
  %y = oxide.thread_index rank 2 dim y : i64
  // CHECK: %[[C7:.*]] = llvm.mlir.constant(7 : i64) : i64
  // CHECK: llvm.add %arg2, %[[C7]] overflow<nuw> : i64
  // CHECK: %[[ROWS:.*]] = llvm.udiv
  // CHECK: %[[ROW0:.*]] = llvm.mul %{{.*}}, %{{.*}} overflow<nuw> : i64
  // CHECK: llvm.icmp "ult" %{{.*}}, %[[ROWS]] : i64
  // CHECK: llvm.add %arg1, %{{.*}} overflow<nuw> : i64
  // CHECK: %[[COLS:.*]] = llvm.udiv
  // CHECK: %[[COL0:.*]] = llvm.mul %{{.*}}, %{{.*}} overflow<nuw> : i64
  // CHECK: llvm.icmp "ult" %{{.*}}, %[[COLS]] : i64
  // CHECK: %[[IN:.*]] = llvm.and
  // CHECK: %[[ROWOFF:.*]] = llvm.mul %[[ROW0]], %arg1 overflow<nuw> : i64
  // CHECK: llvm.add %[[ROWOFF]], %[[COL0]] overflow<nuw> : i64
  // CHECK: llvm.select %[[IN]]
  %p = oxide.disjoint_get %data [%w, %h] at [%x, %y] elem 16 tile 2 tile_rows 8 : !llvm.ptr
  llvm.return %p : !llvm.ptr
}

// An AtomicSpan element: data + index * elem_size when index < size, else null. The index,
// computed by the user's code, is frozen first: test and address see one value even when it is
// poison (a signed overflow) or undef (an uninitialised variable).
// CHECK-LABEL: llvm.func @span_element
llvm.func @span_element(%data: !llvm.ptr, %n: i64, %i: i64) -> !llvm.ptr {
  // CHECK: %[[I:.*]] = llvm.freeze %arg2 : i64
  // CHECK: %[[IN:.*]] = llvm.icmp "ult" %[[I]], %arg1 : i64
  // CHECK: %[[SIZE:.*]] = llvm.mlir.constant(8 : i64) : i64
  // CHECK: %[[OFF:.*]] = llvm.mul %[[I]], %[[SIZE]] overflow<nuw> : i64
  // CHECK: %[[EL:.*]] = llvm.getelementptr inbounds %arg0[%[[OFF]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
  // CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
  // CHECK: llvm.select %[[IN]], %[[EL]], %[[NULL]] : i1, !llvm.ptr
  %p = oxide.span_elem %data [%n] at %i elem 8 : !llvm.ptr
  llvm.return %p : !llvm.ptr
}

// A tile one element long (tile_mut<1>): the only in-tile coordinate is 0.
// CHECK-LABEL: llvm.func @tile_of_one
// CHECK: %[[J:.*]] = llvm.freeze %arg2 : i64
// CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK: %[[FIRST:.*]] = llvm.icmp "eq" %[[J]], %[[ZERO]] : i64
// CHECK: %[[IN:.*]] = llvm.icmp "ult" %{{.*}}, %arg1 : i64
// CHECK: %[[BOTH:.*]] = llvm.and %[[FIRST]], %[[IN]] : i1
// CHECK: llvm.select %[[BOTH]]
llvm.func @tile_of_one(%data: !llvm.ptr, %n: i64, %j: i64) -> !llvm.ptr {
  %x = oxide.thread_index rank 1 dim x : i64
  %p = oxide.disjoint_get %data [%n] at [%x] within [%j] elem 4 : !llvm.ptr
  llvm.return %p : !llvm.ptr
}
