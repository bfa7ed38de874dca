// RUN: oxide-opt %s -split-input-file -oxide-to-nvvm | FileCheck %s

// A failed bounds check calls one cold, out-of-line report per module (vprintf + __assertfail),
// external so that no interprocedural pass changes its arguments: oxide-write-failure-reports
// (compiler/passes/FailureReports.cpp) writes the reports in place of its calls and removes it.
// CHECK-LABEL: llvm.func @__oxide_bounds_failure(
// CHECK-SAME: passthrough = ["noinline", "cold", "noreturn"]
// CHECK: llvm.call @vprintf
// CHECK: llvm.call @__assertfail

// CHECK-LABEL: llvm.func ptx_kernelcc @kernel
// CHECK-NOT: oxide.kernel
llvm.func @kernel(%n: i64) attributes {oxide.kernel = #oxide.kernel} {
  // CHECK-DAG: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK-DAG: %[[CTAID:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
  // CHECK-DAG: %[[NTID:.*]] = nvvm.read.ptx.sreg.ntid.x : i32
  // CHECK-DAG: %[[T:.*]] = llvm.zext nneg %[[TID]] : i32 to i64
  // CHECK-DAG: %[[C:.*]] = llvm.zext nneg %[[CTAID]] : i32 to i64
  // CHECK-DAG: %[[N:.*]] = llvm.zext nneg %[[NTID]] : i32 to i64
  // CHECK: %[[BASE:.*]] = llvm.mul %[[C]], %[[N]] overflow<nuw> : i64
  // CHECK: %[[I:.*]] = llvm.add %[[BASE]], %[[T]] overflow<nuw> : i64
  %i = oxide.thread_index rank 1 dim x : i64
  // CHECK: llvm.call @__oxide_bounds_failure(%[[I]], %arg0,
  // CHECK: llvm.intr.trap
  // CHECK-NOT: oxide.
  oxide.bounds_fail %i, %n : i64
  llvm.return
}

// -----

// The grid barrier is one convergent function per module, on CUDA's protocol: block 0's
// thread 0 adds 0x80000001 - blocks, the others' add 1, all spin until the top bit flips.
// CHECK-LABEL: llvm.func internal @__oxide_grid_barrier()
// CHECK-SAME: convergent
// CHECK: nvvm.barrier0
// CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.envreg1"() : () -> i32
// CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.envreg2"() : () -> i32
// CHECK: %[[BARRIER:.*]] = llvm.getelementptr %{{.*}}[4] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.mlir.constant(-2147483647 : i32) : i32
// CHECK: llvm.fence syncscope("device") release
// CHECK: llvm.atomicrmw add %[[BARRIER]], %{{.*}} syncscope("device") monotonic
// CHECK: llvm.load %[[BARRIER]] atomic syncscope("device") acquire
// CHECK: nvvm.barrier0
// CHECK-NEXT: llvm.return
// CHECK-NOT: @__oxide_grid_barrier()

// CHECK-LABEL: llvm.func ptx_kernelcc @cooperative
llvm.func @cooperative() attributes {oxide.kernel = #oxide.kernel} {
  // CHECK: llvm.call @__oxide_grid_barrier() {convergent} : () -> ()
  // CHECK-NEXT: llvm.call @__oxide_grid_barrier() {convergent} : () -> ()
  oxide.grid_sync
  oxide.grid_sync
  llvm.return
}

// -----

// The module's -fmacro-prefix-map (oxide.macro_prefix_map) rewrites the file a failure report
// names: of the pairs that apply, the one whose OLD sorts last (the longer of nested ones).
// CHECK-LABEL: llvm.mlir.global private constant @__oxide_file.str0("lib/ops.cpp\00")
// CHECK-LABEL: llvm.func ptx_kernelcc @remapped
module attributes {oxide.macro_prefix_map = ["/home/me/=~/", "/home/me/project/src/=lib/"]} {
  llvm.func @remapped(%n: i64) attributes {oxide.kernel = #oxide.kernel} {
    %i = oxide.thread_index rank 1 dim x : i64
    oxide.bounds_fail %i, %n : i64 loc("/home/me/project/src/ops.cpp":12:3)
    llvm.return
  }
}
