// RUN: oxide-opt %s -oxide-verify-safety -split-input-file -verify-diagnostics

// Where every write of a contracted kernel lands (the write proof, lib/Transforms/WriteProof/), on the IR: kernels carry
// their contract and parameter kinds as the frontend writes them; spans arrive as byval structs.

llvm.func @neighbour(%out: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::DisjointSpan", (ptr, i64)>})
    attributes {oxide.kernel = #oxide.kernel<params = [out: output], contract = "domain = 1, dynamic_shared = 0..0">} {
  %eight = llvm.mlir.constant(8 : i64) : i64
  %v = llvm.mlir.constant(1.0 : f32) : f32
  %i = oxide.thread_index rank 1 dim x : i64
  %data = llvm.load %out : !llvm.ptr -> !llvm.ptr
  %sizep = llvm.getelementptr %out[%eight] : (!llvm.ptr, i64) -> !llvm.ptr, i8
  %size = llvm.load %sizep : !llvm.ptr -> i64
  %e = oxide.disjoint_get %data [%size] at [%i] elem 4 : !llvm.ptr
  %next = llvm.getelementptr %e[1] : (!llvm.ptr) -> !llvm.ptr, f32
  // expected-error @+1 {{this write of 4 bytes at byte offset 4 from the thread's own element of output 'out' (4 bytes) lands outside it}}
  llvm.store %v, %next : f32, !llvm.ptr
  llvm.return
}

// -----

llvm.func @input(%in: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::Span", (ptr, i64)>})
    attributes {oxide.kernel = #oxide.kernel<params = [in: input], contract = "domain = 1, dynamic_shared = 0..0">} {
  %v = llvm.mlir.constant(1.0 : f32) : f32
  %data = llvm.load %in : !llvm.ptr -> !llvm.ptr
  // expected-error @+1 {{this write targets input 'in', a read-only oxide::Span<const T>}}
  llvm.store %v, %data : f32, !llvm.ptr
  llvm.return
}

// -----

llvm.func @escape(%out: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::DisjointSpan", (ptr, i64)>})
    attributes {oxide.kernel = #oxide.kernel<params = [out: output], contract = "domain = 1, dynamic_shared = 0..0">} {
  %eight = llvm.mlir.constant(8 : i64) : i64
  %i = oxide.thread_index rank 1 dim x : i64
  %data = llvm.load %out : !llvm.ptr -> !llvm.ptr
  %sizep = llvm.getelementptr %out[%eight] : (!llvm.ptr, i64) -> !llvm.ptr, i8
  %size = llvm.load %sizep : !llvm.ptr -> i64
  %e = oxide.disjoint_get %data [%size] at [%i] elem 4 : !llvm.ptr
  %mailbox = oxide.shared_alloc @mailbox size 8 align 8 : !llvm.ptr
  // expected-error @+1 {{the pointer to the thread's own element of output 'out' escapes: it is stored to memory}}
  llvm.store %e, %mailbox : !llvm.ptr, !llvm.ptr
  llvm.return
}

// -----

llvm.func @loaded(%out: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::DisjointSpan", (ptr, i64)>})
    attributes {oxide.kernel = #oxide.kernel<params = [out: output], contract = "domain = 1, dynamic_shared = 0..0">} {
  %v = llvm.mlir.constant(1.0 : f32) : f32
  %mailbox = oxide.shared_alloc @mailbox size 8 align 8 : !llvm.ptr
  %p = llvm.load %mailbox : !llvm.ptr -> !llvm.ptr
  // expected-error @+1 {{the address of this write was loaded from memory}}
  llvm.store %v, %p : f32, !llvm.ptr
  llvm.return
}

// -----

llvm.func @assembly() attributes {oxide.kernel = #oxide.kernel<contract = "domain = 1, dynamic_shared = 0..0">} {
  // expected-error @+1 {{inline assembly in code reached from contracted kernel 'assembly' cannot be checked}}
  llvm.inline_asm has_side_effects "membar.gl;", ""  : () -> ()
  llvm.return
}

// -----

// The data of one output with the size of another.
llvm.func @origin(%a: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::DisjointSpan", (ptr, i64)>},
                  %b: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::DisjointSpan", (ptr, i64)>})
    attributes {oxide.kernel = #oxide.kernel<params = [a: output, b: output], contract = "domain = 1, dynamic_shared = 0..0">} {
  %eight = llvm.mlir.constant(8 : i64) : i64
  %i = oxide.thread_index rank 1 dim x : i64
  %data = llvm.load %a : !llvm.ptr -> !llvm.ptr
  %sizep = llvm.getelementptr %b[%eight] : (!llvm.ptr, i64) -> !llvm.ptr, i8
  %size = llvm.load %sizep : !llvm.ptr -> i64
  // expected-error @+1 {{this DisjointSpan is not a DisjointSpan parameter of kernel 'origin': its memory is parameter 'a'}}
  %e = oxide.disjoint_get %data [%size] at [%i] elem 4 : !llvm.ptr
  llvm.return
}

// -----

llvm.func @plain_atomic(%bins: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::AtomicSpan", (ptr, i64)>}, %k: i64)
    attributes {oxide.kernel = #oxide.kernel<params = [bins: atomic, k: unsigned_integer], contract = "domain = 1, dynamic_shared = 0..0">} {
  %eight = llvm.mlir.constant(8 : i64) : i64
  %one = llvm.mlir.constant(1 : i32) : i32
  %data = llvm.load %bins : !llvm.ptr -> !llvm.ptr
  %sizep = llvm.getelementptr %bins[%eight] : (!llvm.ptr, i64) -> !llvm.ptr, i8
  %size = llvm.load %sizep : !llvm.ptr -> i64
  %e = oxide.span_elem %data [%size] at %k elem 4 : !llvm.ptr
  %old = llvm.atomicrmw add %e, %one monotonic : !llvm.ptr, i32
  // expected-error @+1 {{this is a plain write to an element of AtomicSpan 'bins'}}
  llvm.store %one, %e : i32, !llvm.ptr
  llvm.return
}

// -----

// Uncontracted kernels are the unsafe tier: nothing is checked.
llvm.func @unsafe(%p: !llvm.ptr) attributes {oxide.kernel = #oxide.kernel} {
  %v = llvm.mlir.constant(1.0 : f32) : f32
  %q = llvm.getelementptr %p[7] : (!llvm.ptr) -> !llvm.ptr, f32
  llvm.store %v, %q : f32, !llvm.ptr
  llvm.return
}
