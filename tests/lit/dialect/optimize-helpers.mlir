// RUN: oxide-opt %s -oxide-optimize | FileCheck %s

// Loads through a read-only span in helpers the compiler did not inline stay invariant
// (ld.global.nc) when every call passes input memory: the span by value (a byval copy), by
// reference, or its data pointer. A helper that some call passes other memory, that writes the
// span it was given, or whose address is taken keeps plain loads.

// The span by value: the helper loads its data pointer from its own copy.
// CHECK-LABEL: llvm.func internal @by_value
// CHECK: %[[D:.*]] = llvm.load %arg0 : !llvm.ptr -> !llvm.ptr
// CHECK: %[[E:.*]] = llvm.getelementptr %[[D]]
// CHECK: %[[G:.*]] = llvm.addrspacecast %[[E]] : !llvm.ptr to !llvm.ptr<1>
// CHECK: llvm.load %[[G]] invariant : !llvm.ptr<1> -> f32
llvm.func internal @by_value(%s: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::Span", (ptr, i64)>}, %i: i64) -> f32 {
  %d = llvm.load %s : !llvm.ptr -> !llvm.ptr
  %e = llvm.getelementptr %d[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  %v = llvm.load %e : !llvm.ptr -> f32
  llvm.return %v : f32
}

// By reference, through a second helper (helpers of helpers).
// CHECK-LABEL: llvm.func internal @by_ref_inner
// CHECK: llvm.load %{{.*}} invariant : !llvm.ptr<1> -> f32
llvm.func internal @by_ref_inner(%s: !llvm.ptr, %i: i64) -> f32 {
  %d = llvm.load %s : !llvm.ptr -> !llvm.ptr
  %e = llvm.getelementptr %d[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  %v = llvm.load %e : !llvm.ptr -> f32
  llvm.return %v : f32
}
// CHECK-LABEL: llvm.func internal @by_ref
llvm.func internal @by_ref(%s: !llvm.ptr, %i: i64) -> f32 {
  %v = llvm.call @by_ref_inner(%s, %i) : (!llvm.ptr, i64) -> f32
  llvm.return %v : f32
}

// The data pointer itself, as ArgumentPromotion leaves a span passed by value.
// CHECK-LABEL: llvm.func internal @by_pointer
// CHECK: llvm.load %{{.*}} invariant : !llvm.ptr<1> -> f32
llvm.func internal @by_pointer(%p: !llvm.ptr, %i: i64) -> f32 {
  %e = llvm.getelementptr %p[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  %v = llvm.load %e : !llvm.ptr -> f32
  llvm.return %v : f32
}

// Called with an input by one kernel and with an output by another: plain loads.
// CHECK-LABEL: llvm.func internal @mixed
// CHECK-NOT: invariant
// CHECK: llvm.return
llvm.func internal @mixed(%p: !llvm.ptr) -> f32 {
  %v = llvm.load %p : !llvm.ptr -> f32
  llvm.return %v : f32
}

// Called with an input, but also by a kernel without a contract: plain loads.
// CHECK-LABEL: llvm.func internal @shared_with_unchecked
// CHECK-NOT: invariant
// CHECK: llvm.return
llvm.func internal @shared_with_unchecked(%p: !llvm.ptr) -> f32 {
  %v = llvm.load %p : !llvm.ptr -> f32
  llvm.return %v : f32
}

// Rewrites the data pointer of the span it was given a copy of: what it loads through the
// span afterwards is not the input.
// CHECK-LABEL: llvm.func internal @rewrites_copy
// CHECK-NOT: invariant
// CHECK: llvm.return
llvm.func internal @rewrites_copy(%s: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::Span", (ptr, i64)>}, %other: !llvm.ptr) -> f32 {
  llvm.store %other, %s : !llvm.ptr, !llvm.ptr
  %d = llvm.load %s : !llvm.ptr -> !llvm.ptr
  %v = llvm.load %d : !llvm.ptr -> f32
  llvm.return %v : f32
}

// Its address is taken: a call through a pointer may pass anything.
// CHECK-LABEL: llvm.func internal @address_taken
// CHECK-NOT: invariant
// CHECK: llvm.return
llvm.func internal @address_taken(%p: !llvm.ptr) -> f32 {
  %v = llvm.load %p : !llvm.ptr -> f32
  llvm.return %v : f32
}
llvm.mlir.global internal constant @table() : !llvm.ptr {
  %f = llvm.mlir.addressof @address_taken : !llvm.ptr
  llvm.return %f : !llvm.ptr
}

// CHECK-LABEL: llvm.func @kernel
llvm.func @kernel(%in: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::Span", (ptr, i64)>},
                  %out: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::DisjointSpan", (ptr, i64)>},
                  %scratch: !llvm.ptr)
    attributes {oxide.kernel = #oxide.kernel<params = [in: input, out: output, scratch: other], contract = "domain = 1, dynamic_shared = 0..0">} {
  %i = oxide.thread_index rank 1 dim x : i64
  %a = llvm.call @by_value(%in, %i) : (!llvm.ptr, i64) -> f32
  %b = llvm.call @by_ref(%in, %i) : (!llvm.ptr, i64) -> f32
  %d = llvm.load %in : !llvm.ptr -> !llvm.ptr
  %c = llvm.call @by_pointer(%d, %i) : (!llvm.ptr, i64) -> f32
  %m = llvm.call @mixed(%d) : (!llvm.ptr) -> f32
  %u = llvm.call @shared_with_unchecked(%d) : (!llvm.ptr) -> f32
  %r = llvm.call @rewrites_copy(%in, %scratch) : (!llvm.ptr, !llvm.ptr) -> f32
  %t = llvm.call @address_taken(%d) : (!llvm.ptr) -> f32
  llvm.return
}

// CHECK-LABEL: llvm.func @other_kernel
llvm.func @other_kernel(%out: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::DisjointSpan", (ptr, i64)>})
    attributes {oxide.kernel = #oxide.kernel<params = [out: output], contract = "domain = 1, dynamic_shared = 0..0">} {
  %d = llvm.load %out : !llvm.ptr -> !llvm.ptr
  %m = llvm.call @mixed(%d) : (!llvm.ptr) -> f32
  llvm.return
}

// CHECK-LABEL: llvm.func @unchecked
llvm.func @unchecked(%in: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::Span", (ptr, i64)>})
    attributes {oxide.kernel = #oxide.kernel} {
  %d = llvm.load %in : !llvm.ptr -> !llvm.ptr
  %u = llvm.call @shared_with_unchecked(%d) : (!llvm.ptr) -> f32
  llvm.return
}
