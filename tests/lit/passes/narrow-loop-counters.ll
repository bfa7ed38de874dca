; RUN: opt -load-pass-plugin=%oxide_passes -passes=oxide-narrow-loop-counters -S %s | FileCheck %s

target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()

; block_stride(rows): the counter starts at the block index and goes on while its next value is
; below rows, a 32-bit count widened: the body sees zext of a 32-bit counter; the next value is
; still computed and tested in 64 bits.
; CHECK-LABEL: define void @block_stride(
; CHECK: preheader:
; CHECK: %[[FIRST:.*]] = trunc i64 %start to i32
; CHECK: loop:
; CHECK-NEXT: %b.narrow = phi i32 [ %[[FIRST]], %preheader ], [ %[[FOLLOWING:.*]], %loop ]
; CHECK-NEXT: %b.wide = zext i32 %b.narrow to i64
; CHECK-NEXT: %row = mul i64 %b.wide, %cols
; CHECK: %next = add i64 %b.wide, %step
; CHECK-NEXT: %more = icmp ult i64 %next, %count
; CHECK-NEXT: %[[FOLLOWING]] = trunc i64 %next to i32
; CHECK-NEXT: br i1 %more, label %loop, label %exit
define void @block_stride(ptr %out, i32 %rows, i32 %cols32) {
entry:
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %nctaid = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %start = zext i32 %ctaid to i64
  %step = zext i32 %nctaid to i64
  %count = zext i32 %rows to i64
  %cols = zext i32 %cols32 to i64
  %enter = icmp ult i64 %start, %count
  br i1 %enter, label %preheader, label %exit

preheader:
  br label %loop

loop:
  %b = phi i64 [ %start, %preheader ], [ %next, %loop ]
  %row = mul i64 %b, %cols
  %at = getelementptr float, ptr %out, i64 %row
  store float 1.0, ptr %at
  %next = add i64 %b, %step
  %more = icmp ult i64 %next, %count
  br i1 %more, label %loop, label %exit

exit:
  ret void
}

; A count that may not fit 32 bits (a span's size): the counter may pass 2^32, and stays 64-bit.
; CHECK-LABEL: define void @wide_count(
; CHECK-NOT: narrow
; CHECK: %b = phi i64
define void @wide_count(ptr %out, i64 %count) {
entry:
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %nctaid = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %start = zext i32 %ctaid to i64
  %step = zext i32 %nctaid to i64
  %enter = icmp ult i64 %start, %count
  br i1 %enter, label %preheader, label %exit

preheader:
  br label %loop

loop:
  %b = phi i64 [ %start, %preheader ], [ %next, %loop ]
  %at = getelementptr float, ptr %out, i64 %b
  store float 1.0, ptr %at
  %next = add i64 %b, %step
  %more = icmp ult i64 %next, %count
  br i1 %more, label %loop, label %exit

exit:
  ret void
}

; A start that may not fit 32 bits: the first iteration may see a counter past 2^32.
; CHECK-LABEL: define void @wide_start(
; CHECK-NOT: narrow
; CHECK: %b = phi i64
define void @wide_start(ptr %out, i64 %start, i32 %rows) {
entry:
  %count = zext i32 %rows to i64
  br label %loop

loop:
  %b = phi i64 [ %start, %entry ], [ %next, %loop ]
  %at = getelementptr float, ptr %out, i64 %b
  store float 1.0, ptr %at
  %next = add i64 %b, 1
  %more = icmp ult i64 %next, %count
  br i1 %more, label %loop, label %exit

exit:
  ret void
}

; A loop that goes on while next != count: a step past the count wraps through 2^64, so the
; counter is not bounded by it.
; CHECK-LABEL: define void @not_below(
; CHECK-NOT: narrow
; CHECK: %b = phi i64
define void @not_below(ptr %out, i32 %rows) {
entry:
  %count = zext i32 %rows to i64
  br label %loop

loop:
  %b = phi i64 [ 0, %entry ], [ %next, %loop ]
  %at = getelementptr float, ptr %out, i64 %b
  store float 1.0, ptr %at
  %next = add i64 %b, 3
  %more = icmp ne i64 %next, %count
  br i1 %more, label %loop, label %exit

exit:
  ret void
}
