// RUN: oxide-opt %s -split-input-file -verify-diagnostics

llvm.func @shared_address_space(%p: !llvm.ptr<1>) {
  // expected-error @+1 {{takes a pointer that is in shared memory: its address must be generic or in address space 3, not 1}}
  %a = oxide.shared_address %p : !llvm.ptr<1> -> i32
  llvm.return
}

// -----

llvm.func @mbarrier_init_space(%p: !llvm.ptr<1>, %n: i32) {
  // expected-error @+1 {{'s barrier is in shared memory: its address must be generic or in address space 3, not 1}}
  oxide.mbarrier_init %p, %n : !llvm.ptr<1>
  llvm.return
}

// -----

llvm.func @mbarrier_arrive_space(%p: !llvm.ptr<5>) {
  // expected-error @+1 {{'s barrier is in shared memory: its address must be generic or in address space 3, not 5}}
  oxide.mbarrier_arrive %p : !llvm.ptr<5>
  llvm.return
}

// -----

llvm.func @mbarrier_expect_tx_space(%p: !llvm.ptr<1>, %n: i32) {
  // expected-error @+1 {{'s barrier is in shared memory}}
  oxide.mbarrier_arrive_expect_tx %p, %n : !llvm.ptr<1>
  llvm.return
}

// -----

llvm.func @mbarrier_cluster_space(%p: !llvm.ptr<1>, %n: i32) {
  // expected-error @+1 {{'s barrier is in shared memory}}
  oxide.mbarrier_arrive_cluster %p, %n : !llvm.ptr<1>
  llvm.return
}

// -----

llvm.func @mbarrier_wait_space(%p: !llvm.ptr<1>, %n: i32) {
  // expected-error @+1 {{'s barrier is in shared memory}}
  %d = oxide.mbarrier_try_wait_parity %p, %n : !llvm.ptr<1> -> i32
  llvm.return
}

// -----

llvm.func @mbarrier_inval_space(%p: !llvm.ptr<4>) {
  // expected-error @+1 {{'s barrier is in shared memory}}
  oxide.mbarrier_inval %p : !llvm.ptr<4>
  llvm.return
}

// -----

llvm.func @tma_rank(%p: !llvm.ptr, %x: i32) {
  // expected-error @+1 {{copies a box of rank 1 to 5 (one coordinate per dimension), not 6}}
  oxide.tma_load %p, %p, %p box [%x, %x, %x, %x, %x, %x] : !llvm.ptr, !llvm.ptr, !llvm.ptr
  llvm.return
}

// -----

llvm.func @tma_rank_zero(%p: !llvm.ptr) {
  // expected-error @+1 {{copies a box of rank 1 to 5 (one coordinate per dimension), not 0}}
  oxide.tma_load %p, %p, %p box [] : !llvm.ptr, !llvm.ptr, !llvm.ptr
  llvm.return
}

// -----

llvm.func @tma_destination(%p: !llvm.ptr, %g: !llvm.ptr<1>, %x: i32) {
  // expected-error @+1 {{'s destination is in shared memory: its address must be generic or in address space 3, not 1}}
  oxide.tma_load %g, %p, %p box [%x] : !llvm.ptr<1>, !llvm.ptr, !llvm.ptr
  llvm.return
}

// -----

llvm.func @tma_barrier(%p: !llvm.ptr, %g: !llvm.ptr<1>, %x: i32) {
  // expected-error @+1 {{'s barrier is in shared memory: its address must be generic or in address space 3, not 1}}
  oxide.tma_load %p, %p, %g box [%x] : !llvm.ptr, !llvm.ptr, !llvm.ptr<1>
  llvm.return
}

// -----

llvm.func @tma_map(%p: !llvm.ptr, %s: !llvm.ptr<3>, %x: i32) {
  // expected-error @+1 {{reads its TensorMap from global memory: the map's address must be generic or in address space 1, not 3}}
  oxide.tma_load %p, %s, %p box [%x] : !llvm.ptr, !llvm.ptr<3>, !llvm.ptr
  llvm.return
}

// -----

llvm.func @tma_prefetch_map(%s: !llvm.ptr<3>) {
  // expected-error @+1 {{reads its TensorMap from global memory: the map's address must be generic or in address space 1, not 3}}
  oxide.tma_prefetch %s : !llvm.ptr<3>
  llvm.return
}

// -----

llvm.func @wgmma_n(%d: i64, %f: f32) {
  // expected-error @+1 {{n of a bf16 wgmma is 8..256 in steps of 8, not 12}}
  %r:6 = oxide.wgmma bf16 n 12 %d, %d, [%f, %f, %f, %f, %f, %f] : f32, f32, f32, f32, f32, f32 -> f32, f32, f32, f32, f32, f32
  llvm.return
}

// -----

