; RUN: opt -load-pass-plugin=%oxide_passes -passes=oxide-prove-index-bounds -S %s | FileCheck %s

target triple = "nvptx64-nvidia-cuda"

%span2d = type { ptr, i64, i64 }

; A transpose's in[row * width + col] inside row < height, col < width, against the 2-D span's
; size width * height (oxide-optimize's nuw product): the check is true.
; CHECK-LABEL: define ptx_kernel void @transpose(
; CHECK: body:
; CHECK: br i1 true, label %load, label %fail
define ptx_kernel void @transpose(ptr readonly byval(%span2d) %in, ptr %out, i64 %row, i64 %col) {
entry:
  %w.addr = getelementptr inbounds i8, ptr %in, i64 8
  %w = load i64, ptr %w.addr
  %h.addr = getelementptr inbounds i8, ptr %in, i64 16
  %h = load i64, ptr %h.addr
  %size = mul nuw i64 %w, %h
  %row.in = icmp ult i64 %row, %h
  %col.in = icmp ult i64 %col, %w
  %inside = and i1 %row.in, %col.in
  br i1 %inside, label %body, label %done

body:
  %row.start = mul i64 %row, %w
  %index = add i64 %row.start, %col
  %ok = icmp ult i64 %index, %size
  br i1 %ok, label %load, label %fail

load:
  %data = load ptr, ptr %in
  %p = getelementptr inbounds float, ptr %data, i64 %index
  %v = load float, ptr %p
  store float %v, ptr %out
  br label %done

fail:
  call void @__oxide_bounds_failure(i64 %index, i64 %size, ptr null, i32 1, ptr null)
  unreachable

done:
  ret void
}

; A stencil's right neighbour in[y * w + x + 1], with x != w - 1 from its border test and the
; size from a contract's `requires ($0.size() == $1 * $2)` (an llvm.assume): true. The branch
; tests the negation (size <= index), which becomes false.
; CHECK-LABEL: define ptx_kernel void @right_neighbour(
; CHECK: interior:
; CHECK: br i1 false, label %fail, label %load
define ptx_kernel void @right_neighbour(ptr readonly byval({ ptr, i64 }) %in, i64 %w, i64 %h, i64 %x, i64 %y) {
entry:
  %n.addr = getelementptr inbounds i8, ptr %in, i64 8
  %n = load i64, ptr %n.addr
  %wh = mul nuw i64 %w, %h
  %sizes = icmp eq i64 %n, %wh
  call void @llvm.assume(i1 %sizes)
  %x.in = icmp ult i64 %x, %w
  %y.in = icmp ult i64 %y, %h
  %inside = and i1 %x.in, %y.in
  br i1 %inside, label %border, label %done

border:
  %last = add i64 %w, -1
  %at.edge = icmp eq i64 %x, %last
  br i1 %at.edge, label %done, label %interior

interior:
  %row.start = mul i64 %y, %w
  %here = add i64 %row.start, %x
  %index = add i64 %here, 1
  %out.of.bounds = icmp uge i64 %index, %n
  br i1 %out.of.bounds, label %fail, label %load

load:
  ret void

fail:
  call void @__oxide_bounds_failure(i64 %index, i64 %n, ptr null, i32 2, ptr null)
  unreachable

done:
  ret void
}

; Without the border test, x + 1 may be w: y * w + x + 1 may equal the size, so the check stays.
; CHECK-LABEL: define ptx_kernel void @unguarded_neighbour(
; CHECK: %ok = icmp ult i64 %index, %size
; CHECK: br i1 %ok, label %load, label %fail
define ptx_kernel void @unguarded_neighbour(i64 %w, i64 %h, i64 %x, i64 %y) {
entry:
  %size = mul nuw i64 %w, %h
  %x.in = icmp ult i64 %x, %w
  %y.in = icmp ult i64 %y, %h
  %inside = and i1 %x.in, %y.in
  br i1 %inside, label %body, label %done

body:
  %row.start = mul i64 %y, %w
  %here = add i64 %row.start, %x
  %index = add i64 %here, 1
  %ok = icmp ult i64 %index, %size
  br i1 %ok, label %load, label %fail

load:
  ret void

fail:
  call void @__oxide_bounds_failure(i64 %index, i64 %size, ptr null, i32 3, ptr null)
  unreachable

done:
  ret void
}

; The guard does not dominate the check: the check is also reached around it, and stays.
; CHECK-LABEL: define ptx_kernel void @guard_not_dominating(
; CHECK: %ok = icmp ult i64 %index, %size
; CHECK: br i1 %ok, label %done, label %fail
define ptx_kernel void @guard_not_dominating(i64 %w, i64 %h, i64 %x, i64 %y, i1 %skip) {
entry:
  %size = mul nuw i64 %w, %h
  br i1 %skip, label %check, label %guard

guard:
  %x.in = icmp ult i64 %x, %w
  %y.in = icmp ult i64 %y, %h
  %inside = and i1 %x.in, %y.in
  br i1 %inside, label %check, label %done

check:
  %row.start = mul i64 %y, %w
  %index = add i64 %row.start, %x
  %ok = icmp ult i64 %index, %size
  br i1 %ok, label %done, label %fail

fail:
  call void @__oxide_bounds_failure(i64 %index, i64 %size, ptr null, i32 4, ptr null)
  unreachable

done:
  ret void
}

; A size computed by a multiply that may wrap is not the product w * h: the check stays.
; CHECK-LABEL: define ptx_kernel void @size_may_wrap(
; CHECK: %ok = icmp ult i64 %index, %size
; CHECK: br i1 %ok, label %done, label %fail
define ptx_kernel void @size_may_wrap(i64 %w, i64 %h, i64 %x, i64 %y) {
entry:
  %size = mul i64 %w, %h
  %x.in = icmp ult i64 %x, %w
  %y.in = icmp ult i64 %y, %h
  %inside = and i1 %x.in, %y.in
  br i1 %inside, label %check, label %done

check:
  %row.start = mul i64 %y, %w
  %index = add i64 %row.start, %x
  %ok = icmp ult i64 %index, %size
  br i1 %ok, label %done, label %fail

fail:
  call void @__oxide_bounds_failure(i64 %index, i64 %size, ptr null, i32 5, ptr null)
  unreachable

done:
  ret void
}

declare void @__oxide_bounds_failure(i64, i64, ptr, i32, ptr)
declare void @llvm.assume(i1)

; The user's own test `x + 1 < w` on an add that carries `nuw`: InstCombine puts `nuw` on a
; signed `nsw` add of a non-negative value, which the user's undefined behaviour (a signed
; overflow) makes true by assumption only, so the flag proves nothing about x: the check of
; in[y * w + x] stays.
; CHECK-LABEL: define ptx_kernel void @flagged_offset(
; CHECK: %ok = icmp ult i64 %index, %size
; CHECK: br i1 %ok, label %load, label %fail
define ptx_kernel void @flagged_offset(i64 %w, i64 %h, i64 %x, i64 %y) {
entry:
  %size = mul nuw i64 %w, %h
  %next = add nuw i64 %x, 1
  %x.in = icmp ult i64 %next, %w
  %y.in = icmp ult i64 %y, %h
  %inside = and i1 %x.in, %y.in
  br i1 %inside, label %check, label %done

check:
  %row.start = mul i64 %y, %w
  %index = add i64 %row.start, %x
  %ok = icmp ult i64 %index, %size
  br i1 %ok, label %load, label %fail

load:
  ret void

fail:
  call void @__oxide_bounds_failure(i64 %index, i64 %size, ptr null, i32 4, ptr null)
  unreachable

done:
  ret void
}
