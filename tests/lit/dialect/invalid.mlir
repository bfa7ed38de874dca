// RUN: oxide-opt %s -split-input-file -verify-diagnostics

llvm.func @rank_zero() {
  // expected-error @+1 {{attribute 'rank' failed to satisfy constraint}}
  %i = oxide.thread_index rank 0 dim x : i64
  llvm.return
}

// -----

llvm.func @rank_four() {
  // expected-error @+1 {{attribute 'rank' failed to satisfy constraint}}
  %i = oxide.thread_index rank 4 dim x : i64
  llvm.return
}

// -----

llvm.func @wrong_type() {
  // expected-error @+1 {{must be 64-bit signless integer}}
  %i = oxide.thread_index rank 1 dim x : i32
  llvm.return
}

// -----

// expected-error @+1 {{kernel 'returns_value' must return void}}
llvm.func @returns_value() -> i32 attributes {oxide.kernel = #oxide.kernel} {
  %c = llvm.mlir.constant(0 : i32) : i32
  llvm.return %c : i32
}

// -----

// expected-error @+1 {{kernel 'no_body' has no body}}
llvm.func @no_body() attributes {oxide.kernel = #oxide.kernel}

// -----

// expected-error @+1 {{'oxide.kernel' must be a #oxide.kernel attribute}}
llvm.func @not_unit() attributes {oxide.kernel = 1 : i32} {
  llvm.return
}

// -----

// expected-error @+1 {{'oxide.kernel' may only mark an llvm.func}}
llvm.mlir.global external @g() {oxide.kernel = #oxide.kernel} : i32

// -----

// expected-error @+1 {{unknown oxide attribute 'oxide.kernal'}}
llvm.func @typo() attributes {oxide.kernal} {
  llvm.return
}

// -----

llvm.func @shared_too_big() {
  // expected-error @+1 {{allocates 65536 bytes of shared memory; at most 49152 bytes of static shared memory fit in a block}}
  %s = oxide.shared_alloc @site size 65536 align 4 : !llvm.ptr
  llvm.return
}

// -----

llvm.func @shared_bad_align() {
  // expected-error @+1 {{attribute 'alignment' failed to satisfy constraint}}
  %s = oxide.shared_alloc @site size 64 align 3 : !llvm.ptr
  llvm.return
}

// -----

llvm.func @bad_dim() {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'dim' [x, y, z]}}
  %t = oxide.geometry thread_idx w : i32
  llvm.return
}

// -----

llvm.func @dim_outside_rank() {
  // expected-error @+1 {{dimension y does not exist in a rank-1 launch}}
  %i = oxide.thread_index rank 1 dim y : i64
  llvm.return
}

// -----

llvm.func @disjoint_mismatch(%p: !llvm.ptr, %n: i64) {
  %x = oxide.thread_index rank 1 dim x : i64
  // expected-error @+1 {{has 2 extents but 1 coordinates}}
  %e = oxide.disjoint_get %p [%n, %n] at [%x] elem 4 : !llvm.ptr
  llvm.return
}

// -----

// expected-error @+1 {{unknown parameter kind 'span' (the kinds are those of include/oxide/detail/param_kind.hpp)}}
llvm.func @bad_param_kind(%a: i64) attributes {oxide.kernel = #oxide.kernel<params = [a: span]>} {
  llvm.return
}

// -----

// expected-error @+1 {{parameter 'a' is a pointer, which kernels declare as 'other'}}
llvm.func @pointer_param(%a: !llvm.ptr) attributes {oxide.kernel = #oxide.kernel<params = [a: pointer]>} {
  llvm.return
}

// -----

// expected-error @+1 {{malformed contract: domain must be 1, 2 or 3}}
llvm.func @bad_contract() attributes {oxide.kernel = #oxide.kernel<contract = "domain = 5">} {
  llvm.return
}

// -----

// The contract names its parameters by kind: $0 is no span here.
// expected-error @+1 {{malformed contract:}}
llvm.func @contract_on_scalar(%n: i64) attributes {oxide.kernel = #oxide.kernel<params = [n: unsigned_integer], contract = "domain = 1, requires = ($0.size() > 4)">} {
  llvm.return
}

