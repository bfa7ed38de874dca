; RUN: opt -load-pass-plugin=%oxide_passes -passes=oxide-scoped-atomics -S %s | FileCheck %s
; RUN: opt -load-pass-plugin=%oxide_passes -passes=oxide-scoped-atomics %s -o - | llc -mcpu=sm_90 -mattr=+ptx88 | FileCheck %s --check-prefix=PTX
; RUN: sed -e 's/"sm_90"/"sm_80"/' %s | opt -load-pass-plugin=%oxide_passes -passes=oxide-scoped-atomics -S | FileCheck %s --check-prefix=SM80

; LLVM 22's NVPTX back end prints every atomicrmw at PTX's default .gpu scope. The pass writes a
; relaxed one whose scope is another (block -> .cta, cluster -> .cluster, system -> .sys) as one
; `atom` with its scope, state space, operation and type; device-scope ones and those PTX has no
; atom for (nand, 16-bit integers, bf16 before sm_90) stay for the back end, whose cmpxchg loops
; keep the scope. An integer constant operand stays an immediate (`n`).

target datalayout = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; CHECK-LABEL: define void @scopes(
define void @scopes(ptr addrspace(3) %s, ptr addrspace(1) %g, ptr %p, ptr addrspace(7) %c) #0 {
; CHECK-NEXT: %block = call i32 asm sideeffect "atom.relaxed.cta.shared.add.u32 $0, [$1], $2;", "=r,r,n,~{memory}"(ptr addrspace(3) %s, i32 1)
; CHECK-NEXT: %system = call i32 asm sideeffect "atom.relaxed.sys.global.add.u32 $0, [$1], $2;", "=r,l,n,~{memory}"(ptr addrspace(1) %g, i32 1)
; CHECK-NEXT: %device = atomicrmw add ptr addrspace(1) %g, i32 1 syncscope("device") monotonic
; CHECK-NEXT: %cluster = call i32 asm sideeffect "atom.relaxed.cluster.shared::cluster.add.u32 $0, [$1], $2;", "=r,r,n,~{memory}"(ptr addrspace(7) %c, i32 1)
; CHECK-NEXT: %generic = call i32 asm sideeffect "atom.relaxed.sys.add.u32 $0, [$1], $2;", "=r,l,n,~{memory}"(ptr %p, i32 1)
; CHECK-NEXT: %thread = atomicrmw add ptr %p, i32 1 syncscope("singlethread") monotonic
; SM80-LABEL: define void @scopes(
; SM80: %cluster = atomicrmw add ptr addrspace(7) %c, i32 1 syncscope("cluster") monotonic
  %block = atomicrmw add ptr addrspace(3) %s, i32 1 syncscope("block") monotonic
  %system = atomicrmw add ptr addrspace(1) %g, i32 1 monotonic
  %device = atomicrmw add ptr addrspace(1) %g, i32 1 syncscope("device") monotonic
  %cluster = atomicrmw add ptr addrspace(7) %c, i32 1 syncscope("cluster") monotonic
  %generic = atomicrmw add ptr %p, i32 1 monotonic
  %thread = atomicrmw add ptr %p, i32 1 syncscope("singlethread") monotonic
  ret void
}

; CHECK-LABEL: define void @operations(
define void @operations(ptr addrspace(1) %g, i32 %i, i64 %l, float %f, double %d, half %h, bfloat %b, i16 %s) #0 {
; CHECK-NEXT: %add = call i64 asm sideeffect "atom.relaxed.sys.global.add.u64 $0, [$1], $2;", "=l,l,l,~{memory}"(ptr addrspace(1) %g, i64 %l)
; CHECK-NEXT: [[NEG:%.*]] = sub i32 0, %i
; CHECK-NEXT: %sub = call i32 asm sideeffect "atom.relaxed.sys.global.add.u32 $0, [$1], $2;", "=r,l,r,~{memory}"(ptr addrspace(1) %g, i32 [[NEG]])
; CHECK-NEXT: %xchg = call i32 asm sideeffect "atom.relaxed.sys.global.exch.b32 {{.*}}(ptr addrspace(1) %g, i32 %i)
; CHECK-NEXT: %and = call i64 asm sideeffect "atom.relaxed.sys.global.and.b64 {{.*}}(ptr addrspace(1) %g, i64 %l)
; CHECK-NEXT: %or = call i32 asm sideeffect "atom.relaxed.sys.global.or.b32 {{.*}}(ptr addrspace(1) %g, i32 %i)
; CHECK-NEXT: %xor = call i32 asm sideeffect "atom.relaxed.sys.global.xor.b32 {{.*}}(ptr addrspace(1) %g, i32 %i)
; CHECK-NEXT: %max = call i32 asm sideeffect "atom.relaxed.sys.global.max.s32 {{.*}}(ptr addrspace(1) %g, i32 %i)
; CHECK-NEXT: %min = call i64 asm sideeffect "atom.relaxed.sys.global.min.s64 {{.*}}(ptr addrspace(1) %g, i64 %l)
; CHECK-NEXT: %umax = call i64 asm sideeffect "atom.relaxed.sys.global.max.u64 {{.*}}(ptr addrspace(1) %g, i64 %l)
; CHECK-NEXT: %umin = call i32 asm sideeffect "atom.relaxed.sys.global.min.u32 {{.*}}(ptr addrspace(1) %g, i32 %i)
; CHECK-NEXT: %inc = call i32 asm sideeffect "atom.relaxed.sys.global.inc.u32 {{.*}}(ptr addrspace(1) %g, i32 %i)
; CHECK-NEXT: %dec = call i32 asm sideeffect "atom.relaxed.sys.global.dec.u32 {{.*}}(ptr addrspace(1) %g, i32 %i)
; CHECK-NEXT: %fadd = call float asm sideeffect "atom.relaxed.sys.global.add.f32 $0, [$1], $2;", "=f,l,f,~{memory}"(ptr addrspace(1) %g, float %f)
; CHECK-NEXT: %dadd = call double asm sideeffect "atom.relaxed.sys.global.add.f64 $0, [$1], $2;", "=d,l,d,~{memory}"(ptr addrspace(1) %g, double %d)
; CHECK-NEXT: %fxchg = call float asm sideeffect "atom.relaxed.sys.global.exch.b32 {{.*}}(ptr addrspace(1) %g, float %f)
; CHECK-NEXT: [[HBITS:%.*]] = bitcast half %h to i16
; CHECK-NEXT: [[HOLD:%.*]] = call i16 asm sideeffect "atom.relaxed.sys.global.add.noftz.f16 $0, [$1], $2;", "=h,l,h,~{memory}"(ptr addrspace(1) %g, i16 [[HBITS]])
; CHECK-NEXT: %hadd = bitcast i16 [[HOLD]] to half
; CHECK-NEXT: [[BBITS:%.*]] = bitcast bfloat %b to i16
; CHECK-NEXT: [[BOLD:%.*]] = call i16 asm sideeffect "atom.relaxed.sys.global.add.noftz.bf16 $0, [$1], $2;", "=h,l,h,~{memory}"(ptr addrspace(1) %g, i16 [[BBITS]])
; CHECK-NEXT: %badd = bitcast i16 [[BOLD]] to bfloat
; CHECK-NEXT: %nand = atomicrmw nand ptr addrspace(1) %g, i32 %i monotonic
; CHECK-NEXT: %short = atomicrmw add ptr addrspace(1) %g, i16 %s monotonic
; CHECK-NEXT: %fmax = atomicrmw fmax ptr addrspace(1) %g, float %f monotonic
; CHECK-NEXT: %acquire = atomicrmw add ptr addrspace(1) %g, i32 %i acquire
; SM80-LABEL: define void @operations(
; SM80: %hadd = bitcast
; SM80: %badd = atomicrmw fadd ptr addrspace(1) %g, bfloat %b monotonic
  %add = atomicrmw add ptr addrspace(1) %g, i64 %l monotonic
  %sub = atomicrmw sub ptr addrspace(1) %g, i32 %i monotonic
  %xchg = atomicrmw xchg ptr addrspace(1) %g, i32 %i monotonic
  %and = atomicrmw and ptr addrspace(1) %g, i64 %l monotonic
  %or = atomicrmw or ptr addrspace(1) %g, i32 %i monotonic
  %xor = atomicrmw xor ptr addrspace(1) %g, i32 %i monotonic
  %max = atomicrmw max ptr addrspace(1) %g, i32 %i monotonic
  %min = atomicrmw min ptr addrspace(1) %g, i64 %l monotonic
  %umax = atomicrmw umax ptr addrspace(1) %g, i64 %l monotonic
  %umin = atomicrmw umin ptr addrspace(1) %g, i32 %i monotonic
  %inc = atomicrmw uinc_wrap ptr addrspace(1) %g, i32 %i monotonic
  %dec = atomicrmw udec_wrap ptr addrspace(1) %g, i32 %i monotonic
  %fadd = atomicrmw fadd ptr addrspace(1) %g, float %f monotonic
  %dadd = atomicrmw fadd ptr addrspace(1) %g, double %d monotonic
  %fxchg = atomicrmw xchg ptr addrspace(1) %g, float %f monotonic
  %hadd = atomicrmw fadd ptr addrspace(1) %g, half %h monotonic
  %badd = atomicrmw fadd ptr addrspace(1) %g, bfloat %b monotonic
  %nand = atomicrmw nand ptr addrspace(1) %g, i32 %i monotonic
  %short = atomicrmw add ptr addrspace(1) %g, i16 %s monotonic
  %fmax = atomicrmw fmax ptr addrspace(1) %g, float %f monotonic
  %acquire = atomicrmw add ptr addrspace(1) %g, i32 %i acquire
  ret void
}

; In the PTX, each scope as asked; the device's is PTX's default; the back end's loops keep theirs.
; PTX-LABEL: .func scopes(
; PTX: atom.relaxed.cta.shared.add.u32
; PTX: atom.relaxed.sys.global.add.u32
; PTX: atom.global.add.u32
; PTX: atom.relaxed.cluster.shared::cluster.add.u32
; PTX: atom.relaxed.sys.add.u32
; PTX-LABEL: .func operations(
; PTX: atom.relaxed.sys.global.add.u64
; PTX: neg.s32 [[NEGATED:%r[0-9]+]],
; PTX: atom.relaxed.sys.global.add.u32 {{%r[0-9]+}}, [{{%rd[0-9]+}}], [[NEGATED]];
; PTX: atom.relaxed.sys.global.add.noftz.bf16
; PTX: atom.relaxed.sys.global.cas.b32

attributes #0 = { "target-cpu"="sm_90" }
