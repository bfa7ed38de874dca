// RUN: oxide-opt %s | FileCheck %s
// RUN: oxide-opt %s | oxide-opt | FileCheck %s

// The group witnesses, the ownership sets and the AppendSpan reservations print and parse.

// CHECK-LABEL: llvm.func @groups
llvm.func @groups() -> i64 {
  // CHECK: %[[W:.*]] = oxide.group_index warp : i64
  // CHECK: oxide.group_index block : i64
  // CHECK: oxide.group_index cluster : i64
  // CHECK: oxide.group_stride_next %[[W]] warp : i64
  %w = oxide.group_index warp : i64
  %b = oxide.group_index block : i64
  %c = oxide.group_index cluster : i64
  %n = oxide.group_stride_next %w warp : i64
  llvm.return %n : i64
}

// CHECK-LABEL: llvm.func @sets
llvm.func @sets(%p: !llvm.ptr, %n: i64, %j: i64, %h: i64) {
  %w = oxide.group_index warp : i64
  %x = oxide.thread_index rank 2 dim x : i64
  %y = oxide.thread_index rank 2 dim y : i64
  %i = oxide.thread_index rank 1 dim x : i64
  // CHECK: oxide.owned_elem %{{.*}}[%{{.*}}] owner[%{{.*}}] at %{{.*}} elem 4 shape warp_leader : !llvm.ptr
  // CHECK: oxide.owned_elem %{{.*}}[%{{.*}}, %{{.*}}] owner[%{{.*}}] at %{{.*}} elem 4 shape warp_lanes : !llvm.ptr
  // CHECK: oxide.owned_elem %{{.*}}[%{{.*}}, %{{.*}}] owner[%{{.*}}, %{{.*}}] at %{{.*}} elem 8 shape strided_rows count 4 : !llvm.ptr
  // CHECK: oxide.owned_elem %{{.*}}[%{{.*}}] owner[%{{.*}}] at %{{.*}} uniform %{{.*}} elem 4 shape pair : !llvm.ptr
  // CHECK: oxide.owned_elem %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] owner[%{{.*}}, %{{.*}}] at %{{.*}} elem 4 shape z_column : !llvm.ptr
  // CHECK: oxide.owned_elem %{{.*}}[%{{.*}}, %{{.*}}] owner[%{{.*}}] at %{{.*}} elem 4 shape warpgroup_tile tile [256, 2, 1, 16] : !llvm.ptr
  // CHECK: oxide.owned_elem %{{.*}}[%{{.*}}, %{{.*}}] owner[%{{.*}}] at %{{.*}} elem 4 shape warpgroup_tile tile [256, 2, 1, 16] lanes 2 : !llvm.ptr
  // CHECK: oxide.owned_elem %{{.*}}[%{{.*}}, %{{.*}}] owner[%{{.*}}] at %{{.*}} uniform %{{.*}} elem 2 shape warpgroup_tile tile [64, 2, 1, 1, 1] lanes 2 : !llvm.ptr
  %a = oxide.owned_elem %p [%n] owner [%w] at %j elem 4 shape warp_leader : !llvm.ptr
  %b = oxide.owned_elem %p [%n, %n] owner [%w] at %j elem 4 shape warp_lanes : !llvm.ptr
  %c = oxide.owned_elem %p [%n, %n] owner [%x, %y] at %j elem 8 shape strided_rows count 4 : !llvm.ptr
  %d = oxide.owned_elem %p [%n] owner [%i] at %j uniform %h elem 4 shape pair : !llvm.ptr
  %e = oxide.owned_elem %p [%n, %n, %n] owner [%x, %y] at %j elem 4 shape z_column : !llvm.ptr
  %bi = oxide.group_index block : i64
  %f = oxide.owned_elem %p [%n, %n] owner [%bi] at %j elem 4 shape warpgroup_tile tile [256, 2, 1, 16] : !llvm.ptr
  %g = oxide.owned_elem %p [%n, %n] owner [%bi] at %j elem 4 shape warpgroup_tile tile [256, 2, 1, 16] lanes 2 : !llvm.ptr
  %l = oxide.owned_elem %p [%n, %n] owner [%bi] at %j uniform %n elem 2 shape warpgroup_tile tile [64, 2, 1, 1, 1] lanes 2 : !llvm.ptr
  llvm.return
}

// CHECK-LABEL: llvm.func @reservations
llvm.func @reservations(%data: !llvm.ptr, %counter: !llvm.ptr, %n: i64, %count: i64, %j: i64) -> !llvm.ptr {
  // CHECK: %[[S:.*]] = oxide.reserve %{{.*}}, %{{.*}} : !llvm.ptr -> i64
  // CHECK: oxide.reserved_elem %{{.*}}[%{{.*}}] slot %[[S]] count %{{.*}} at %{{.*}} elem 4 : !llvm.ptr
  %s = oxide.reserve %counter, %count : !llvm.ptr -> i64
  %e = oxide.reserved_elem %data [%n] slot %s count %count at %j elem 4 : !llvm.ptr
  llvm.return %e : !llvm.ptr
}
