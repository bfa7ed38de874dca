// RUN: oxide-opt %s -split-input-file -verify-diagnostics

llvm.func @load_with_store_hint(%p: !llvm.ptr) -> i32 {
  // expected-error @+1 {{cache operator 'wt' is a store's; a load takes nc, ca, cg, cs, lu or cv}}
  %v = oxide.cached_load wt %p : !llvm.ptr -> i32
  llvm.return %v : i32
}

// -----

llvm.func @store_with_load_hint(%p: !llvm.ptr, %v: i32) {
  // expected-error @+1 {{cache operator 'nc' is a load's; a store takes wb, cg, cs or wt}}
  oxide.cached_store nc %v, %p : i32, !llvm.ptr
  llvm.return
}

// -----

llvm.func @store_with_last_use(%p: !llvm.ptr, %v: i32) {
  // expected-error @+1 {{cache operator 'lu' is a load's}}
  oxide.cached_store lu %v, %p : i32, !llvm.ptr
  llvm.return
}

// -----

llvm.func @load_from_shared(%p: !llvm.ptr<3>) -> i32 {
  // expected-error @+1 {{accesses global memory: its address must be generic or in address space 1, not 3}}
  %v = oxide.cached_load cs %p : !llvm.ptr<3> -> i32
  llvm.return %v : i32
}

// -----

llvm.func @store_to_local(%p: !llvm.ptr<5>, %v: i32) {
  // expected-error @+1 {{accesses global memory: its address must be generic or in address space 1, not 5}}
  oxide.cached_store cs %v, %p : i32, !llvm.ptr<5>
  llvm.return
}

// -----

llvm.func @load_three_words(%p: !llvm.ptr) -> vector<3xi32> {
  // expected-error @+1 {{result #0 must be}}
  %v = oxide.cached_load cs %p : !llvm.ptr -> vector<3xi32>
  llvm.return %v : vector<3xi32>
}

// -----

llvm.func @store_float(%p: !llvm.ptr, %v: f32) {
  // expected-error @+1 {{operand #0 must be}}
  oxide.cached_store cs %v, %p : f32, !llvm.ptr
  llvm.return
}
