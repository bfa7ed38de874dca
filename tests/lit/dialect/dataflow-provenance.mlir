// RUN: oxide-opt %s -oxide-verify-safety -split-input-file -verify-diagnostics

// The witness provenance and the pointer roots are forward analyses on MLIR's DataFlowSolver
// (Provenance/WitnessProvenance.cpp, WriteProof/PointerRoots.cpp) in which every block and every
// edge counts: the checks never rest on a proof that some code cannot run.

// A phi of the witness and a constant: both edges count, even on a constant condition.
llvm.func @both_edges(%p: !llvm.ptr, %n: i64) attributes {oxide.kernel = #oxide.kernel} {
  %i = oxide.thread_index rank 1 dim x : i64
  %zero = llvm.mlir.constant(0 : i64) : i64
  %true = llvm.mlir.constant(true) : i1
  llvm.cond_br %true, ^a(%i : i64), ^a(%zero : i64)
^a(%j: i64):
  // expected-error @+1 {{not the calling thread's witness}}
  %e = oxide.disjoint_get %p [%n] at [%j] elem 4 : !llvm.ptr
  llvm.return
}

// -----

// And so does an edge from a block nothing branches to.
llvm.func @unreachable_edge(%p: !llvm.ptr, %n: i64) attributes {oxide.kernel = #oxide.kernel} {
  %i = oxide.thread_index rank 1 dim x : i64
  %zero = llvm.mlir.constant(0 : i64) : i64
  llvm.br ^a(%i : i64)
^never:
  llvm.br ^a(%zero : i64)
^a(%j: i64):
  // expected-error @+1 {{not the calling thread's witness}}
  %e = oxide.disjoint_get %p [%n] at [%j] elem 4 : !llvm.ptr
  llvm.return
}

// -----

// A phi whose incoming values are all witnesses, through a select and a freeze.
llvm.func @merged(%p: !llvm.ptr, %n: i64, %c: i1) attributes {oxide.kernel = #oxide.kernel} {
  %i = oxide.thread_index rank 1 dim x : i64
  %s = oxide.grid_stride_next %i rank 1 dim x : i64
  %f = llvm.freeze %s : i64
  %m = llvm.select %c, %i, %f : i1, i64
  llvm.cond_br %c, ^a(%m : i64), ^a(%i : i64)
^a(%j: i64):
  %e = oxide.disjoint_get %p [%n] at [%j] elem 4 : !llvm.ptr
  llvm.return
}

// -----

// The helper comes before its caller and passes its argument through a freeze and a select: the
// analysis waits for the call's operand instead of deciding early that the freeze is no witness.
llvm.func @frozen_helper(%p: !llvm.ptr, %n: i64, %i: i64, %c: i1) {
  %f = llvm.freeze %i : i64
  %s = llvm.select %c, %f, %i : i1, i64
  %e = oxide.disjoint_get %p [%n] at [%s] elem 4 : !llvm.ptr
  llvm.return
}
llvm.func @calls_frozen(%p: !llvm.ptr, %n: i64, %c: i1) attributes {oxide.kernel = #oxide.kernel} {
  %i = oxide.thread_index rank 1 dim x : i64
  llvm.call @frozen_helper(%p, %n, %i, %c) : (!llvm.ptr, i64, i64, i1) -> ()
  llvm.return
}

// -----

// A loop over grid-stride steps: the phi is a witness where steps are allowed (disjoint_get).
llvm.func @stride_loop(%p: !llvm.ptr, %n: i64) attributes {oxide.kernel = #oxide.kernel} {
  %i = oxide.thread_index rank 1 dim x : i64
  llvm.br ^loop(%i : i64)
^loop(%j: i64):
  %e = oxide.disjoint_get %p [%n] at [%j] elem 4 : !llvm.ptr
  %next = oxide.grid_stride_next %j rank 1 dim x : i64
  %more = llvm.icmp "ult" %next, %n : i64
  llvm.cond_br %more, ^loop(%next : i64), ^done
^done:
  llvm.return
}

// -----

// A helper whose address is taken may be called with any index: its argument is no witness even
// though its one direct call passes one.
llvm.func @store_at(%p: !llvm.ptr, %n: i64, %i: i64) {
  // expected-error @+1 {{not the calling thread's witness}}
  %e = oxide.disjoint_get %p [%n] at [%i] elem 4 : !llvm.ptr
  llvm.return
}
llvm.func @taken(%p: !llvm.ptr, %n: i64) attributes {oxide.kernel = #oxide.kernel} {
  %i = oxide.thread_index rank 1 dim x : i64
  llvm.call @store_at(%p, %n, %i) : (!llvm.ptr, i64, i64) -> ()
  %f = llvm.mlir.addressof @store_at : !llvm.ptr
  llvm.return
}

// -----

// A write to an input is checked in a block nothing branches to, too.
llvm.func @unreachable_write(%in: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::Span", (ptr, i64)>})
    attributes {oxide.kernel = #oxide.kernel<params = [in: input], contract = "domain = 1, dynamic_shared = 0..0">} {
  %v = llvm.mlir.constant(1.0 : f32) : f32
  %data = llvm.load %in : !llvm.ptr -> !llvm.ptr
  llvm.br ^done
^never:
  // expected-error @+1 {{this write targets input 'in', a read-only oxide::Span<const T>}}
  llvm.store %v, %data : f32, !llvm.ptr
  llvm.br ^done
^done:
  llvm.return
}

// -----

// A helper's pointer argument takes the roots of its call sites, wherever they come in the
// order the solver visits: here the call comes after the helper, through a loop.
llvm.func @write_to(%span: !llvm.ptr) {
  %v = llvm.mlir.constant(1.0 : f32) : f32
  %data = llvm.load %span : !llvm.ptr -> !llvm.ptr
  // expected-error @+1 {{this write targets input 'in', a read-only oxide::Span<const T>}}
  llvm.store %v, %data : f32, !llvm.ptr
  llvm.return
}
llvm.func @through_loop(%in: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::Span", (ptr, i64)>}, %c: i1)
    attributes {oxide.kernel = #oxide.kernel<params = [in: input, c: other], contract = "domain = 1, dynamic_shared = 0..0">} {
  llvm.br ^loop(%in : !llvm.ptr)
^loop(%s: !llvm.ptr):
  llvm.call @write_to(%s) : (!llvm.ptr) -> ()
  llvm.cond_br %c, ^loop(%s : !llvm.ptr), ^done
^done:
  llvm.return
}
