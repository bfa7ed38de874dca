// RUN: oxide-opt %s -oxide-test-print-pointer-roots -verify-diagnostics -split-input-file

// The write proof's points-to facts alone (oxide-test-print-pointer-roots): what each pointer
// of a contracted kernel may point into, and its constant offset from there.

llvm.func @kernel(%out: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::DisjointSpan", (ptr, i64)>}, %j: i64)
    attributes {oxide.kernel = #oxide.kernel<params = [out: output, j: unsigned_integer], contract = "domain = 1, dynamic_shared = 0..0">} {
  %one = llvm.mlir.constant(1 : i32) : i32
  %i = oxide.thread_index rank 1 dim x : i64
  // The span's data pointer, loaded from the kernel's copy of the parameter: its memory.
  // expected-remark @+1 {{roots: param (argument 0)}}
  %data = llvm.load %out : !llvm.ptr -> !llvm.ptr
  // The span's size field: 8 bytes into the kernel's copy.
  // expected-remark @+1 {{roots: private (argument 0) +8}}
  %sizep = llvm.getelementptr %out[8] : (!llvm.ptr) -> !llvm.ptr, i8
  %size = llvm.load %sizep : !llvm.ptr -> i64
  // expected-remark @+1 {{roots: element (oxide.disjoint_get) +0}}
  %e = oxide.disjoint_get %data [%size] at [%i] elem 4 : !llvm.ptr
  // expected-remark @+1 {{roots: element (oxide.disjoint_get) +4}}
  %next = llvm.getelementptr %e[1] : (!llvm.ptr) -> !llvm.ptr, f32
  // expected-remark @+1 {{roots: private (llvm.alloca) +0}}
  %local = llvm.alloca %one x !llvm.array<8 x f32> : (i32) -> !llvm.ptr
  // A computed index: the same root, at an offset the analysis cannot tell.
  // expected-remark @+1 {{roots: private (llvm.alloca)}}
  %slot = llvm.getelementptr %local[%j] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  // expected-remark @+1 {{roots: shared (oxide.shared_alloc) +0}}
  %shared = oxide.shared_alloc @tile size 256 align 4 : !llvm.ptr
  // Either: both roots.
  %c = llvm.icmp "eq" %j, %size : i64
  // expected-remark @+1 {{roots: private (llvm.alloca) +0 shared (oxide.shared_alloc) +0}}
  %either = llvm.select %c, %local, %shared : i1, !llvm.ptr
  // A pointer made from an integer has lost where it points.
  // expected-remark @+1 {{roots: unknown (llvm.inttoptr)}}
  %forged = llvm.inttoptr %j : i64 to !llvm.ptr
  llvm.return
}
