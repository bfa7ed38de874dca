// RUN: oxide-opt %s -oxide-optimize | FileCheck %s

// vecadd's contract: an exact block, two size relations, two read-only inputs. The exact block
// replaces the launch bounds' .maxntid (PTX forbids both); their min blocks per SM stay.
// CHECK-LABEL: llvm.func @vecadd
// CHECK-SAME: nvvm.minctasm = 2 : i32
// CHECK-SAME: nvvm.reqntid = array<i32: 256, 1, 1>
llvm.func @vecadd(%a: !llvm.ptr {llvm.byval = !llvm.struct<(ptr, i64)>}, %b: !llvm.ptr {llvm.byval = !llvm.struct<(ptr, i64)>},
                  %c: !llvm.ptr {llvm.byval = !llvm.struct<(ptr, i64)>}, %n: i32)
    attributes {oxide.kernel = #oxide.kernel<params = [a: input, b: input, c: output, n: unsigned_integer], contract = "domain = 1, block = (256, 1, 1), requires = ($0.size() == $2.size(), ($3 * 2) <= $1.size())", launch_bounds = [512, 2]>} {
  // CHECK: %[[AS:.*]] = llvm.getelementptr %arg0[8] : (!llvm.ptr) -> !llvm.ptr, i8
  // CHECK: %[[ASIZE:.*]] = llvm.load %[[AS]] : !llvm.ptr -> i64
  // CHECK: %[[CS:.*]] = llvm.getelementptr %arg2[8] : (!llvm.ptr) -> !llvm.ptr, i8
  // CHECK: %[[CSIZE:.*]] = llvm.load %[[CS]] : !llvm.ptr -> i64
  // CHECK: %[[EQ:.*]] = llvm.icmp "eq" %[[ASIZE]], %[[CSIZE]] : i64
  // CHECK: llvm.intr.assume %[[EQ]] : i1
  // CHECK: %[[N:.*]] = llvm.zext %arg3 : i32 to i64
  // CHECK: %[[N2:.*]] = llvm.mul %[[N]], %{{.*}} overflow<nuw> : i64
  // CHECK: %[[LE:.*]] = llvm.icmp "ule" %[[N2]], %{{.*}} : i64
  // CHECK: llvm.intr.assume %[[LE]] : i1
  // Span data pointers are never null (empty buffers get a dangling pointer).
  // CHECK: %[[A0:.*]] = llvm.load %arg0 : !llvm.ptr -> !llvm.ptr
  // CHECK: %[[NA:.*]] = llvm.icmp "ne" %[[A0]], %{{.*}} : !llvm.ptr
  // CHECK: llvm.intr.assume %[[NA]] : i1
  // CHECK: llvm.load %arg2 : !llvm.ptr -> !llvm.ptr
  // CHECK: llvm.intr.assume
  // CHECK: oxide.thread_index
  %i = oxide.thread_index rank 1 dim x : i64
  // Loads through the inputs' data pointers become invariant (ld.global.nc); the output's do not.
  // CHECK: %[[AD:.*]] = llvm.load %arg0 : !llvm.ptr -> !llvm.ptr
  // CHECK: %[[AE:.*]] = llvm.getelementptr %[[AD]]
  // CHECK: llvm.load %[[AE]] invariant : !llvm.ptr -> f32
  %ad = llvm.load %a : !llvm.ptr -> !llvm.ptr
  %ae = llvm.getelementptr %ad[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  %av = llvm.load %ae : !llvm.ptr -> f32
  // CHECK: %[[CD:.*]] = llvm.load %arg2 : !llvm.ptr -> !llvm.ptr
  // CHECK: %[[CE:.*]] = llvm.getelementptr %[[CD]]
  // CHECK: llvm.load %[[CE]] : !llvm.ptr -> f32
  %cd = llvm.load %c : !llvm.ptr -> !llvm.ptr
  %ce = llvm.getelementptr %cd[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  %cv = llvm.load %ce : !llvm.ptr -> f32
  llvm.return
}

// Without a contract nothing is assumed.
// CHECK-LABEL: llvm.func @unchecked
// CHECK-NOT: nvvm.reqntid
// CHECK-NOT: llvm.intr.assume
// CHECK-NOT: invariant
llvm.func @unchecked(%a: !llvm.ptr {llvm.byval = !llvm.struct<(ptr, i64)>}) attributes {oxide.kernel = #oxide.kernel} {
  %ad = llvm.load %a : !llvm.ptr -> !llvm.ptr
  %av = llvm.load %ad : !llvm.ptr -> f32
  llvm.return
}

// A signed scalar in `requires`: the runtime rejects negative values, so it is assumed >= 0 at
// its own width and zero-extended; the relation compares unsigned like every other.
// CHECK-LABEL: llvm.func @signed_bound
// CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK: %[[NONNEG:.*]] = llvm.icmp "sge" %arg0, %[[ZERO]] : i32
// CHECK: llvm.intr.assume %[[NONNEG]] : i1
// CHECK: %[[N:.*]] = llvm.zext %arg0 : i32 to i64
// CHECK: %[[LE:.*]] = llvm.icmp "ule" %[[N]], %{{.*}} : i64
// CHECK: llvm.intr.assume %[[LE]] : i1
// An unsigned one is not assumed non-negative (it always is).
// CHECK-LABEL: llvm.func @unsigned_bound
// CHECK-NOT: "sge"
// CHECK: llvm.zext %arg0 : i32 to i64
llvm.func @signed_bound(%n: i32, %out: !llvm.ptr {llvm.byval = !llvm.struct<(ptr, i64)>})
    attributes {oxide.kernel = #oxide.kernel<params = [n: signed_integer, out: output], contract = "domain = 1, requires = ($0 <= $1.size())">} {
  llvm.return
}
llvm.func @unsigned_bound(%n: i32, %out: !llvm.ptr {llvm.byval = !llvm.struct<(ptr, i64)>})
    attributes {oxide.kernel = #oxide.kernel<params = [n: unsigned_integer, out: output], contract = "domain = 1, requires = ($0 <= $1.size())">} {
  llvm.return
}

// `*o = c ? a[i] : b[i]` for a 16-byte struct: the span picked by a branch (a block argument)
// or a select of two inputs' elements is still an input, so the copy is one invariant vector
// load (ld.global.nc.v4) and one vector store; a select with the output's element is not.
// CHECK-LABEL: llvm.func @select_inputs
// CHECK: ^bb3(%[[SPAN:.*]]: !llvm.ptr):
// CHECK: %[[D:.*]] = llvm.load %[[SPAN]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[E:.*]] = llvm.getelementptr %[[D]]
// CHECK: %[[V:.*]] = llvm.load %[[E]] invariant {alignment = 16 : i64} : !llvm.ptr -> vector<4xi32>
// CHECK: llvm.store %[[V]], %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr
// CHECK: %[[S:.*]] = llvm.select
// CHECK: llvm.load %[[S]] invariant {alignment = 16 : i64} : !llvm.ptr -> vector<4xi32>
// CHECK: %[[M:.*]] = llvm.select
// CHECK: llvm.load %[[M]] {alignment = 16 : i64} : !llvm.ptr -> vector<4xi32>
// CHECK-NOT: memcpy
llvm.func @select_inputs(%a: !llvm.ptr {llvm.byval = !llvm.struct<(ptr, i64)>}, %b: !llvm.ptr {llvm.byval = !llvm.struct<(ptr, i64)>},
                         %c: !llvm.ptr {llvm.byval = !llvm.struct<(ptr, i64)>}, %pick: i1)
    attributes {oxide.kernel = #oxide.kernel<params = [a: input, b: input, c: output], contract = "domain = 1">} {
  %len = llvm.mlir.constant(16 : i64) : i64
  %false = llvm.mlir.constant(false) : i1
  %i = oxide.thread_index rank 1 dim x : i64
  %cd = llvm.load %c : !llvm.ptr -> !llvm.ptr
  %ce = llvm.getelementptr %cd[%i] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.struct<(f32, f32, f32, f32)>
  llvm.cond_br %pick, ^left, ^right
^left:
  llvm.br ^join(%a : !llvm.ptr)
^right:
  llvm.br ^join(%b : !llvm.ptr)
^join(%span: !llvm.ptr):
  %d = llvm.load %span : !llvm.ptr -> !llvm.ptr
  %e = llvm.getelementptr %d[%i] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.struct<(f32, f32, f32, f32)>
  "llvm.intr.memcpy"(%ce, %e, %len) <{arg_attrs = [{llvm.align = 16 : i64}, {llvm.align = 16 : i64}, {}], isVolatile = false}> : (!llvm.ptr, !llvm.ptr, i64) -> ()
  %ad = llvm.load %a : !llvm.ptr -> !llvm.ptr
  %ae = llvm.getelementptr %ad[%i] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.struct<(f32, f32, f32, f32)>
  %bd = llvm.load %b : !llvm.ptr -> !llvm.ptr
  %be = llvm.getelementptr %bd[%i] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.struct<(f32, f32, f32, f32)>
  %s = llvm.select %pick, %ae, %be : i1, !llvm.ptr
  "llvm.intr.memcpy"(%ce, %s, %len) <{arg_attrs = [{llvm.align = 16 : i64}, {llvm.align = 16 : i64}, {}], isVolatile = false}> : (!llvm.ptr, !llvm.ptr, i64) -> ()
  %m = llvm.select %pick, %ae, %ce : i1, !llvm.ptr
  "llvm.intr.memcpy"(%ce, %m, %len) <{arg_attrs = [{llvm.align = 16 : i64}, {llvm.align = 16 : i64}, {}], isVolatile = false}> : (!llvm.ptr, !llvm.ptr, i64) -> ()
  llvm.return
}

// Any function's small copy aligned to its size (here shared memory to a local) is one vector
// access, not a memcpy that NVPTX splits into 64-bit pieces; an under-aligned one stays a memcpy.
// CHECK-LABEL: llvm.func @helper_copy
// CHECK: %[[V:.*]] = llvm.load %arg0 {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xi32>
// CHECK: llvm.store %[[V]], %arg1 {alignment = 8 : i64} : vector<2xi32>, !llvm.ptr
// CHECK: "llvm.intr.memcpy"(%arg1, %arg0
llvm.func @helper_copy(%src: !llvm.ptr<3>, %dst: !llvm.ptr) {
  %len = llvm.mlir.constant(8 : i64) : i64
  "llvm.intr.memcpy"(%dst, %src, %len) <{arg_attrs = [{llvm.align = 8 : i64}, {llvm.align = 8 : i64}, {}], isVolatile = false}> : (!llvm.ptr, !llvm.ptr<3>, i64) -> ()
  "llvm.intr.memcpy"(%dst, %src, %len) <{arg_attrs = [{llvm.align = 8 : i64}, {llvm.align = 4 : i64}, {}], isVolatile = false}> : (!llvm.ptr, !llvm.ptr<3>, i64) -> ()
  llvm.return
}
