// RUN: oxide-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of oxide.group_index and oxide.owned_elem.

// expected-error @+1 {{must be inside a function}}
%w = oxide.group_index warp : i64

// -----

llvm.func @rank_of_shape(%p: !llvm.ptr, %n: i64, %j: i64) {
  %w = oxide.group_index warp : i64
  // expected-error @+1 {{shape warp_lanes writes a rank-2 output but has 1 extents}}
  %e = oxide.owned_elem %p [%n] owner [%w] at %j elem 4 shape warp_lanes : !llvm.ptr
  llvm.return
}

// -----

llvm.func @owners_of_shape(%p: !llvm.ptr, %n: i64, %j: i64) {
  %x = oxide.thread_index rank 2 dim x : i64
  // expected-error @+1 {{shape z_column takes 2 owner coordinates, not 1}}
  %e = oxide.owned_elem %p [%n, %n, %n] owner [%x] at %j elem 4 shape z_column : !llvm.ptr
  llvm.return
}

// -----

llvm.func @pair_without_distance(%p: !llvm.ptr, %n: i64, %j: i64) {
  %i = oxide.thread_index rank 1 dim x : i64
  // expected-error @+1 {{shape pair needs its distance as 'uniform'}}
  %e = oxide.owned_elem %p [%n] owner [%i] at %j elem 4 shape pair : !llvm.ptr
  llvm.return
}

// -----

llvm.func @distance_elsewhere(%p: !llvm.ptr, %n: i64, %j: i64) {
  %i = oxide.thread_index rank 1 dim x : i64
  // expected-error @+1 {{only shape pair takes a 'uniform' operand}}
  %e = oxide.owned_elem %p [%n] owner [%i] at %j uniform %n elem 4 shape launch_strided : !llvm.ptr
  llvm.return
}

// -----

llvm.func @count_elsewhere(%p: !llvm.ptr, %n: i64, %j: i64) {
  %w = oxide.group_index warp : i64
  // expected-error @+1 {{only shapes block_strided and strided_rows take a 'count'}}
  %e = oxide.owned_elem %p [%n] owner [%w] at %j elem 4 shape warp_leader count 2 : !llvm.ptr
  llvm.return
}

// -----

llvm.func @count_too_large(%p: !llvm.ptr, %n: i64, %j: i64) {
  %i = oxide.thread_index rank 1 dim x : i64
  // expected-error @+1 {{count 65537 is above 65536, past which the element index could wrap}}
  %e = oxide.owned_elem %p [%n] owner [%i] at %j elem 4 shape block_strided count 65537 : !llvm.ptr
  llvm.return
}

// -----

llvm.func @unknown_shape(%p: !llvm.ptr, %n: i64, %j: i64) {
  %i = oxide.thread_index rank 1 dim x : i64
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'shape'}}
  %e = oxide.owned_elem %p [%n] owner [%i] at %j elem 4 shape diagonal : !llvm.ptr
  llvm.return
}

// -----

llvm.func @tile_without_shape(%p: !llvm.ptr, %n: i64, %j: i64) {
  %w = oxide.group_index warp : i64
  // expected-error @+1 {{only shape warpgroup_tile takes a 'tile'}}
  %e = oxide.owned_elem %p [%n, %n] owner [%w] at %j elem 4 shape warp_lanes tile [256, 2, 1, 16] : !llvm.ptr
  llvm.return
}

// -----

llvm.func @warpgroup_tile_needs_tile(%p: !llvm.ptr, %n: i64, %j: i64) {
  %b = oxide.group_index block : i64
  // expected-error @+1 {{shape warpgroup_tile needs its 'tile' [n, consumers, first, group]}}
  %e = oxide.owned_elem %p [%n, %n] owner [%b] at %j elem 4 shape warpgroup_tile : !llvm.ptr
  llvm.return
}

// -----

