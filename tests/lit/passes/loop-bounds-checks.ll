; RUN: opt -load-pass-plugin=%oxide_passes -passes=oxide-loop-bounds-checks -S %s | FileCheck %s

target triple = "nvptx64-nvidia-cuda"

declare void @__oxide_bounds_failure(i64, i64, ptr, i32, ptr)

; A block's row (row_mut): thread t owns columns t + 1024 j for j <= (w - 1 - t) / 1024, the
; loop runs only when t < w. Its element guard c < w holds in every iteration and goes; the
; checked read of in[c] (size n, unrelated to w) is tested once, for the last column, before
; the loop, with the same report.
; CHECK-LABEL: define void @owned_row(
; The first column is the loop's own arithmetic at j = 0 (without its no-wrap flags), frozen:
; CHECK: preheader:
; CHECK: %[[SHIFT:.*]] = shl i64 0, 10
; CHECK-NEXT: %[[FIRST:.*]] = or i64 %[[SHIFT]], %t
; CHECK-NEXT: %[[START:.*]] = freeze i64 %[[FIRST]]
; CHECK-NEXT: %[[COUNT:.*]] = freeze i64 %last
; CHECK-NEXT: %[[PRODUCT:.*]] = call { i64, i1 } @llvm.umul.with.overflow.i64(i64 1024, i64 %[[COUNT]])
; CHECK-NEXT: %[[STEPS:.*]] = extractvalue { i64, i1 } %[[PRODUCT]], 0
; CHECK-NEXT: %[[SUM:.*]] = call { i64, i1 } @llvm.uadd.with.overflow.i64(i64 %[[START]], i64 %[[STEPS]])
; CHECK-NEXT: %oxide.last.index = extractvalue { i64, i1 } %[[SUM]], 0
; CHECK: %[[PAST:.*]] = icmp uge i64 %oxide.last.index, %n
; CHECK: br i1 %{{.*}}, label %[[STOP:.*]], label %[[GO:.*]], !prof
; CHECK: [[STOP]]:
; CHECK-NEXT: call void @__oxide_bounds_failure(i64 %oxide.last.index, i64 %n, ptr null, i32 7, ptr null)
; CHECK-NEXT: unreachable
; CHECK: loop:
; CHECK: br label %read
; CHECK: read:
; CHECK: br label %body
; CHECK: body:
; CHECK: store float
; CHECK: br i1 %done
define void @owned_row(ptr %in, ptr %out, i64 %t, i64 %w, i64 %n) {
entry:
  %enter = icmp ult i64 %t, %w
  br i1 %enter, label %preheader, label %exit

preheader:
  %left = xor i64 %t, -1
  %room = add i64 %w, %left
  %last = lshr i64 %room, 10
  br label %loop

loop:
  %j = phi i64 [ 0, %preheader ], [ %j.next, %latch ]
  %step = shl i64 %j, 10
  %c = or disjoint i64 %step, %t
  %guard = icmp ult i64 %c, %w
  br i1 %guard, label %read, label %latch

read:
  %ok = icmp ult i64 %c, %n
  br i1 %ok, label %body, label %fail

fail:
  call void @__oxide_bounds_failure(i64 %c, i64 %n, ptr null, i32 7, ptr null)
  unreachable

body:
  %src = getelementptr float, ptr %in, i64 %c
  %x = load float, ptr %src
  %dst = getelementptr float, ptr %out, i64 %c
  store float %x, ptr %dst
  br label %latch

latch:
  %j.next = add i64 %j, 1
  %done = icmp eq i64 %j, %last
  br i1 %done, label %exit, label %loop

exit:
  ret void
}

; The same loop with the element guard kept (w is not tied to the count): the read's check runs
; only in some iterations, and one that is skipped may never fail, so it stays in the loop.
; CHECK-LABEL: define void @guard_unproved(
; CHECK-NOT: oxide.last.index
; CHECK: loop:
; CHECK: br i1 %guard, label %read, label %latch
; CHECK: read:
; CHECK-NEXT: %ok = icmp ult i64 %c, %n
; CHECK-NEXT: br i1 %ok, label %body, label %fail
define void @guard_unproved(ptr %in, ptr %out, i64 %t, i64 %w, i64 %n, i64 %last) {
entry:
  br label %loop

loop:
  %j = phi i64 [ 0, %entry ], [ %j.next, %latch ]
  %step = shl i64 %j, 10
  %c = or disjoint i64 %step, %t
  %guard = icmp ult i64 %c, %w
  br i1 %guard, label %read, label %latch

read:
  %ok = icmp ult i64 %c, %n
  br i1 %ok, label %body, label %fail

fail:
  call void @__oxide_bounds_failure(i64 %c, i64 %n, ptr null, i32 7, ptr null)
  unreachable

body:
  %src = getelementptr float, ptr %in, i64 %c
  %x = load float, ptr %src
  %dst = getelementptr float, ptr %out, i64 %c
  store float %x, ptr %dst
  br label %latch

latch:
  %j.next = add i64 %j, 1
  %done = icmp eq i64 %j, %last
  br i1 %done, label %exit, label %loop

exit:
  ret void
}

; A loop that may leave early (a `break` on a value it reads): its last iteration may never
; run, so its check stays.
; CHECK-LABEL: define void @early_exit(
; CHECK-NOT: oxide.last.index
; CHECK: br i1 %ok, label %body, label %fail
define void @early_exit(ptr %in, i64 %n, i64 %last) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %ok = icmp ult i64 %i, %n
  br i1 %ok, label %body, label %fail

fail:
  call void @__oxide_bounds_failure(i64 %i, i64 %n, ptr null, i32 9, ptr null)
  unreachable

body:
  %src = getelementptr float, ptr %in, i64 %i
  %x = load float, ptr %src
  %stop = fcmp olt float %x, 0.0
  br i1 %stop, label %exit, label %latch

latch:
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i, %last
  br i1 %done, label %exit, label %loop

exit:
  ret void
}

; A 32-bit signed counter widened for the index: SCEV widens it through the `nsw` that C++'s
; signed overflow rule puts there, which nothing proves, so the check stays.
; CHECK-LABEL: define void @narrow_counter(
; CHECK-NOT: oxide.last.index
; CHECK: br i1 %ok, label %body, label %fail
define void @narrow_counter(ptr %in, i64 %n, i64 %last) {
entry:
  br label %loop

loop:
  %j = phi i64 [ 0, %entry ], [ %j.next, %body ]
  %k = phi i32 [ 0, %entry ], [ %k.next, %body ]
  %i = sext i32 %k to i64
  %ok = icmp ult i64 %i, %n
  br i1 %ok, label %body, label %fail

fail:
  call void @__oxide_bounds_failure(i64 %i, i64 %n, ptr null, i32 11, ptr null)
  unreachable

body:
  %src = getelementptr float, ptr %in, i64 %i
  %x = load volatile float, ptr %src
  %k.next = add nsw i32 %k, 256
  %j.next = add i64 %j, 1
  %done = icmp eq i64 %j, %last
  br i1 %done, label %exit, label %loop

exit:
  ret void
}

; A loop whose latch test is `i <u n` with a step of 3: its count would rest on no-wrap facts,
; so nothing changes.
; CHECK-LABEL: define void @inexact_count(
; CHECK-NOT: oxide.last.index
; CHECK: br i1 %ok, label %body, label %fail
define void @inexact_count(ptr %in, i64 %n, i64 %m) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %body ]
  %ok = icmp ult i64 %i, %n
  br i1 %ok, label %body, label %fail

fail:
  call void @__oxide_bounds_failure(i64 %i, i64 %n, ptr null, i32 13, ptr null)
  unreachable

body:
  %src = getelementptr float, ptr %in, i64 %i
  %x = load volatile float, ptr %src
  %i.next = add nuw i64 %i, 3
  %more = icmp ult i64 %i.next, %m
  br i1 %more, label %loop, label %exit

exit:
  ret void
}

; The owned-elements count without the test t < w before the loop: with t >= w the count wraps
; and the columns pass w, so the guard stays (and the read's check, which some iterations skip).
; CHECK-LABEL: define void @count_without_entry_test(
; CHECK-NOT: oxide.last.index
; CHECK: br i1 %guard, label %read, label %latch
define void @count_without_entry_test(ptr %in, ptr %out, i64 %t, i64 %w, i64 %n) {
entry:
  %left = xor i64 %t, -1
  %room = add i64 %w, %left
  %last = lshr i64 %room, 10
  br label %loop

loop:
  %j = phi i64 [ 0, %entry ], [ %j.next, %latch ]
  %step = shl i64 %j, 10
  %c = or disjoint i64 %step, %t
  %guard = icmp ult i64 %c, %w
  br i1 %guard, label %read, label %latch

read:
  %ok = icmp ult i64 %c, %n
  br i1 %ok, label %body, label %fail

fail:
  call void @__oxide_bounds_failure(i64 %c, i64 %n, ptr null, i32 7, ptr null)
  unreachable

body:
  %src = getelementptr float, ptr %in, i64 %c
  %x = load float, ptr %src
  %dst = getelementptr float, ptr %out, i64 %c
  store float %x, ptr %dst
  br label %latch

latch:
  %j.next = add i64 %j, 1
  %done = icmp eq i64 %j, %last
  br i1 %done, label %exit, label %loop

exit:
  ret void
}

; A report whose index LLVM computed in the failure block (IndVarSimplify writes the index a
; failing exit sees as `umax(n, base)`): the check is still one, and is tested before the loop
; with the last index.
; CHECK-LABEL: define void @report_computed_in_failure(
; CHECK: %oxide.last.index = extractvalue
; CHECK: call void @__oxide_bounds_failure(i64 %oxide.last.index, i64 %n, ptr null, i32 21, ptr null)
; CHECK: loop:
; CHECK-NOT: br i1 %ok
define void @report_computed_in_failure(ptr %in, i64 %base, i64 %n, i64 %last) {
entry:
  br label %loop

loop:
  %j = phi i64 [ 0, %entry ], [ %j.next, %body ]
  %i = add i64 %j, %base
  %ok = icmp ult i64 %i, %n
  br i1 %ok, label %body, label %fail

fail:
  %at = call i64 @llvm.umax.i64(i64 %n, i64 %base)
  call void @__oxide_bounds_failure(i64 %at, i64 %n, ptr null, i32 21, ptr null)
  unreachable

body:
  %src = getelementptr float, ptr %in, i64 %i
  %x = load volatile float, ptr %src
  %j.next = add i64 %j, 1
  %done = icmp eq i64 %j, %last
  br i1 %done, label %exit, label %loop

exit:
  ret void
}

; A column of a row-major matrix, b[j * w + c] (naive matmul's second read): a step fixed in the
; loop but not constant. Below 2^32 here (w a 32-bit width), so only the rising test: no index
; wraps and the last is below the bound.
; CHECK-LABEL: define void @column_step(
; CHECK: preheader:
; CHECK: %[[STEP:.*]] = freeze i64 %w
; CHECK-NEXT: %[[P:.*]] = call { i64, i1 } @llvm.umul.with.overflow.i64(i64 %[[STEP]], i64 %{{.*}})
; CHECK-NOT: sub i64 0,
; CHECK: call void @__oxide_bounds_failure(i64 %oxide.last.index, i64 %n, ptr null, i32 22, ptr null)
; CHECK: loop:
; CHECK-NOT: br i1 %ok
define void @column_step(ptr %in, i64 %c, i32 %w32, i64 %n, i64 %last) {
entry:
  %w = zext i32 %w32 to i64
  br label %preheader

preheader:
  br label %loop

loop:
  %j = phi i64 [ 0, %preheader ], [ %j.next, %body ]
  %row = mul i64 %j, %w
  %i = add i64 %row, %c
  %ok = icmp ult i64 %i, %n
  br i1 %ok, label %body, label %fail

fail:
  call void @__oxide_bounds_failure(i64 %i, i64 %n, ptr null, i32 22, ptr null)
  unreachable

body:
  %src = getelementptr float, ptr %in, i64 %i
  %x = load volatile float, ptr %src
  %j.next = add i64 %j, 1
  %done = icmp eq i64 %j, %last
  br i1 %done, label %exit, label %loop

exit:
  ret void
}

; The same with a 64-bit width (a size_t): a step above 2^64 - n wraps, so the indices fall by
; d = -w each time. Then the first index is tested, and that no fall passes below zero; which
; test applies is decided before the loop (`w >u -n`), and the report names the first index if
; it fails, else the last.
; CHECK-LABEL: define void @any_step(
; CHECK: preheader:
; CHECK: %[[STEP:.*]] = freeze i64 %w
; CHECK: %[[PAST:.*]] = icmp uge i64 %oxide.last.index, %n
; CHECK-NEXT: %[[RISES:.*]] = or i1 %{{.*}}, %[[PAST]]
; CHECK-NEXT: %[[D:.*]] = sub i64 0, %[[STEP]]
; CHECK-NEXT: %[[DROP:.*]] = call { i64, i1 } @llvm.umul.with.overflow.i64(i64 %[[D]], i64 %{{.*}})
; CHECK-NEXT: %[[STARTFAILS:.*]] = icmp uge i64 %[[START:.*]], %n
; CHECK: %[[BELOW:.*]] = icmp ugt i64 %{{.*}}, %[[START]]
; CHECK: %[[FALLS:.*]] = or i1 %[[STARTFAILS]],
; CHECK: %[[NEGN:.*]] = sub i64 0, %n
; CHECK-NEXT: %[[WRAPS:.*]] = icmp ugt i64 %[[STEP]], %[[NEGN]]
; CHECK-NEXT: %[[FAILS:.*]] = select i1 %[[WRAPS]], i1 %[[FALLS]], i1 %[[RISES]]
; CHECK-NEXT: %[[REPORTED:.*]] = select i1 %[[STARTFAILS]], i64 %[[START]], i64 %oxide.last.index
; CHECK: call void @__oxide_bounds_failure(i64 %[[REPORTED]], i64 %n, ptr null, i32 23, ptr null)
; CHECK: loop:
; CHECK-NOT: br i1 %ok
define void @any_step(ptr %in, i64 %c, i64 %w, i64 %n, i64 %last) {
entry:
  br label %preheader

preheader:
  br label %loop

loop:
  %j = phi i64 [ 0, %preheader ], [ %j.next, %body ]
  %row = mul i64 %j, %w
  %i = add i64 %row, %c
  %ok = icmp ult i64 %i, %n
  br i1 %ok, label %body, label %fail

fail:
  call void @__oxide_bounds_failure(i64 %i, i64 %n, ptr null, i32 23, ptr null)
  unreachable

body:
  %src = getelementptr float, ptr %in, i64 %i
  %x = load volatile float, ptr %src
  %j.next = add i64 %j, 1
  %done = icmp eq i64 %j, %last
  br i1 %done, label %exit, label %loop

exit:
  ret void
}

; A check IndVarSimplify turned into an exit on `j == x` (`base + j <u n` first fails where
; j == umax(n, base) - base): j takes 0 .. last once each, so it fails exactly when x <=u last.
; Tested before the loop with the report's own arguments.
; CHECK-LABEL: define void @equality_exit(
; CHECK: entry:
; CHECK: %[[LAST:.*]] = freeze i64 %last
; CHECK-NEXT: %[[X:.*]] = freeze i64 %x
; CHECK-NEXT: %[[FIRST:.*]] = freeze i64 0
; CHECK-NEXT: %[[GAP:.*]] = sub i64 %[[X]], %[[FIRST]]
; CHECK-NEXT: %[[FAILS:.*]] = icmp ule i64 %[[GAP]], %[[LAST]]
; CHECK-NEXT: br i1 %[[FAILS]]
; CHECK: call void @__oxide_bounds_failure(i64 %at, i64 %n, ptr null, i32 24, ptr null)
; CHECK: loop:
; CHECK-NOT: icmp eq i64 %j, %x
; CHECK: br label %body
define void @equality_exit(ptr %in, i64 %base, i64 %n, i64 %last) {
entry:
  %at = call i64 @llvm.umax.i64(i64 %n, i64 %base)
  %x = sub i64 %at, %base
  br label %loop

loop:
  %j = phi i64 [ 0, %entry ], [ %j.next, %body ]
  %hit = icmp eq i64 %j, %x
  br i1 %hit, label %fail, label %body

fail:
  call void @__oxide_bounds_failure(i64 %at, i64 %n, ptr null, i32 24, ptr null)
  unreachable

body:
  %i = add i64 %j, %base
  %src = getelementptr float, ptr %in, i64 %i
  %y = load float, ptr %src
  %j.next = add i64 %j, 1
  %done = icmp eq i64 %j, %last
  br i1 %done, label %exit, label %loop

exit:
  ret void
}

; The same exit where the report's index is the loop's own arithmetic on j (gemv's `a[row * n +
; k]`): it is reported as computed at j = x, before the loop.
; CHECK-LABEL: define void @equality_exit_index_in_loop(
; CHECK: entry:
; CHECK: %[[X:.*]] = freeze i64 %x
; CHECK-NEXT: %[[AT:.*]] = add i64 %[[X]], %base
; CHECK: br i1
; CHECK: call void @__oxide_bounds_failure(i64 %[[AT]], i64 %n, ptr null, i32 26, ptr null)
; CHECK: loop:
; CHECK-NOT: icmp eq i64 %j, %x
; CHECK: br label %body
define void @equality_exit_index_in_loop(ptr %in, i64 %base, i64 %n, i64 %last) {
entry:
  %limit = call i64 @llvm.umax.i64(i64 %n, i64 %base)
  %x = sub i64 %limit, %base
  br label %loop

loop:
  %j = phi i64 [ 0, %entry ], [ %j.next, %body ]
  %i = add i64 %j, %base
  %hit = icmp eq i64 %j, %x
  br i1 %hit, label %fail, label %body

fail:
  call void @__oxide_bounds_failure(i64 %i, i64 %n, ptr null, i32 26, ptr null)
  unreachable

body:
  %src = getelementptr float, ptr %in, i64 %i
  %y = load float, ptr %src
  %j.next = add i64 %j, 1
  %done = icmp eq i64 %j, %last
  br i1 %done, label %exit, label %loop

exit:
  ret void
}

; The same exit in a loop that writes global memory stays: the audit of the optimised code
; could not take a test whose index and bound are gone as the proof of the write.
; CHECK-LABEL: define void @equality_exit_with_writes(
; CHECK: loop:
; CHECK: %hit = icmp eq i64 %j, %x
; CHECK-NEXT: br i1 %hit, label %fail, label %body
define void @equality_exit_with_writes(ptr %out, i64 %base, i64 %n, i64 %last) {
entry:
  %at = call i64 @llvm.umax.i64(i64 %n, i64 %base)
  %x = sub i64 %at, %base
  br label %loop

loop:
  %j = phi i64 [ 0, %entry ], [ %j.next, %body ]
  %hit = icmp eq i64 %j, %x
  br i1 %hit, label %fail, label %body

fail:
  call void @__oxide_bounds_failure(i64 %at, i64 %n, ptr null, i32 25, ptr null)
  unreachable

body:
  %i = add i64 %j, %base
  %dst = getelementptr float, ptr %out, i64 %i
  store float 1.0, ptr %dst
  %j.next = add i64 %j, 1
  %done = icmp eq i64 %j, %last
  br i1 %done, label %exit, label %loop

exit:
  ret void
}

declare i64 @llvm.umax.i64(i64, i64)