// -----

// expected-error @+1 {{unknown key 'block' (expected params, contract, launch_bounds or element_sizes)}}
llvm.func @unknown_key() attributes {oxide.kernel = #oxide.kernel<block = [128]>} {
  llvm.return
}

// -----

// expected-error @+1 {{'contract' is given twice}}
llvm.func @twice() attributes {oxide.kernel = #oxide.kernel<contract = "domain = 1", contract = "domain = 2">} {
  llvm.return
}

// -----

// expected-error @+1 {{two parameters are named 'a'}}
llvm.func @same_names(%a: i64, %b: i64) attributes {oxide.kernel = #oxide.kernel<params = [a: input, a: output]>} {
  llvm.return
}

// -----

// expected-error @+1 {{expected an unsigned 32-bit integer}}
llvm.func @negative_bounds() attributes {oxide.kernel = #oxide.kernel<launch_bounds = [-1, 2]>} {
  llvm.return
}

// -----

// expected-error @+1 {{launch_bounds is [max threads per block, min blocks per SM]}}
llvm.func @bad_bounds() attributes {oxide.kernel = #oxide.kernel<launch_bounds = [128]>} {
  llvm.return
}

// -----

// expected-error @+1 {{'oxide.kernel' must be a #oxide.kernel attribute}}
llvm.func @unit_kernel() attributes {oxide.kernel} {
  llvm.return
}

// -----

// The frontend's strings are the dialect's no more: they arrive in passthrough.
// expected-error @+1 {{unknown oxide attribute 'oxide.contract'}}
llvm.func @string_contract() attributes {oxide.kernel = #oxide.kernel, oxide.contract = "domain = 1"} {
  llvm.return
}

// -----

llvm.func @tile_rows_on_a_line(%p: !llvm.ptr, %n: i64) {
  %x = oxide.thread_index rank 1 dim x : i64
  // expected-error @+1 {{tile_rows needs a 2-D output}}
  %e = oxide.disjoint_get %p [%n] at [%x] elem 4 tile_rows 2 : !llvm.ptr
  llvm.return
}

// -----

llvm.func @tile_of_a_volume(%p: !llvm.ptr, %n: i64) {
  %x = oxide.thread_index rank 3 dim x : i64
  %y = oxide.thread_index rank 3 dim y : i64
  %z = oxide.thread_index rank 3 dim z : i64
  // expected-error @+1 {{tiles are 1-D or 2-D only}}
  %e = oxide.disjoint_get %p [%n, %n, %n] at [%x, %y, %z] elem 4 tile 2 : !llvm.ptr
  llvm.return
}

// -----

llvm.func @within_rank(%p: !llvm.ptr, %n: i64, %j: i64) {
  %x = oxide.thread_index rank 2 dim x : i64
  %y = oxide.thread_index rank 2 dim y : i64
  // expected-error @+1 {{has 1 in-tile coordinates but 2 coordinates}}
  %e = oxide.disjoint_get %p [%n, %n] at [%x, %y] within [%j] elem 4 tile 2 tile_rows 2 : !llvm.ptr
  llvm.return
}

// -----

llvm.func @span_elem_size(%p: !llvm.ptr, %n: i64, %j: i64) {
  // expected-error @+1 {{attribute 'elem_size' failed to satisfy constraint}}
  %e = oxide.span_elem %p [%n] at %j elem 0 : !llvm.ptr
  llvm.return
}

// -----

llvm.func @grid_stride_rank(%i: i64) {
  // expected-error @+1 {{attribute 'rank' failed to satisfy constraint}}
  %n = oxide.grid_stride_next %i rank 4 dim x : i64
  llvm.return
}

// -----

llvm.func @grid_stride_dim_outside_rank(%i: i64) {
  // expected-error @+1 {{dimension z does not exist in a rank-2 launch}}
  %n = oxide.grid_stride_next %i rank 2 dim z : i64
  llvm.return
}

// -----

