// RUN: oxide-opt %s | FileCheck %s
// RUN: oxide-opt %s | oxide-opt | FileCheck %s

// A scatter through a permutation prints and parses, with the permutation in any pointer type.

// CHECK-LABEL: llvm.func @scatter
llvm.func @scatter(%data: !llvm.ptr, %n: i64, %perm: !llvm.ptr, %m: i64, %g: !llvm.ptr<1>) -> !llvm.ptr {
  %i = oxide.thread_index rank 1 dim x : i64
  // CHECK: %[[I:.*]] = oxide.thread_index rank 1 dim x : i64
  // CHECK: oxide.permuted_elem %{{.*}}[%{{.*}}] perm %{{.*}}[%{{.*}}] at %[[I]] elem 4 : !llvm.ptr, !llvm.ptr
  // CHECK: oxide.permuted_elem %{{.*}}[%{{.*}}] perm %{{.*}}[%{{.*}}] at %[[I]] elem 16 : !llvm.ptr, !llvm.ptr<1>
  %e = oxide.permuted_elem %data [%n] perm %perm [%m] at %i elem 4 : !llvm.ptr, !llvm.ptr
  %f = oxide.permuted_elem %data [%n] perm %g [%m] at %i elem 16 : !llvm.ptr, !llvm.ptr<1>
  llvm.return %e : !llvm.ptr
}
