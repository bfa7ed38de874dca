; RUN: opt -load-pass-plugin=%oxide_passes -passes=oxide-guard-writes -S %s 2>%t.diag | FileCheck %s
; RUN: FileCheck --check-prefix=DIAG %s < %t.diag
; RUN: opt -load-pass-plugin=%oxide_passes -passes=oxide-guard-writes -S %s 2>/dev/null | FileCheck --check-prefix=DECL %s

; The audit of the optimised code (GuardedWrites.h): every write of a contracted kernel to global
; memory goes to memory the kernel may write, and is proven inside its span from the facts that
; hold at it; a write that is not proven gets its bounds test back, reading the address itself.

target datalayout = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%span = type { ptr, i64 }
%span2d = type { ptr, i64, i64 }

declare void @llvm.assume(i1)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i64 @llvm.umin.i64(i64, i64)
declare void @__oxide_bounds_failure(i64, i64, ptr, i32 range(i32 1, 3), ptr)

; The lowering's guard, still there: proven, nothing added.
; CHECK-LABEL: define void @guarded(
; CHECK-NOT: ptrtoint
; CHECK: store float 1.0
; CHECK-NEXT: ret void
define void @guarded(ptr readonly byval(%span) %out) #0 {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %sizefield = getelementptr inbounds i8, ptr %out, i64 8
  %size = load i64, ptr %sizefield
  %ok = icmp ult i64 %i, %size
  br i1 %ok, label %write, label %done
write:
  %data = load ptr, ptr %out
  %offset = shl nuw nsw i64 %i, 2
  %p = getelementptr inbounds i8, ptr %data, i64 %offset
  store float 1.0, ptr %p
  ret void
done:
  ret void
}

