; RUN: opt -load-pass-plugin=%oxide_passes -passes=oxide-column-loops -S %s -o %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: lli %t.ll
;
; The column loops run exactly the iterations of the loops they replace: for every width w below
; 5000 and several first columns t (t >= w included: such loops are never entered), the sum of
; c + 2^32 over the columns the rewritten loop visits equals the sum a plain column loop
; computes, so a lost or an extra iteration changes the result. main returns the number of
; mismatches, which lli makes its exit status.

; CHECK-LABEL: define i64 @owned_1024(
; CHECK: %column.limit
; CHECK-LABEL: define i64 @owned_any(
; CHECK: %column.limit
; CHECK-LABEL: define i64 @plain(
; CHECK-NOT: column

; for (j = 0; j < (w - 1 - t) / 1024 + 1; ++j) acc += (t + 1024 j) + 2^32, if t < w; t < 1024.
define i64 @owned_1024(i64 %w, i64 %t) {
entry:
  %inside = icmp ult i64 %t, %w
  %not = xor i64 %t, -1
  %x = add i64 %w, %not
  %q = lshr i64 %x, 10
  br i1 %inside, label %pre, label %exit
pre:
  br label %loop
loop:
  %j = phi i64 [ 0, %pre ], [ %j.next, %loop ]
  %acc = phi i64 [ 0, %pre ], [ %acc.next, %loop ]
  %s = shl nuw i64 %j, 10
  %c = or disjoint i64 %s, %t
  %tagged = add i64 %c, 4294967296
  %acc.next = add i64 %acc, %tagged
  %j.next = add nuw nsw i64 %j, 1
  %last = icmp eq i64 %j, %q
  br i1 %last, label %exit, label %loop
exit:
  %r = phi i64 [ 0, %entry ], [ %acc.next, %loop ]
  ret i64 %r
}

; The same with a step that is a value (a block's threads), counted j + 1 < q + 1.
define i64 @owned_any(i64 %w, i64 %t, i64 range(i64 1, 4096) %step) {
entry:
  %inside = icmp ult i64 %t, %w
  %t1 = add i64 %t, 1
  %x = sub i64 %w, %t1
  %q = udiv i64 %x, %step
  %count = add nuw i64 %q, 1
  br i1 %inside, label %pre, label %exit
pre:
  br label %loop
loop:
  %j = phi i64 [ 0, %pre ], [ %j.next, %loop ]
  %acc = phi i64 [ 0, %pre ], [ %acc.next, %loop ]
  %s = mul i64 %j, %step
  %c = add i64 %s, %t
  %tagged = add i64 %c, 4294967296
  %acc.next = add i64 %acc, %tagged
  %j.next = add nuw i64 %j, 1
  %more = icmp ult i64 %j.next, %count
  br i1 %more, label %loop, label %exit
exit:
  %r = phi i64 [ 0, %entry ], [ %acc.next, %loop ]
  ret i64 %r
}

; The reference: for (c = t; c < w; c += step) acc += c + 2^32.
define i64 @plain(i64 %w, i64 %t, i64 %step) {
entry:
  br label %head
head:
  %c = phi i64 [ %t, %entry ], [ %c.next, %body ]
  %acc = phi i64 [ 0, %entry ], [ %acc.next, %body ]
  %in = icmp ult i64 %c, %w
  br i1 %in, label %body, label %done
body:
  %tagged = add i64 %c, 4294967296
  %acc.next = add i64 %acc, %tagged
  %c.next = add i64 %c, %step
  br label %head
done:
  ret i64 %acc
}

; 1 when the loops of step `step` disagree at (w, t); the 1024 form is compared too when
; step == 1024.
define i32 @differs(i64 %w, i64 %t, i64 %step) {
entry:
  %want = call i64 @plain(i64 %w, i64 %t, i64 %step)
  %any = call i64 @owned_any(i64 %w, i64 %t, i64 %step)
  %bad_any = icmp ne i64 %any, %want
  %is1024 = icmp eq i64 %step, 1024
  br i1 %is1024, label %fixed, label %done
fixed:
  %got = call i64 @owned_1024(i64 %w, i64 %t)
  %bad_fixed = icmp ne i64 %got, %want
  br label %done
done:
  %bad_other = phi i1 [ false, %entry ], [ %bad_fixed, %fixed ]
  %bad = or i1 %bad_any, %bad_other
  %r = zext i1 %bad to i32
  ret i32 %r
}

@steps = private constant [5 x i64] [i64 128, i64 200, i64 1000, i64 1024, i64 4095]

; Every w below 5000, for t = 0, 1, 2, 63, step - 2, step - 1 and step + 7 (past a block of
; `step`, as a thread of a larger block would be: still below 1024 for the 1024 form's `or`).
define i32 @main() {
entry:
  br label %step_loop
step_loop:
  %si = phi i64 [ 0, %entry ], [ %si.next, %step_next ]
  %bad_s = phi i32 [ 0, %entry ], [ %bad_w_out, %step_next ]
  %step_at = getelementptr [5 x i64], ptr @steps, i64 0, i64 %si
  %step = load i64, ptr %step_at
  br label %w_loop
w_loop:
  %w = phi i64 [ 0, %step_loop ], [ %w.next, %w_loop ]
  %bad_w = phi i32 [ %bad_s, %step_loop ], [ %bad_w.next, %w_loop ]
  %d0 = call i32 @differs(i64 %w, i64 0, i64 %step)
  %d1 = call i32 @differs(i64 %w, i64 1, i64 %step)
  %d2 = call i32 @differs(i64 %w, i64 2, i64 %step)
  %d3 = call i32 @differs(i64 %w, i64 63, i64 %step)
  %tm2 = sub i64 %step, 2
  %d4 = call i32 @differs(i64 %w, i64 %tm2, i64 %step)
  %tm1 = sub i64 %step, 1
  %d5 = call i32 @differs(i64 %w, i64 %tm1, i64 %step)
  %tp7 = add i64 %step, 7
  %tp7c = urem i64 %tp7, 1024
  %d6 = call i32 @differs(i64 %w, i64 %tp7c, i64 %step)
  %s01 = add i32 %d0, %d1
  %s23 = add i32 %d2, %d3
  %s45 = add i32 %d4, %d5
  %s0123 = add i32 %s01, %s23
  %s456 = add i32 %s45, %d6
  %s = add i32 %s0123, %s456
  %bad_w.next = add i32 %bad_w, %s
  %w.next = add i64 %w, 1
  %w_more = icmp ult i64 %w.next, 5000
  br i1 %w_more, label %w_loop, label %step_next
step_next:
  %bad_w_out = phi i32 [ %bad_w.next, %w_loop ]
  %si.next = add i64 %si, 1
  %s_more = icmp ult i64 %si.next, 5
  br i1 %s_more, label %step_loop, label %exit
exit:
  ret i32 %bad_w_out
}
