; RUN: opt -load-pass-plugin=%oxide_passes -passes=oxide-define-ub -S %s | FileCheck %s --check-prefix=DEF
; RUN: opt -load-pass-plugin=%oxide_passes -passes=oxide-audit-ub -disable-output %s 2>&1 | FileCheck %s --check-prefix=AUDIT
; RUN: opt -load-pass-plugin=%oxide_passes -passes=oxide-define-ub -S %s | FileCheck %s --check-prefix=NOPROGRESS
; NOPROGRESS-NOT: mustprogress

; oxide-define-ub takes from user code every fact an optimiser could derive from undefined
; behaviour (compiler/passes/UndefinedBehaviour.cpp); oxide-audit-ub reports what remains in
; optimised code. Here the same functions go through both.

target triple = "nvptx64-nvidia-cuda"

; An assumption goes; unreachable traps; mustprogress goes from the function and the loop;
; nonnull, dereferenceable and !nonnull go; the local array's inbounds goes.
; DEF-LABEL: define void @user(
; DEF-NOT: mustprogress
; DEF-NOT: llvm.assume
; DEF: getelementptr [4 x i32], ptr %local
; DEF: load ptr, ptr %pp, align 8{{$}}
; DEF: call void @llvm.trap()
; DEF-NEXT: unreachable
; DEF: br label %spin, !llvm.loop ![[LOOP:[0-9]+]]
define void @user(ptr nonnull dereferenceable(4) %p, i64 %i, ptr %pp) mustprogress {
entry:
  %local = alloca [4 x i32]
  %ok = icmp ult i64 %i, 4
  call void @llvm.assume(i1 %ok)
  %slot = getelementptr inbounds [4 x i32], ptr %local, i64 0, i64 %i
  store i32 1, ptr %slot
  %q = load ptr, ptr %pp, align 8, !nonnull !0
  %null = icmp eq ptr %q, null
  br i1 %null, label %never, label %spin

never:
  unreachable

spin:
  br label %spin, !llvm.loop !1
}

; The audit, on code as an optimiser might leave it.
; AUDIT: warning: the optimised device code of 'audited' still holds the function is assumed to make progress (mustprogress){{.*}}[safety rule: optimised-guard]
; AUDIT: warning: the optimised device code of 'audited' still holds code marked unreachable that does not trap{{.*}}[safety rule: optimised-guard]
; AUDIT: warning: the optimised device code of 'audited' still holds a loop assumed to terminate (llvm.loop.mustprogress){{.*}}[safety rule: optimised-guard]
; AUDIT-NOT: 'clean'
define void @audited(i1 %c) mustprogress {
entry:
  br i1 %c, label %never, label %spin

never:
  unreachable

spin:
  br label %spin, !llvm.loop !1
}

; A trap before unreachable, a proven-to-return mustprogress function: nothing to report.
define void @clean(i1 %c) mustprogress willreturn {
entry:
  br i1 %c, label %stop, label %done

stop:
  call void @llvm.trap()
  unreachable

done:
  ret void
}

declare void @llvm.assume(i1)
declare void @llvm.trap()

!0 = !{}
!1 = distinct !{!1, !2}
!2 = !{!"llvm.loop.mustprogress"}

; DEF: ![[LOOP]] = distinct !{![[LOOP]]}
