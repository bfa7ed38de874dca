// RUN: oxide-opt %s -split-input-file -verify-diagnostics -oxide-confine-private-writes | FileCheck %s --check-prefix=CONFINE
// RUN: oxide-opt %s -split-input-file -verify-diagnostics -oxide-record-element-sizes | FileCheck %s --check-prefix=SIZES

// The two passes that read the write proof (oxide::WriteProof), each alone: each computes the
// proof itself when no earlier pass did, and fails with the proof's errors where a write breaks
// a rule. oxide-verify-safety does both when the proof holds (verify-writes-confine.mlir).

// oxide-confine-private-writes changes only the writes at offsets the proof cannot bound; it
// records nothing.
// CONFINE-LABEL: llvm.func @accepted
// CONFINE-NOT: element_sizes
// CONFINE: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr
// CONFINE: %[[L:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr to !llvm.ptr<5>
// CONFINE: llvm.store %{{.*}}, %[[L]] : f32, !llvm.ptr<5>
// CONFINE: %[[S:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr to !llvm.ptr<3>
// CONFINE: llvm.store %{{.*}}, %[[S]] : f32, !llvm.ptr<3>

// oxide-record-element-sizes records the element size of each span parameter (0: none) and
// changes no write.
// SIZES-LABEL: llvm.func @accepted
// SIZES-SAME: element_sizes = [4, 0]
// SIZES-NOT: llvm.addrspacecast
llvm.func @accepted(%out: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::DisjointSpan", (ptr, i64)>}, %j: i64)
    attributes {oxide.kernel = #oxide.kernel<params = [out: output, j: unsigned_integer], contract = "domain = 1, dynamic_shared = 0..0">} {
  %one = llvm.mlir.constant(1 : i32) : i32
  %eight = llvm.mlir.constant(8 : i64) : i64
  %v = llvm.mlir.constant(1.0 : f32) : f32
  %i = oxide.thread_index rank 1 dim x : i64
  %data = llvm.load %out : !llvm.ptr -> !llvm.ptr
  %sizep = llvm.getelementptr %out[%eight] : (!llvm.ptr, i64) -> !llvm.ptr, i8
  %size = llvm.load %sizep : !llvm.ptr -> i64
  %e = oxide.disjoint_get %data [%size] at [%i] elem 4 : !llvm.ptr
  llvm.store %v, %e : f32, !llvm.ptr
  %local = llvm.alloca %one x !llvm.array<8 x f32> : (i32) -> !llvm.ptr
  %slot = llvm.getelementptr %local[%j] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  llvm.store %v, %slot : f32, !llvm.ptr
  %shared = oxide.shared_alloc @tile size 256 align 4 : !llvm.ptr
  %cell = llvm.getelementptr %shared[%j] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  llvm.store %v, %cell : f32, !llvm.ptr
  llvm.return
}


// -----

// A write the proof refuses: the pass fails with the proof's error, and changes nothing.
llvm.func @refused(%in: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::Span", (ptr, i64)>})
    attributes {oxide.kernel = #oxide.kernel<params = [in: input], contract = "domain = 1, dynamic_shared = 0..0">} {
  %v = llvm.mlir.constant(1.0 : f32) : f32
  %data = llvm.load %in : !llvm.ptr -> !llvm.ptr
  // expected-error @+1 {{this write targets input 'in'}}
  llvm.store %v, %data : f32, !llvm.ptr
  llvm.return
}
