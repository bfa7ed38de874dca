// RUN: oxide-opt %s -oxide-verify-safety -split-input-file -verify-diagnostics

// A cache-hinted store (oxide.cached_store, oxide/device/cache.hpp) is judged as a plain store:
// it lands in the thread's own output element or it is an error at its line, with the same
// rule; and a hinted access must be global memory (st.global / ld.global cannot reach local or
// shared memory).

// The accepted form: a hinted store to the thread's own element, a hinted load of an input.
llvm.func @own_element(%in: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::Span", (ptr, i64)>},
                       %out: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::DisjointSpan", (ptr, i64)>})
    attributes {oxide.kernel = #oxide.kernel<params = [in: input, out: output], contract = "domain = 1, dynamic_shared = 0..0">} {
  %eight = llvm.mlir.constant(8 : i64) : i64
  %i = oxide.thread_index rank 1 dim x : i64
  %src = llvm.load %in : !llvm.ptr -> !llvm.ptr
  %at = llvm.getelementptr %src[%i] : (!llvm.ptr, i64) -> !llvm.ptr, i32
  %v = oxide.cached_load cs %at : !llvm.ptr -> i32
  %data = llvm.load %out : !llvm.ptr -> !llvm.ptr
  %sizep = llvm.getelementptr %out[%eight] : (!llvm.ptr, i64) -> !llvm.ptr, i8
  %size = llvm.load %sizep : !llvm.ptr -> i64
  %e = oxide.disjoint_get %data [%size] at [%i] elem 4 : !llvm.ptr
  oxide.cached_store cs %v, %e : i32, !llvm.ptr
  llvm.return
}

// -----

llvm.func @neighbour(%out: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::DisjointSpan", (ptr, i64)>})
    attributes {oxide.kernel = #oxide.kernel<params = [out: output], contract = "domain = 1, dynamic_shared = 0..0">} {
  %eight = llvm.mlir.constant(8 : i64) : i64
  %v = llvm.mlir.constant(1 : i32) : i32
  %i = oxide.thread_index rank 1 dim x : i64
  %data = llvm.load %out : !llvm.ptr -> !llvm.ptr
  %sizep = llvm.getelementptr %out[%eight] : (!llvm.ptr, i64) -> !llvm.ptr, i8
  %size = llvm.load %sizep : !llvm.ptr -> i64
  %e = oxide.disjoint_get %data [%size] at [%i] elem 4 : !llvm.ptr
  %next = llvm.getelementptr %e[1] : (!llvm.ptr) -> !llvm.ptr, i32
  // expected-error @+1 {{this write of 4 bytes at byte offset 4 from the thread's own element of output 'out' (4 bytes) lands outside it}}
  oxide.cached_store cs %v, %next : i32, !llvm.ptr
  llvm.return
}

// -----

// Wider than the element: 8 bytes into a 4-byte element.
llvm.func @too_wide(%out: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::DisjointSpan", (ptr, i64)>})
    attributes {oxide.kernel = #oxide.kernel<params = [out: output], contract = "domain = 1, dynamic_shared = 0..0">} {
  %eight = llvm.mlir.constant(8 : i64) : i64
  %v = llvm.mlir.constant(dense<1> : vector<2xi32>) : vector<2xi32>
  %i = oxide.thread_index rank 1 dim x : i64
  %data = llvm.load %out : !llvm.ptr -> !llvm.ptr
  %sizep = llvm.getelementptr %out[%eight] : (!llvm.ptr, i64) -> !llvm.ptr, i8
  %size = llvm.load %sizep : !llvm.ptr -> i64
  %e = oxide.disjoint_get %data [%size] at [%i] elem 4 : !llvm.ptr
  // expected-error @+1 {{this write of 8 bytes at byte offset 0 from the thread's own element of output 'out' (4 bytes) lands outside it}}
  oxide.cached_store wt %v, %e : vector<2xi32>, !llvm.ptr
  llvm.return
}

// -----

llvm.func @input(%in: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::Span", (ptr, i64)>})
    attributes {oxide.kernel = #oxide.kernel<params = [in: input], contract = "domain = 1, dynamic_shared = 0..0">} {
  %v = llvm.mlir.constant(1 : i32) : i32
  %data = llvm.load %in : !llvm.ptr -> !llvm.ptr
  // expected-error @+1 {{this write targets input 'in', a read-only oxide::Span<const T>}}
  oxide.cached_store cs %v, %data : i32, !llvm.ptr
  llvm.return
}

// -----

// An output element the thread was not given: the output's data pointer itself.
llvm.func @not_owned(%out: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::DisjointSpan", (ptr, i64)>})
    attributes {oxide.kernel = #oxide.kernel<params = [out: output], contract = "domain = 1, dynamic_shared = 0..0">} {
  %v = llvm.mlir.constant(1 : i32) : i32
  %data = llvm.load %out : !llvm.ptr -> !llvm.ptr
  // expected-error @+1 {{this write targets output 'out' at an element that was not obtained through its get_mut(witness)}}
  oxide.cached_store wt %v, %data : i32, !llvm.ptr
  llvm.return
}

// -----

llvm.func @local() attributes {oxide.kernel = #oxide.kernel<contract = "domain = 1, dynamic_shared = 0..0">} {
  %one = llvm.mlir.constant(1 : i64) : i64
  %v = llvm.mlir.constant(1 : i32) : i32
  %x = llvm.alloca %one x i32 : (i64) -> !llvm.ptr
  // expected-error @+1 {{this cache-hinted store (st.global.cs) may write a local variable or shared memory, which st.global cannot reach}}
  oxide.cached_store cs %v, %x : i32, !llvm.ptr
  llvm.return
}

// -----

llvm.func @shared() attributes {oxide.kernel = #oxide.kernel<contract = "domain = 1, dynamic_shared = 0..0">} {
  %tile = oxide.shared_alloc @tile size 64 align 4 : !llvm.ptr
  // expected-error @+1 {{this cache-hinted load (ld.global.nc) may read a local variable or shared memory, which ld.global cannot reach}}
  %v = oxide.cached_load nc %tile : !llvm.ptr -> i32
  llvm.return
}

// -----

// A helper the kernel calls: its hinted store through the pointer it is given is checked at
// the helper's line, for what every caller passes.
llvm.func internal @helper(%p: !llvm.ptr, %v: i32) {
  // expected-error @+1 {{this write targets input 'in'}}
  oxide.cached_store cg %v, %p : i32, !llvm.ptr
  llvm.return
}
llvm.func @through_helper(%in: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::Span", (ptr, i64)>})
    attributes {oxide.kernel = #oxide.kernel<params = [in: input], contract = "domain = 1, dynamic_shared = 0..0">} {
  %v = llvm.mlir.constant(1 : i32) : i32
  %data = llvm.load %in : !llvm.ptr -> !llvm.ptr
  llvm.call @helper(%data, %v) : (!llvm.ptr, i32) -> ()
  llvm.return
}
