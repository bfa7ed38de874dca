// RUN: oxide-opt %s -oxide-verify-safety -split-input-file -verify-diagnostics

// The witness may pass through helper calls and phis: every path carries a thread_index.
llvm.func @helper(%p: !llvm.ptr, %n: i64, %i: i64) -> !llvm.ptr {
  %e = oxide.disjoint_get %p [%n] at [%i] elem 4 : !llvm.ptr
  llvm.return %e : !llvm.ptr
}
llvm.func @ok(%p: !llvm.ptr, %n: i64, %c: i1) attributes {oxide.kernel = #oxide.kernel} {
  %i = oxide.thread_index rank 1 dim x : i64
  llvm.cond_br %c, ^a(%i : i64), ^a(%i : i64)
^a(%j: i64):
  %e = llvm.call @helper(%p, %n, %j) : (!llvm.ptr, i64, i64) -> !llvm.ptr
  llvm.return
}

// -----

llvm.func @computed(%p: !llvm.ptr, %n: i64) attributes {oxide.kernel = #oxide.kernel} {
  %i = oxide.thread_index rank 1 dim x : i64
  %one = llvm.mlir.constant(1 : i64) : i64
  %j = llvm.add %i, %one : i64
  // expected-error @+1 {{this DisjointSpan element is indexed by a value that is not the calling thread's witness}}
  %e = oxide.disjoint_get %p [%n] at [%j] elem 4 : !llvm.ptr
  llvm.return
}

// -----

llvm.func @loaded(%p: !llvm.ptr, %n: i64, %forged: !llvm.ptr) attributes {oxide.kernel = #oxide.kernel} {
  %j = llvm.load %forged : !llvm.ptr -> i64
  // expected-error @+1 {{not the calling thread's witness; pass the witness from oxide::thread::index_1d() itself}}
  %e = oxide.disjoint_get %p [%n] at [%j] elem 4 : !llvm.ptr
  llvm.return
}

// -----

// One caller passes a witness, another a constant: rejected.
llvm.func @helper(%p: !llvm.ptr, %n: i64, %i: i64) {
  // expected-error @+1 {{not the calling thread's witness}}
  %e = oxide.disjoint_get %p [%n] at [%i] elem 4 : !llvm.ptr
  llvm.return
}
llvm.func @mixed(%p: !llvm.ptr, %n: i64) attributes {oxide.kernel = #oxide.kernel} {
  %i = oxide.thread_index rank 1 dim x : i64
  %zero = llvm.mlir.constant(0 : i64) : i64
  llvm.call @helper(%p, %n, %i) : (!llvm.ptr, i64, i64) -> ()
  llvm.call @helper(%p, %n, %zero) : (!llvm.ptr, i64, i64) -> ()
  llvm.return
}

// -----

// Swapped coordinates of a 2-D witness are not the thread's own element.
llvm.func @swapped(%p: !llvm.ptr, %w: i64, %h: i64) attributes {oxide.kernel = #oxide.kernel} {
  %x = oxide.thread_index rank 2 dim x : i64
  %y = oxide.thread_index rank 2 dim y : i64
  // expected-error @+1 {{not the calling thread's witness; pass the witness from oxide::thread::index_2d()}}
  %e = oxide.disjoint_get %p [%w, %h] at [%y, %x] elem 4 : !llvm.ptr
  llvm.return
}

// -----

llvm.func @helper() -> i64 {
  // expected-error @+1 {{kernel 'wrong_domain' has 'domain = 1' in its launch contract but uses a 2-D thread index; use oxide::thread::index_1d() or change the contract's domain to 2}}
  %y = oxide.thread_index rank 2 dim y : i64
  llvm.return %y : i64
}
llvm.func @wrong_domain() attributes {oxide.kernel = #oxide.kernel<contract = "domain = 1">} {
  %y = llvm.call @helper() : () -> i64
  llvm.return
}

// -----

// A grid-stride step of another dimension is not this thread's sequence.
llvm.func @stride_wrong_dim(%p: !llvm.ptr, %w: i64, %h: i64) attributes {oxide.kernel = #oxide.kernel} {
  %x = oxide.thread_index rank 2 dim x : i64
  %y = oxide.thread_index rank 2 dim y : i64
  %x2 = oxide.grid_stride_next %x rank 2 dim y : i64
  // expected-error @+1 {{not the calling thread's witness}}
  %e = oxide.disjoint_get %p [%w, %h] at [%x2, %y] elem 4 : !llvm.ptr
  llvm.return
}

// -----

// A grid barrier anywhere a kernel reaches needs a cooperative launch.
llvm.func @sync_helper() {
  // expected-error @+1 {{kernel 'not_cooperative' synchronises the whole grid, which needs a cooperative launch; add 'cooperative = true' to its launch contract}}
  oxide.grid_sync
  llvm.return
}
llvm.func @not_cooperative() attributes {oxide.kernel = #oxide.kernel} {
  llvm.call @sync_helper() : () -> ()
  llvm.return
}

// -----

llvm.func @cooperative() attributes {oxide.kernel = #oxide.kernel<contract = "domain = 1, cooperative = true">} {
  oxide.grid_sync
  llvm.return
}

// -----

// The cluster barrier and distributed shared memory need a kernel launched in clusters.
llvm.func @not_clustered(%rank: i32) attributes {oxide.kernel = #oxide.kernel<contract = "domain = 1">} {
  // expected-error @+1 {{kernel 'not_clustered' uses thread-block cluster operations but is not launched in clusters; add 'cluster = (x, y, z)' to its launch contract}}
  oxide.cluster_sync
  %s = oxide.shared_alloc @tile size 64 align 4 : !llvm.ptr
  // expected-error @+1 {{kernel 'not_clustered' uses thread-block cluster operations}}
  %remote = oxide.map_shared %s, %rank : !llvm.ptr
  // Reading the cluster registers needs no cluster: outside one, every block is its own.
  %r = oxide.cluster_geometry block_rank x : i32
  llvm.return
}

// -----

llvm.func @clustered(%rank: i32) attributes {oxide.kernel = #oxide.kernel<params = [r: unsigned_integer], contract = "domain = 1, cluster = (2, 1, 1)">} {
  oxide.cluster_sync
  %s = oxide.shared_alloc @tile size 64 align 4 : !llvm.ptr
  %remote = oxide.map_shared %s, %rank : !llvm.ptr
  llvm.return
}
