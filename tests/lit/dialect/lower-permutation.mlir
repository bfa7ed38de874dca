// RUN: oxide-opt %s -oxide-to-nvvm | FileCheck %s

// A scatter loads perm[i < m ? i : 0] (index 0 always exists), an invariant 32-bit load widened
// without nneg (an index may have its top bit set), and gives data + perm[i] * 4 when i < m and
// perm[i] < n, else null.
// CHECK-LABEL: llvm.func @scatter
// CHECK: %[[IN:.*]] = llvm.icmp "ult" %[[I:.*]], %arg3 : i64
// CHECK: %[[AT:.*]] = llvm.select %[[IN]], %[[I]], %{{.*}} : i1, i64
// CHECK: %[[ADDR:.*]] = llvm.getelementptr inbounds %arg2[%[[AT]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK: %[[P:.*]] = llvm.load %[[ADDR]] invariant {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK: %[[P64:.*]] = llvm.zext %[[P]] : i32 to i64
// CHECK: %[[FITS:.*]] = llvm.icmp "ult" %[[P64]], %arg1 : i64
// CHECK: %[[OK:.*]] = llvm.and %[[IN]], %[[FITS]] : i1
// CHECK: %[[OFF:.*]] = llvm.mul %[[P64]], %{{.*}} overflow<nuw> : i64
// CHECK: %[[E:.*]] = llvm.getelementptr inbounds %arg0[%[[OFF]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK: llvm.select %[[OK]], %[[E]], %{{.*}} : i1, !llvm.ptr
llvm.func @scatter(%data: !llvm.ptr, %n: i64, %perm: !llvm.ptr, %m: i64) -> !llvm.ptr {
  %i = oxide.thread_index rank 1 dim x : i64
  %e = oxide.permuted_elem %data [%n] perm %perm [%m] at %i elem 4 : !llvm.ptr, !llvm.ptr
  llvm.return %e : !llvm.ptr
}
