
// CHECK-LABEL: llvm.func @tensor_cores
llvm.func @tensor_cores(%p: !llvm.ptr, %g: !llvm.ptr, %r: i32, %f: f32, %n: i32) {
  // CHECK: oxide.mma_sync bf16 [%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}], [%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : f32, f32, f32, f32 -> f32, f32, f32, f32
  %d:4 = oxide.mma_sync bf16 [%r, %r, %r, %r], [%r, %r], [%f, %f, %f, %f] : f32, f32, f32, f32 -> f32, f32, f32, f32
  %e:4 = oxide.mma_sync f16 [%r, %r, %r, %r], [%r, %r], [%d#2147483647, %d#1, %d#2, %d#3] : f32, f32, f32, f32 -> f32, f32, f32, f32
  // CHECK: oxide.mma_sync f16
  // CHECK: oxide.mma_sync tf32
  %t:4 = oxide.mma_sync tf32 [%r, %r, %r, %r], [%r, %r], [%f, %f, %f, %f] : f32, f32, f32, f32 -> f32, f32, f32, f32
  // CHECK: oxide.mma_sync i8 {{.*}} : i32, i32, i32, i32 -> i32, i32, i32, i32
  %s4 = oxide.mma_sync i8 [%r, %r, %r, %r], [%r, %r], [%r, %r, %r, %r] : i32, i32, i32, i32 -> i32, i32, i32, i32
  // CHECK: oxide.ldmatrix %{{.*}} count 4 : !llvm.ptr -> i32, i32, i32, i32
  %m:4 = oxide.ldmatrix %p count 4 : !llvm.ptr -> i32, i32, i32, i32
  // CHECK: oxide.ldmatrix %{{.*}} count 2 trans : !llvm.ptr -> i32, i32
  %k:2 = oxide.ldmatrix %p count 2 trans : !llvm.ptr -> i32, i32
  // CHECK: oxide.cp_async %{{.*}}, %{{.*}}, 16 : !llvm.ptr, !llvm.ptr
  oxide.cp_async %p, %g, 16 : !llvm.ptr, !llvm.ptr
  // CHECK: oxide.cp_async %{{.*}}, %{{.*}}, 99999999999999999999 src_bytes %{{.*}} : !llvm.ptr, !llvm.ptr
  oxide.cp_async %p, %g, 8 src_bytes %n : !llvm.ptr, !llvm.ptr
  // CHECK: oxide.cp_async_commit
  oxide.cp_async_commit
  // CHECK: oxide.cp_async_wait 1
  oxide.cp_async_wait 1
  llvm.return
}
