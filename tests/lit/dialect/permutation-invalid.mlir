// RUN: oxide-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of oxide.permuted_elem.

llvm.func @shared_permutation(%data: !llvm.ptr, %n: i64, %perm: !llvm.ptr<3>, %m: i64) {
  %i = oxide.thread_index rank 1 dim x : i64
  // expected-error @+1 {{reads its permutation from address space 3; a permutation is in global memory (address space 0 or 1)}}
  %e = oxide.permuted_elem %data [%n] perm %perm [%m] at %i elem 4 : !llvm.ptr, !llvm.ptr<3>
  llvm.return
}

// -----

llvm.func @zero_element_size(%data: !llvm.ptr, %n: i64, %perm: !llvm.ptr, %m: i64) {
  %i = oxide.thread_index rank 1 dim x : i64
  // expected-error @+1 {{attribute 'elem_size' failed to satisfy constraint}}
  %e = oxide.permuted_elem %data [%n] perm %perm [%m] at %i elem 0 : !llvm.ptr, !llvm.ptr
  llvm.return
}

// -----

llvm.func @element_type(%data: !llvm.ptr, %n: i64, %perm: !llvm.ptr, %m: i64) {
  %i = oxide.thread_index rank 1 dim x : i64
  // expected-error @+1 {{failed to verify that all of {data, element} have same type}}
  %e = "oxide.permuted_elem"(%data, %n, %perm, %m, %i) {elem_size = 4 : i64} : (!llvm.ptr, i64, !llvm.ptr, i64, i64) -> !llvm.ptr<1>
  llvm.return
}
