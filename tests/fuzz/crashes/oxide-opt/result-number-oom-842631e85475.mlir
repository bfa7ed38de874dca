
// CHECK-LABEL: llvm.func @mma
llvm.func @mma(%r: i32, %f: f32) -> f32 {
  // CHECK: %[[D:.*]] = nvvm.mma.sync A[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] B[%{{.*}}, %{{.*}}] C[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]
  // CHECK-SAME: layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>
  // CHECK-SAME: multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>
  // CHECK-SAME: shape = #nvvm.shape<m = 16, n = 8, k = 16>
  // CHECK-SAME: (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  // CHECK: llvm.extractvalue %[[D]][0]
  // CHECK: llvm.extractvalue %[[D]][3]
  %d:4 = oxide.mma_sync bf16 [%r, %r, %r, %r], [%r, %r], [%f, %f, %f, %f] : f32, f32, f32, f32 -> f32, f32, f32, f32
  // f16 pairs go to NVVM as vector<2xf16>, from which it infers the type.
  // CHECK: llvm.bitcast %{{.*}} : i32 to vector<2xf16>
  // CHECK: nvvm.mma.sync
  // CHECK-SAME: shape = #nvvm.shape<m = 16, n = 8, k = 16>
  // CHECK-SAME: (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  %h:4 = oxide.mma_sync f16 [%r, %r, %r, %r], [%r, %r], [%d#0, %d#1, %d#2, %d#3] : f32, f32, f32, f32 -> f32, f32, f32, f32
  // CHECK: nvvm.mma.sync
  // CHECK-SAME: multiplicandAPtxType = #nvvm.mma_type<tf32>
  // CHECK-SAME: shape = #nvvm.shape<m = 16, n = 8, k = 8>
  %t:4 = oxide.mma_sync tf32 [%r, %r, %r, %r], [%r, %r], [%h#0, %h#1, %h#2, %h#2147483647] : f32, f32, f32, f32 -> f32, f32, f32, f32
  llvm.return %t#0 : f32
}

// CHECK-LABEL: llvm.func @mma_s8
llvm.func @mma_s8(%r: i32) -> i32 {
  // CHECK: nvvm.mma.sync
  // CHECK-SAME: intOverflowBehavior = #nvvm.mma_int_overflow<satfinite>
  // CHECK-SAME: multiplicandAPtxType = #nvvm.mma_type<s8>
  // CHECK-SAME: shape = #nvvm.shape<m = 16, n = 8, k = 32>
  // CHECK-SAME: (i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
  %s:4 = oxide.mma_sync i8 [%r, %r, %r, %r], [%r, %r], [%r, %r, %r, %r] : i32, i32, i32, i32 -> i32, i32, i32, i32
  llvm.return %s#3 : i32
}

// CHECK-LABEL: llvm.func @ldmatrix
llvm.func @ldmatrix(%p: !llvm.ptr, %s: !llvm.ptr<3>) -> i32 {
  // CHECK: %[[S:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr to !llvm.ptr<3>
  // CHECK: %[[M:.*]] = nvvm.ldmatrix %[[S]] {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
  // CHECK: llvm.extractvalue %[[M]][3]
  %m:4 = oxide.ldmatrix %p count 4 : !llvm.ptr -> i32, i32, i32, i32
  // .trans is NVVM's column layout; a shared pointer needs no cast; x1 gives the register itself.
  // CHECK-NOT: llvm.addrspacecast
  // CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 1 : i32, {{.*}}} : (!llvm.ptr<3>) -> i32
  %k = oxide.ldmatrix %s count 1 trans : !llvm.ptr<3> -> i32
  %sum = llvm.add %m#3, %k : i32
  llvm.return %sum : i32
}

// CHECK-LABEL: llvm.func @cp_async
llvm.func @cp_async(%dst: !llvm.ptr, %src: !llvm.ptr, %n: i32) {
  // CHECK-DAG: %[[D:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr to !llvm.ptr<3>
  // CHECK-DAG: %[[S:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr to !llvm.ptr<1>
  // CHECK: nvvm.cp.async.shared.global %[[D]], %[[S]], 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
  oxide.cp_async %dst, %src, 16 : !llvm.ptr, !llvm.ptr
  // CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 4, cache = ca : !llvm.ptr<3>, !llvm.ptr<1>
  oxide.cp_async %dst, %src, 4 : !llvm.ptr, !llvm.ptr
  // CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
  oxide.cp_async %dst, %src, 16 src_bytes %n : !llvm.ptr, !llvm.ptr
  // CHECK: nvvm.cp.async.commit.group
  oxide.cp_async_commit
  // CHECK: nvvm.cp.async.wait.group 0
  oxide.cp_async_wait 0
  llvm.return
}
