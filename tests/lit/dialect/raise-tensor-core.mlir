// RUN: oxide-opt %s -oxide-raise -split-input-file -verify-diagnostics | FileCheck %s

llvm.func @__oxide_mma_m16n8k16_bf16(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr)
llvm.func @__oxide_mma_m16n8k32_s8(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr)
llvm.func @__oxide_ldmatrix(!llvm.ptr, !llvm.ptr, i32, i32)
llvm.func @__oxide_cp_async(!llvm.ptr, !llvm.ptr, i32, i32)
llvm.func @__oxide_cp_async_commit()
llvm.func @__oxide_cp_async_wait(i32)

// The fragments' registers are loaded before the op and its results stored after it, so that d
// may be c.
// CHECK-LABEL: llvm.func @mma
llvm.func @mma(%d: !llvm.ptr, %a: !llvm.ptr, %b: !llvm.ptr, %c: !llvm.ptr) {
  // CHECK-COUNT-6: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> i32
  // CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> f32
  // CHECK: %[[D:.*]]:4 = oxide.mma_sync bf16 [{{.*}}] : f32, f32, f32, f32 -> f32, f32, f32, f32
  // CHECK: llvm.store %[[D]]#0, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr
  // CHECK: %[[D3:.*]] = llvm.getelementptr %{{.*}}[3] : (!llvm.ptr) -> !llvm.ptr, f32
  // CHECK: llvm.store %[[D]]#3, %[[D3]]
  llvm.call @__oxide_mma_m16n8k16_bf16(%d, %a, %b, %d) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
  // CHECK: oxide.mma_sync i8 {{.*}} : i32, i32, i32, i32 -> i32, i32, i32, i32
  llvm.call @__oxide_mma_m16n8k32_s8(%d, %a, %b, %c) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
  // CHECK-NOT: llvm.call
  llvm.return
}

// CHECK-LABEL: llvm.func @copies
llvm.func @copies(%frag: !llvm.ptr, %row: !llvm.ptr, %dst: !llvm.ptr, %src: !llvm.ptr, %n: i32) {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %c4 = llvm.mlir.constant(4 : i32) : i32
  %c16 = llvm.mlir.constant(16 : i32) : i32
  // CHECK: %[[M:.*]]:4 = oxide.ldmatrix %{{.*}} count 4 trans : !llvm.ptr -> i32, i32, i32, i32
  // CHECK: llvm.store %[[M]]#0
  llvm.call @__oxide_ldmatrix(%frag, %row, %c4, %c1) : (!llvm.ptr, !llvm.ptr, i32, i32) -> ()
  // A whole copy drops src_bytes; a partial one keeps it.
  // CHECK: oxide.cp_async %{{.*}}, %{{.*}}, 16 : !llvm.ptr, !llvm.ptr
  llvm.call @__oxide_cp_async(%dst, %src, %c16, %c16) : (!llvm.ptr, !llvm.ptr, i32, i32) -> ()
  // CHECK: oxide.cp_async %{{.*}}, %{{.*}}, 16 src_bytes %{{.*}} : !llvm.ptr, !llvm.ptr
  llvm.call @__oxide_cp_async(%dst, %src, %c16, %n) : (!llvm.ptr, !llvm.ptr, i32, i32) -> ()
  // CHECK: oxide.cp_async_commit
  llvm.call @__oxide_cp_async_commit() : () -> ()
  // CHECK: oxide.cp_async_wait 0
  llvm.call @__oxide_cp_async_wait(%c0) : (i32) -> ()
  llvm.return
}

// -----

llvm.func @__oxide_ldmatrix(!llvm.ptr, !llvm.ptr, i32, i32)

llvm.func @ldmatrix_three(%frag: !llvm.ptr, %row: !llvm.ptr) {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c3 = llvm.mlir.constant(3 : i32) : i32
  // expected-error @+1 {{oxide intrinsic '__oxide_ldmatrix' loads 1, 2 or 4 matrices, not 3}}
  llvm.call @__oxide_ldmatrix(%frag, %row, %c3, %c0) : (!llvm.ptr, !llvm.ptr, i32, i32) -> ()
  llvm.return
}

// -----

llvm.func @__oxide_cp_async(!llvm.ptr, !llvm.ptr, i32, i32)

llvm.func @cp_async_size(%dst: !llvm.ptr, %src: !llvm.ptr, %n: i32) {
  // expected-error @+1 {{argument 2 of oxide intrinsic '__oxide_cp_async' must be a compile-time constant}}
  llvm.call @__oxide_cp_async(%dst, %src, %n, %n) : (!llvm.ptr, !llvm.ptr, i32, i32) -> ()
  llvm.return
}
