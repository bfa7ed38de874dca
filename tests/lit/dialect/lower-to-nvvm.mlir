// RUN: oxide-opt %s -oxide-to-nvvm | FileCheck %s

// A failed bounds check calls one cold, out-of-line report per module (vprintf + __assertfail).
// CHECK-LABEL: llvm.func internal @__oxide_bounds_failure(
// CHECK-SAME: passthrough = ["noinline", "cold", "noreturn"]
// CHECK: llvm.call @vprintf
// CHECK: llvm.call @__assertfail

// CHECK-LABEL: llvm.func ptx_kernelcc @kernel
// CHECK-NOT: oxide.kernel
llvm.func @kernel(%n: i64) attributes {oxide.kernel} {
  // CHECK-DAG: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK-DAG: %[[CTAID:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
  // CHECK-DAG: %[[NTID:.*]] = nvvm.read.ptx.sreg.ntid.x : i32
  // CHECK-DAG: %[[T:.*]] = llvm.zext nneg %[[TID]] : i32 to i64
  // CHECK-DAG: %[[C:.*]] = llvm.zext nneg %[[CTAID]] : i32 to i64
  // CHECK-DAG: %[[N:.*]] = llvm.zext nneg %[[NTID]] : i32 to i64
  // CHECK: %[[BASE:.*]] = llvm.mul %[[C]], %[[N]] overflow<nuw> : i64
  // CHECK: %[[I:.*]] = llvm.add %[[BASE]], %[[T]] overflow<nuw> : i64
  %i = oxide.thread_index rank 1 dim x : i64
  // CHECK: llvm.call @__oxide_bounds_failure(%[[I]], %arg0,
  // CHECK: llvm.intr.trap
  // CHECK-NOT: oxide.
  oxide.bounds_fail %i, %n : i64
  llvm.return
}
