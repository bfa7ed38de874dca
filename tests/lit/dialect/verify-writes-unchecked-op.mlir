// RUN: oxide-opt %s -oxide-verify-safety -allow-unregistered-dialect -split-input-file -verify-diagnostics

// The write checks never skip an operation they do not know (lib/Transforms/WriteProof/AccessRule.cpp, rule
// unchecked-op): an operation that may write memory and that no write rule covers is refused,
// so a future writing operation that nobody taught the checks cannot pass unchecked. An
// unregistered operation stands for it here: it declares no memory effects, so it may write.

llvm.func @future_store(%out: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::DisjointSpan", (ptr, i64)>})
    attributes {oxide.kernel = #oxide.kernel<params = [out: output], contract = "domain = 1, dynamic_shared = 0..0">} {
  %v = llvm.mlir.constant(1.0 : f32) : f32
  %data = llvm.load %out : !llvm.ptr -> !llvm.ptr
  // expected-error @+1 {{operation 'test.store_everywhere' may write memory and no write rule covers it; this is a defect of Oxide's compiler}}
  "test.store_everywhere"(%v, %data) : (f32, !llvm.ptr) -> ()
  llvm.return
}

// -----

// An operation that declares that it has no memory effects is accepted.
llvm.func @pure_helper(%out: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::DisjointSpan", (ptr, i64)>})
    attributes {oxide.kernel = #oxide.kernel<params = [out: output], contract = "domain = 1, dynamic_shared = 0..0">} {
  %i = oxide.thread_index rank 1 dim x : i64
  %lane = oxide.lane_id : i32
  llvm.return
}
