// RUN: oxide-opt %s -oxide-verify-safety | FileCheck %s

// What oxide-verify-safety changes in a contracted kernel it accepts (what the passes
// oxide-confine-private-writes and oxide-record-element-sizes do, which it does when the write
// proof holds): writes to
// local or shared memory at offsets it cannot bound are made through local (addrspace 5) or shared
// (addrspace 3) pointers, so no offset reaches global memory; a write to the thread's own element
// stays as it is, and the element size the code names each span with is recorded for the image.

// The own element at offset 0, a local array at a computed offset (confined to local memory)
// and shared memory at a computed offset (confined to shared memory) are all accepted.
// CHECK-LABEL: llvm.func @accepted
// CHECK-SAME: element_sizes = [4, 0]
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr
// CHECK: %[[L:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr to !llvm.ptr<5>
// CHECK: llvm.store %{{.*}}, %[[L]] : f32, !llvm.ptr<5>
// CHECK: %[[S:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr to !llvm.ptr<3>
// CHECK: llvm.store %{{.*}}, %[[S]] : f32, !llvm.ptr<3>
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

