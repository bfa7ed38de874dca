// RUN: oxide-opt %s -oxide-raise -split-input-file -verify-diagnostics | FileCheck %s

llvm.func @__oxide_stmatrix(!llvm.ptr, !llvm.ptr, i32, i32)
llvm.func @__oxide_tma_store(!llvm.ptr, !llvm.ptr, i32, i32, i32, i32, i32, i32)
llvm.func @__oxide_tma_store_commit()
llvm.func @__oxide_tma_store_wait(i32)

// stmatrix loads the fragment's registers and stores them; a TMA store keeps its rank's
// coordinates.
// CHECK-LABEL: llvm.func @stores
llvm.func @stores(%row: !llvm.ptr, %frag: !llvm.ptr, %map: !llvm.ptr, %src: !llvm.ptr, %x: i32, %y: i32) {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %c2 = llvm.mlir.constant(2 : i32) : i32
  // CHECK: %[[R0:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> i32
  // CHECK: %[[R1:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> i32
  // CHECK: oxide.stmatrix %{{.*}}, [%[[R0]], %[[R1]]] trans : !llvm.ptr
  llvm.call @__oxide_stmatrix(%row, %frag, %c2, %c1) : (!llvm.ptr, !llvm.ptr, i32, i32) -> ()
  // CHECK: oxide.tma_store %{{.*}}, %{{.*}} box [%{{.*}}, %{{.*}}] : !llvm.ptr, !llvm.ptr
  llvm.call @__oxide_tma_store(%map, %src, %c2, %x, %y, %c0, %c0, %c0) : (!llvm.ptr, !llvm.ptr, i32, i32, i32, i32, i32, i32) -> ()
  // CHECK: oxide.tma_store_commit
  llvm.call @__oxide_tma_store_commit() : () -> ()
  // CHECK: oxide.tma_store_wait 0
  llvm.call @__oxide_tma_store_wait(%c0) : (i32) -> ()
  llvm.return
}

// -----

llvm.func @__oxide_stmatrix(!llvm.ptr, !llvm.ptr, i32, i32)

llvm.func @stmatrix_three(%row: !llvm.ptr, %frag: !llvm.ptr) {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c3 = llvm.mlir.constant(3 : i32) : i32
  // expected-error @+1 {{oxide intrinsic '__oxide_stmatrix' stores 1, 2 or 4 matrices, not 3}}
  llvm.call @__oxide_stmatrix(%row, %frag, %c3, %c0) : (!llvm.ptr, !llvm.ptr, i32, i32) -> ()
  llvm.return
}

// -----

llvm.func @__oxide_tma_store(!llvm.ptr, !llvm.ptr, i32, i32, i32, i32, i32, i32)

llvm.func @tma_store_rank(%map: !llvm.ptr, %src: !llvm.ptr, %rank: i32) {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  // expected-error @+1 {{argument 2 of oxide intrinsic '__oxide_tma_store' must be a compile-time constant}}
  llvm.call @__oxide_tma_store(%map, %src, %rank, %c0, %c0, %c0, %c0, %c0) : (!llvm.ptr, !llvm.ptr, i32, i32, i32, i32, i32, i32) -> ()
  llvm.return
}
