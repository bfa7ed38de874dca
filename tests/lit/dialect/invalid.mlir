// RUN: oxide-opt %s -split-input-file -verify-diagnostics

llvm.func @rank_zero() {
  // expected-error @+1 {{attribute 'rank' failed to satisfy constraint}}
  %i = oxide.thread_index rank 0 dim x : i64
  llvm.return
}

// -----

llvm.func @rank_four() {
  // expected-error @+1 {{attribute 'rank' failed to satisfy constraint}}
  %i = oxide.thread_index rank 4 dim x : i64
  llvm.return
}

// -----

llvm.func @wrong_type() {
  // expected-error @+1 {{must be 64-bit signless integer}}
  %i = oxide.thread_index rank 1 dim x : i32
  llvm.return
}

// -----

// expected-error @+1 {{kernel 'returns_value' must return void}}
llvm.func @returns_value() -> i32 attributes {oxide.kernel} {
  %c = llvm.mlir.constant(0 : i32) : i32
  llvm.return %c : i32
}

// -----

// expected-error @+1 {{kernel 'no_body' has no body}}
llvm.func @no_body() attributes {oxide.kernel}

// -----

// expected-error @+1 {{'oxide.kernel' must be a unit attribute}}
llvm.func @not_unit() attributes {oxide.kernel = 1 : i32} {
  llvm.return
}

// -----

// expected-error @+1 {{'oxide.kernel' may only mark an llvm.func}}
llvm.mlir.global external @g() {oxide.kernel} : i32

// -----

// expected-error @+1 {{unknown oxide attribute 'oxide.kernal'}}
llvm.func @typo() attributes {oxide.kernal} {
  llvm.return
}

// -----

llvm.func @shared_too_big() {
  // expected-error @+1 {{allocates 65536 bytes of shared memory; at most 49152 bytes of static shared memory fit in a block}}
  %s = oxide.shared_alloc @site size 65536 align 4 : !llvm.ptr
  llvm.return
}

// -----

llvm.func @shared_bad_align() {
  // expected-error @+1 {{attribute 'alignment' failed to satisfy constraint}}
  %s = oxide.shared_alloc @site size 64 align 3 : !llvm.ptr
  llvm.return
}

// -----

llvm.func @bad_dim() {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'dim' [x, y, z]}}
  %t = oxide.geometry thread_idx w : i32
  llvm.return
}

// -----

llvm.func @dim_outside_rank() {
  // expected-error @+1 {{dimension y does not exist in a rank-1 launch}}
  %i = oxide.thread_index rank 1 dim y : i64
  llvm.return
}

// -----

llvm.func @disjoint_mismatch(%p: !llvm.ptr, %n: i64) {
  %x = oxide.thread_index rank 1 dim x : i64
  // expected-error @+1 {{has 2 extents but 1 coordinates}}
  %e = oxide.disjoint_get %p [%n, %n] at [%x] elem 4 : !llvm.ptr
  llvm.return
}

// -----

// expected-error @+1 {{malformed 'oxide.params'}}
llvm.func @bad_params() attributes {oxide.kernel, oxide.params = "a"} {
  llvm.return
}

// -----

// expected-error @+1 {{malformed contract on kernel 'bad_contract': domain must be 1, 2 or 3}}
llvm.func @bad_contract() attributes {oxide.kernel, oxide.params = "", oxide.contract = "domain = 5"} {
  llvm.return
}

// -----

llvm.func @tile_rows_on_a_line(%p: !llvm.ptr, %n: i64) {
  %x = oxide.thread_index rank 1 dim x : i64
  // expected-error @+1 {{tile_rows needs a 2-D output}}
  %e = oxide.disjoint_get %p [%n] at [%x] elem 4 tile_rows 2 : !llvm.ptr
  llvm.return
}

// -----

llvm.func @tile_of_a_volume(%p: !llvm.ptr, %n: i64) {
  %x = oxide.thread_index rank 3 dim x : i64
  %y = oxide.thread_index rank 3 dim y : i64
  %z = oxide.thread_index rank 3 dim z : i64
  // expected-error @+1 {{tiles are 1-D or 2-D only}}
  %e = oxide.disjoint_get %p [%n, %n, %n] at [%x, %y, %z] elem 4 tile 2 : !llvm.ptr
  llvm.return
}

// -----

llvm.func @within_without_tile(%p: !llvm.ptr, %n: i64, %j: i64) {
  %x = oxide.thread_index rank 1 dim x : i64
  // expected-error @+1 {{names an element 'within' a tile but has no tile}}
  %e = oxide.disjoint_get %p [%n] at [%x] within [%j] elem 4 : !llvm.ptr
  llvm.return
}

// -----

llvm.func @within_rank(%p: !llvm.ptr, %n: i64, %j: i64) {
  %x = oxide.thread_index rank 2 dim x : i64
  %y = oxide.thread_index rank 2 dim y : i64
  // expected-error @+1 {{has 1 in-tile coordinates but 2 coordinates}}
  %e = oxide.disjoint_get %p [%n, %n] at [%x, %y] within [%j] elem 4 tile 2 tile_rows 2 : !llvm.ptr
  llvm.return
}

// -----

llvm.func @span_elem_size(%p: !llvm.ptr, %n: i64, %j: i64) {
  // expected-error @+1 {{attribute 'elem_size' failed to satisfy constraint}}
  %e = oxide.span_elem %p [%n] at %j elem 0 : !llvm.ptr
  llvm.return
}
