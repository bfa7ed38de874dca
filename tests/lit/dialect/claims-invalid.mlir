// RUN: oxide-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of oxide.claimed_elem.

llvm.func @shared_claims(%data: !llvm.ptr, %n: i64, %bits: !llvm.ptr<3>, %m: i64, %j: i64) {
  // expected-error @+1 {{sets claim bits in address space 3; a ClaimSet is in global memory (address space 0 or 1)}}
  %e = oxide.claimed_elem %data [%n] claims %bits [%m] at %j elem 4 : !llvm.ptr, !llvm.ptr<3>
  llvm.return
}

// -----

llvm.func @zero_element_size(%data: !llvm.ptr, %n: i64, %bits: !llvm.ptr, %m: i64, %j: i64) {
  // expected-error @+1 {{attribute 'elem_size' failed to satisfy constraint}}
  %e = oxide.claimed_elem %data [%n] claims %bits [%m] at %j elem 0 : !llvm.ptr, !llvm.ptr
  llvm.return
}

// -----

llvm.func @element_type(%data: !llvm.ptr, %n: i64, %bits: !llvm.ptr, %m: i64, %j: i64) {
  // expected-error @+1 {{failed to verify that all of {data, element} have same type}}
  %e = "oxide.claimed_elem"(%data, %n, %bits, %m, %j) {elem_size = 4 : i64} : (!llvm.ptr, i64, !llvm.ptr, i64, i64) -> !llvm.ptr<1>
  llvm.return
}
