// RUN: oxide-opt %s -oxide-verify-safety -split-input-file -verify-diagnostics

// The write proof takes an oxide operation into account only through what it states in
// OxideMemoryAccessOpInterface (what it reads and writes, through which operand, under which
// rule). An oxide operation that may write memory and does not implement the interface is
// refused (rule unchecked-op), wherever it writes: it is a defect of the compiler, never an
// accepted program. oxide-opt registers `oxide.test_unchecked_write` for this test
// (tools/oxide-opt/TestOps.cpp): an op of the oxide dialect that declares a write effect on its
// pointer operand and nothing else, as a new writing op that nobody taught the proof would.

// It writes the thread's own element, which a store may: still refused.
llvm.func @own_element(%out: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::DisjointSpan", (ptr, i64)>})
    attributes {oxide.kernel = #oxide.kernel<params = [out: output], contract = "domain = 1, dynamic_shared = 0..0">} {
  %eight = llvm.mlir.constant(8 : i64) : i64
  %i = oxide.thread_index rank 1 dim x : i64
  %data = llvm.load %out : !llvm.ptr -> !llvm.ptr
  %sizep = llvm.getelementptr %out[%eight] : (!llvm.ptr, i64) -> !llvm.ptr, i8
  %size = llvm.load %sizep : !llvm.ptr -> i64
  %e = oxide.disjoint_get %data [%size] at [%i] elem 4 : !llvm.ptr
  // expected-error @+1 {{operation 'oxide.test_unchecked_write' may write memory and no write rule covers it; this is a defect of Oxide's compiler (a new operation states what it reads and writes through OxideMemoryAccessOpInterface), please report it [safety rule: unchecked-op]}}
  "oxide.test_unchecked_write"(%e) : (!llvm.ptr) -> ()
  llvm.return
}

// -----

// It writes a local variable: still refused.
llvm.func @local(%out: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::DisjointSpan", (ptr, i64)>})
    attributes {oxide.kernel = #oxide.kernel<params = [out: output], contract = "domain = 1, dynamic_shared = 0..0">} {
  %one = llvm.mlir.constant(1 : i64) : i64
  %local = llvm.alloca %one x i32 : (i64) -> !llvm.ptr
  // expected-error @+1 {{operation 'oxide.test_unchecked_write' may write memory and no write rule covers it}}
  "oxide.test_unchecked_write"(%local) : (!llvm.ptr) -> ()
  llvm.return
}

// -----

// In a kernel without a contract the write proof does not run: the op is not checked there.
llvm.func @uncontracted(%p: !llvm.ptr) attributes {oxide.kernel = #oxide.kernel} {
  "oxide.test_unchecked_write"(%p) : (!llvm.ptr) -> ()
  llvm.return
}