llvm.func @warpgroup_tile_fields(%p: !llvm.ptr, %n: i64, %j: i64) {
  %b = oxide.group_index block : i64
  // expected-error @+1 {{tile [n, consumers, first, group] must have n a multiple of 8 in 8..256}}
  %e = oxide.owned_elem %p [%n, %n] owner [%b] at %j elem 4 shape warpgroup_tile tile [260, 2, 1, 16] : !llvm.ptr
  llvm.return
}

// -----

llvm.func @warpgroup_tile_length(%p: !llvm.ptr, %n: i64, %j: i64) {
  %b = oxide.group_index block : i64
  // expected-error @+1 {{tile [n, consumers, first, group] must have}}
  %e = oxide.owned_elem %p [%n, %n] owner [%b] at %j elem 4 shape warpgroup_tile tile [256, 2, 1] : !llvm.ptr
  llvm.return
}

// -----

llvm.func @warpgroup_tile_consumers(%p: !llvm.ptr, %n: i64, %j: i64) {
  %b = oxide.group_index block : i64
  // expected-error @+1 {{first + consumers <= 8}}
  %e = oxide.owned_elem %p [%n, %n] owner [%b] at %j elem 4 shape warpgroup_tile tile [128, 4, 5, 1] : !llvm.ptr
  llvm.return
}

// -----

llvm.func @lanes_only_for_warpgroup_tiles(%p: !llvm.ptr, %n: i64, %j: i64) {
  %w = oxide.group_index warp : i64
  // expected-error @+1 {{lanes 2: only shape warpgroup_tile names 2 adjacent elements at once (lanes 2)}}
  %e = oxide.owned_elem %p [%n, %n] owner [%w] at %j elem 4 shape warp_lanes lanes 2 : !llvm.ptr
  llvm.return
}

// -----

llvm.func @lanes_at_most_two(%p: !llvm.ptr, %n: i64, %j: i64) {
  %b = oxide.group_index block : i64
  // expected-error @+1 {{lanes 4: only shape warpgroup_tile names 2 adjacent elements at once (lanes 2)}}
  %e = oxide.owned_elem %p [%n, %n] owner [%b] at %j elem 4 shape warpgroup_tile tile [256, 2, 1, 16] lanes 4 : !llvm.ptr
  llvm.return
}

// -----

llvm.func @pair_of_twelve_bytes(%p: !llvm.ptr, %n: i64, %j: i64) {
  %b = oxide.group_index block : i64
  // expected-error @+1 {{lanes 2 of 12-byte elements: a pair is one aligned access, so its size must be a power of two}}
  %e = oxide.owned_elem %p [%n, %n] owner [%b] at %j elem 12 shape warpgroup_tile tile [256, 2, 1, 16] lanes 2 : !llvm.ptr
  llvm.return
}

// -----

llvm.func @warpgroup_tile_longest_first_needs_period(%p: !llvm.ptr, %n: i64, %j: i64) {
  %b = oxide.group_index block : i64
  // expected-error @+1 {{a longest-first warpgroup_tile needs its period as 'uniform'}}
  %e = oxide.owned_elem %p [%n, %n] owner [%b] at %j elem 4 shape warpgroup_tile tile [64, 2, 1, 1, 1] : !llvm.ptr
  llvm.return
}

// -----

llvm.func @warpgroup_tile_period_without_order(%p: !llvm.ptr, %n: i64, %j: i64) {
  %b = oxide.group_index block : i64
  // expected-error @+1 {{only shape pair takes a 'uniform' operand (and a longest-first warpgroup_tile, its period)}}
  %e = oxide.owned_elem %p [%n, %n] owner [%b] at %j uniform %n elem 4 shape warpgroup_tile tile [64, 2, 1, 1] : !llvm.ptr
  llvm.return
}

// -----

llvm.func @warpgroup_tile_longest_first_flag(%p: !llvm.ptr, %n: i64, %j: i64) {
  %b = oxide.group_index block : i64
  // expected-error @+1 {{a fifth field, longest_first, is 0 or 1}}
  %e = oxide.owned_elem %p [%n, %n] owner [%b] at %j uniform %n elem 4 shape warpgroup_tile tile [64, 2, 1, 1, 2] : !llvm.ptr
  llvm.return
}
