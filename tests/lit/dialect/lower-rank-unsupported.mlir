// RUN: oxide-opt %s -oxide-to-nvvm -verify-diagnostics

// Multi-dimensional witnesses parse and verify, but the 1-D lowering must not silently
// produce a wrong index for them.
llvm.func @kernel() attributes {oxide.kernel} {
  // expected-error @+1 {{failed to legalize operation 'oxide.thread_index'}}
  %i = oxide.thread_index rank 2 : i64
  llvm.return
}
