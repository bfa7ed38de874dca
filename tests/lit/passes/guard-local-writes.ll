; RUN: opt -load-pass-plugin=%oxide_passes -passes=oxide-guard-writes -S %s 2>/dev/null | FileCheck %s

; Writes into a thread's own arrays (allocas) in the optimised code of a contracted kernel
; (GuardedWrites.cpp): past its array a write would reach the thread's other locals and the spill
; slots ptxas adds to the frame, so one not proven inside its array is tested and stops the
; kernel. The proofs read how the offset is computed (constants, masks, remainders, selects,
; sums, loop counters read from their exit test) and never a wrap flag or `inbounds`: they hold
; of the code NVPTX emits even where the user's code has undefined behaviour.

target datalayout = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%span = type { ptr, i64 }

declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)

; A constant offset inside: nothing added.
; CHECK-LABEL: define void @constant_inside(
; CHECK-NOT: oxide.local
; CHECK: ret void
define void @constant_inside(ptr readonly byval(%span) %in, ptr readonly byval(%span) %out) #0 {
  %local = alloca [4 x float], align 4
  %p = getelementptr [4 x float], ptr %local, i64 0, i64 3
  store float 1.0, ptr %p
  ret void
}

; An index the kernel read from its input: tested, 0 <= offset <= 16 - 4, in the local address
; space the back end gives it.
; CHECK-LABEL: define void @loaded_index(
; CHECK: %[[AT:.*]] = ptrtoint ptr addrspace(5) %q to i64
; CHECK: %[[BASE:.*]] = addrspacecast ptr %local to ptr addrspace(5)
; CHECK: %[[FROM:.*]] = ptrtoint ptr addrspace(5) %[[BASE]] to i64
; CHECK: %oxide.local.offset = sub i64 %[[AT]], %[[FROM]]
; CHECK: icmp ugt i64 %oxide.local.offset, 12
; CHECK: br i1 %oxide.local.outside, label %[[STOP:.*]], label %[[GO:.*]], !oxide.guard.again
; CHECK: [[STOP]]:
; CHECK: call void @llvm.trap()
; CHECK: [[GO]]:
; CHECK-NEXT: store float 1.0{{.*}}, ptr addrspace(5) %q
define void @loaded_index(ptr readonly byval(%span) %in, ptr readonly byval(%span) %out) #0 {
  %local = alloca [4 x float], align 4
  %data = load ptr, ptr %in
  %i = load i64, ptr %data
  %p = getelementptr float, ptr %local, i64 %i
  %q = addrspacecast ptr %p to ptr addrspace(5)
  store float 1.0, ptr addrspace(5) %q
  ret void
}

; A mask, a remainder and a select of them keep the index inside: nothing added.
; CHECK-LABEL: define void @masked(
; CHECK-NOT: oxide.local
; CHECK: ret void
define void @masked(ptr readonly byval(%span) %in, ptr readonly byval(%span) %out) #0 {
  %local = alloca [64 x float], align 4
  %data = load ptr, ptr %in
  %x = load i64, ptr %data
  %y = load i32, ptr %data
  %masked = and i64 %x, 63
  %narrow = urem i32 %y, 64
  %wide = zext nneg i32 %narrow to i64
  %c = icmp ult i64 %x, 7
  %either = select i1 %c, i64 %masked, i64 %wide
  %p = getelementptr float, ptr %local, i64 %either
  store float 1.0, ptr %p
  ret void
}

; A mask one bit too wide: tested.
; CHECK-LABEL: define void @mask_too_wide(
; CHECK: %oxide.local.outside =
; CHECK: call void @llvm.trap()
define void @mask_too_wide(ptr readonly byval(%span) %in, ptr readonly byval(%span) %out) #0 {
  %local = alloca [64 x float], align 4
  %data = load ptr, ptr %in
  %x = load i64, ptr %data
  %masked = and i64 %x, 127
  %p = getelementptr float, ptr %local, i64 %masked
  store float 1.0, ptr %p
  ret void
}

