; RUN: opt -load-pass-plugin=%oxide_passes -passes=oxide-column-loops -S %s | FileCheck %s
;
; Loops over a strided set's elements, j < (W - 1 - f) / S + 1 entered only when f < W, with a
; block's threads as S, become the column loops they stand for: c = f, f + S... while c < W - S;
; the values f + S j and those a fixed distance from it become c and c plus the distance;
; runtime unrolling is off for them.

target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.laneid()

; A block of 1024's row (row_mut(b)): the latch leaves at j == q, as LLVM rotates `j < q + 1`.
; CHECK-LABEL: @block_row(
; CHECK: pre:
; CHECK-NEXT: %column.wide = icmp uge i64 %w, 1024
; CHECK-NEXT: %column.room = sub i64 %w, 1024
; CHECK-NEXT: %column.limit = select i1 %column.wide, i64 %column.room, i64 0
; CHECK: loop:
; CHECK-NEXT: %column = phi i64 [ %t, %pre ], [ %column.next, %loop ]
; CHECK-NEXT: %e.column = add i64 %column, %row
; CHECK-NOT: %j
; CHECK: getelementptr inbounds float, ptr %out, i64 %e.column
; CHECK: store float %v
; CHECK: %column.next = add i64 %column, 1024
; CHECK-NEXT: %column.goes_on = icmp ult i64 %column, %column.limit
; CHECK-NEXT: %column.ends = xor i1 %column.goes_on, true
; CHECK-NEXT: br i1 %column.ends, label %exit, label %loop, !llvm.loop ![[LOOP:[0-9]+]]
define void @block_row(ptr %out, i64 %w, i64 %row, float %v) {
entry:
  %tid = call range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t = zext nneg i32 %tid to i64
  %inside = icmp ugt i64 %w, %t
  %not = xor i64 %t, -1
  %x = add i64 %w, %not
  %q = lshr i64 %x, 10
  br i1 %inside, label %pre, label %exit
pre:
  br label %loop
loop:
  %j = phi i64 [ 0, %pre ], [ %j.next, %loop ]
  %s = shl nuw i64 %j, 10
  %c = or disjoint i64 %s, %t
  %e = add nuw i64 %c, %row
  %p = getelementptr inbounds float, ptr %out, i64 %e
  store float %v, ptr %p
  %j.next = add nuw nsw i64 %j, 1
  %last = icmp eq i64 %j, %q
  br i1 %last, label %exit, label %loop
exit:
  ret void
}

; A block of 256's row, counted `j + 1 <u q + 1`, the guard one side of an `and`.
; CHECK-LABEL: @block256_row(
; CHECK: %column.limit = select
; CHECK: loop:
; CHECK-NEXT: %column = phi i64 [ %l, %pre ], [ %column.next, %loop ]
; CHECK: getelementptr inbounds i32, ptr %out, i64 %column
; CHECK: %column.next = add i64 %column, 256
; CHECK-NEXT: %column.goes_on = icmp ult i64 %column, %column.limit
; CHECK-NEXT: br i1 %column.goes_on, label %loop, label %exit
define void @block256_row(ptr %out, i64 %w, i1 %row_inside) {
entry:
  %lane = call range(i32 0, 256) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %l = zext nneg i32 %lane to i64
  %inside = icmp ult i64 %l, %w
  %both = select i1 %row_inside, i1 %inside, i1 false
  %l1 = add i64 %l, 1
  %x = sub i64 %w, %l1
  %q = lshr i64 %x, 8
  %count = add nuw i64 %q, 1
  br i1 %both, label %pre, label %exit
pre:
  br label %loop
loop:
  %j = phi i64 [ 0, %pre ], [ %j.next, %loop ]
  %s = mul nuw i64 %j, 256
  %c = add nuw i64 %l, %s
  %p = getelementptr inbounds i32, ptr %out, i64 %c
  store i32 7, ptr %p
  %j.next = add nuw i64 %j, 1
  %more = icmp ult i64 %j.next, %count
  br i1 %more, label %loop, label %exit
exit:
  ret void
}

; A block of any shape: the step is the block's threads, a value known to be nonzero.
; CHECK-LABEL: @any_block(
; CHECK: loop:
; CHECK-NEXT: %column = phi i64 [ %t, %pre ], [ %column.next, %loop ]
; CHECK: %column.next = add i64 %column, %threads
define void @any_block(ptr %out, i64 %w) {
entry:
  %tid = call range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ntid = call range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %t = zext nneg i32 %tid to i64
  %threads = zext nneg i32 %ntid to i64
  %inside = icmp ult i64 %t, %w
  %not = xor i64 %t, -1
  %x = add i64 %w, %not
  %fx = freeze i64 %x
  %q = udiv i64 %fx, %threads
  br i1 %inside, label %pre, label %exit
pre:
  br label %loop
loop:
  %j = phi i64 [ 0, %pre ], [ %j.next, %loop ]
  %s = mul nuw i64 %j, %threads
  %c = add nuw i64 %s, %t
  %p = getelementptr inbounds float, ptr %out, i64 %c
  store float 1.0, ptr %p
  %j.next = add nuw i64 %j, 1
  %last = icmp eq i64 %j, %q
  br i1 %last, label %exit, label %loop
exit:
  ret void
}

; The loop is rewritten, but a value computed in 32 bits and sign-extended keeps its own
; computation: SCEV sees {t, +, 1024} in it only through the user's `nsw` (the 32-bit column would
; wrap past 2^31 where the 64-bit one goes on). The value computed in 64 bits is replaced.
; CHECK-LABEL: @narrow_index(
; CHECK: loop:
; CHECK-NEXT: %column = phi i64 [ %t, %pre ], [ %column.next, %loop ]
; CHECK-NEXT: %c32 = phi i32 [ %tid, %pre ], [ %c32.next, %loop ]
; CHECK-NEXT: %e = sext i32 %c32 to i64
; CHECK-NEXT: getelementptr inbounds float, ptr %out, i64 %e
; CHECK: getelementptr inbounds float, ptr %copy, i64 %column
; CHECK: %column.goes_on = icmp ult i64 %column, %column.limit
define void @narrow_index(ptr %out, ptr %copy, i64 %w) {
entry:
  %tid = call range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t = zext nneg i32 %tid to i64
  %inside = icmp ugt i64 %w, %t
  %not = xor i64 %t, -1
  %x = add i64 %w, %not
  %q = lshr i64 %x, 10
  br i1 %inside, label %pre, label %exit
pre:
  br label %loop
loop:
  %j = phi i64 [ 0, %pre ], [ %j.next, %loop ]
  %c32 = phi i32 [ %tid, %pre ], [ %c32.next, %loop ]
  %e = sext i32 %c32 to i64
  %p = getelementptr inbounds float, ptr %out, i64 %e
  store float 1.0, ptr %p
  %s = shl nuw i64 %j, 10
  %c = or disjoint i64 %s, %t
  %p2 = getelementptr inbounds float, ptr %copy, i64 %c
  store float 2.0, ptr %p2
  %c32.next = add nsw i32 %c32, 1024
  %j.next = add nuw nsw i64 %j, 1
  %last = icmp eq i64 %j, %q
  br i1 %last, label %exit, label %loop
exit:
  ret void
}

; Not rewritten: nothing says the loop is entered only when t < w (then q is no count of
; columns below w, and the loops would differ).
; CHECK-LABEL: @unguarded(
; CHECK-NOT: column
; CHECK: ret void
define void @unguarded(ptr %out, i64 %w) {
entry:
  %tid = call range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t = zext nneg i32 %tid to i64
  %not = xor i64 %t, -1
  %x = add i64 %w, %not
  %q = lshr i64 %x, 10
  br label %loop
loop:
  %j = phi i64 [ 0, %entry ], [ %j.next, %loop ]
  %s = shl nuw i64 %j, 10
  %c = or disjoint i64 %s, %t
  %p = getelementptr inbounds float, ptr %out, i64 %c
  store float 1.0, ptr %p
  %j.next = add nuw nsw i64 %j, 1
  %last = icmp eq i64 %j, %q
  br i1 %last, label %exit, label %loop
exit:
  ret void
}

; Not rewritten: a warp's row (lanes l, l + 32...) runs many iterations a lane, where LLVM's
; runtime unrolling pays and the trip count is computed once.
; CHECK-LABEL: @warp_row(
; CHECK-NOT: column
; CHECK: ret void
define void @warp_row(ptr %out, i64 %w) {
entry:
  %lane = call range(i32 0, 32) i32 @llvm.nvvm.read.ptx.sreg.laneid()
  %l = zext nneg i32 %lane to i64
  %inside = icmp ult i64 %l, %w
  %not = xor i64 %l, -1
  %x = add i64 %w, %not
  %q = lshr i64 %x, 5
  br i1 %inside, label %pre, label %exit
pre:
  br label %loop
loop:
  %j = phi i64 [ 0, %pre ], [ %j.next, %loop ]
  %s = shl nuw i64 %j, 5
  %c = or disjoint i64 %s, %l
  %p = getelementptr inbounds i32, ptr %out, i64 %c
  store i32 7, ptr %p
  %j.next = add nuw nsw i64 %j, 1
  %last = icmp eq i64 %j, %q
  br i1 %last, label %exit, label %loop
exit:
  ret void
}

; Not rewritten: (w - t) / 1024 is not the last index of the columns below w.
; CHECK-LABEL: @not_the_last_index(
; CHECK-NOT: column
; CHECK: ret void
define void @not_the_last_index(ptr %out, i64 %w) {
entry:
  %tid = call range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t = zext nneg i32 %tid to i64
  %inside = icmp ugt i64 %w, %t
  %x = sub i64 %w, %t
  %q = lshr i64 %x, 10
  br i1 %inside, label %pre, label %exit
pre:
  br label %loop
loop:
  %j = phi i64 [ 0, %pre ], [ %j.next, %loop ]
  %s = shl nuw i64 %j, 10
  %c = or disjoint i64 %s, %t
  %p = getelementptr inbounds float, ptr %out, i64 %c
  store float 1.0, ptr %p
  %j.next = add nuw nsw i64 %j, 1
  %last = icmp eq i64 %j, %q
  br i1 %last, label %exit, label %loop
exit:
  ret void
}

; Not rewritten: a step that may be zero (w / 0 is no count).
; CHECK-LABEL: @step_may_be_zero(
; CHECK-NOT: column
; CHECK: ret void
define void @step_may_be_zero(ptr %out, i64 %w, i64 %step) {
entry:
  %tid = call range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t = zext nneg i32 %tid to i64
  %inside = icmp ugt i64 %w, %t
  %not = xor i64 %t, -1
  %x = add i64 %w, %not
  %q = udiv i64 %x, %step
  br i1 %inside, label %pre, label %exit
pre:
  br label %loop
loop:
  %j = phi i64 [ 0, %pre ], [ %j.next, %loop ]
  %s = mul i64 %j, %step
  %c = add i64 %s, %t
  %p = getelementptr inbounds float, ptr %out, i64 %c
  store float 1.0, ptr %p
  %j.next = add nuw nsw i64 %j, 1
  %last = icmp eq i64 %j, %q
  br i1 %last, label %exit, label %loop
exit:
  ret void
}

; CHECK: ![[LOOP]] = distinct !{![[LOOP]], ![[NORUNTIME:[0-9]+]]}
; CHECK: ![[NORUNTIME]] = !{!"llvm.loop.unroll.runtime.disable"
