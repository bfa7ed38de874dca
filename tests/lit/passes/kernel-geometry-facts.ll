; RUN: opt -load-pass-plugin=%oxide_passes -passes=oxide-kernel-geometry-facts -S %s | FileCheck %s

target triple = "nvptx64-nvidia-cuda"

; An exact block of 128 x 1 x 1 (the contract's `block`, as nvvm.reqntid): blockDim.x is 128,
; threadIdx.x lies in [0, 128), and the lane is threadIdx.x % 32, read once at entry.
; CHECK-LABEL: define ptx_kernel void @exact(
; CHECK-NEXT: [[TID:%.*]] = call range(i32 0, 128) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
; CHECK-NEXT: %lane = and i32 [[TID]], 31
; CHECK-NEXT: %tx = call range(i32 0, 128) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
; CHECK-NOT: @llvm.nvvm.read.ptx.sreg.ntid.x
; CHECK-NOT: @llvm.nvvm.read.ptx.sreg.laneid
; CHECK: %index = add i32 %tx, 128
; CHECK: store i32 %lane, ptr %out
define ptx_kernel void @exact(ptr %out) "nvvm.reqntid"="128,1,1" {
  %tx = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %nx = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %l = call i32 @llvm.nvvm.read.ptx.sreg.laneid()
  %index = add i32 %tx, %nx
  store i32 %index, ptr %out
  store i32 %l, ptr %out
  ret void
}

; At most 256 threads (launch bounds, as nvvm.maxntid): every threadIdx below 256, every
; blockDim in [1, 256]; a narrower range that a read has already stays.
; CHECK-LABEL: define ptx_kernel void @bounded(
; CHECK: call range(i32 0, 256) i32 @llvm.nvvm.read.ptx.sreg.tid.y()
; CHECK: call range(i32 0, 64) i32 @llvm.nvvm.read.ptx.sreg.tid.z()
; CHECK: call range(i32 1, 257) i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
; The lane stays a laneid read: without an exact block, warps need not start at x = 0.
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.laneid()
define ptx_kernel void @bounded(ptr %out) "nvvm.maxntid"="256" {
  %ty = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %tz = call range(i32 0, 64) i32 @llvm.nvvm.read.ptx.sreg.tid.z()
  %nx = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %l = call i32 @llvm.nvvm.read.ptx.sreg.laneid()
  store i32 %ty, ptr %out
  store i32 %tz, ptr %out
  store i32 %nx, ptr %out
  store i32 %l, ptr %out
  ret void
}

; A 16 x 8 block: warps span two rows, so the lane is not threadIdx.x % 32 and stays.
; CHECK-LABEL: define ptx_kernel void @narrow_rows(
; CHECK: call range(i32 0, 16) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.laneid()
define ptx_kernel void @narrow_rows(ptr %out) "nvvm.reqntid"="16,8,1" {
  %tx = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %l = call i32 @llvm.nvvm.read.ptx.sreg.laneid()
  store i32 %tx, ptr %out
  store i32 %l, ptr %out
  ret void
}

; Not a kernel (a helper that was not inlined): its block is whichever kernel calls it.
; CHECK-LABEL: define void @helper(
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
define void @helper(ptr %out) "nvvm.reqntid"="128,1,1" {
  %tx = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %nx = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %index = add i32 %tx, %nx
  store i32 %index, ptr %out
  ret void
}

; A kernel without a contract's block or launch bounds: nothing is known.
; CHECK-LABEL: define ptx_kernel void @unknown_block(
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
define ptx_kernel void @unknown_block(ptr %out) {
  %tx = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %nx = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %index = add i32 %tx, %nx
  store i32 %index, ptr %out
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.z()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.laneid()
