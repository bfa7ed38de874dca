// RUN: oxide-opt %s -oxide-raise -split-input-file -verify-diagnostics | FileCheck %s

llvm.func @__oxide_cached_load(!llvm.ptr, !llvm.ptr, i32, i32)
llvm.func @__oxide_cached_store(!llvm.ptr, !llvm.ptr, i32, i32)

// The element passes by address: a load's value is stored to the thread's copy, a store's
// loaded from it; the size picks the op's type (8 and 16 bytes as vectors of 32-bit words), the
// hint code the catalog's cache operator.
// CHECK-LABEL: llvm.func @widths
llvm.func @widths(%copy: !llvm.ptr, %global: !llvm.ptr) {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %c2 = llvm.mlir.constant(2 : i32) : i32
  %c3 = llvm.mlir.constant(3 : i32) : i32
  %c4 = llvm.mlir.constant(4 : i32) : i32
  %c5 = llvm.mlir.constant(5 : i32) : i32
  %c7 = llvm.mlir.constant(7 : i32) : i32
  %c8 = llvm.mlir.constant(8 : i32) : i32
  %c16 = llvm.mlir.constant(16 : i32) : i32
  // CHECK: %[[A:.*]] = oxide.cached_load nc %{{.*}} : !llvm.ptr -> i8
  // CHECK: llvm.store %[[A]], %{{.*}} {alignment = 1 : i64} : i8, !llvm.ptr
  llvm.call @__oxide_cached_load(%copy, %global, %c1, %c0) : (!llvm.ptr, !llvm.ptr, i32, i32) -> ()
  // CHECK: oxide.cached_load ca %{{.*}} : !llvm.ptr -> i16
  llvm.call @__oxide_cached_load(%copy, %global, %c2, %c1) : (!llvm.ptr, !llvm.ptr, i32, i32) -> ()
  // CHECK: oxide.cached_load cg %{{.*}} : !llvm.ptr -> i32
  llvm.call @__oxide_cached_load(%copy, %global, %c4, %c2) : (!llvm.ptr, !llvm.ptr, i32, i32) -> ()
  // CHECK: oxide.cached_load lu %{{.*}} : !llvm.ptr -> vector<2xi32>
  llvm.call @__oxide_cached_load(%copy, %global, %c8, %c4) : (!llvm.ptr, !llvm.ptr, i32, i32) -> ()
  // CHECK: %[[F:.*]] = oxide.cached_load cv %{{.*}} : !llvm.ptr -> vector<4xi32>
  // CHECK: llvm.store %[[F]], %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr
  llvm.call @__oxide_cached_load(%copy, %global, %c16, %c5) : (!llvm.ptr, !llvm.ptr, i32, i32) -> ()
  // CHECK: %[[V:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr -> vector<4xi32>
  // CHECK: oxide.cached_store cs %[[V]], %{{.*}} : vector<4xi32>, !llvm.ptr
  llvm.call @__oxide_cached_store(%global, %copy, %c16, %c3) : (!llvm.ptr, !llvm.ptr, i32, i32) -> ()
  // CHECK: oxide.cached_store wt %{{.*}}, %{{.*}} : i32, !llvm.ptr
  llvm.call @__oxide_cached_store(%global, %copy, %c4, %c7) : (!llvm.ptr, !llvm.ptr, i32, i32) -> ()
  llvm.return
}

// -----

llvm.func @__oxide_cached_load(!llvm.ptr, !llvm.ptr, i32, i32)

llvm.func @three_bytes(%copy: !llvm.ptr, %global: !llvm.ptr) {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c3 = llvm.mlir.constant(3 : i32) : i32
  // expected-error @+1 {{oxide intrinsic '__oxide_cached_load' moves 1, 2, 4, 8 or 16 bytes, not 3}}
  llvm.call @__oxide_cached_load(%copy, %global, %c3, %c0) : (!llvm.ptr, !llvm.ptr, i32, i32) -> ()
  llvm.return
}

// -----

llvm.func @__oxide_cached_store(!llvm.ptr, !llvm.ptr, i32, i32)

llvm.func @unknown_hint(%copy: !llvm.ptr, %global: !llvm.ptr) {
  %c4 = llvm.mlir.constant(4 : i32) : i32
  %c9 = llvm.mlir.constant(9 : i32) : i32
  // expected-error @+1 {{argument 3 of oxide intrinsic '__oxide_cached_store' is 9, outside 0..7}}
  llvm.call @__oxide_cached_store(%global, %copy, %c4, %c9) : (!llvm.ptr, !llvm.ptr, i32, i32) -> ()
  llvm.return
}
