// RUN: oxide-opt %s -split-input-file -verify-diagnostics
// RUN: not oxide-opt %s -split-input-file -oxide-pipeline 2>&1 | FileCheck %s

// Oxide operations live inside functions (the InFunction trait of every op): at module level
// the lowering of bounds_fail and trap crashed in LLVM::createGlobalString; now the verifier
// stops them, and -oxide-pipeline reports instead of crashing.

// CHECK: error: 'oxide.bounds_fail' op must be inside a function
%c = llvm.mlir.constant(3 : i64) : i64
// expected-error @+1 {{'oxide.bounds_fail' op must be inside a function: oxide operations describe what a kernel's code does}}
oxide.bounds_fail %c, %c : i64

// -----

// CHECK: error: 'oxide.thread_index' op must be inside a function
// expected-error @+1 {{'oxide.thread_index' op must be inside a function}}
%i = oxide.thread_index rank 1 dim x : i64

// -----

// CHECK: error: 'oxide.barrier' op must be inside a function
// expected-error @+1 {{'oxide.barrier' op must be inside a function}}
oxide.barrier

// -----

// CHECK: error: 'oxide.trap' op must be inside a function
%msg = llvm.mlir.zero : !llvm.ptr
// expected-error @+1 {{'oxide.trap' op must be inside a function}}
oxide.trap %msg : !llvm.ptr
