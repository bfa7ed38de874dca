// RUN: oxide-opt %s -oxide-raise -split-input-file -verify-diagnostics | FileCheck %s

// __oxide_atomic_scope marks the object of a scoped atomic (oxide/device/atomic.hpp): each
// atomic access of the mark gets its scope, every use gets the object, and the mark goes.

llvm.func @__oxide_atomic_scope(!llvm.ptr, i32) -> !llvm.ptr

// CHECK-LABEL: llvm.func @scopes(
// CHECK-SAME: %[[P:[^:]+]]: !llvm.ptr, %[[Q:[^:]+]]: !llvm.ptr
llvm.func @scopes(%p: !llvm.ptr, %q: !llvm.ptr, %v: i32) -> i32 {
  %block = llvm.mlir.constant(0 : i32) : i32
  %device = llvm.mlir.constant(1 : i32) : i32
  %system = llvm.mlir.constant(2 : i32) : i32
  // CHECK-NOT: __oxide_atomic_scope
  %b = llvm.call @__oxide_atomic_scope(%p, %block) : (!llvm.ptr, i32) -> !llvm.ptr
  %d = llvm.call @__oxide_atomic_scope(%p, %device) : (!llvm.ptr, i32) -> !llvm.ptr
  %s = llvm.call @__oxide_atomic_scope(%p, %system) : (!llvm.ptr, i32) -> !llvm.ptr
  // CHECK: llvm.atomicrmw add %[[P]], %{{.*}} syncscope("block") acq_rel : !llvm.ptr, i32
  %0 = llvm.atomicrmw add %b, %v acq_rel : !llvm.ptr, i32
  // CHECK: llvm.cmpxchg %[[P]], %{{.*}}, %{{.*}} syncscope("device") acq_rel monotonic : !llvm.ptr, i32
  %1 = llvm.cmpxchg %d, %v, %0 acq_rel monotonic : !llvm.ptr, i32
  // CHECK: llvm.load %[[P]] atomic syncscope("device") acquire {alignment = 4 : i64} : !llvm.ptr -> i32
  %2 = llvm.load %d atomic acquire {alignment = 4 : i64} : !llvm.ptr -> i32
  // CHECK: llvm.store %{{.*}}, %[[P]] atomic syncscope("block") release {alignment = 4 : i64} : i32, !llvm.ptr
  llvm.store %2, %b atomic release {alignment = 4 : i64} : i32, !llvm.ptr
  // The system scope is LLVM's default: no syncscope.
  // CHECK: llvm.atomicrmw xchg %[[P]], %{{.*}} seq_cst : !llvm.ptr, i32
  %3 = llvm.atomicrmw xchg %s, %v seq_cst : !llvm.ptr, i32
  // A plain access, and the mark as a stored value, only get the object.
  // CHECK: llvm.load %[[P]] {alignment = 4 : i64} : !llvm.ptr -> i32
  %4 = llvm.load %d {alignment = 4 : i64} : !llvm.ptr -> i32
  // CHECK: llvm.store %[[P]], %[[Q]] atomic monotonic {alignment = 8 : i64} : !llvm.ptr, !llvm.ptr
  llvm.store %d, %q atomic monotonic {alignment = 8 : i64} : !llvm.ptr, !llvm.ptr
  llvm.return %4 : i32
}

// -----

llvm.func @__oxide_atomic_scope(!llvm.ptr, i32) -> !llvm.ptr

llvm.func @scope_variable(%p: !llvm.ptr, %scope: i32) {
  // expected-error @+1 {{argument 1 of oxide intrinsic '__oxide_atomic_scope' must be a compile-time constant; call it through the oxide device API}}
  %0 = llvm.call @__oxide_atomic_scope(%p, %scope) : (!llvm.ptr, i32) -> !llvm.ptr
  llvm.return
}

// -----

llvm.func @__oxide_atomic_scope(!llvm.ptr, i32) -> !llvm.ptr

llvm.func @scope_out_of_range(%p: !llvm.ptr) {
  %c3 = llvm.mlir.constant(3 : i32) : i32
  // expected-error @+1 {{argument 1 of oxide intrinsic '__oxide_atomic_scope' is 3, outside 0..2}}
  %0 = llvm.call @__oxide_atomic_scope(%p, %c3) : (!llvm.ptr, i32) -> !llvm.ptr
  llvm.return
}
