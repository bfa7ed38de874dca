// RUN: oxide-opt %s | FileCheck %s
// RUN: oxide-opt %s | oxide-opt | FileCheck %s
// RUN: oxide-opt %s -oxide-to-nvvm | FileCheck %s --check-prefix=NVVM

// The shared-memory stores of sm_90 (stmatrix) and the TMA store (shared -> global) with its
// bulk groups: their forms, and what oxide-to-nvvm makes of them.

// CHECK-LABEL: llvm.func @stmatrix
// NVVM-LABEL: llvm.func @stmatrix
llvm.func @stmatrix(%p: !llvm.ptr, %s: !llvm.ptr<3>, %r: i32) {
  // CHECK: oxide.stmatrix %{{.*}}, [%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : !llvm.ptr
  // NVVM: %[[P:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr to !llvm.ptr<3>
  // NVVM: nvvm.stmatrix %[[P]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
  oxide.stmatrix %p, [%r, %r, %r, %r] : !llvm.ptr
  // CHECK: oxide.stmatrix %{{.*}}, [%{{.*}}, %{{.*}}] trans : !llvm.ptr<3>
  // NVVM-NOT: llvm.addrspacecast
  // NVVM: nvvm.stmatrix %{{.*}}, %{{.*}}, %{{.*}} {{{.*}}layout = #nvvm.mma_layout<col>
  oxide.stmatrix %s, [%r, %r] trans : !llvm.ptr<3>
  // CHECK: oxide.stmatrix %{{.*}}, [%{{.*}}] : !llvm.ptr
  // NVVM: nvvm.stmatrix %{{.*}}, %{{.*}} {{{.*}}layout = #nvvm.mma_layout<row>
  oxide.stmatrix %p, [%r] : !llvm.ptr
  llvm.return
}

// CHECK-LABEL: llvm.func @tma_store
// NVVM-LABEL: llvm.func @tma_store
llvm.func @tma_store(%map: !llvm.ptr, %gmap: !llvm.ptr<1>, %src: !llvm.ptr, %x: i32, %y: i32) {
  // CHECK: oxide.tma_store %{{.*}}, %{{.*}} box [%{{.*}}, %{{.*}}] : !llvm.ptr, !llvm.ptr
  // NVVM: %[[S:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr to !llvm.ptr<3>
  // NVVM: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %[[S]], box[%{{.*}}, %{{.*}}] : !llvm.ptr, {{.*}}<3>
  oxide.tma_store %map, %src box [%x, %y] : !llvm.ptr, !llvm.ptr
  // CHECK: oxide.tma_store %{{.*}}, %{{.*}} box [%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : !llvm.ptr<1>, !llvm.ptr
  // A global (addrspace 1) map becomes generic.
  // NVVM: %[[G:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr<1> to !llvm.ptr
  // NVVM: nvvm.cp.async.bulk.tensor.global.shared.cta %[[G]], %{{.*}}, box[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]
  oxide.tma_store %gmap, %src box [%x, %y, %x, %y, %x] : !llvm.ptr<1>, !llvm.ptr
  // CHECK: oxide.tma_store_commit
  // NVVM: nvvm.cp.async.bulk.commit.group
  oxide.tma_store_commit
  // CHECK: oxide.tma_store_wait 1
  // NVVM: nvvm.cp.async.bulk.wait_group 1 {read}
  oxide.tma_store_wait 1
  llvm.return
}
