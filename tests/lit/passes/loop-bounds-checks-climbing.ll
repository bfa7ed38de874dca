; RUN: opt -load-pass-plugin=%oxide_passes -passes=oxide-loop-bounds-checks -S %s | FileCheck %s
;
; Loops counted by `next <u limit`, next = counter + step (a power of two), counters of any
; width: checks of an index that grows with the counter are tested once before the loop, at the
; largest counter the loop can reach, limit - 1 - ((limit - 1 - start) mod step), when it goes
; on at all (start + step <u limit). Modular arithmetic throughout: the counter's no-wrap flags
; are not read, and the index must be computed by operations that never wrap for any counter.

target triple = "nvptx64-nvidia-cuda"

declare void @__oxide_bounds_failure(i64, i64, ptr, i32, ptr)

; The prefetch of sgemm's k loop: `if (k + 8 < n) next = a[base + (k + 8) / 4]`, the check runs
; in exactly the iterations after which the loop goes on, so at next = last in the last of them.
; The base is below 2^32 (a row times a width of 32-bit values, in sgemm): base + (k + 8) / 4
; cannot wrap.
; CHECK-LABEL: define void @prefetch(
; CHECK: preheader:
; CHECK: %[[START:.*]] = freeze i32 0
; CHECK-NEXT: %[[LIMIT:.*]] = freeze i32 %n
; CHECK-NEXT: %[[SECOND:.*]] = add i32 %[[START]], 8
; CHECK-NEXT: %[[GOES:.*]] = icmp ult i32 %[[SECOND]], %[[LIMIT]]
; CHECK-NEXT: %[[TOP:.*]] = sub i32 %[[LIMIT]], 1
; CHECK-NEXT: %[[ROOM:.*]] = sub i32 %[[TOP]], %[[START]]
; CHECK-NEXT: %[[SLACK:.*]] = and i32 %[[ROOM]], 7
; CHECK-NEXT: %oxide.last.counter = sub i32 %[[TOP]], %[[SLACK]]
; CHECK-NEXT: %[[Q:.*]] = lshr i32 %oxide.last.counter, 2
; CHECK-NEXT: %[[W:.*]] = zext i32 %[[Q]] to i64
; CHECK-NEXT: %[[I:.*]] = add i64 %base, %[[W]]
; CHECK-NEXT: %oxide.last.index = freeze i64 %[[I]]
; CHECK-NEXT: %[[PAST:.*]] = icmp uge i64 %oxide.last.index, %size
; CHECK-NEXT: %[[FAILS:.*]] = select i1 %[[GOES]], i1 %[[PAST]], i1 false
; CHECK-NEXT: br i1 %[[FAILS]], label %[[STOP:.*]], label %[[GO:.*]], !prof
; CHECK: [[STOP]]:
; CHECK-NEXT: call void @__oxide_bounds_failure(i64 %oxide.last.index, i64 %size, ptr null, i32 11, ptr null)
; CHECK: fetch:
; CHECK-NEXT: %q = lshr exact i32 %next, 2
; CHECK-NOT: br i1
; CHECK: br label %read
define void @prefetch(ptr %a, i64 %base64, i64 %size, i32 %n) {
entry:
  %base = and i64 %base64, 4294967295
  %enter = icmp ne i32 %n, 0
  br i1 %enter, label %preheader, label %exit

preheader:
  br label %loop

loop:
  %k = phi i32 [ 0, %preheader ], [ %next, %latch ]
  %next = add nuw nsw i32 %k, 8
  %goes = icmp ult i32 %next, %n
  br i1 %goes, label %fetch, label %latch

fetch:
  %q = lshr exact i32 %next, 2
  %w = zext nneg i32 %q to i64
  %i = add nuw nsw i64 %base, %w
  %ok = icmp ult i64 %i, %size
  br i1 %ok, label %read, label %fail

read:
  %p = getelementptr float, ptr %a, i64 %i
  %x = load volatile float, ptr %p
  br label %latch

fail:
  call void @__oxide_bounds_failure(i64 %i, i64 %size, ptr null, i32 11, ptr null)
  unreachable

latch:
  br i1 %goes, label %loop, label %exit

exit:
  ret void
}

; A check in every iteration of `for (uint32_t k = s; k < n; ++k) in[k * w + c]` (the latch
; leaves on `k + 1 >= n`): the first iteration runs whatever s is, so its index is tested too,
; and the report names the first of the two that fails.
; CHECK-LABEL: define void @every_iteration(
; CHECK: preheader:
; CHECK: %oxide.last.counter = sub i32
; CHECK-NEXT: %[[FIRSTW:.*]] = zext i32 %s to i64
; CHECK-NEXT: %[[FIRSTM:.*]] = mul i64 %[[FIRSTW]], %w
; CHECK-NEXT: %[[FIRSTI:.*]] = add i64 %[[FIRSTM]], %c
; CHECK-NEXT: %[[FIRST:.*]] = freeze i64 %[[FIRSTI]]
; CHECK-NEXT: %[[LASTW:.*]] = zext i32 %oxide.last.counter to i64
; CHECK-NEXT: %[[LASTM:.*]] = mul i64 %[[LASTW]], %w
; CHECK-NEXT: %[[LASTI:.*]] = add i64 %[[LASTM]], %c
; CHECK-NEXT: %[[LAST:.*]] = freeze i64 %[[LASTI]]
; CHECK-NEXT: %[[PAST:.*]] = icmp uge i64 %[[LAST]], %size
; CHECK-NEXT: %[[LASTFAILS:.*]] = select i1 %{{.*}}, i1 %[[PAST]], i1 false
; CHECK-NEXT: %[[FIRSTFAILS:.*]] = icmp uge i64 %[[FIRST]], %size
; CHECK-NEXT: %[[REPORTED:oxide.last.index]] = select i1 %[[FIRSTFAILS]], i64 %[[FIRST]], i64 %[[LAST]]
; CHECK-NEXT: %[[FAILS:.*]] = or i1 %[[FIRSTFAILS]], %[[LASTFAILS]]
; CHECK-NEXT: br i1 %[[FAILS]]
; CHECK: call void @__oxide_bounds_failure(i64 %[[REPORTED]], i64 %size, ptr null, i32 12, ptr null)
; CHECK: loop:
; CHECK: br label %loop.ok
define void @every_iteration(ptr %in, i32 %s, i32 %n, i64 %w32, i64 %c32, i64 %size) {
entry:
  %w = and i64 %w32, 4294967295
  %c = and i64 %c32, 4294967295
  %enter = icmp ult i32 %s, %n
  br i1 %enter, label %preheader, label %exit

preheader:
  br label %loop

loop:
  %k = phi i32 [ %s, %preheader ], [ %next, %loop.ok ]
  %kw = zext i32 %k to i64
  %row = mul nuw nsw i64 %kw, %w
  %i = add nuw nsw i64 %row, %c
  %ok = icmp ult i64 %i, %size
  br i1 %ok, label %loop.ok, label %fail

loop.ok:
  %p = getelementptr float, ptr %in, i64 %i
  %x = load volatile float, ptr %p
  %next = add i32 %k, 1
  %goes = icmp ult i32 %next, %n
  br i1 %goes, label %loop, label %exit

fail:
  call void @__oxide_bounds_failure(i64 %i, i64 %size, ptr null, i32 12, ptr null)
  unreachable

exit:
  ret void
}

; Checks that stay in the loop.
; A product that may wrap for a large counter (w is any 64-bit value): the largest counter need
; not give the largest index.
; CHECK-LABEL: define void @may_wrap(
; CHECK-NOT: oxide.last
; CHECK: loop:
; CHECK: icmp ult i64 %i, %size
define void @may_wrap(ptr %in, i32 %n, i64 %w, i64 %size) {
entry:
  br label %loop

loop:
  %k = phi i32 [ 0, %entry ], [ %next, %loop.ok ]
  %kw = zext i32 %k to i64
  %i = mul i64 %kw, %w
  %ok = icmp ult i64 %i, %size
  br i1 %ok, label %loop.ok, label %fail

loop.ok:
  %p = getelementptr float, ptr %in, i64 %i
  %x = load volatile float, ptr %p
  %next = add i32 %k, 1
  %goes = icmp ult i32 %next, %n
  br i1 %goes, label %loop, label %exit

fail:
  call void @__oxide_bounds_failure(i64 %i, i64 %size, ptr null, i32 13, ptr null)
  unreachable

exit:
  ret void
}

; An index that falls as the counter grows (size - 1 - k), one that is not monotone (k | c),
; and a counter stepping by 3 (a step that does not divide 2^32: the
; counter's class is not kept when it wraps): the checks stay.
; CHECK-LABEL: define void @not_climbing(
; CHECK-NOT: oxide.last
; CHECK: loop:
; CHECK: icmp ult i64 %down, %size
; CHECK: icmp ult i64 %mixed, %size
define void @not_climbing(ptr %in, i32 %n, i64 %c, i64 %size) {
entry:
  br label %loop

loop:
  %k = phi i32 [ 0, %entry ], [ %next, %mixed.ok ]
  %kw = zext i32 %k to i64
  %top = sub i64 %size, 1
  %down = sub i64 %top, %kw
  %ok1 = icmp ult i64 %down, %size
  br i1 %ok1, label %down.ok, label %fail

down.ok:
  %mixed = or i64 %kw, %c
  %ok2 = icmp ult i64 %mixed, %size
  br i1 %ok2, label %mixed.ok, label %fail

mixed.ok:
  %next = add i32 %k, 1
  %goes = icmp ult i32 %next, %n
  br i1 %goes, label %loop, label %exit

fail:
  call void @__oxide_bounds_failure(i64 0, i64 %size, ptr null, i32 14, ptr null)
  unreachable

exit:
  ret void
}

; A signed latch (`for (int k = 0; k < n; ++k)` kept in 32 bits, the index a sign extension of
; k): counted in signed order from a start known not negative, so k runs from 0 to last and
; `sext` reads as `zext`. The test before the loop: k's first and last values, and, where last +
; 1 wraps past 2^31 (the loop would never end, its counter going negative), a failure that
; reports the bound itself.
; CHECK-LABEL: define void @signed_counter(
; CHECK: %[[GOES:.*]] = icmp slt i32
; CHECK: %oxide.last.counter = sub i32
; CHECK: %[[LASTW:.*]] = sext i32 %oxide.last.counter to i64
; CHECK-NEXT: %[[LAST:.*]] = freeze i64 %[[LASTW]]
; CHECK-NEXT: %[[SUM:.*]] = call { i32, i1 } @llvm.sadd.with.overflow.i32(i32 %oxide.last.counter, i32 1)
; CHECK-NEXT: %[[WRAPS:.*]] = extractvalue { i32, i1 } %[[SUM]], 1
; CHECK-NEXT: %[[ENDLESS:.*]] = and i1 %[[GOES]], %[[WRAPS]]
; CHECK-NEXT: %[[ALWAYS:.*]] = icmp uge i64 %size, %size
; CHECK-NEXT: select i1 %[[ENDLESS]], i1 %[[ALWAYS]], i1 false
; CHECK: call void @__oxide_bounds_failure(i64 %oxide.last.index, i64 %size, ptr null, i32 15, ptr null)
; CHECK: loop:
; CHECK: br label %loop.ok
define void @signed_counter(ptr %in, i32 %n, i64 %size) {
entry:
  br label %loop

loop:
  %k = phi i32 [ 0, %entry ], [ %next, %loop.ok ]
  %i = sext i32 %k to i64
  %ok = icmp ult i64 %i, %size
  br i1 %ok, label %loop.ok, label %fail

loop.ok:
  %next = add nsw i32 %k, 1
  %goes = icmp slt i32 %next, %n
  br i1 %goes, label %loop, label %exit

fail:
  call void @__oxide_bounds_failure(i64 %i, i64 %size, ptr null, i32 15, ptr null)
  unreachable

exit:
  ret void
}

; The same from a start that may be negative: the counter may be negative, and a sign extension
; of it is not a zero extension, so the check stays.
; CHECK-LABEL: define void @signed_counter_any_start(
; CHECK-NOT: oxide.last
; CHECK: icmp ult i64 %i, %size
define void @signed_counter_any_start(ptr %in, i32 %s, i32 %n, i64 %size) {
entry:
  br label %loop

loop:
  %k = phi i32 [ %s, %entry ], [ %next, %loop.ok ]
  %i = sext i32 %k to i64
  %ok = icmp ult i64 %i, %size
  br i1 %ok, label %loop.ok, label %fail

loop.ok:
  %next = add nsw i32 %k, 1
  %goes = icmp slt i32 %next, %n
  br i1 %goes, label %loop, label %exit

fail:
  call void @__oxide_bounds_failure(i64 %i, i64 %size, ptr null, i32 27, ptr null)
  unreachable

exit:
  ret void
}

; CHECK-LABEL: define void @step_of_three(
; CHECK-NOT: oxide.last
; CHECK: icmp ult i64 %i, %size
define void @step_of_three(ptr %in, i32 %n, i64 %size) {
entry:
  br label %loop

loop:
  %k = phi i32 [ 0, %entry ], [ %next, %loop.ok ]
  %i = zext i32 %k to i64
  %ok = icmp ult i64 %i, %size
  br i1 %ok, label %loop.ok, label %fail

loop.ok:
  %next = add i32 %k, 3
  %goes = icmp ult i32 %next, %n
  br i1 %goes, label %loop, label %exit

fail:
  call void @__oxide_bounds_failure(i64 %i, i64 %size, ptr null, i32 16, ptr null)
  unreachable

exit:
  ret void
}

; A loop with a second way out (a `break` on the loaded value): a later iteration's check may
; never run, so testing the last index before the loop could stop a kernel that is correct.
; CHECK-LABEL: define void @breaks_early(
; CHECK-NOT: oxide.last
; CHECK: icmp ult i64 %i, %size
define void @breaks_early(ptr %in, i32 %n, i64 %size) {
entry:
  br label %loop

loop:
  %k = phi i32 [ 0, %entry ], [ %next, %more ]
  %i = zext i32 %k to i64
  %ok = icmp ult i64 %i, %size
  br i1 %ok, label %loop.ok, label %fail

loop.ok:
  %p = getelementptr float, ptr %in, i64 %i
  %x = load float, ptr %p
  %stop = fcmp olt float %x, 0.0
  br i1 %stop, label %exit, label %more

more:
  %next = add i32 %k, 1
  %goes = icmp ult i32 %next, %n
  br i1 %goes, label %loop, label %exit

fail:
  call void @__oxide_bounds_failure(i64 %i, i64 %size, ptr null, i32 17, ptr null)
  unreachable

exit:
  ret void
}

; A prefetch under a test other than the latch's (`k + 16 < n` while the loop goes on with
; `k + 8 < n`): the check does not run in the last iteration, so it stays.
; CHECK-LABEL: define void @other_guard(
; CHECK-NOT: oxide.last
; CHECK: fetch:
; CHECK: icmp ult i64 %i, %size
define void @other_guard(ptr %a, i64 %size, i32 %n) {
entry:
  br label %loop

loop:
  %k = phi i32 [ 0, %entry ], [ %next, %latch ]
  %next = add i32 %k, 8
  %after = add i32 %k, 16
  %far = icmp ult i32 %after, %n
  br i1 %far, label %fetch, label %latch

fetch:
  %i = zext i32 %after to i64
  %ok = icmp ult i64 %i, %size
  br i1 %ok, label %read, label %fail

read:
  %p = getelementptr float, ptr %a, i64 %i
  %x = load volatile float, ptr %p
  br label %latch

fail:
  call void @__oxide_bounds_failure(i64 %i, i64 %size, ptr null, i32 18, ptr null)
  unreachable

latch:
  %goes = icmp ult i32 %next, %n
  br i1 %goes, label %loop, label %exit

exit:
  ret void
}

; The prefetch once LLVM has merged its `k + 256 < n` into the latch's test: the counter c starts
; at 256 and the read's k is a phi that takes c's value of the iteration before (0 first). So k
; is 0, then each counter but the last: tested at 0 and, when the loop goes on, at last - 256,
; and at last as well when last + 256 wraps (the loop then never ends and k reaches last).
; CHECK-LABEL: define void @lagging(
; CHECK: preheader:
; CHECK: %[[START:.*]] = freeze i32 256
; CHECK: %oxide.last.counter = sub i32
; CHECK-NEXT: %[[ZERO:.*]] = zext i32 0 to i64
; CHECK-NEXT: %[[FIRSTI:.*]] = add i64 %base, %[[ZERO]]
; CHECK-NEXT: %[[FIRST:.*]] = freeze i64 %[[FIRSTI]]
; CHECK-NEXT: %[[BEFORE:.*]] = sub i32 %oxide.last.counter, 256
; CHECK-NEXT: %[[BEFOREW:.*]] = zext i32 %[[BEFORE]] to i64
; CHECK-NEXT: %[[BEFOREI:.*]] = add i64 %base, %[[BEFOREW]]
; CHECK-NEXT: %[[BEFOREX:.*]] = freeze i64 %[[BEFOREI]]
; CHECK-NEXT: %[[SUM:.*]] = call { i32, i1 } @llvm.uadd.with.overflow.i32(i32 %oxide.last.counter, i32 256)
; CHECK-NEXT: %[[WRAPS:.*]] = extractvalue { i32, i1 } %[[SUM]], 1
; CHECK-NEXT: %[[FOREVER:.*]] = and i1 %[[GOES:[0-9]+]], %[[WRAPS]]
; CHECK-NEXT: %[[LASTW:.*]] = zext i32 %oxide.last.counter to i64
; CHECK-NEXT: %[[LASTI:.*]] = add i64 %base, %[[LASTW]]
; CHECK-NEXT: %[[LAST:.*]] = freeze i64 %[[LASTI]]
; CHECK-NEXT: %[[P3:.*]] = icmp uge i64 %[[LAST]], %size
; CHECK-NEXT: %[[F3:.*]] = select i1 %[[FOREVER]], i1 %[[P3]], i1 false
; CHECK-NEXT: %[[P2:.*]] = icmp uge i64 %[[BEFOREX]], %size
; CHECK-NEXT: %[[F2:.*]] = select i1 %[[GOES]], i1 %[[P2]], i1 false
; CHECK-NEXT: %[[R2:.*]] = select i1 %[[F2]], i64 %[[BEFOREX]], i64 %[[LAST]]
; CHECK-NEXT: %[[F23:.*]] = or i1 %[[F2]], %[[F3]]
; CHECK-NEXT: %[[P1:.*]] = icmp uge i64 %[[FIRST]], %size
; CHECK-NEXT: %oxide.last.index = select i1 %[[P1]], i64 %[[FIRST]], i64 %[[R2]]
; CHECK-NEXT: %[[FAILS:.*]] = or i1 %[[P1]], %[[F23]]
; CHECK-NEXT: br i1 %[[FAILS]]
; CHECK: call void @__oxide_bounds_failure(i64 %oxide.last.index, i64 %size, ptr null, i32 19, ptr null)
; CHECK: loop:
; CHECK: br label %body
define void @lagging(ptr %a, i64 %base32, i64 %size, i32 %n) {
entry:
  %base = and i64 %base32, 4294967295
  %enter = icmp ugt i32 %n, 256
  br i1 %enter, label %preheader, label %exit

preheader:
  br label %loop

loop:
  %c = phi i32 [ 256, %preheader ], [ %c.next, %body ]
  %k = phi i32 [ 0, %preheader ], [ %c, %body ]
  %kw = zext i32 %k to i64
  %i = add nuw nsw i64 %base, %kw
  %ok = icmp ult i64 %i, %size
  br i1 %ok, label %body, label %fail

body:
  %p = getelementptr float, ptr %a, i64 %i
  %x = load volatile float, ptr %p
  %c.next = add i32 %c, 256
  %goes = icmp ult i32 %c.next, %n
  br i1 %goes, label %loop, label %exit

fail:
  call void @__oxide_bounds_failure(i64 %i, i64 %size, ptr null, i32 19, ptr null)
  unreachable

exit:
  ret void
}

; A prefetch whose index is computed from the counter itself (`in[size_t{k} + 32 + t]` under
; `k + 32 < n`): it runs at each counter after which the loop goes on, so at last - 32 in the
; last of them, and at start (which lies past last only where start + 32 wraps); at last too
; where last + 32 wraps.
; CHECK-LABEL: define void @counter_going_on(
; CHECK: preheader:
; CHECK: %[[GOES:.*]] = icmp ult i32
; CHECK: %oxide.last.counter = sub i32
; CHECK: %[[FIRST:.*]] = freeze i64
; CHECK-NEXT: %[[BEFORE:.*]] = sub i32 %oxide.last.counter, 32
; CHECK: %[[BEFOREX:.*]] = freeze i64
; CHECK-NEXT: %[[SUM:.*]] = call { i32, i1 } @llvm.uadd.with.overflow.i32(i32 %oxide.last.counter, i32 32)
; CHECK: %[[PB:.*]] = icmp uge i64 %[[BEFOREX]], %size
; CHECK-NEXT: select i1 %[[GOES]], i1 %[[PB]], i1 false
; CHECK: %[[PF:.*]] = icmp uge i64 %[[FIRST]], %size
; CHECK-NEXT: select i1 %[[GOES]], i1 %[[PF]], i1 false
; CHECK: br i1
; CHECK: call void @__oxide_bounds_failure(i64 %oxide.last.index, i64 %size, ptr null, i32 20, ptr null)
; CHECK: fetch:
; CHECK-NOT: br i1
; CHECK: br label %read
define void @counter_going_on(ptr %a, i64 %t32, i64 %size, i32 %n) {
entry:
  %t = and i64 %t32, 31
  %enter = icmp ne i32 %n, 0
  br i1 %enter, label %preheader, label %exit

preheader:
  br label %loop

loop:
  %k = phi i32 [ 0, %preheader ], [ %next, %latch ]
  %next = add i32 %k, 32
  %goes = icmp ult i32 %next, %n
  br i1 %goes, label %fetch, label %latch

fetch:
  %kw = zext i32 %k to i64
  %at = add i64 %kw, 32
  %i = add i64 %at, %t
  %ok = icmp ult i64 %i, %size
  br i1 %ok, label %read, label %fail

read:
  %p = getelementptr float, ptr %a, i64 %i
  %x = load volatile float, ptr %p
  br label %latch

fail:
  call void @__oxide_bounds_failure(i64 %i, i64 %size, ptr null, i32 20, ptr null)
  unreachable

latch:
  br i1 %goes, label %loop, label %exit

exit:
  ret void
}