; The guard is gone (as a user's assumption used to remove it): the write is tested again,
; 0 <= address - data <= size * 4 - 4, and stops the kernel with the bounds report.
; CHECK-LABEL: define void @unguarded(
; CHECK: %oxide.span.data = load ptr, ptr %out
; CHECK-NEXT: %[[FIELD:.*]] = getelementptr inbounds i8, ptr %out, i64 8
; CHECK-NEXT: %[[SIZE:.*]] = load i64, ptr %[[FIELD]]
; CHECK-NEXT: %oxide.span.bytes = mul i64 %[[SIZE]], 4
; CHECK-NEXT: %[[AT:.*]] = ptrtoint ptr %p to i64
; CHECK-NEXT: %[[BASE:.*]] = ptrtoint ptr %oxide.span.data to i64
; CHECK-NEXT: %oxide.offset = sub i64 %[[AT]], %[[BASE]]
; CHECK-NEXT: %[[SHORT:.*]] = icmp ult i64 %oxide.span.bytes, 4
; CHECK-NEXT: %[[LAST:.*]] = sub i64 %oxide.span.bytes, 4
; CHECK-NEXT: %[[PAST:.*]] = icmp ugt i64 %oxide.offset, %[[LAST]]
; CHECK-NEXT: %oxide.write.outside = or i1 %[[SHORT]], %[[PAST]]
; CHECK-NEXT: br i1 %oxide.write.outside, label %[[STOP:.*]], label %[[GO:.*]], !dbg {{.*}}, !oxide.guard.again
; CHECK: [[STOP]]:
; CHECK-NEXT: %[[INDEX:.*]] = udiv i64 %oxide.offset, 4
; CHECK-NEXT: call void @__oxide_bounds_failure(i64 %[[INDEX]], i64 %[[SIZE]], ptr @__oxide_file.guard, i32 40, ptr @__oxide_function.guard)
; CHECK-NEXT: call void @llvm.trap()
; CHECK-NEXT: unreachable
; CHECK: [[GO]]:
; CHECK-NEXT: store float 2.0
; The report's line argument is no longer bounded by the calls LLVM saw.
; DECL: declare void @__oxide_bounds_failure(i64, i64, ptr, i32, ptr)
; DIAG: remark: guard-writes.cpp:40:3: a bounds guard of this write is tested again
define void @unguarded(ptr readonly byval(%span) %out) #0 !dbg !5 {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %data = load ptr, ptr %out
  %p = getelementptr inbounds float, ptr %data, i64 %i
  store float 2.0, ptr %p, !dbg !8
  ret void
}

; A contract's relation makes the guard on in.size() one on out.size().
; CHECK-LABEL: define void @contract_equality(
; CHECK-NOT: ptrtoint
; CHECK: ret void
define void @contract_equality(ptr readonly byval(%span) %in, ptr readonly byval(%span) %out) #1 {
  %insizefield = getelementptr inbounds i8, ptr %in, i64 8
  %insize = load i64, ptr %insizefield
  %outsizefield = getelementptr inbounds i8, ptr %out, i64 8
  %outsize = load i64, ptr %outsizefield
  %same = icmp eq i64 %insize, %outsize
  call void @llvm.assume(i1 %same)
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %ok = icmp ult i64 %i, %insize
  br i1 %ok, label %write, label %done
write:
  %data = load ptr, ptr %out
  %p = getelementptr inbounds float, ptr %data, i64 %i
  store float 3.0, ptr %p
  br label %done
done:
  ret void
}

; A 2-D span's element at y * width + x, under x < width and y < height.
; CHECK-LABEL: define void @row_major(
; CHECK-NOT: ptrtoint
; CHECK: ret void
define void @row_major(ptr readonly byval(%span2d) %out, i64 %x, i64 %y) #2 {
  %wfield = getelementptr inbounds i8, ptr %out, i64 8
  %w = load i64, ptr %wfield
  %hfield = getelementptr inbounds i8, ptr %out, i64 16
  %h = load i64, ptr %hfield
  %inx = icmp ult i64 %x, %w
  %iny = icmp ult i64 %y, %h
  %ok = and i1 %inx, %iny
  br i1 %ok, label %write, label %done
write:
  %data = load ptr, ptr %out
  %row = mul i64 %y, %w
  %index = add i64 %row, %x
  %p = getelementptr inbounds float, ptr %data, i64 %index
  store float 4.0, ptr %p
  br label %done
done:
  ret void
}

; Element 1 of a tile of 4 at start 4 * t (oxide-to-nvvm's tile extent, as InstCombine leaves
; it): the extent is at least 2, so the tile is not past the last one and 4 * t + 1 < size.
; CHECK-LABEL: define void @tile_element(
; CHECK-NOT: ptrtoint
; CHECK: ret void
define void @tile_element(ptr readonly byval(%span) %out, i64 %t) #5 {
  %sizefield = getelementptr inbounds i8, ptr %out, i64 8
  %size = load i64, ptr %sizefield
  %whole = lshr i64 %size, 2
  %part = and i64 %size, 3
  %cut = icmp ne i64 %part, 0
  %extra = zext i1 %cut to i64
  %count = add nuw nsw i64 %whole, %extra
  %notpast = icmp ult i64 %t, %count
  %start = shl nuw nsw i64 %t, 2
  %left = sub i64 %size, %start
  %min = call i64 @llvm.umin.i64(i64 %left, i64 4)
  %extent = select i1 %notpast, i64 %min, i64 0
  %ok = icmp ugt i64 %extent, 1
  br i1 %ok, label %write, label %done
write:
  %data = load ptr, ptr %out
  %index = or disjoint i64 %start, 1
  %p = getelementptr inbounds float, ptr %data, i64 %index
  store float 5.0, ptr %p
  br label %done
done:
  ret void
}

; The same element, without the test that the tile is not past the last one: 4 * t may be past
; the end, where size - 4 * t wraps. Tested again.
; CHECK-LABEL: define void @tile_element_unchecked(
; CHECK: ptrtoint
; CHECK: ret void
define void @tile_element_unchecked(ptr readonly byval(%span) %out, i64 %t) #5 {
  %sizefield = getelementptr inbounds i8, ptr %out, i64 8
  %size = load i64, ptr %sizefield
  %start = shl nuw nsw i64 %t, 2
  %left = sub i64 %size, %start
  %min = call i64 @llvm.umin.i64(i64 %left, i64 4)
  %ok = icmp ugt i64 %min, 1
  br i1 %ok, label %write, label %done
write:
  %data = load ptr, ptr %out
  %index = or disjoint i64 %start, 1
  %p = getelementptr inbounds float, ptr %data, i64 %index
  store float 6.0, ptr %p
  br label %done
done:
  ret void
}

; A loop LLVM turned `j < n` into `j != n` in (it knows j never passes n): j <= n by
; induction, so j != n gives j < n.
; CHECK-LABEL: define void @counted_loop(
; CHECK-NOT: ptrtoint
; CHECK: ret void
define void @counted_loop(ptr readonly byval(%span) %out) #0 {
entry:
  %sizefield = getelementptr inbounds i8, ptr %out, i64 8
  %size = load i64, ptr %sizefield
  %data = load ptr, ptr %out
  %empty = icmp eq i64 %size, 0
  br i1 %empty, label %done, label %loop
loop:
  %j = phi i64 [ 0, %entry ], [ %next, %loop ]
  %p = getelementptr inbounds float, ptr %data, i64 %j
  store float 7.0, ptr %p
  %next = add nuw i64 %j, 1
  %more = icmp ne i64 %next, %size
  br i1 %more, label %loop, label %done
done:
  ret void
}

; A write oxide-loop-bounds-checks proved (its check folded into one before the loop): the
; proof it left is taken, the target still checked.
; CHECK-LABEL: define void @proved_by_loop_pass(
; CHECK-NOT: ptrtoint
; CHECK: ret void
define void @proved_by_loop_pass(ptr readonly byval(%span) %out, i64 %k) #5 {
  %data = load ptr, ptr %out
  %p = getelementptr inbounds float, ptr %data, i64 %k
  store float 8.0, ptr %p, !oxide.bounds.proved !{}
  ret void
}

; Writes the kernel may not make are reported (the write check rejects them in source; here
; they would be a defect of the compiler): an input, a non-atomic store into an atomic span,
; an address loaded from memory.
; DIAG: warning: this write of 'forbidden' is not allowed in the optimised device code: it writes input 'in', which the kernel may only read
; DIAG: warning: {{.*}}it writes atomic span 'counts' without an atomic operation
; DIAG: warning: {{.*}}the audit cannot trace its address to a span parameter or to memory of the thread or its block
; DIAG-NOT: not described
define void @forbidden(ptr readonly byval(%span) %in, ptr readonly byval(%span) %counts, ptr %table) #3 {
  %indata = load ptr, ptr %in
  store float 9.0, ptr %indata
  %countdata = load ptr, ptr %counts
  store i32 1, ptr %countdata
  %somewhere = load ptr, ptr %table
  store i32 2, ptr %somewhere
  ret void
}

