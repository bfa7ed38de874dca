// RUN: oxide-opt %s -oxide-verify-safety -split-input-file -verify-diagnostics

// Reads of device globals in contracted kernels (lib/Transforms/WriteProof/GlobalReadRule.cpp): in a kernel
// that updates a global atomically, a plain read of it races with the other threads' updates.

llvm.mlir.global external @count() {addr_space = 1 : i32, alignment = 4 : i64} : !llvm.struct<"class.oxide::device_global", (i32)>

llvm.func @counts(%out: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::DisjointSpan", (ptr, i64)>})
    attributes {oxide.kernel = #oxide.kernel<params = [out: output], contract = "domain = 1, dynamic_shared = 0..0">} {
  %one = llvm.mlir.constant(1 : i32) : i32
  %g1 = llvm.mlir.addressof @count : !llvm.ptr<1>
  %g = llvm.addrspacecast %g1 : !llvm.ptr<1> to !llvm.ptr
  // expected-note @+1 {{kernel 'counts' updates it atomically here}}
  %old = llvm.atomicrmw add %g, %one monotonic : !llvm.ptr, i32
  %seen = llvm.load %g atomic acquire {alignment = 4 : i64} : !llvm.ptr -> i32
  // expected-error @+1 {{this plain read of device global 'count' races with its atomic updates: kernel 'counts' updates it, so other threads may write it while this one reads; read it atomically (count.atomic().load()}}
  %v = llvm.load %g {alignment = 4 : i64} : !llvm.ptr -> i32
  llvm.return
}

// -----

// A kernel that only reads a global keeps its plain loads, even where another kernel updates it
// (and reads it atomically).
llvm.mlir.global external @count() {addr_space = 1 : i32, alignment = 4 : i64} : !llvm.struct<"class.oxide::device_global", (i32)>

llvm.func @updater(%out: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::DisjointSpan", (ptr, i64)>})
    attributes {oxide.kernel = #oxide.kernel<params = [out: output], contract = "domain = 1, dynamic_shared = 0..0">} {
  %one = llvm.mlir.constant(1 : i32) : i32
  %g = llvm.mlir.addressof @count : !llvm.ptr<1>
  llvm.store %one, %g atomic release {alignment = 4 : i64} : i32, !llvm.ptr<1>
  %seen = llvm.load %g atomic monotonic {alignment = 4 : i64} : !llvm.ptr<1> -> i32
  llvm.return
}

llvm.func @reader(%out: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::DisjointSpan", (ptr, i64)>})
    attributes {oxide.kernel = #oxide.kernel<params = [out: output], contract = "domain = 1, dynamic_shared = 0..0">} {
  %g = llvm.mlir.addressof @count : !llvm.ptr<1>
  %v = llvm.load %g {alignment = 4 : i64} : !llvm.ptr<1> -> i32
  %w = oxide.cached_load nc %g : !llvm.ptr<1> -> i32
  llvm.return
}

// -----

// An update in one helper and a read in another, of another member: the race is per variable.
llvm.mlir.global external @stats() {addr_space = 1 : i32, alignment = 4 : i64} : !llvm.struct<"class.oxide::device_global", (struct<"struct.Stats", (i32, i32)>)>

llvm.func @bump(%p: !llvm.ptr) {
  %one = llvm.mlir.constant(1 : i32) : i32
  %zero = llvm.mlir.constant(0 : i32) : i32
  // expected-note @+1 {{kernel 'tally' updates it atomically here}}
  %r = llvm.cmpxchg %p, %zero, %one monotonic monotonic : !llvm.ptr, i32
  llvm.return
}

llvm.func @misses(%p: !llvm.ptr) -> i32 {
  %m = llvm.getelementptr %p[4] : (!llvm.ptr) -> !llvm.ptr, i8
  // expected-error @+1 {{this plain read of device global 'stats' races with its atomic updates: kernel 'tally' updates it, so other threads may write it while this one reads; read it atomically (oxide::AtomicRef(stats.unsafe_ref().member).load()}}
  %v = llvm.load %m : !llvm.ptr -> i32
  llvm.return %v : i32
}

llvm.func @tally(%out: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::DisjointSpan", (ptr, i64)>})
    attributes {oxide.kernel = #oxide.kernel<params = [out: output], contract = "domain = 1, dynamic_shared = 0..0">} {
  %g1 = llvm.mlir.addressof @stats : !llvm.ptr<1>
  %g = llvm.addrspacecast %g1 : !llvm.ptr<1> to !llvm.ptr
  llvm.call @bump(%g) : (!llvm.ptr) -> ()
  %v = llvm.call @misses(%g) : (!llvm.ptr) -> i32
  llvm.return
}

// -----

// memcpy from an updated array global, a cache-hinted load of it, and a read the optimiser left
// without a location (blamed at the first line that uses the value).
llvm.mlir.global external @bins() {addr_space = 1 : i32, alignment = 4 : i64} : !llvm.struct<"class.oxide::device_global", (struct<"struct.std::array", (array<4 x i32>)>)>

llvm.func @copies(%out: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::DisjointSpan", (ptr, i64)>})
    attributes {oxide.kernel = #oxide.kernel<params = [out: output], contract = "domain = 1, dynamic_shared = 0..0">} {
  %one = llvm.mlir.constant(1 : i32) : i32
  %sixteen = llvm.mlir.constant(16 : i64) : i64
  %g = llvm.mlir.addressof @bins : !llvm.ptr<1>
  %e2 = llvm.getelementptr %g[8] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i8
  // expected-note @+1 {{kernel 'copies' updates it atomically here}}
  %old = llvm.atomicrmw add %e2, %one monotonic : !llvm.ptr<1>, i32
  %local = llvm.alloca %sixteen x i8 : (i64) -> !llvm.ptr
  // expected-error @+1 {{this plain read of device global 'bins' races with its atomic updates: kernel 'copies' updates it, so other threads may write it while this one reads; read it atomically (bins.atomic(i).load()}}
  "llvm.intr.memcpy"(%local, %g, %sixteen) <{isVolatile = false}> : (!llvm.ptr, !llvm.ptr<1>, i64) -> ()
  // expected-error @+1 {{this plain read of device global 'bins'}}
  %h = oxide.cached_load cs %g : !llvm.ptr<1> -> i32
  %v = llvm.load %g : !llvm.ptr<1> -> i32 loc(unknown)
  // expected-error @+1 {{this plain read of device global 'bins'}}
  %w = llvm.add %v, %one : i32
  llvm.return
}

// -----

// A pointer into an updated global kept in memory, or made an integer, hides the reads through it.
llvm.mlir.global external @count() {addr_space = 1 : i32, alignment = 4 : i64} : !llvm.struct<"class.oxide::device_global", (i32)>

llvm.func @hides(%out: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::DisjointSpan", (ptr, i64)>})
    attributes {oxide.kernel = #oxide.kernel<params = [out: output], contract = "domain = 1, dynamic_shared = 0..0">} {
  %one = llvm.mlir.constant(1 : i32) : i32
  %g1 = llvm.mlir.addressof @count : !llvm.ptr<1>
  %g = llvm.addrspacecast %g1 : !llvm.ptr<1> to !llvm.ptr
  // expected-note @+1 {{kernel 'hides' updates it atomically here}}
  %old = llvm.atomicrmw add %g, %one monotonic : !llvm.ptr, i32
  %slot = llvm.alloca %one x !llvm.ptr : (i32) -> !llvm.ptr
  // expected-error @+1 {{a pointer into device global 'count', which kernel 'hides' updates atomically, is stored to memory, so Oxide cannot check that every read through it is atomic}}
  llvm.store volatile %g, %slot : !llvm.ptr, !llvm.ptr
  // expected-error @+1 {{a pointer into device global 'count', which kernel 'hides' updates atomically, is converted to an integer}}
  %bits = llvm.ptrtoint %g : !llvm.ptr to i64
  llvm.return
}

// -----

// Atomics that cover different bytes of one value: a wider load, an update at another offset
// (which the load of `misses` then overlaps too); atomics of disjoint members are fine.
llvm.mlir.global external @stats() {addr_space = 1 : i32, alignment = 8 : i64} : !llvm.struct<"class.oxide::device_global", (struct<"struct.Stats", (i32, i32, i64)>)>

llvm.func @shapes(%out: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::DisjointSpan", (ptr, i64)>})
    attributes {oxide.kernel = #oxide.kernel<params = [out: output], contract = "domain = 1, dynamic_shared = 0..0">} {
  %one = llvm.mlir.constant(1 : i32) : i32
  %wide = llvm.mlir.constant(1 : i64) : i64
  %g = llvm.mlir.addressof @stats : !llvm.ptr<1>
  %misses = llvm.getelementptr %g[4] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i8
  %total = llvm.getelementptr %g[8] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i8
  // expected-note @+1 {{kernel 'shapes' updates it atomically here}}
  %a = llvm.atomicrmw add %g, %one monotonic : !llvm.ptr<1>, i32
  %b = llvm.atomicrmw add %total, %wide monotonic : !llvm.ptr<1>, i64
  // expected-error @+1 {{this atomic load of 4 bytes of device global 'stats' at byte offset 4 overlaps an atomic update of 4 bytes at byte offset 3}}
  %c = llvm.load %misses atomic monotonic {alignment = 4 : i64} : !llvm.ptr<1> -> i32
  // expected-error @+1 {{this atomic load of 8 bytes of device global 'stats' at byte offset 0 overlaps an atomic update of 4 bytes at byte offset 0 without being the same access}}
  %d = llvm.load %g atomic monotonic {alignment = 8 : i64} : !llvm.ptr<1> -> i64
  %three = llvm.getelementptr %g[3] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i8
  // expected-error @+2 {{this atomic update of 4 bytes of device global 'stats' at byte offset 3 overlaps an atomic update of 4 bytes at byte offset 0 without being the same access}}
  // expected-note @+1 {{kernel 'shapes' updates it atomically here}}
  %e = llvm.atomicrmw xchg %three, %one monotonic : !llvm.ptr<1>, i32
  llvm.return
}

// -----

// An atomic update of an array global at a computed index: inside the array where a dominating
// check bounds the index (g.atomic(i)'s, whose failing side stops the kernel), not past it.
llvm.mlir.global external @bins() {addr_space = 1 : i32, alignment = 4 : i64} : !llvm.struct<"class.oxide::device_global", (struct<"struct.std::array", (array<16 x i32>)>)>

llvm.func @histogram(%out: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::DisjointSpan", (ptr, i64)>}, %v: i32)
    attributes {oxide.kernel = #oxide.kernel<params = [out: output, v: signed_integer], contract = "domain = 1, dynamic_shared = 0..0">} {
  %one = llvm.mlir.constant(1 : i32) : i32
  %fifteen = llvm.mlir.constant(15 : i32) : i32
  %sixteen = llvm.mlir.constant(16 : i64) : i64
  %g1 = llvm.mlir.addressof @bins : !llvm.ptr<1>
  %g = llvm.addrspacecast %g1 : !llvm.ptr<1> to !llvm.ptr
  %wide = llvm.zext %v : i32 to i64
  // expected-error @+2 {{this atomic write lands at an offset Oxide cannot prove stays inside device global 'bins'}}
  %unchecked = llvm.getelementptr %g[%wide] : (!llvm.ptr, i64) -> !llvm.ptr, i32
  %a = llvm.atomicrmw add %unchecked, %one monotonic : !llvm.ptr, i32
  %bad = llvm.icmp "ugt" %v, %fifteen : i32
  llvm.cond_br %bad, ^fail, ^ok
^fail:
  oxide.bounds_fail %wide, %sixteen : i64
  llvm.unreachable
^ok:
  %checked = llvm.getelementptr %g[%wide] : (!llvm.ptr, i64) -> !llvm.ptr, i32
  %b = llvm.atomicrmw add %checked, %one monotonic : !llvm.ptr, i32
  llvm.return
}

// -----

// A pointer into an updated global in another global's initial value: a load of it is refused.
llvm.mlir.global external @count() {addr_space = 1 : i32, alignment = 4 : i64} : !llvm.struct<"class.oxide::device_global", (i32)>
llvm.mlir.global external @alias() {addr_space = 1 : i32, alignment = 8 : i64} : !llvm.ptr {
  %0 = llvm.mlir.addressof @count : !llvm.ptr<1>
  %1 = llvm.addrspacecast %0 : !llvm.ptr<1> to !llvm.ptr
  llvm.return %1 : !llvm.ptr
}

llvm.func @aliased(%out: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::DisjointSpan", (ptr, i64)>})
    attributes {oxide.kernel = #oxide.kernel<params = [out: output], contract = "domain = 1, dynamic_shared = 0..0">} {
  %one = llvm.mlir.constant(1 : i32) : i32
  %g = llvm.mlir.addressof @count : !llvm.ptr<1>
  // expected-note @+1 {{kernel 'aliased' updates it atomically here}}
  %old = llvm.atomicrmw add %g, %one monotonic : !llvm.ptr<1>, i32
  %a = llvm.mlir.addressof @alias : !llvm.ptr<1>
  // expected-error @+1 {{this load takes a pointer into device global 'count' from global 'alias', whose initial value holds it}}
  %p = llvm.load %a : !llvm.ptr<1> -> !llvm.ptr
  %v = llvm.load %p : !llvm.ptr -> i32
  llvm.return
}
