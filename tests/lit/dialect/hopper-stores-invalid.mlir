// RUN: oxide-opt %s -split-input-file -verify-diagnostics

llvm.func @stmatrix_count(%p: !llvm.ptr, %r: i32) {
  // expected-error @+1 {{stores 1, 2 or 4 matrices (one register each), not 3}}
  oxide.stmatrix %p, [%r, %r, %r] : !llvm.ptr
  llvm.return
}

// -----

llvm.func @stmatrix_space(%p: !llvm.ptr<1>, %r: i32) {
  // expected-error @+1 {{writes shared memory: its address must be generic or in address space 3, not 1}}
  oxide.stmatrix %p, [%r] : !llvm.ptr<1>
  llvm.return
}

// -----

llvm.func @tma_store_rank(%map: !llvm.ptr, %src: !llvm.ptr, %x: i32) {
  // expected-error @+1 {{copies a box of rank 1 to 5 (one coordinate per dimension), not 6}}
  oxide.tma_store %map, %src box [%x, %x, %x, %x, %x, %x] : !llvm.ptr, !llvm.ptr
  llvm.return
}

// -----

llvm.func @tma_store_source_space(%map: !llvm.ptr, %src: !llvm.ptr<1>, %x: i32) {
  // expected-error @+1 {{'s source is in shared memory: its address must be generic or in address space 3, not 1}}
  oxide.tma_store %map, %src box [%x] : !llvm.ptr, !llvm.ptr<1>
  llvm.return
}

// -----

llvm.func @tma_store_map_space(%map: !llvm.ptr<3>, %src: !llvm.ptr, %x: i32) {
  // expected-error @+1 {{reads its TensorMap from global memory: the map's address must be generic or in address space 1, not 3}}
  oxide.tma_store %map, %src box [%x] : !llvm.ptr<3>, !llvm.ptr
  llvm.return
}

// -----

llvm.func @tma_store_wait_pending() {
  // expected-error @+1 {{waits for at most 7 pending groups, not 8}}
  oxide.tma_store_wait 8
  llvm.return
}
