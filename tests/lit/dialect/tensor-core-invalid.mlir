// RUN: oxide-opt %s -split-input-file -verify-diagnostics

llvm.func @mma_type(%r: i32, %f: f32) {
  // expected-error @+1 {{multiplicand type must be bf16, f16, tf32 or i8, not 'f32'}}
  %d:4 = oxide.mma_sync f32 [%r, %r, %r, %r], [%r, %r], [%f, %f, %f, %f] : f32, f32, f32, f32 -> f32, f32, f32, f32
  llvm.return
}

// -----

llvm.func @mma_registers(%r: i32, %f: f32) {
  // expected-error @+1 {{takes 4 registers of A, 2 of B and 4 of C and gives 4 of D, not 4, 1, 4 and 4}}
  %d:4 = oxide.mma_sync bf16 [%r, %r, %r, %r], [%r], [%f, %f, %f, %f] : f32, f32, f32, f32 -> f32, f32, f32, f32
  llvm.return
}

// -----

llvm.func @mma_accumulator(%r: i32) {
  // expected-error @+1 {{accumulates 'bf16' products in 'f32', not 'i32'}}
  %d:4 = oxide.mma_sync bf16 [%r, %r, %r, %r], [%r, %r], [%r, %r, %r, %r] : i32, i32, i32, i32 -> f32, f32, f32, f32
  llvm.return
}

// -----

llvm.func @mma_result(%r: i32) {
  // expected-error @+1 {{gives 'i32' results for 'i8', not 'f32'}}
  %d:4 = oxide.mma_sync i8 [%r, %r, %r, %r], [%r, %r], [%r, %r, %r, %r] : i32, i32, i32, i32 -> f32, f32, f32, f32
  llvm.return
}

// -----

llvm.func @ldmatrix_count(%p: !llvm.ptr) {
  // expected-error @+1 {{loads 1, 2 or 4 matrices, not 3}}
  %m:3 = oxide.ldmatrix %p count 3 : !llvm.ptr -> i32, i32, i32
  llvm.return
}

// -----

llvm.func @ldmatrix_results(%p: !llvm.ptr) {
  // expected-error @+1 {{gives one register per matrix: 4, not 2}}
  %m:2 = oxide.ldmatrix %p count 4 : !llvm.ptr -> i32, i32
  llvm.return
}

// -----

llvm.func @ldmatrix_space(%p: !llvm.ptr<1>) {
  // expected-error @+1 {{reads shared memory: its address must be generic or in address space 3, not 1}}
  %m = oxide.ldmatrix %p count 1 : !llvm.ptr<1> -> i32
  llvm.return
}

// -----

llvm.func @cp_async_bytes(%p: !llvm.ptr, %g: !llvm.ptr) {
  // expected-error @+1 {{copies 4, 8 or 16 bytes, not 2}}
  oxide.cp_async %p, %g, 2 : !llvm.ptr, !llvm.ptr
  llvm.return
}

// -----

llvm.func @cp_async_dst(%p: !llvm.ptr<1>, %g: !llvm.ptr) {
  // expected-error @+1 {{writes shared memory: its destination must be generic or in address space 3, not 1}}
  oxide.cp_async %p, %g, 16 : !llvm.ptr<1>, !llvm.ptr
  llvm.return
}

// -----

llvm.func @cp_async_src(%p: !llvm.ptr, %g: !llvm.ptr<3>) {
  // expected-error @+1 {{reads global memory: its source must be generic or in address space 1, not 3}}
  oxide.cp_async %p, %g, 16 : !llvm.ptr, !llvm.ptr<3>
  llvm.return
}

// -----

llvm.func @cp_async_wait() {
  // expected-error @+1 {{attribute 'pending' failed to satisfy constraint}}
  oxide.cp_async_wait 8
  llvm.return
}
