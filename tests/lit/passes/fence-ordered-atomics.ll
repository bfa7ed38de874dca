; RUN: opt -load-pass-plugin=%oxide_passes -passes=oxide-fence-ordered-atomics -S %s | FileCheck %s
; RUN: opt -load-pass-plugin=%oxide_passes -passes=oxide-fence-ordered-atomics %s -o - | llc -mcpu=sm_90 -mattr=+ptx88 | FileCheck %s --check-prefix=PTX

; LLVM 22's NVPTX back end emits every atomicrmw as a relaxed atom; the pass gives an ordered one
; fences of its own scope and makes it monotonic. cmpxchg keeps its ordering (NVPTX honours it).

target triple = "nvptx64-nvidia-cuda"

; CHECK-LABEL: define void @orderings(
define void @orderings(ptr addrspace(1) %p, i32 %v) {
; CHECK-NEXT: %relaxed = atomicrmw add ptr addrspace(1) %p, i32 %v syncscope("device") monotonic
; CHECK-NEXT: %acquire = atomicrmw xchg ptr addrspace(1) %p, i32 %v syncscope("device") monotonic
; CHECK-NEXT: fence syncscope("device") acquire
; CHECK-NEXT: fence syncscope("block") release
; CHECK-NEXT: %release = atomicrmw or ptr addrspace(1) %p, i32 %v syncscope("block") monotonic
; CHECK-NEXT: fence release
; CHECK-NEXT: %acq_rel = atomicrmw add ptr addrspace(1) %p, i32 %v monotonic
; CHECK-NEXT: fence acquire
; CHECK-NEXT: fence syncscope("device") seq_cst
; CHECK-NEXT: %seq_cst = atomicrmw max ptr addrspace(1) %p, i32 %v syncscope("device") monotonic
; CHECK-NEXT: fence syncscope("device") acquire
; CHECK-NEXT: %cas = cmpxchg ptr addrspace(1) %p, i32 %v, i32 0 syncscope("device") acq_rel acquire
; CHECK-NEXT: ret void
  %relaxed = atomicrmw add ptr addrspace(1) %p, i32 %v syncscope("device") monotonic
  %acquire = atomicrmw xchg ptr addrspace(1) %p, i32 %v syncscope("device") acquire
  %release = atomicrmw or ptr addrspace(1) %p, i32 %v syncscope("block") release
  %acq_rel = atomicrmw add ptr addrspace(1) %p, i32 %v acq_rel
  %seq_cst = atomicrmw max ptr addrspace(1) %p, i32 %v syncscope("device") seq_cst
  %cas = cmpxchg ptr addrspace(1) %p, i32 %v, i32 0 syncscope("device") acq_rel acquire
  ret void
}

; PTX-LABEL: .func orderings(
; PTX: atom.global.add.u32
; PTX-NEXT: atom.global.exch.b32
; PTX-NEXT: fence.acquire.gpu;
; PTX-NEXT: fence.release.cta;
; PTX-NEXT: atom.global.or.b32
; PTX-NEXT: fence.release.sys;
; PTX-NEXT: atom.global.add.u32
; PTX-NEXT: fence.acquire.sys;
; PTX-NEXT: fence.sc.gpu;
; PTX-NEXT: atom.global.max.s32
; PTX-NEXT: fence.acquire.gpu;
; PTX-NEXT: atom.acq_rel.gpu.global.cas.b32
