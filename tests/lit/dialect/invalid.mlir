// RUN: oxide-opt %s -split-input-file -verify-diagnostics

llvm.func @rank_zero() {
  // expected-error @+1 {{attribute 'rank' failed to satisfy constraint}}
  %i = oxide.thread_index rank 0 : i64
  llvm.return
}

// -----

llvm.func @rank_four() {
  // expected-error @+1 {{attribute 'rank' failed to satisfy constraint}}
  %i = oxide.thread_index rank 4 : i64
  llvm.return
}

// -----

llvm.func @wrong_type() {
  // expected-error @+1 {{must be 64-bit signless integer}}
  %i = oxide.thread_index rank 1 : i32
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