; A count of kept values: a sum of flags (stream compaction's values[count++]), three at most,
; through a phi of pointers into the array: nothing added. A fourth flag could reach 4: tested.
; CHECK-LABEL: define void @flag_sum(
; CHECK-NOT: oxide.local
; CHECK: ret void
define void @flag_sum(ptr readonly byval(%span) %in, ptr readonly byval(%span) %out) #0 {
entry:
  %local = alloca [4 x float], align 4
  %data = load ptr, ptr %in
  %x = load i32, ptr %data
  %a = icmp ugt i32 %x, 1
  %b = icmp ugt i32 %x, 2
  %c = icmp ugt i32 %x, 3
  %fa = zext i1 %a to i64
  %fb = zext i1 %b to i64
  %fc = zext i1 %c to i64
  %ab = add nuw nsw i64 %fa, %fb
  %count = add nuw nsw i64 %ab, %fc
  br i1 %a, label %left, label %right
left:
  %p = getelementptr inbounds nuw float, ptr %local, i64 %count
  br label %write
right:
  br label %write
write:
  %q = phi ptr [ %p, %left ], [ %local, %right ]
  store float 1.0, ptr %q
  ret void
}

; CHECK-LABEL: define void @flag_sum_too_long(
; CHECK: %oxide.local.outside =
; CHECK: call void @llvm.trap()
define void @flag_sum_too_long(ptr readonly byval(%span) %in, ptr readonly byval(%span) %out) #0 {
  %local = alloca [4 x float], align 4
  %data = load ptr, ptr %in
  %x = load i32, ptr %data
  %a = icmp ugt i32 %x, 1
  %fa = zext i1 %a to i64
  %b = icmp ugt i32 %x, 2
  %fb = zext i1 %b to i64
  %c = icmp ugt i32 %x, 3
  %fc = zext i1 %c to i64
  %d = icmp ugt i32 %x, 4
  %fd = zext i1 %d to i64
  %ab = add nuw nsw i64 %fa, %fb
  %cd = add nuw nsw i64 %fc, %fd
  %count = add nuw nsw i64 %ab, %cd
  %p = getelementptr inbounds nuw float, ptr %local, i64 %count
  store float 1.0, ptr %p
  ret void
}

; A loop unrolled by two: k = 0, 2, ..., 62 until k + 2 == 64, writing local[k] and
; local[k | 1]: nothing added.
; CHECK-LABEL: define void @counter_equal(
; CHECK-NOT: oxide.local
; CHECK: ret void
define void @counter_equal(ptr readonly byval(%span) %in, ptr readonly byval(%span) %out) #0 {
entry:
  %local = alloca [64 x float], align 4
  br label %loop
loop:
  %k = phi i64 [ 0, %entry ], [ %next, %loop ]
  %p = getelementptr float, ptr %local, i64 %k
  store float 1.0, ptr %p
  %odd = or disjoint i64 %k, 1
  %q = getelementptr float, ptr %local, i64 %odd
  store float 2.0, ptr %q
  %next = add nuw nsw i64 %k, 2
  %done = icmp eq i64 %next, 64
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

; Steps of 3 never meet 64: the counter wraps, whatever its flags say; tested.
; CHECK-LABEL: define void @counter_skips_end(
; CHECK: %oxide.local.outside =
; CHECK: call void @llvm.trap()
define void @counter_skips_end(ptr readonly byval(%span) %in, ptr readonly byval(%span) %out) #0 {
entry:
  %local = alloca [64 x float], align 4
  br label %loop
loop:
  %k = phi i64 [ 0, %entry ], [ %next, %loop ]
  %p = getelementptr inbounds float, ptr %local, i64 %k
  store float 1.0, ptr %p
  %next = add nuw nsw i64 %k, 3
  %done = icmp eq i64 %next, 64
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

; k + 1 <u 64 keeps k below 64: nothing added. k + 1 <u 65 lets k reach 64: tested.
; CHECK-LABEL: define void @counter_below(
; CHECK-NOT: oxide.local
; CHECK: ret void
define void @counter_below(ptr readonly byval(%span) %in, ptr readonly byval(%span) %out) #0 {
entry:
  %local = alloca [64 x float], align 4
  br label %loop
loop:
  %k = phi i32 [ 0, %entry ], [ %next, %loop ]
  %wide = zext i32 %k to i64
  %p = getelementptr float, ptr %local, i64 %wide
  store float 1.0, ptr %p
  %next = add i32 %k, 1
  %more = icmp ult i32 %next, 64
  br i1 %more, label %loop, label %exit
exit:
  ret void
}

; CHECK-LABEL: define void @counter_one_past(
; CHECK: %oxide.local.outside =
; CHECK: call void @llvm.trap()
define void @counter_one_past(ptr readonly byval(%span) %in, ptr readonly byval(%span) %out) #0 {
entry:
  %local = alloca [64 x float], align 4
  br label %loop
loop:
  %k = phi i32 [ 0, %entry ], [ %next, %loop ]
  %wide = zext i32 %k to i64
  %p = getelementptr float, ptr %local, i64 %wide
  store float 1.0, ptr %p
  %next = add i32 %k, 1
  %more = icmp ult i32 %next, 65
  br i1 %more, label %loop, label %exit
exit:
  ret void
}

; A memset of a length the kernel read: tested with that length.
; CHECK-LABEL: define void @fill_length(
; CHECK: %[[LENGTH:.*]] = load i64
; CHECK: icmp ult i64 16, %[[LENGTH]]
; CHECK: %oxide.local.outside =
; CHECK: call void @llvm.trap()
; CHECK: call void @llvm.memset
define void @fill_length(ptr readonly byval(%span) %in, ptr readonly byval(%span) %out) #0 {
  %local = alloca [16 x i8], align 4
  %data = load ptr, ptr %in
  %n = load i64, ptr %data
  call void @llvm.memset.p0.i64(ptr %local, i8 1, i64 %n, i1 false)
  ret void
}

attributes #0 = { "oxide.contract"="domain = 1" "oxide.params"="in=i,out=o" "oxide.elem_sizes"="4,4" }
