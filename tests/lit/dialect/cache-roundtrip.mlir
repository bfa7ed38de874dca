// RUN: oxide-opt %s | FileCheck %s
// RUN: oxide-opt %s | oxide-opt | FileCheck %s
// RUN: oxide-opt %s -oxide-to-nvvm | FileCheck %s --check-prefix=NVVM

// The cache-hinted global loads and stores (oxide/device/cache.hpp) in every width, and the one
// inline PTX statement oxide-to-nvvm makes of each: LLVM's NVPTX target has no cache operators.

// CHECK-LABEL: llvm.func @loads
// NVVM-LABEL: llvm.func @loads
llvm.func @loads(%p: !llvm.ptr, %g: !llvm.ptr<1>) -> vector<4xi32> {
  // CHECK: oxide.cached_load nc %{{.*}} : !llvm.ptr -> i8
  // NVVM: llvm.inline_asm "ld.global.nc.u8 $0, [$1];", "=h,l" %{{.*}} : (!llvm.ptr) -> i16
  // NVVM: llvm.trunc %{{.*}} : i16 to i8
  %a = oxide.cached_load nc %p : !llvm.ptr -> i8
  // CHECK: oxide.cached_load ca %{{.*}} : !llvm.ptr -> i16
  // NVVM: llvm.inline_asm "ld.global.ca.u16 $0, [$1];", "=h,l"
  %b = oxide.cached_load ca %p : !llvm.ptr -> i16
  // CHECK: oxide.cached_load cg %{{.*}} : !llvm.ptr<1> -> i32
  // NVVM: llvm.inline_asm "ld.global.cg.b32 $0, [$1];", "=r,l" %{{.*}} : (!llvm.ptr<1>) -> i32
  %c = oxide.cached_load cg %g : !llvm.ptr<1> -> i32
  // CHECK: oxide.cached_load lu %{{.*}} : !llvm.ptr -> i64
  // NVVM: llvm.inline_asm "ld.global.lu.b64 $0, [$1];", "=l,l"
  %d = oxide.cached_load lu %p : !llvm.ptr -> i64
  // CHECK: oxide.cached_load cv %{{.*}} : !llvm.ptr -> vector<2xi32>
  // NVVM: llvm.inline_asm "ld.global.cv.v2.b32 {$0, $1}, [$2];", "=r,=r,l" %{{.*}} : (!llvm.ptr) -> !llvm.struct<(i32, i32)>
  // NVVM: llvm.extractvalue %{{.*}}[1] : !llvm.struct<(i32, i32)>
  // NVVM: llvm.insertelement
  %e = oxide.cached_load cv %p : !llvm.ptr -> vector<2xi32>
  // CHECK: oxide.cached_load cs %{{.*}} : !llvm.ptr -> vector<4xi32>
  // NVVM: llvm.inline_asm "ld.global.cs.v4.b32 {$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,l" %{{.*}} : (!llvm.ptr) -> !llvm.struct<(i32, i32, i32, i32)>
  %f = oxide.cached_load cs %p : !llvm.ptr -> vector<4xi32>
  // NVVM-NOT: oxide.
  llvm.return %f : vector<4xi32>
}

// CHECK-LABEL: llvm.func @stores
// NVVM-LABEL: llvm.func @stores
llvm.func @stores(%p: !llvm.ptr, %a: i8, %b: i16, %c: i32, %d: i64, %e: vector<2xi32>, %f: vector<4xi32>) {
  // CHECK: oxide.cached_store cs %{{.*}}, %{{.*}} : i8, !llvm.ptr
  // NVVM: %[[WIDE:.*]] = llvm.zext %{{.*}} : i8 to i16
  // NVVM: llvm.inline_asm has_side_effects "st.global.cs.u8 [$0], $1;", "l,h,~{memory}" %{{.*}}, %[[WIDE]] : (!llvm.ptr, i16) -> ()
  oxide.cached_store cs %a, %p : i8, !llvm.ptr
  // CHECK: oxide.cached_store wt %{{.*}}, %{{.*}} : i16, !llvm.ptr
  // NVVM: "st.global.wt.u16 [$0], $1;", "l,h,~{memory}"
  oxide.cached_store wt %b, %p : i16, !llvm.ptr
  // CHECK: oxide.cached_store cg %{{.*}}, %{{.*}} : i32, !llvm.ptr
  // NVVM: "st.global.cg.b32 [$0], $1;", "l,r,~{memory}"
  oxide.cached_store cg %c, %p : i32, !llvm.ptr
  // CHECK: oxide.cached_store wb %{{.*}}, %{{.*}} : i64, !llvm.ptr
  // NVVM: "st.global.wb.b64 [$0], $1;", "l,l,~{memory}"
  oxide.cached_store wb %d, %p : i64, !llvm.ptr
  // CHECK: oxide.cached_store cs %{{.*}}, %{{.*}} : vector<2xi32>, !llvm.ptr
  // NVVM: llvm.extractelement
  // NVVM: "st.global.cs.v2.b32 [$0], {$1, $2};", "l,r,r,~{memory}"
  oxide.cached_store cs %e, %p : vector<2xi32>, !llvm.ptr
  // CHECK: oxide.cached_store wt %{{.*}}, %{{.*}} : vector<4xi32>, !llvm.ptr
  // NVVM: "st.global.wt.v4.b32 [$0], {$1, $2, $3, $4};", "l,r,r,r,r,~{memory}"
  oxide.cached_store wt %f, %p : vector<4xi32>, !llvm.ptr
  // NVVM-NOT: oxide.
  llvm.return
}
