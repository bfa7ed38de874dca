; RUN: opt -load-pass-plugin=%oxide_passes -passes=oxide-loop-latch-branches -S %s | FileCheck %s

; A single-block loop whose latch leaves on true comes out of the NVPTX back end as
; `@%p bra EXIT; bra.uni LOOP;`, a form ptxas does not unroll; the pass inverts the compare and
; swaps the edges (and their weights), so that the latch is `@%p bra LOOP;` and the exit falls
; through. Other loops and branches are left alone. tests/lit/oxcc/loop-latch-ptx.test checks
; the PTX of a kernel whose loop came out in the other form (a small loop like this one's
; does not: llc's own passes leave its latch in the good form).

target datalayout = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; CHECK-LABEL: define ptx_kernel void @sum(
; CHECK: loop:
; CHECK: %done = icmp ne i64 %next, %n
; CHECK-NEXT: br i1 %done, label %loop, label %exit, !prof ![[WEIGHTS:[0-9]+]]
define ptx_kernel void @sum(ptr addrspace(1) %in, ptr addrspace(1) %out, i64 %n) {
entry:
  %empty = icmp eq i64 %n, 0
  br i1 %empty, label %store, label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %acc = phi float [ 0.0, %entry ], [ %acc.next, %loop ]
  %at = getelementptr float, ptr addrspace(1) %in, i64 %i
  %x = load float, ptr addrspace(1) %at, align 4
  %acc.next = fadd float %acc, %x
  %next = add nuw i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop, !prof !0

store:
  %result = phi float [ 0.0, %entry ], [ %acc.next, %exit ]
  store float %result, ptr addrspace(1) %out, align 4
  ret void

exit:
  br label %store
}

; A compare with another user, and a loop of several blocks, keep their branches.
; CHECK-LABEL: define ptx_kernel void @shared_compare(
; CHECK: %done = icmp eq i64 %next, %n
; CHECK: br i1 %done, label %exit, label %loop
; CHECK-LABEL: define ptx_kernel void @two_blocks(
; CHECK: %done = icmp eq i64 %next, %n
; CHECK-NEXT: br i1 %done, label %exit, label %loop
; CHECK: ![[WEIGHTS]] = !{!"branch_weights", i32 124, i32 4}
define ptx_kernel void @shared_compare(ptr addrspace(1) %out, i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %next = add nuw i64 %i, 1
  %done = icmp eq i64 %next, %n
  %flag = zext i1 %done to i32
  store volatile i32 %flag, ptr addrspace(1) %out, align 4
  br i1 %done, label %exit, label %loop

exit:
  ret void
}

define ptx_kernel void @two_blocks(ptr addrspace(1) %out, i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %next, %latch ]
  store volatile i64 %i, ptr addrspace(1) %out, align 8
  br label %latch

latch:
  %next = add nuw i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop

exit:
  ret void
}

!0 = !{!"branch_weights", i32 4, i32 124}
