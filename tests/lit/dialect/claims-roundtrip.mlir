// RUN: oxide-opt %s | FileCheck %s
// RUN: oxide-opt %s | oxide-opt | FileCheck %s

// A claim prints and parses, at any index, with the claim bits in any global pointer type.

// CHECK-LABEL: llvm.func @claim
llvm.func @claim(%data: !llvm.ptr, %n: i64, %bits: !llvm.ptr, %m: i64, %g: !llvm.ptr<1>, %j: i64) -> !llvm.ptr {
  // CHECK: oxide.claimed_elem %{{.*}}[%{{.*}}] claims %{{.*}}[%{{.*}}] at %{{.*}} elem 16 : !llvm.ptr, !llvm.ptr
  // CHECK: oxide.claimed_elem %{{.*}}[%{{.*}}] claims %{{.*}}[%{{.*}}] at %{{.*}} elem 4 : !llvm.ptr, !llvm.ptr<1>
  %e = oxide.claimed_elem %data [%n] claims %bits [%m] at %j elem 16 : !llvm.ptr, !llvm.ptr
  %f = oxide.claimed_elem %data [%n] claims %g [%m] at %j elem 4 : !llvm.ptr, !llvm.ptr<1>
  llvm.return %e : !llvm.ptr
}