llvm.func @wgmma_n_s8(%d: i64, %i: i32) {
  // expected-error @+1 {{n of a s8 wgmma is 16..256 in steps of 16, not 8}}
  %r:4 = oxide.wgmma s8 n 8 %d, %d, [%i, %i, %i, %i] : i32, i32, i32, i32 -> i32, i32, i32, i32
  llvm.return
}

// -----

llvm.func @wgmma_n_large(%d: i64, %f: f32) {
  // expected-error @+1 {{n of a tf32 wgmma is 8..256 in steps of 8, not 264}}
  %r:1 = oxide.wgmma tf32 n 264 %d, %d, [%f] : f32 -> f32
  llvm.return
}

// -----

llvm.func @wgmma_registers(%d: i64, %f: f32) {
  // expected-error @+1 {{m64n16 takes and gives n/2 = 8 accumulator registers per thread, not 4 and 4}}
  %r:4 = oxide.wgmma bf16 n 16 %d, %d, [%f, %f, %f, %f] : f32, f32, f32, f32 -> f32, f32, f32, f32
  llvm.return
}

// -----

llvm.func @wgmma_accumulator(%d: i64, %i: i32) {
  // expected-error @+1 {{accumulates bf16 products in 'f32', not 'i32'}}
  %r:4 = oxide.wgmma bf16 n 8 %d, %d, [%i, %i, %i, %i] : i32, i32, i32, i32 -> f32, f32, f32, f32
  llvm.return
}

// -----

llvm.func @wgmma_result(%d: i64, %i: i32) {
  // expected-error @+1 {{gives 'i32' results for s8, not 'f32'}}
  %r:8 = oxide.wgmma s8 n 16 %d, %d, [%i, %i, %i, %i, %i, %i, %i, %i] : i32, i32, i32, i32, i32, i32, i32, i32 -> f32, f32, f32, f32, f32, f32, f32, f32
  llvm.return
}

// -----

llvm.func @wgmma_transpose(%d: i64, %f: f32) {
  // expected-error @+1 {{transposes only bf16 and f16 operands (the others are K-major), not tf32}}
  %r:4 = oxide.wgmma tf32 n 8 %d, %d, [%f, %f, %f, %f] trans_b : f32, f32, f32, f32 -> f32, f32, f32, f32
  llvm.return
}

// -----

llvm.func @wgmma_transpose_e4m3(%d: i64, %f: f32) {
  // expected-error @+1 {{transposes only bf16 and f16 operands (the others are K-major), not e4m3}}
  %r:4 = oxide.wgmma e4m3 n 8 %d, %d, [%f, %f, %f, %f] trans_a : f32, f32, f32, f32 -> f32, f32, f32, f32
  llvm.return
}

// -----

llvm.func @wgmma_wait() {
  // expected-error @+1 {{waits for at most 7 pending groups, not 8}}
  oxide.wgmma_wait_group 8
  llvm.return
}

// -----

llvm.func @setmaxnreg_step() {
  // expected-error @+1 {{sets a register count that is a multiple of 8 in 24..256, not 100}}
  oxide.setmaxnreg 100 increase
  llvm.return
}

// -----

llvm.func @setmaxnreg_small() {
  // expected-error @+1 {{sets a register count that is a multiple of 8 in 24..256, not 16}}
  oxide.setmaxnreg 16 decrease
  llvm.return
}

// -----

llvm.func @setmaxnreg_large() {
  // expected-error @+1 {{sets a register count that is a multiple of 8 in 24..256, not 264}}
  oxide.setmaxnreg 264 increase
  llvm.return
}

// -----

llvm.func @wgmma_register_a_count(%d: i64, %f: f32, %i: i32) {
  // expected-error @+1 {{takes A as 4 32-bit registers per thread, not 2}}
  %r:4 = oxide.wgmma_register_a bf16 n 8 [%i, %i], %d, [%f, %f, %f, %f] : f32, f32, f32, f32 -> f32, f32, f32, f32
  llvm.return
}

// -----

llvm.func @wgmma_register_a_transpose(%d: i64, %f: f32, %i: i32) {
  // expected-error @+1 {{transposes only bf16 and f16 operands (the others are K-major), not e4m3}}
  %r:4 = oxide.wgmma_register_a e4m3 n 8 [%i, %i, %i, %i], %d, [%f, %f, %f, %f] trans_b : f32, f32, f32, f32 -> f32, f32, f32, f32
  llvm.return
}

// -----

llvm.func @wgmma_register_a_registers(%d: i64, %f: f32, %i: i32) {
  // expected-error @+1 {{m64n16 takes and gives n/2 = 8 accumulator registers per thread, not 4 and 4}}
  %r:4 = oxide.wgmma_register_a f16 n 16 [%i, %i, %i, %i], %d, [%f, %f, %f, %f] : f32, f32, f32, f32 -> f32, f32, f32, f32
  llvm.return
}