; Atomics into an atomic span, at an index the guard bounds: allowed and proven.
; CHECK-LABEL: define void @atomic_counts(
; CHECK-NOT: ptrtoint
; CHECK: ret void
define void @atomic_counts(ptr readonly byval(%span) %counts, i64 %bin) #4 {
  %sizefield = getelementptr inbounds i8, ptr %counts, i64 8
  %size = load i64, ptr %sizefield
  %ok = icmp ult i64 %bin, %size
  br i1 %ok, label %add, label %done
add:
  %data = load ptr, ptr %counts
  %p = getelementptr inbounds i32, ptr %data, i64 %bin
  %old = atomicrmw add ptr %p, i32 1 monotonic
  br label %done
done:
  ret void
}

; A relation of the contract whose assumption LLVM dropped as unused (DropUnnecessaryAssumes,
; once the guard it proved was gone): the audit states the contract again and proves the
; write, counts[0] of a span of size 1, with nothing added (cooperative_normalize's total).
; CHECK-LABEL: define void @contract_relation(
; CHECK-NOT: oxide.offset
; CHECK-NOT: llvm.assume
; CHECK: atomicrmw add
; CHECK-NEXT: ret void
define void @contract_relation(ptr readonly byval(%span) %counts, ptr readonly byval(%span) %in) #6 {
  %data = load ptr, ptr %counts
  %old = atomicrmw add ptr %data, i32 1 monotonic
  ret void
}

; Without the relation the same write is tested again.
; CHECK-LABEL: define void @no_contract_relation(
; CHECK: %oxide.write.outside =
; CHECK: atomicrmw add
define void @no_contract_relation(ptr readonly byval(%span) %counts, ptr readonly byval(%span) %in) #7 {
  %data = load ptr, ptr %counts
  %old = atomicrmw add ptr %data, i32 1 monotonic
  ret void
}

attributes #0 = { "oxide.contract"="domain = 1" "oxide.params"="out=o" "oxide.elem_sizes"="4" }
attributes #1 = { "oxide.contract"="domain = 1, requires = ($0.size() == $1.size())" "oxide.params"="in=i,out=o" "oxide.elem_sizes"="0,4" }
attributes #2 = { "oxide.contract"="domain = 2" "oxide.params"="out=2,x=u,y=u" "oxide.elem_sizes"="4,0,0" }
attributes #3 = { "oxide.contract"="domain = 1" "oxide.params"="in=i,counts=a,table=x" "oxide.elem_sizes"="4,4,0" }
attributes #4 = { "oxide.contract"="domain = 1" "oxide.params"="counts=a,bin=u" "oxide.elem_sizes"="4,0" }
attributes #5 = { "oxide.contract"="domain = 1" "oxide.params"="out=o,t=u" "oxide.elem_sizes"="4,0" }
attributes #6 = { "oxide.contract"="domain = 1, requires = ($1.size() >= 2 * $0.size(), $0.size() == 1)" "oxide.params"="counts=a,in=i" "oxide.elem_sizes"="4,4" }
attributes #7 = { "oxide.contract"="domain = 1, requires = ($1.size() >= 2 * $0.size())" "oxide.params"="counts=a,in=i" "oxide.elem_sizes"="4,4" }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3}
!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, emissionKind: LineTablesOnly)
!1 = !DIFile(filename: "guard-writes.cpp", directory: "/tmp")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!5 = distinct !DISubprogram(name: "unguarded", scope: !1, file: !1, line: 38, type: !6, unit: !0, spFlags: DISPFlagDefinition)
!6 = !DISubroutineType(types: !7)
!7 = !{}
!8 = !DILocation(line: 40, column: 3, scope: !5)
