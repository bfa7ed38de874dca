; RUN: opt -load-pass-plugin=%oxide_passes -passes=oxide-debug-kernel-parameters -S %s | FileCheck %s

; -G: a kernel's by-value parameter (a span) is declared at a local copy made at the entry, as
; nvcc -G declares struct parameters; a scalar parameter, a device function's byval parameter
; and an undeclared one are left alone.

target triple = "nvptx64-nvidia-cuda"

%Span = type { ptr, i64 }

; CHECK-LABEL: define ptx_kernel void @kernel(
; CHECK-NEXT: %in.debug = alloca %Span, align 8
; CHECK-NEXT: call void @llvm.memcpy.p0.p0.i64(ptr align 8 %in.debug, ptr align 8 %in, i64 16, i1 false)
; CHECK-NEXT: #dbg_declare(ptr %in.debug, ![[IN:[0-9]+]], !DIExpression(),
; CHECK-NEXT: #dbg_value(i32 %n, ![[N:[0-9]+]], !DIExpression(),
; CHECK-NEXT: ret void
define ptx_kernel void @kernel(ptr byval(%Span) align 8 %in, ptr byval(%Span) align 8 %undeclared, i32 %n) !dbg !5 {
    #dbg_declare(ptr %in, !8, !DIExpression(), !11)
    #dbg_value(i32 %n, !10, !DIExpression(), !11)
  ret void
}

; CHECK-LABEL: define void @helper(
; CHECK-NEXT: #dbg_declare(ptr %in, ![[HIN:[0-9]+]], !DIExpression(),
; CHECK-NEXT: ret void
define void @helper(ptr byval(%Span) align 8 %in) !dbg !12 {
    #dbg_declare(ptr %in, !13, !DIExpression(), !14)
  ret void
}

; CHECK: ![[IN]] = !DILocalVariable(name: "in", arg: 1

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3}

!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "test", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "kernel.cpp", directory: "/")
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = !{i32 7, !"Dwarf Version", i32 2}
!4 = !DISubroutineType(types: !{null})
!5 = distinct !DISubprogram(name: "kernel", scope: !1, file: !1, line: 1, type: !4, scopeLine: 1, spFlags: DISPFlagDefinition, unit: !0)
!6 = !DICompositeType(tag: DW_TAG_structure_type, name: "Span", file: !1, line: 1, size: 128, elements: !{})
!7 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!8 = !DILocalVariable(name: "in", arg: 1, scope: !5, file: !1, line: 1, type: !6)
!10 = !DILocalVariable(name: "n", arg: 3, scope: !5, file: !1, line: 1, type: !7)
!11 = !DILocation(line: 1, scope: !5)
!12 = distinct !DISubprogram(name: "helper", scope: !1, file: !1, line: 2, type: !4, scopeLine: 2, spFlags: DISPFlagDefinition, unit: !0)
!13 = !DILocalVariable(name: "in", arg: 1, scope: !12, file: !1, line: 2, type: !6)
!14 = !DILocation(line: 2, scope: !12)
