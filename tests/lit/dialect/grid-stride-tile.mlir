// RUN: oxide-opt %s -split-input-file -oxide-verify-safety -oxide-to-nvvm | FileCheck %s

// A grid-stride loop's indices are witnesses: the loop passes provenance and lowers to
// index + nctaid * ntid.
// CHECK-LABEL: llvm.func ptx_kernelcc @loop
llvm.func @loop(%p: !llvm.ptr, %n: i64) attributes {oxide.kernel = #oxide.kernel} {
  %i0 = oxide.thread_index rank 1 dim x : i64
  llvm.br ^head(%i0 : i64)
^head(%i: i64):
  %more = llvm.icmp "ult" %i, %n : i64
  llvm.cond_br %more, ^body, ^done
^body:
  %e = oxide.disjoint_get %p [%n] at [%i] elem 4 : !llvm.ptr
  // CHECK: %[[G:.*]] = nvvm.read.ptx.sreg.nctaid.x : i32
  // CHECK: %[[B:.*]] = nvvm.read.ptx.sreg.ntid.x : i32
  // CHECK: llvm.mul %{{.*}}, %{{.*}} overflow<nuw> : i64
  %next = oxide.grid_stride_next %i rank 1 dim x : i64
  llvm.br ^head(%next : i64)
^done:
  llvm.return
}

// -----

// A tile of 4: in bounds while x < ceil(n / 4); starts at element x * 4.
// CHECK-LABEL: llvm.func @tile
llvm.func @tile(%p: !llvm.ptr, %n: i64) -> !llvm.ptr {
  %x = oxide.thread_index rank 1 dim x : i64
  // CHECK: %[[C3:.*]] = llvm.mlir.constant(3 : i64) : i64
  // CHECK: %[[UP:.*]] = llvm.add %arg1, %[[C3]] overflow<nuw> : i64
  // CHECK: %[[C4:.*]] = llvm.mlir.constant(4 : i64) : i64
  // CHECK: %[[TILES:.*]] = llvm.udiv %[[UP]], %[[C4]] : i64
  // CHECK: %[[START:.*]] = llvm.mul %{{.*}}, %{{.*}} overflow<nuw> : i64
  // CHECK: %[[IN:.*]] = llvm.icmp "ult" %{{.*}}, %[[TILES]] : i64
  // CHECK: llvm.mul %[[START]], %{{.*}} overflow<nuw> : i64
  // CHECK: llvm.select %[[IN]]
  %e = oxide.disjoint_get %p [%n] at [%x] elem 4 tile 4 : !llvm.ptr
  llvm.return %e : !llvm.ptr
}
