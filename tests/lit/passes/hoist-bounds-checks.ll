; RUN: opt -load-pass-plugin=%oxide_passes -passes=oxide-hoist-bounds-checks,oxide-join-bounds-checks -S %s | FileCheck %s

target triple = "nvptx64-nvidia-cuda"

%span = type { ptr, i64 }

; An SGEMM-like tile step: a shared-memory store, then the checked global load of the next
; element. The check (and the span size it reads from the read-only by-value parameter) moves
; ahead of the store, which a failing check skips; the store and the load stay in order.
; CHECK-LABEL: define ptx_kernel void @tile_step(
; CHECK-NEXT: entry:
; CHECK-NEXT: %size.addr = getelementptr inbounds i8, ptr %in, i64 8
; CHECK-NEXT: %size = load i64, ptr %size.addr
; CHECK-NEXT: %ok = icmp ult i64 %i, %size
; CHECK-NEXT: br i1 %ok, label %entry.checked, label %fail
; CHECK: entry.checked:
; CHECK-NEXT: store float %v, ptr addrspace(3) %tile
; CHECK-NEXT: br label %load
; CHECK: fail:
; CHECK-NEXT: call void @__oxide_bounds_failure(i64 %i, i64 %size,
define ptx_kernel void @tile_step(ptr readonly byval(%span) %in, ptr addrspace(3) %tile, i64 %i, float %v) {
entry:
  store float %v, ptr addrspace(3) %tile
  %size.addr = getelementptr inbounds i8, ptr %in, i64 8
  %size = load i64, ptr %size.addr
  %ok = icmp ult i64 %i, %size
  br i1 %ok, label %load, label %fail

fail:
  call void @__oxide_bounds_failure(i64 %i, i64 %size, ptr null, i32 1, ptr null)
  unreachable

load:
  %data = load ptr, ptr %in
  %p = getelementptr inbounds float, ptr %data, i64 %i
  %x = load float, ptr %p
  store float %x, ptr addrspace(3) %tile
  ret void
}

; An atomic before the check is visible to other threads: a failing check may not skip it,
; so the block is left as it is.
; CHECK-LABEL: define ptx_kernel void @after_atomic(
; CHECK-NEXT: entry:
; CHECK-NEXT: atomicrmw add ptr %counter, i32 1 monotonic
; CHECK-NEXT: %ok = icmp ult i64 %i, %n
; CHECK-NEXT: br i1 %ok, label %work, label %fail
; CHECK-NOT: entry.checked
define ptx_kernel void @after_atomic(ptr %counter, i64 %i, i64 %n) {
entry:
  atomicrmw add ptr %counter, i32 1 monotonic
  %ok = icmp ult i64 %i, %n
  br i1 %ok, label %work, label %fail

fail:
  call void @__oxide_bounds_failure(i64 %i, i64 %n, ptr null, i32 2, ptr null)
  unreachable

work:
  ret void
}

; The index is loaded from memory that the store before it may write: the load cannot move
; above the store, so neither can the check.
; CHECK-LABEL: define ptx_kernel void @index_from_memory(
; CHECK-NEXT: entry:
; CHECK-NEXT: store i64 %v, ptr %slot
; CHECK-NEXT: %i = load i64, ptr %indices
; CHECK-NEXT: %ok = icmp ult i64 %i, %n
; CHECK-NEXT: br i1 %ok, label %work, label %fail
define ptx_kernel void @index_from_memory(ptr %slot, ptr %indices, i64 %n, i64 %v) {
entry:
  store i64 %v, ptr %slot
  %i = load i64, ptr %indices
  %ok = icmp ult i64 %i, %n
  br i1 %ok, label %work, label %fail

fail:
  call void @__oxide_bounds_failure(i64 %i, i64 %n, ptr null, i32 3, ptr null)
  unreachable

work:
  ret void
}

; A branch to an ordinary block (here one that returns) is not a bounds check: nothing moves.
; CHECK-LABEL: define ptx_kernel void @not_a_check(
; CHECK-NEXT: entry:
; CHECK-NEXT: store float %v, ptr %out
; CHECK-NEXT: %ok = icmp ult i64 %i, %n
; CHECK-NEXT: br i1 %ok, label %work, label %early
define ptx_kernel void @not_a_check(ptr %out, i64 %i, i64 %n, float %v) {
entry:
  store float %v, ptr %out
  %ok = icmp ult i64 %i, %n
  br i1 %ok, label %work, label %early

early:
  ret void

work:
  ret void
}

declare void @__oxide_bounds_failure(i64, i64, ptr, i32, ptr)

; An unrolled loop of checked loads into shared memory (transpose's tile load): SimplifyCFG
; shares one failure report among the checks, with a phi of their indices. Each check moves
; ahead of the load and store before it (oxide-hoist-bounds-checks), and consecutive checks join
; (oxide-join-bounds-checks): one branch on "any fails" to the report (of the first that fails),
; then the loads and stores in one block, which ptxas can issue back to back.
; CHECK-LABEL: define ptx_kernel void @unrolled_tile(
; CHECK: entry:
; CHECK: %ok0 = icmp ult i64 %i0, %size
; CHECK: %ok1 = icmp ult i64 %i1, %size
; CHECK: %checks.fail = or i1 %ok0.fails, %ok1.fails
; CHECK: %report.arg = select i1 %ok0.fails, i64 %i0, i64 %i1
; CHECK: %ok2 = icmp ult i64 %i2, %size
; CHECK: %checks.fail1 = or i1 %checks.fail, %ok2.fails
; CHECK: %report.arg2 = select i1 %checks.fail, i64 %report.arg, i64 %i2
; CHECK-NEXT: br i1 %checks.fail1, label %fail, label %[[WORK:.*]]
; CHECK: [[WORK]]:
; CHECK-NEXT: %data = load ptr, ptr %in
; CHECK-NEXT: %p0 = getelementptr
; CHECK-NEXT: %x0 = load float
; CHECK-NEXT: store float %x0
; CHECK-NEXT: %p1 = getelementptr
; CHECK-NEXT: %x1 = load float
; CHECK-NEXT: %t1 = getelementptr
; CHECK-NEXT: store float %x1
; CHECK-NEXT: %p2 = getelementptr
; CHECK-NEXT: %x2 = load float
; CHECK-NEXT: %t2 = getelementptr
; CHECK-NEXT: store float %x2
; CHECK-NEXT: ret void
; CHECK: fail:
; CHECK-NEXT: %index = phi i64 [ %report.arg2, %entry ]
; CHECK-NEXT: call void @__oxide_bounds_failure(i64 %index, i64 %size,
define ptx_kernel void @unrolled_tile(ptr readonly byval(%span) %in, ptr addrspace(3) %tile, i64 %i0, i64 %i1, i64 %i2) {
entry:
  %size.addr = getelementptr inbounds i8, ptr %in, i64 8
  %size = load i64, ptr %size.addr
  %data = load ptr, ptr %in
  %ok0 = icmp ult i64 %i0, %size
  br i1 %ok0, label %load0, label %fail

load0:
  %p0 = getelementptr inbounds float, ptr %data, i64 %i0
  %x0 = load float, ptr %p0
  store float %x0, ptr addrspace(3) %tile
  %ok1 = icmp ult i64 %i1, %size
  br i1 %ok1, label %load1, label %fail

load1:
  %p1 = getelementptr inbounds float, ptr %data, i64 %i1
  %x1 = load float, ptr %p1
  %t1 = getelementptr inbounds float, ptr addrspace(3) %tile, i64 33
  store float %x1, ptr addrspace(3) %t1
  %ok2 = icmp ult i64 %i2, %size
  br i1 %ok2, label %load2, label %fail

load2:
  %p2 = getelementptr inbounds float, ptr %data, i64 %i2
  %x2 = load float, ptr %p2
  %t2 = getelementptr inbounds float, ptr addrspace(3) %tile, i64 66
  store float %x2, ptr addrspace(3) %t2
  ret void

fail:
  %index = phi i64 [ %i0, %entry ], [ %i1, %load0 ], [ %i2, %load1 ]
  call void @__oxide_bounds_failure(i64 %index, i64 %size, ptr null, i32 4, ptr null)
  unreachable
}

; Checks in front of stores alone (SGEMM's output) stay apart: joining them gains no load
; issued earlier and keeps every index live until the one branch (5 % slower on the H200).
; CHECK-LABEL: define ptx_kernel void @stores_only(
; CHECK-NOT: checks.fail
; CHECK: %ok0 = icmp ult i64 %i0, %size
; CHECK-NEXT: br i1 %ok0, label %{{.*}}, label %fail
; CHECK-NOT: checks.fail
; CHECK: %ok1 = icmp ult i64 %i1, %size
; CHECK-NEXT: br i1 %ok1, label %{{.*}}, label %fail
; CHECK-NOT: checks.fail
; CHECK: ret void
define ptx_kernel void @stores_only(ptr readonly byval(%span) %out, i64 %i0, i64 %i1, float %v) {
entry:
  %size.addr = getelementptr inbounds i8, ptr %out, i64 8
  %size = load i64, ptr %size.addr
  %data = load ptr, ptr %out
  %ok0 = icmp ult i64 %i0, %size
  br i1 %ok0, label %store0, label %fail

store0:
  %p0 = getelementptr inbounds float, ptr %data, i64 %i0
  store float %v, ptr %p0
  %ok1 = icmp ult i64 %i1, %size
  br i1 %ok1, label %store1, label %fail

store1:
  %p1 = getelementptr inbounds float, ptr %data, i64 %i1
  store float %v, ptr %p1
  ret void

fail:
  %index = phi i64 [ %i0, %entry ], [ %i1, %store0 ]
  call void @__oxide_bounds_failure(i64 %index, i64 %size, ptr null, i32 5, ptr null)
  unreachable
}

; Eight joined checks of one base plus 0, 128, ... 896 against one size (histogram_packed's batch
; of loads) become two tests: the largest index against the size, and the smallest against the
; last value from which the largest does not wrap (2^64 - 1 - 896). The failure report still
; picks the first index that fails from the original tests. A test of another size stays as it is.
; CHECK-LABEL: define ptx_kernel void @batch_of_reads(
; CHECK-NOT: %ok7 =
; CHECK: %range.last.fails = icmp uge i64 %i7, %size
; CHECK-NEXT: %range.wraps = icmp ugt i64 %i0, -897
; CHECK-NEXT: %[[RANGE:.*]] = or i1 %range.last.fails, %range.wraps
; CHECK-NEXT: %[[ALL:.*]] = or i1 %[[RANGE]], %ok.other.fails
; CHECK-NEXT: br i1 %[[ALL]], label %fail, label %[[WORK:.*]]
; CHECK: [[WORK]]:
; CHECK-NOT: icmp
; CHECK: ret void
; CHECK: fail:
; CHECK-NEXT: %index = phi i64 [ %report.arg{{[0-9]*}}, %entry ]
define ptx_kernel void @batch_of_reads(ptr readonly byval(%span) %in, ptr addrspace(3) %tile, i64 %base, i64 %t, i64 %j, i64 %other, i64 %othersize) {
entry:
  %size.addr = getelementptr inbounds i8, ptr %in, i64 8
  %size = load i64, ptr %size.addr
  %data = load ptr, ptr %in
  %jj = shl i64 %j, 10
  %x = add i64 %base, %t
  %i0 = add i64 %jj, %x
  %ok0 = icmp ult i64 %i0, %size
  br i1 %ok0, label %l0, label %fail
l0:
  %p0 = getelementptr inbounds i32, ptr %data, i64 %i0
  %v0 = load i32, ptr %p0
  store i32 %v0, ptr addrspace(3) %tile
  %o1 = or disjoint i64 %jj, 128
  %i1 = add i64 %o1, %x
  %ok1 = icmp ult i64 %i1, %size
  br i1 %ok1, label %l1, label %fail
l1:
  %p1 = getelementptr inbounds i32, ptr %data, i64 %i1
  %v1 = load i32, ptr %p1
  %t1 = getelementptr inbounds i32, ptr addrspace(3) %tile, i64 1
  store i32 %v1, ptr addrspace(3) %t1
  %ok.other = icmp ult i64 %other, %othersize
  br i1 %ok.other, label %l2, label %fail
l2:
  %i2 = add i64 %i0, 256
  %ok2 = icmp ult i64 %i2, %size
  br i1 %ok2, label %l3, label %fail
l3:
  %p2 = getelementptr inbounds i32, ptr %data, i64 %i2
  %v2 = load i32, ptr %p2
  %t2 = getelementptr inbounds i32, ptr addrspace(3) %tile, i64 2
  store i32 %v2, ptr addrspace(3) %t2
  %o7 = or disjoint i64 %jj, 896
  %i7 = add i64 %x, %o7
  %ok7 = icmp ult i64 %i7, %size
  br i1 %ok7, label %l7, label %fail
l7:
  %p7 = getelementptr inbounds i32, ptr %data, i64 %i7
  %v7 = load i32, ptr %p7
  %t7 = getelementptr inbounds i32, ptr addrspace(3) %tile, i64 7
  store i32 %v7, ptr addrspace(3) %t7
  ret void

fail:
  %index = phi i64 [ %i0, %entry ], [ %i1, %l0 ], [ %other, %l1 ], [ %i2, %l2 ], [ %i7, %l3 ]
  %sz = phi i64 [ %size, %entry ], [ %size, %l0 ], [ %othersize, %l1 ], [ %size, %l2 ], [ %size, %l3 ]
  call void @__oxide_bounds_failure(i64 %index, i64 %sz, ptr null, i32 6, ptr null)
  unreachable
}
