// RUN: oxide-opt %s | FileCheck %s
// RUN: oxide-opt %s | oxide-opt | FileCheck %s

// CHECK-LABEL: llvm.func @kernel
// CHECK-SAME: oxide.kernel
llvm.func @kernel(%size: i64) attributes {oxide.kernel} {
  // CHECK: %[[I:.*]] = oxide.thread_index rank 1 : i64
  %i = oxide.thread_index rank 1 : i64
  // CHECK: oxide.bounds_fail %[[I]], %{{.*}} : i64
  oxide.bounds_fail %i, %size : i64
  llvm.return
}

// CHECK-LABEL: llvm.func @ranks
llvm.func @ranks() {
  // CHECK: oxide.thread_index rank 2 : i64
  %a = oxide.thread_index rank 2 : i64
  // CHECK: oxide.thread_index rank 3 : i64
  %b = oxide.thread_index rank 3 : i64
  llvm.return
}