llvm.func @geometry_kind() {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [thread_idx, block_idx, block_dim, grid_dim]}}
  %t = oxide.geometry warp_idx x : i32
  llvm.return
}

// -----

llvm.func @barrier_operand(%v: i32) {
  // expected-error @+1 {{'oxide.barrier' op requires zero operands}}
  "oxide.barrier"(%v) : (i32) -> ()
  llvm.return
}

// -----

llvm.func @named_barrier_zero(%n: i32) {
  %id = llvm.mlir.constant(0 : i32) : i32
  // expected-error @+1 {{barrier id 0 is not 1..15: a block has 16 barriers and 0 is sync_threads'}}
  oxide.named_barrier %id, %n
  llvm.return
}

// -----

llvm.func @named_barrier_sixteen(%n: i32) {
  %id = llvm.mlir.constant(16 : i32) : i32
  // expected-error @+1 {{barrier id 16 is not 1..15}}
  oxide.named_barrier %id, %n arrive
  llvm.return
}

// -----

llvm.func @named_barrier_part_of_a_warp(%id: i32) {
  %n = llvm.mlir.constant(48 : i32) : i32
  // expected-error @+1 {{48 threads at a named barrier: whole warps of one block, a multiple of 32 up to 1024}}
  oxide.named_barrier %id, %n
  llvm.return
}

// -----

llvm.func @fence_scope() {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'scope' [block, device, system]}}
  oxide.fence warp
  llvm.return
}

// -----

llvm.func @dynamic_shared_type() {
  // expected-error @+1 {{result #0 must be LLVM pointer in address space 0}}
  %d = oxide.dynamic_shared : !llvm.ptr<3>
  llvm.return
}

// -----

llvm.func @shared_alloc_type() {
  // expected-error @+1 {{result #0 must be LLVM pointer in address space 0}}
  %s = oxide.shared_alloc @site size 64 align 4 : !llvm.ptr<3>
  llvm.return
}

// -----

llvm.func @dynamic_shared_size_type() {
  // expected-error @+1 {{result #0 must be 32-bit signless integer}}
  %d = oxide.dynamic_shared_size : i64
  llvm.return
}

// -----

llvm.func @lane_id_type() {
  // expected-error @+1 {{result #0 must be 32-bit signless integer}}
  %l = oxide.lane_id : i64
  llvm.return
}

// -----

llvm.func @shuffle_mode(%m: i32, %v: i32) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'mode' [idx, up, down, xor]}}
  %r = oxide.warp_shuffle bfly %m, %v, %v : i32
  llvm.return
}

// -----

llvm.func @vote_mode(%m: i32, %v: i32) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'mode' [all, any, ballot]}}
  %r = oxide.warp_vote none %m, %v : i32
  llvm.return
}

// -----

llvm.func @warp_sync_mask(%m: i64) {
  // expected-error @+1 {{operand #0 must be 32-bit signless integer}}
  "oxide.warp_sync"(%m) : (i64) -> ()
  llvm.return
}

// -----

llvm.func @redux_kind(%m: i32, %v: i32) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [add, min, max, umin, umax, and, or, xor]}}
  %r = oxide.warp_redux mul %m, %v : i32
  llvm.return
}

// -----

llvm.func @redux_type(%m: i32, %v: i64) {
  // expected-error @+1 {{operand #1 must be 32-bit signless integer}}
  %r = "oxide.warp_redux"(%m, %v) {kind = 0 : i32} : (i32, i64) -> i32
  llvm.return
}

// -----

llvm.func @match_kind(%m: i32, %v: i32) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [any, all]}}
  %r = oxide.warp_match none %m, %v : i32
  llvm.return
}

// -----

llvm.func @match_type(%m: i32, %v: i16) {
  // expected-error @+1 {{operand #1 must be 32-bit signless integer or 64-bit signless integer}}
  %r = oxide.warp_match any %m, %v : i16
  llvm.return
}

// -----

llvm.func @shuffle_width(%m: i32, %v: i32) {
  // expected-error @+1 {{attribute 'width' failed to satisfy constraint: 32-bit signless integer attribute whose value is positive and whose value is a power of two > 0 whose maximum value is 32}}
  %r = oxide.warp_shuffle xor %m, %v, %v width 12 : i32
  llvm.return
}

