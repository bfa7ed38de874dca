// RUN: oxide-opt %s --oxide-pipeline | FileCheck %s

// The registered pipeline is what oxcc runs on a device module (see Pipelines.cpp): raising,
// the safety checks, the contract's facts, the lowering. A kernel as the LLVM IR import gives
// it, with its intrinsic calls and contract strings, comes out in the LLVM and NVVM dialects.

llvm.func @__oxide_index_1d() -> i64
llvm.func @__oxide_disjoint_get(!llvm.ptr, i64, i64, i64) -> !llvm.ptr

// CHECK-NOT: llvm.func @__oxide_index_1d
// CHECK-NOT: llvm.func @__oxide_disjoint_get
// CHECK-LABEL: llvm.func ptx_kernelcc @fill(
// The contract's exact block, from oxide-optimize; the kernel attribute is gone after the
// lowering, back in passthrough as the strings the kernel table reads, with the element size the
// write proof found.
// CHECK-SAME: nvvm.reqntid = array<i32: 128, 1, 1>
// CHECK-SAME: passthrough = {{\[}}["oxide.params", "out=o"], ["oxide.contract", "domain = 1, block = (128, 1, 1)"], ["oxide.elem_sizes", "4"]]
// CHECK-NOT: oxide.kernel
// The span's data pointer is not null.
// CHECK: %[[DATA:.*]] = llvm.load %arg0 : !llvm.ptr -> !llvm.ptr
// CHECK: %[[NOTNULL:.*]] = llvm.icmp "ne" %[[DATA]], %{{.*}} : !llvm.ptr
// CHECK: llvm.intr.assume %[[NOTNULL]] : i1
// The thread index, with blockDim the block's constant and threadIdx its range.
// CHECK-DAG: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x range <i32, 0, 128> : i32
// CHECK-DAG: %[[CTAID:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK-DAG: llvm.mlir.constant(128 : i32) : i32
// The element: bounds-checked against the span's size, else null.
// CHECK: %[[IN:.*]] = llvm.icmp "ult" %{{.*}}, %{{.*}} : i64
// CHECK: %[[EL:.*]] = llvm.getelementptr inbounds %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK: llvm.select %[[IN]], %[[EL]], %{{.*}} : i1, !llvm.ptr
// CHECK-NOT: oxide.
// CHECK-NOT: llvm.call @__oxide
// CHECK: llvm.return
llvm.func ptx_kernelcc @fill(%out: !llvm.ptr {llvm.byval = !llvm.struct<(ptr, i64)>, llvm.noundef})
    attributes {passthrough = [["oxide.params", "out=o"], ["oxide.contract", "domain = 1, block = (128, 1, 1)"]]} {
  %data = llvm.load %out : !llvm.ptr -> !llvm.ptr
  %size_field = llvm.getelementptr %out[8] : (!llvm.ptr) -> !llvm.ptr, i8
  %size = llvm.load %size_field : !llvm.ptr -> i64
  %i = llvm.call @__oxide_index_1d() : () -> i64
  %elem = llvm.mlir.constant(4 : i64) : i64
  %p = llvm.call @__oxide_disjoint_get(%data, %size, %elem, %i) : (!llvm.ptr, i64, i64, i64) -> !llvm.ptr
  %null = llvm.mlir.zero : !llvm.ptr
  %ok = llvm.icmp "ne" %p, %null : !llvm.ptr
  llvm.cond_br %ok, ^store, ^done
^store:
  %one = llvm.mlir.constant(1.0 : f32) : f32
  llvm.store %one, %p : f32, !llvm.ptr
  llvm.br ^done
^done:
  llvm.return
}
