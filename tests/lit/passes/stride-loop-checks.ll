; RUN: opt -load-pass-plugin=%oxide_passes -passes=oxide-stride-loop-checks -S %s | FileCheck %s

; A check in a loop whose counter steps by a loop-invariant amount (block_stride, grid-stride
; loops) is tested once before the loop, at the last counter value the check runs with, when the
; failure grows with the counter (p * cols + t, no wrap by the operands' widths), the check runs
; in every iteration whose gates (`p < height`, loop-invariant `t < width`) hold, and the loop
; leaves only at its latch. Otherwise it stays.

target triple = "nvptx64-nvidia-cuda"

@file = private constant [2 x i8] c"f\00"

declare void @__oxide_bounds_failure(i64, i64, ptr, i32, ptr)
declare void @work()
declare void @use(i64)
declare i1 @flag()

; p_last = start + step * ((min(n, height) - 1 - start) / step), the division only when the loop
; runs more than once; the report gets the index at p_last.
; CHECK-LABEL: define void @rows(
; CHECK: preheader:
; CHECK: call i64 @llvm.umin.i64(i64 {{%.*}}, i64 {{%.*}})
; CHECK: [[MORE:%.*]] = icmp uge i64 [[ROOM:%.*]], [[STEP:%[0-9]+]]
; CHECK-NEXT: br i1 [[MORE]]
; CHECK: udiv i64 [[ROOM]]
; CHECK: %oxide.stride.last = add i64
; CHECK: [[ROW:%.*]] = mul i64 %oxide.stride.last, %c
; CHECK-NEXT: [[INDEX:%.*]] = add i64 [[ROW]], %t
; CHECK-NEXT: icmp uge i64 [[INDEX]], %size
; CHECK: call void @__oxide_bounds_failure(i64 [[INDEX]], i64 %size, ptr @file, i32 7, ptr @file)
; CHECK-NEXT: unreachable
; CHECK: check:
; CHECK-NOT: br i1
; CHECK: br label %body
define void @rows(i32 %rows, i32 %cols, i64 %size, i64 %height, i64 %width, i32 %start32, i32 %step32, i32 %t32) {
entry:
  %start = zext i32 %start32 to i64
  %step = zext i32 %step32 to i64
  %n = zext i32 %rows to i64
  %c = zext i32 %cols to i64
  %t = zext i32 %t32 to i64
  %t.ok = icmp ult i64 %t, %width
  %enter = icmp ult i64 %start, %n
  br i1 %enter, label %preheader, label %exit

preheader:
  br label %loop

loop:
  %p = phi i64 [ %start, %preheader ], [ %next, %latch ]
  call void @work()
  %owned = icmp ult i64 %p, %height
  %gate = select i1 %owned, i1 %t.ok, i1 false
  br i1 %gate, label %check, label %latch

check:
  %row = mul i64 %p, %c
  %i = add i64 %row, %t
  %fails = icmp uge i64 %i, %size
  br i1 %fails, label %fail, label %body

body:
  call void @use(i64 %i)
  br label %latch

latch:
  %next = add i64 %p, %step
  %more = icmp ult i64 %next, %n
  br i1 %more, label %loop, label %exit

fail:
  call void @__oxide_bounds_failure(i64 %i, i64 %size, ptr @file, i32 7, ptr @file)
  unreachable

exit:
  ret void
}

; The failure on the false edge of the in-bounds test.
; CHECK-LABEL: define void @in_bounds_test(
; CHECK: %oxide.stride.last
; CHECK: check:
; CHECK-NOT: br i1
; CHECK: br label %body
define void @in_bounds_test(i32 %rows, i32 %cols, i64 %size, i64 %height, i64 %width, i32 %start32, i32 %step32, i32 %t32) {
entry:
  %start = zext i32 %start32 to i64
  %step = zext i32 %step32 to i64
  %n = zext i32 %rows to i64
  %c = zext i32 %cols to i64
  %t = zext i32 %t32 to i64
  %t.ok = icmp ult i64 %t, %width
  %enter = icmp ult i64 %start, %n
  br i1 %enter, label %preheader, label %exit

preheader:
  br label %loop

loop:
  %p = phi i64 [ %start, %preheader ], [ %next, %latch ]
  call void @work()
  %owned = icmp ult i64 %p, %height
  %gate = select i1 %owned, i1 %t.ok, i1 false
  br i1 %gate, label %check, label %latch

check:
  %row = mul i64 %p, %c
  %i = add i64 %row, %t
  %fits = icmp ult i64 %i, %size
  br i1 %fits, label %body, label %fail

body:
  call void @use(i64 %i)
  br label %latch

latch:
  %next = add i64 %p, %step
  %more = icmp ult i64 %next, %n
  br i1 %more, label %loop, label %exit

fail:
  call void @__oxide_bounds_failure(i64 %i, i64 %size, ptr @file, i32 7, ptr @file)
  unreachable

exit:
  ret void
}

; A loop that may stop before p_last.
; CHECK-LABEL: define void @early_exit(
; CHECK-NOT: oxide.stride.last
; CHECK: check:
; CHECK: br i1 %fails, label
define void @early_exit(i32 %rows, i32 %cols, i64 %size, i64 %height, i64 %width, i32 %start32, i32 %step32, i32 %t32) {
entry:
  %start = zext i32 %start32 to i64
  %step = zext i32 %step32 to i64
  %n = zext i32 %rows to i64
  %c = zext i32 %cols to i64
  %t = zext i32 %t32 to i64
  %t.ok = icmp ult i64 %t, %width
  %enter = icmp ult i64 %start, %n
  br i1 %enter, label %preheader, label %exit

preheader:
  br label %loop

loop:
  %p = phi i64 [ %start, %preheader ], [ %next, %latch ]
  call void @work()
  %owned = icmp ult i64 %p, %height
  %gate = select i1 %owned, i1 %t.ok, i1 false
  br i1 %gate, label %check, label %latch

check:
  %row = mul i64 %p, %c
  %i = add i64 %row, %t
  %fails = icmp uge i64 %i, %size
  br i1 %fails, label %fail, label %body

body:
  call void @use(i64 %i)
  %stop = icmp eq i64 %i, 42
  br i1 %stop, label %exit, label %latch

latch:
  %next = add i64 %p, %step
  %more = icmp ult i64 %next, %n
  br i1 %more, label %loop, label %exit

fail:
  call void @__oxide_bounds_failure(i64 %i, i64 %size, ptr @file, i32 7, ptr @file)
  unreachable

exit:
  ret void
}

; A gate read from memory in the loop.
; CHECK-LABEL: define void @gate_in_loop(
; CHECK-NOT: oxide.stride.last
; CHECK: check:
; CHECK: br i1 %fails, label
define void @gate_in_loop(i32 %rows, i32 %cols, i64 %size, i64 %height, i64 %width, i32 %start32, i32 %step32, i32 %t32) {
entry:
  %start = zext i32 %start32 to i64
  %step = zext i32 %step32 to i64
  %n = zext i32 %rows to i64
  %c = zext i32 %cols to i64
  %t = zext i32 %t32 to i64
  %t.ok = icmp ult i64 %t, %width
  %enter = icmp ult i64 %start, %n
  br i1 %enter, label %preheader, label %exit

preheader:
  br label %loop

loop:
  %p = phi i64 [ %start, %preheader ], [ %next, %latch ]
  call void @work()
  %h = load i64, ptr @file
  %owned = icmp ult i64 %p, %h
  %gate = select i1 %owned, i1 %t.ok, i1 false
  br i1 %gate, label %check, label %latch

check:
  %row = mul i64 %p, %c
  %i = add i64 %row, %t
  %fails = icmp uge i64 %i, %size
  br i1 %fails, label %fail, label %body

body:
  call void @use(i64 %i)
  br label %latch

latch:
  %next = add i64 %p, %step
  %more = icmp ult i64 %next, %n
  br i1 %more, label %loop, label %exit

fail:
  call void @__oxide_bounds_failure(i64 %i, i64 %size, ptr @file, i32 7, ptr @file)
  unreachable

exit:
  ret void
}

; An index that falls as p grows.
; CHECK-LABEL: define void @falling(
; CHECK-NOT: oxide.stride.last
; CHECK: check:
; CHECK: br i1 %fails, label
define void @falling(i32 %rows, i32 %cols, i64 %size, i64 %height, i64 %width, i32 %start32, i32 %step32, i32 %t32) {
entry:
  %start = zext i32 %start32 to i64
  %step = zext i32 %step32 to i64
  %n = zext i32 %rows to i64
  %c = zext i32 %cols to i64
  %t = zext i32 %t32 to i64
  %t.ok = icmp ult i64 %t, %width
  %enter = icmp ult i64 %start, %n
  br i1 %enter, label %preheader, label %exit

preheader:
  br label %loop

loop:
  %p = phi i64 [ %start, %preheader ], [ %next, %latch ]
  call void @work()
  %owned = icmp ult i64 %p, %height
  %gate = select i1 %owned, i1 %t.ok, i1 false
  br i1 %gate, label %check, label %latch

check:
  %row = sub i64 %n, %p
  %i = add i64 %row, %t
  %fails = icmp uge i64 %i, %size
  br i1 %fails, label %fail, label %body

body:
  call void @use(i64 %i)
  br label %latch

latch:
  %next = add i64 %p, %step
  %more = icmp ult i64 %next, %n
  br i1 %more, label %loop, label %exit

fail:
  call void @__oxide_bounds_failure(i64 %i, i64 %size, ptr @file, i32 7, ptr @file)
  unreachable

exit:
  ret void
}

; A product that may wrap (cols any 64-bit value).
; CHECK-LABEL: define void @may_wrap(
; CHECK-NOT: oxide.stride.last
; CHECK: check:
; CHECK: br i1 %fails, label
define void @may_wrap(i32 %rows, i64 %cols, i64 %size, i64 %height, i64 %width, i32 %start32, i32 %step32, i32 %t32) {
entry:
  %start = zext i32 %start32 to i64
  %step = zext i32 %step32 to i64
  %n = zext i32 %rows to i64
  %c = add i64 %cols, 0
  %t = zext i32 %t32 to i64
  %t.ok = icmp ult i64 %t, %width
  %enter = icmp ult i64 %start, %n
  br i1 %enter, label %preheader, label %exit

preheader:
  br label %loop

loop:
  %p = phi i64 [ %start, %preheader ], [ %next, %latch ]
  call void @work()
  %owned = icmp ult i64 %p, %height
  %gate = select i1 %owned, i1 %t.ok, i1 false
  br i1 %gate, label %check, label %latch

check:
  %row = mul i64 %p, %c
  %i = add i64 %row, %t
  %fails = icmp uge i64 %i, %size
  br i1 %fails, label %fail, label %body

body:
  call void @use(i64 %i)
  br label %latch

latch:
  %next = add i64 %p, %step
  %more = icmp ult i64 %next, %n
  br i1 %more, label %loop, label %exit

fail:
  call void @__oxide_bounds_failure(i64 %i, i64 %size, ptr @file, i32 7, ptr @file)
  unreachable

exit:
  ret void
}

; A path through the iteration that passes the gates and still misses the check.
; CHECK-LABEL: define void @skipped(
; CHECK-NOT: oxide.stride.last
; CHECK: check:
; CHECK: br i1 %fails, label
define void @skipped(i32 %rows, i32 %cols, i64 %size, i64 %height, i64 %width, i32 %start32, i32 %step32, i32 %t32) {
entry:
  %start = zext i32 %start32 to i64
  %step = zext i32 %step32 to i64
  %n = zext i32 %rows to i64
  %c = zext i32 %cols to i64
  %t = zext i32 %t32 to i64
  %t.ok = icmp ult i64 %t, %width
  %enter = icmp ult i64 %start, %n
  br i1 %enter, label %preheader, label %exit

preheader:
  br label %loop

loop:
  %p = phi i64 [ %start, %preheader ], [ %next, %latch ]
  call void @work()
  %owned = icmp ult i64 %p, %height
  %gate = select i1 %owned, i1 %t.ok, i1 false
  br i1 %gate, label %first, label %latch

first:
  %x = call i1 @flag()
  br i1 %x, label %check, label %second

second:
  %y = call i1 @flag()
  br i1 %y, label %check, label %latch

check:
  %row = mul i64 %p, %c
  %i = add i64 %row, %t
  %fails = icmp uge i64 %i, %size
  br i1 %fails, label %fail, label %body

body:
  call void @use(i64 %i)
  br label %latch

latch:
  %next = add i64 %p, %step
  %more = icmp ult i64 %next, %n
  br i1 %more, label %loop, label %exit

fail:
  call void @__oxide_bounds_failure(i64 %i, i64 %size, ptr @file, i32 7, ptr @file)
  unreachable

exit:
  ret void
}
