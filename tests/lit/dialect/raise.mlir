// RUN: oxide-opt %s -oxide-raise -split-input-file -verify-diagnostics | FileCheck %s

llvm.func @__oxide_index_1d() -> i64
llvm.func @__oxide_bounds_fail(i64, i64)

// CHECK-LABEL: llvm.func ptx_kernelcc @vecadd
// CHECK-SAME: oxide.kernel
llvm.func ptx_kernelcc @vecadd(%n: i64) {
  // CHECK: %[[I:.*]] = oxide.thread_index rank 1 dim x : i64
  // CHECK-NOT: llvm.call
  %i = llvm.call @__oxide_index_1d() : () -> i64
  // CHECK: oxide.bounds_fail %[[I]], %{{.*}} : i64
  llvm.call @__oxide_bounds_fail(%i, %n) : (i64, i64) -> ()
  llvm.return
}

// Helpers are not kernels, and the raised intrinsic declarations are gone.
// CHECK-LABEL: llvm.func @helper
// CHECK-NOT: oxide.kernel
llvm.func @helper() {
  llvm.return
}
// CHECK-NOT: @__oxide_index_1d
// CHECK-NOT: @__oxide_bounds_fail

// -----

llvm.func @__oxide_index_7d() -> i64

llvm.func @unknown() {
  // expected-error @+1 {{unknown oxide intrinsic '__oxide_index_7d'}}
  %i = llvm.call @__oxide_index_7d() : () -> i64
  llvm.return
}

// -----

llvm.func @__oxide_index_1d() -> i32

llvm.func @bad_signature() {
  // expected-error @+1 {{oxide intrinsic '__oxide_index_1d' has an unexpected result type}}
  %i = llvm.call @__oxide_index_1d() : () -> i32
  llvm.return
}