// -----

llvm.func @shuffle_width_max(%m: i32, %v: i32) {
  // expected-error @+1 {{attribute 'width' failed to satisfy constraint}}
  %r = oxide.warp_shuffle xor %m, %v, %v width 64 : i32
  llvm.return
}

// -----

llvm.func @lane_mask_kind() {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [lt, le, eq, ge, gt]}}
  %r = oxide.lane_mask ne : i32
  llvm.return
}

// -----

llvm.func @trap_message(%msg: !llvm.ptr<4>) {
  // expected-error @+1 {{operand #0 must be LLVM pointer in address space 0}}
  oxide.trap %msg : !llvm.ptr<4>
  llvm.return
}

// -----

llvm.func @bounds_fail_type(%i: i32, %n: i64) {
  // expected-error @+1 {{operand #0 must be 64-bit signless integer}}
  "oxide.bounds_fail"(%i, %n) : (i32, i64) -> ()
  llvm.return
}

// -----

llvm.func @clock_kind() {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [clock64, globaltimer]}}
  %t = oxide.clock clock32 : i64
  llvm.return
}

// -----

llvm.func @clock_type() {
  // expected-error @+1 {{result #0 must be 64-bit signless integer}}
  %t = oxide.clock clock64 : i32
  llvm.return
}

// -----

llvm.func @cluster_geometry_kind() {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [block_rank, block_count, block_idx, cluster_dim, cluster_idx, grid_clusters]}}
  %r = oxide.cluster_geometry cluster_rank x : i32
  llvm.return
}

// -----

llvm.func @cluster_sync_operand(%v: i32) {
  // expected-error @+1 {{'oxide.cluster_sync' op requires zero operands}}
  "oxide.cluster_sync"(%v) : (i32) -> ()
  llvm.return
}

// -----

// mapa takes and returns generic addresses: a shared-window pointer would reach the lowering as
// an llvm.nvvm.mapa call of the wrong type.
llvm.func @map_shared_space(%p: !llvm.ptr<3>, %rank: i32) {
  // expected-error @+1 {{operand #0 must be LLVM pointer in address space 0}}
  %r = oxide.map_shared %p, %rank : !llvm.ptr<3>
  llvm.return
}

// -----

llvm.func @map_shared_rank(%p: !llvm.ptr, %rank: i64) {
  // expected-error @+1 {{operand #1 must be 32-bit signless integer}}
  %r = "oxide.map_shared"(%p, %rank) : (!llvm.ptr, i64) -> !llvm.ptr
  llvm.return
}

// -----

llvm.func @grid_sync_result() {
  // expected-error @+1 {{'oxide.grid_sync' op requires zero results}}
  %r = "oxide.grid_sync"() : () -> i32
  llvm.return
}

// -----

llvm.func @disjoint_four_dims(%p: !llvm.ptr, %n: i64, %i: i64) {
  // expected-error @+1 {{needs 1 to 3 coordinates, not 4}}
  %e = oxide.disjoint_get %p [%n, %n, %n, %n] at [%i, %i, %i, %i] elem 4 : !llvm.ptr
  llvm.return
}

// -----

llvm.func @disjoint_types(%p: !llvm.ptr, %n: i64, %i: i64) {
  // expected-error @+1 {{all of {data, element} have same type}}
  %e = "oxide.disjoint_get"(%p, %n, %i) {elem_size = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (!llvm.ptr, i64, i64) -> !llvm.ptr<1>
  llvm.return
}

// -----

// expected-error @+1 {{'oxide.macro_prefix_map' must be an array of "OLD=NEW" strings}}
module attributes {oxide.macro_prefix_map = ["/home/me/project"]} {
}

// -----

// expected-error @+1 {{'oxide.macro_prefix_map' may only be set on a module}}
llvm.func @prefix_map_on_a_function() attributes {oxide.macro_prefix_map = ["/src/=./"]} {
  llvm.return
}
