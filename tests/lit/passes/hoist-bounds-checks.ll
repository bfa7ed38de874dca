; RUN: opt -load-pass-plugin=%oxide_passes -passes=oxide-hoist-bounds-checks -S %s | FileCheck %s

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
