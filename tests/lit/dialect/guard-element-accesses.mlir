// RUN: oxide-opt %s -oxide-guard-element-accesses -split-input-file | FileCheck %s

// An access through an element pointer that no null test guards gets `if (p == null) trap` in
// front of it; accesses behind the program's own test are left alone.

// CHECK-LABEL: llvm.func @tested
// CHECK-NOT: oxide.trap
llvm.func @tested(%data: !llvm.ptr, %n: i64, %v: f32) {
  %i = oxide.thread_index rank 1 dim x : i64
  %p = oxide.disjoint_get %data [%n] at [%i] elem 4 : !llvm.ptr
  %null = llvm.mlir.zero : !llvm.ptr
  %isnull = llvm.icmp "eq" %p, %null : !llvm.ptr
  llvm.cond_br %isnull, ^done, ^write
^write:
  %x = llvm.load %p : !llvm.ptr -> f32
  %y = llvm.fadd %x, %v : f32
  llvm.store %y, %p : f32, !llvm.ptr
  llvm.br ^done
^done:
  llvm.return
}

// -----

// CHECK-LABEL: llvm.func @untested
// CHECK: %[[P:.*]] = oxide.disjoint_get
// CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[ISNULL:.*]] = llvm.icmp "eq" %[[P]], %[[NULL]] : !llvm.ptr
// CHECK: llvm.cond_br %[[ISNULL]], ^[[TRAP:.*]], ^[[STORE:.*]]
// CHECK: ^[[TRAP]]:
// CHECK: %[[MSG:.*]] = llvm.mlir.addressof @__oxide_null_element.str : !llvm.ptr
// CHECK: oxide.trap %[[MSG]] : !llvm.ptr
// CHECK: llvm.unreachable
// CHECK: ^[[STORE]]:
// CHECK: llvm.store %{{.*}}, %[[P]] : f32, !llvm.ptr
llvm.func @untested(%data: !llvm.ptr, %n: i64, %v: f32) {
  %i = oxide.thread_index rank 1 dim x : i64
  %p = oxide.disjoint_get %data [%n] at [%i] elem 4 : !llvm.ptr
  llvm.store %v, %p : f32, !llvm.ptr
  llvm.return
}

// -----

// A member of the element (an address computed from it) is guarded by the element's test; the
// test of the wrong branch edge guards nothing. Comparing the address is no access.
// CHECK-LABEL: llvm.func @member_on_null_edge
// CHECK: %[[P:.*]] = oxide.owned_elem
// CHECK: ^[[WRITE:.*]]:
// CHECK: %[[M:.*]] = llvm.getelementptr %[[P]][8]
// CHECK: %[[ISNULL:.*]] = llvm.icmp "eq" %[[P]], %{{.*}} : !llvm.ptr
// CHECK: llvm.cond_br %[[ISNULL]]
// CHECK: oxide.trap
// CHECK: llvm.store %{{.*}}, %[[M]] : i32, !llvm.ptr
llvm.func @member_on_null_edge(%data: !llvm.ptr, %n: i64, %v: i32) -> i64 {
  %w = oxide.group_index warp : i64
  %j = llvm.mlir.constant(0 : i64) : i64
  %p = oxide.owned_elem %data [%n] owner [%w] at %j elem 16 shape warp_leader : !llvm.ptr
  %null = llvm.mlir.zero : !llvm.ptr
  %nonnull = llvm.icmp "ne" %p, %null : !llvm.ptr
  llvm.cond_br %nonnull, ^done, ^write
^write:
  %m = llvm.getelementptr %p[8] : (!llvm.ptr) -> !llvm.ptr, i8
  llvm.store %v, %m : i32, !llvm.ptr
  llvm.br ^done
^done:
  %a = llvm.ptrtoint %p : !llvm.ptr to i64
  llvm.return %a : i64
}

// -----

// A device malloc's block may be null too; free(nullptr) is no access.
// CHECK-LABEL: llvm.func @heap
// CHECK: %[[H:.*]] = llvm.call @malloc
// CHECK: llvm.icmp "eq" %[[H]]
// CHECK: oxide.trap
// CHECK: llvm.store
// CHECK-NOT: oxide.trap
// CHECK: llvm.call @free(%[[H]])
llvm.func @malloc(i64) -> !llvm.ptr
llvm.func @free(!llvm.ptr)
llvm.func @heap(%v: i8) {
  %c64 = llvm.mlir.constant(64 : i64) : i64
  %h = llvm.call @malloc(%c64) : (i64) -> !llvm.ptr
  %m = llvm.getelementptr %h[63] : (!llvm.ptr) -> !llvm.ptr, i8
  llvm.store %v, %m : i8, !llvm.ptr
  llvm.call @free(%h) : (!llvm.ptr) -> ()
  llvm.return
}

// -----

// Passing the pointer on is an access only where the parameter promises a non-null pointer (a
// C++ reference): elsewhere the callee may test it, and its own access faults. Returning it is
// no access.
// CHECK-LABEL: llvm.func @passed_on
// CHECK: llvm.call @may_test(%[[P:[0-9]+]])
// CHECK: llvm.icmp "eq" %[[P]]
// CHECK: oxide.trap
// CHECK: llvm.call @by_reference(%[[P]])
// CHECK-NOT: oxide.trap
// CHECK: llvm.return %[[P]]
llvm.func @may_test(!llvm.ptr)
llvm.func @by_reference(!llvm.ptr {llvm.nonnull, llvm.dereferenceable = 4 : i64})
llvm.func @passed_on(%data: !llvm.ptr, %n: i64) -> !llvm.ptr {
  %i = oxide.thread_index rank 1 dim x : i64
  %p = oxide.disjoint_get %data [%n] at [%i] elem 4 : !llvm.ptr
  llvm.call @may_test(%p) : (!llvm.ptr) -> ()
  llvm.call @by_reference(%p) : (!llvm.ptr) -> ()
  llvm.return %p : !llvm.ptr
}

// -----

// -G records the pointer's variable (llvm.intr.dbg.value) before the program tests it: that is
// no access, so no guard goes in front of it (one did, and trapped every thread past the end).
// CHECK-LABEL: llvm.func @debug_record
// CHECK-NOT: oxide.trap
#di_file = #llvm.di_file<"scale.cpp" in "/src">
#di_cu = #llvm.di_compile_unit<id = distinct[0]<>, sourceLanguage = DW_LANG_C_plus_plus_14, file = #di_file, isOptimized = false, emissionKind = Full>
#di_sub = #llvm.di_subprogram<id = distinct[1]<>, compileUnit = #di_cu, scope = #di_file, name = "debug_record", file = #di_file, line = 1, scopeLine = 1, subprogramFlags = Definition>
#di_var = #llvm.di_local_variable<scope = #di_sub, name = "o", file = #di_file, line = 2>
llvm.func @debug_record(%data: !llvm.ptr, %n: i64, %v: f32) {
  %i = oxide.thread_index rank 1 dim x : i64
  %p = oxide.disjoint_get %data [%n] at [%i] elem 4 : !llvm.ptr
  llvm.intr.dbg.value #di_var = %p : !llvm.ptr
  %null = llvm.mlir.zero : !llvm.ptr
  %isnull = llvm.icmp "eq" %p, %null : !llvm.ptr
  llvm.cond_br %isnull, ^done, ^write
^write:
  llvm.store %v, %p : f32, !llvm.ptr
  llvm.br ^done
^done:
  llvm.return
}
