; RUN: opt -load-pass-plugin=%oxide_passes -passes=oxide-write-failure-reports -S %s | FileCheck %s
; RUN: opt -load-pass-plugin=%oxide_passes -passes=oxide-write-failure-reports %s -o - | llc -mcpu=sm_90 -mattr=+ptx88 | FileCheck %s --check-prefix=PTX
; RUN: sed -e 's/i32 %line, ptr %function) #0/i64 %line, ptr %function) #0/; s/ptr %file, i32 %line, ptr %function, i64 1/ptr %file, i32 0, ptr %function, i64 1/' %s | opt -load-pass-plugin=%oxide_passes -passes=oxide-write-failure-reports -S | FileCheck %s --check-prefix=OTHER

; Each call to __oxide_bounds_failure becomes a jump to its function's one report block, with the
; check's site (file:line: in function, numbered in the module's table), index and size as phis;
; the report claims the record whose address the runtime put in __oxide_failure_record (a
; compare-and-swap), writes it, fences at system scope and traps. No call is left,
; and the report function, its format strings and vprintf/__assertfail go. Where SimplifyCFG shared one call among checks (phis of
; their file, line and function), the site is a phi too. A report function with other
; arguments than the lowering's is left alone (OTHER).

target datalayout = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@fmt = internal constant [6 x i8] c"%llu\0A\00"
@msg = internal constant [5 x i8] c"span\00"
@file = internal constant [6 x i8] c"k.cpp\00"
@kernel = internal constant [2 x i8] c"k\00"
@other = internal constant [6 x i8] c"other\00"

; CHECK: @__oxide_failure_record = addrspace(1) externally_initialized global i64 0, align 8
; CHECK: @__oxide_failure_sites = addrspace(1) constant [{{[0-9]+}} x i8] c"k.cpp:12: in k\00k.cpp:30: in k\00k.cpp:40: in other\00k.cpp:41: in other\00"
; CHECK-NOT: @fmt
; CHECK-NOT: @msg
; CHECK-NOT: __oxide_bounds_failure
; CHECK-NOT: vprintf

; CHECK-LABEL: define void @k(
; CHECK: fail.a:
; CHECK-NEXT: call void asm sideeffect "", ""()
; CHECK-NEXT: br label %oxide.report
; CHECK: fail.b:
; CHECK-NEXT: call void asm sideeffect "", ""()
; CHECK-NEXT: br label %oxide.report
; CHECK: oxide.report:
; CHECK-NEXT: %oxide.site = phi i32 [ 1, %fail.a ], [ 2, %fail.b ]
; CHECK-NEXT: %oxide.index = phi i64 [ %i, %fail.a ], [ %j, %fail.b ]
; CHECK-NEXT: %oxide.size = phi i64 [ %n, %fail.a ], [ %n, %fail.b ]
; CHECK-NEXT: [[ADDRESS:%.*]] = load i64, ptr addrspace(1) @__oxide_failure_record, align 8
; CHECK-NEXT: [[NONE:%.*]] = icmp eq i64 [[ADDRESS]], 0
; CHECK-NEXT: br i1 [[NONE]], label %oxide.report.trap, label %oxide.report.claim
; CHECK: oxide.report.claim:
; CHECK-NEXT: [[RECORD:%.*]] = inttoptr i64 [[ADDRESS]] to ptr
; CHECK: cmpxchg ptr {{%.*}}, i32 0, i32 1 monotonic monotonic, align 4
; CHECK: oxide.report.write:
; CHECK: store i32 %oxide.site, ptr {{%.*}}, align 4
; CHECK: store i64 ptrtoint (ptr addrspacecast (ptr addrspace(1) @__oxide_failure_sites to ptr) to i64)
; CHECK: store i64 %oxide.index
; CHECK: store i64 %oxide.size
; CHECK: call i32 asm sideeffect "mov.u32 $0, %ctaid.x;", "=r"()
; CHECK: call i32 asm sideeffect "mov.u32 $0, %tid.z;", "=r"()
; CHECK: fence seq_cst
; CHECK: oxide.report.trap:
; CHECK-NEXT: call void @llvm.trap()
; CHECK-NEXT: unreachable
define void @k(i64 %i, i64 %j, i64 %n) {
entry:
  %in.a = icmp ult i64 %i, %n
  br i1 %in.a, label %next, label %fail.a
next:
  %in.b = icmp ult i64 %j, %n
  br i1 %in.b, label %done, label %fail.b
done:
  ret void
fail.a:
  call void @__oxide_bounds_failure(i64 %i, i64 %n, ptr @file, i32 12, ptr @kernel)
  call void @llvm.trap()
  unreachable
fail.b:
  call void @__oxide_bounds_failure(i64 %j, i64 %n, ptr @file, i32 30, ptr @kernel)
  unreachable
}

; CHECK-LABEL: define void @shared(
; CHECK: fail:
; CHECK-NEXT: [[SITE:%.*]] = phi i32 [ 3, %a ], [ 4, %b ]
; CHECK-NEXT: %index = phi i64
; CHECK-NOT: phi
; CHECK: br label %oxide.report
; CHECK: oxide.report:
; CHECK-NEXT: %oxide.site{{.*}} = phi i32 [ [[SITE]], %fail ]
define void @shared(i64 %i, i64 %n, i1 %c) {
entry:
  br i1 %c, label %a, label %b
a:
  %in.a = icmp ult i64 %i, %n
  br i1 %in.a, label %done, label %fail
b:
  %in.b = icmp ult i64 %i, %n
  br i1 %in.b, label %done, label %fail
done:
  ret void
fail:
  %index = phi i64 [ %i, %a ], [ %n, %b ]
  %line = phi i32 [ 40, %a ], [ 41, %b ]
  call void @__oxide_bounds_failure(i64 %index, i64 %n, ptr @file, i32 %line, ptr @other)
  unreachable
}

; The report as the lowering builds it (KernelFailuresToNVVM.cpp).
define void @__oxide_bounds_failure(i64 %index, i64 %size, ptr %file, i32 %line, ptr %function) #0 {
  %args = alloca { i64, i64 }, align 8
  store i64 %index, ptr %args, align 8
  %1 = call i32 @vprintf(ptr @fmt, ptr %args)
  call void @__assertfail(ptr @msg, ptr %file, i32 %line, ptr %function, i64 1)
  call void @llvm.trap()
  unreachable
}

declare i32 @vprintf(ptr, ptr)
declare void @__assertfail(ptr, ptr, i32, ptr, i64)
declare void @llvm.trap()

attributes #0 = { noinline cold noreturn }

; PTX: .visible .global .align 8 .u64 __oxide_failure_record;
; PTX: .visible .global .align 1 .b8 __oxide_failure_sites
; PTX-NOT: call
; PTX: ld.global.b64 {{%rd[0-9]+}}, [__oxide_failure_record];
; PTX: atom.relaxed.sys.cas.b32
; PTX: fence.sc.sys;
; PTX: trap;

; OTHER: call void @__oxide_bounds_failure(
; OTHER-NOT: __oxide_failure_record
