// The element formula of each shape of intrinsic::Ownership, written once over an arithmetic:
// the dialect's lowering instantiates it with IR values (OwnershipToNVVM.cpp), the simulator with
// integers (runtime/sim/intrinsics.cpp), so the GPU and the simulator cannot disagree on which
// element a thread owns. Every comparison is made before the arithmetic it guards could wrap: a
// wrapped index could name another owner's element.
//
// Dependency-free and constexpr-friendly, like intrinsic_abi.hpp, whose sets it computes.
#pragma once

#include "oxide/detail/intrinsic_abi.hpp"

#include <cstdint>

namespace oxide::detail {

/// An element of an owner's set: its linear index in the output, and whether the caller writes it
/// (a condition: when it fails, the element op gives null).
template <class V> struct OwnedElement {
  V element;
  V ok;
};

/// What the formula knows of the launch and of the op, besides the arithmetic.
template <class V> struct OwnedElementOperands {
  V owner;                 ///< the owner's x (a thread index, or a group's)
  V owner_y;               ///< the owner's y (2-D owners); unused otherwise
  V j;                     ///< which element of the set
  V width, height, depth;  ///< the output's extents (height and depth only for 2-D and 3-D outputs)
  V uniform;               ///< pair's distance, or a longest-first tile's packed order
  std::uint64_t count = 1; ///< block_strided's and strided_rows' K
  WarpgroupTile tile{};    ///< warpgroup_tile's shape
  std::int64_t lanes = 1;  ///< elements named at once (warpgroup_tile: 1 or 2)
};

/// The pure part of the formula's arithmetic on integers (conditions as 0 or 1): what the
/// simulator and the unit tests derive from, adding the launch quantities of their thread.
struct IntegerArithmetic {
  using Value = std::uint64_t;
  static constexpr Value constant(std::uint64_t v) { return v; }
  static constexpr Value add(Value x, Value y) { return x + y; }
  static constexpr Value mul(Value x, Value y) { return x * y; }
  static constexpr Value add_wrapping(Value x, Value y) { return x + y; }
  static constexpr Value mul_wrapping(Value x, Value y) { return x * y; }
  static constexpr Value sub(Value x, Value y) { return x - y; }
  static constexpr Value udiv(Value x, Value y) { return x / y; }
  static constexpr Value urem(Value x, Value y) { return x % y; }
  static constexpr Value ult(Value x, Value y) { return x < y; }
  static constexpr Value uge(Value x, Value y) { return x >= y; }
  static constexpr Value eq(Value x, Value y) { return x == y; }
  static constexpr Value ne(Value x, Value y) { return x != y; }
  static constexpr Value both(Value x, Value y) { return x && y; }
  static constexpr Value negate(Value x) { return !x; }
  static constexpr Value select(Value c, Value x, Value y) { return c ? x : y; }
  struct Product {
    Value product, wrapped;
  };
  static constexpr Product mul_overflow(Value x, Value y) {
    Value product = 0;
    const bool wrapped = __builtin_mul_overflow(x, y, &product);
    return {product, wrapped};
  }
};

/// The element of Ownership::warpgroup_tile (WarpgroupTile): block `block`'s tile in the grouped
/// order, then the consumer warpgroup's rows and the accumulator layout. Every quantity is below
/// 2^40 (tiles below the output's extents, threads below 2^10), so nothing wraps; blocks past
/// the last tile, and threads outside the consumers, write nothing. With `lanes` 2, j must be even
/// and column + 1 inside the output too: elements j and j + 1 are then the row's adjacent columns.
template <class A>
OwnedElement<typename A::Value> warpgroup_tile_element(A &a, const WarpgroupTile &tile,
                                                       typename A::Value block, typename A::Value j,
                                                       typename A::Value width, typename A::Value height,
                                                       std::int64_t lanes, typename A::Value order) {
  using V = typename A::Value;
  auto ceil_div = [&](V x, std::int64_t y) { return a.udiv(a.add(x, a.constant(y - 1)), a.constant(y)); };
  const std::int64_t tile_rows = 64 * std::int64_t{tile.consumers};
  V tiles_m = ceil_div(height, tile_rows), tiles_n = ceil_div(width, tile.n);
  V group = a.constant(tile.group);
  V tiles = a.mul(tiles_m, tiles_n);
  V inside = a.ult(block, tiles);
  // Outside the tiles the divisors below may be 0: use 1 there (the element is not written).
  V one = a.constant(1);
  if (tile.longest_first) {
    // WarpgroupTile's reordering: b' = (g G + r % n) p + (p - 1 - r / n). With b < tiles and p
    // dividing tiles, G clamped to runs: p G <= tiles, g G <= b / p < runs, so n >= 1, r < n p,
    // b' < tiles and no step wraps. Outside, every divisor is 1.
    V zero = a.constant(0);
    // First the persistent grid's rounds, every other one reversed (WarpgroupTile::serpentine):
    // with B blocks, step s is round s / B; an odd round's position b becomes L - 1 - b, L the
    // round's length, min(B, tiles - round B) (round B <= s < tiles inside, so it cannot wrap).
    V blocks = a.mul(a.read(intrinsic::GeometryKind::grid_dim, intrinsic::Dim::x),
                     a.mul(a.read(intrinsic::GeometryKind::grid_dim, intrinsic::Dim::y),
                           a.read(intrinsic::GeometryKind::grid_dim, intrinsic::Dim::z)));
    V grid_ok = a.ne(blocks, zero);
    V round_of = a.select(grid_ok, blocks, one);
    V round = a.udiv(block, round_of), position = a.urem(block, round_of);
    V round_start = a.select(inside, a.mul(round, round_of), zero);
    V remaining = a.sub(tiles, round_start);
    V length = a.select(a.ult(remaining, round_of), remaining, round_of);
    V odd = a.both(inside, a.eq(a.urem(round, a.constant(2)), one));
    block = a.select(odd, a.add(round_start, a.sub(a.sub(length, one), position)), block);
    V split = a.constant(std::int64_t{1} << WarpgroupTile::kPeriodBits);
    V period_raw = a.urem(order, split), at_once = a.udiv(order, split);
    V period_ok = a.both(a.ne(period_raw, zero),
                         a.eq(a.urem(tiles, a.select(a.eq(period_raw, zero), one, period_raw)), zero));
    inside = a.both(inside, period_ok);
    V p = a.select(period_ok, period_raw, one);
    V runs = a.select(inside, a.udiv(tiles, p), one);
    V g = a.select(a.both(a.ne(at_once, zero), a.ult(at_once, runs)), at_once, runs);
    V span = a.mul(p, g);
    V first_run = a.select(inside, a.mul(a.udiv(block, span), g), zero);
    V left = a.sub(runs, first_run);
    V n = a.select(a.ult(left, g), left, g);
    V r = a.urem(block, span);
    V reordered = a.add(a.mul(a.add(first_run, a.urem(r, n)), p), a.sub(a.sub(p, one), a.udiv(r, n)));
    block = a.select(inside, reordered, zero);
  }
  V per = a.select(inside, a.mul(group, tiles_n), one);
  V first_m = a.mul(a.udiv(block, per), group);
  V left = a.select(inside, a.sub(tiles_m, first_m), one);
  V rows = a.select(a.ult(left, group), left, group);
  V local = a.urem(block, per);
  V bm = a.add(first_m, a.urem(local, rows)), bn = a.udiv(local, rows);
  V t = a.thread_in_block();
  V w = a.udiv(t, a.constant(128)), first = a.constant(tile.first);
  V consumer = a.both(a.ult(w, a.constant(tile.first + tile.consumers)), a.uge(w, first));
  V c = a.select(consumer, a.sub(w, first), a.constant(0));
  V warp = a.udiv(a.urem(t, a.constant(128)), a.constant(32)), lane = a.urem(t, a.constant(32));
  V half = a.urem(a.udiv(j, a.constant(2)), a.constant(2));
  V row = a.add(
      a.add(a.mul(bm, a.constant(tile_rows)), a.mul(c, a.constant(64))),
      a.add(a.add(a.mul(warp, a.constant(16)), a.udiv(lane, a.constant(4))), a.mul(half, a.constant(8))));
  V column = a.add(a.add(a.mul(bn, a.constant(tile.n)), a.mul(a.udiv(j, a.constant(4)), a.constant(8))),
                   a.add(a.mul(a.urem(lane, a.constant(4)), a.constant(2)), a.urem(j, a.constant(2))));
  V last = lanes == 1 ? column : a.add(column, a.constant(lanes - 1));
  V ok = a.both(a.both(inside, consumer),
                a.both(a.ult(j, a.constant(tile.n / 2)), a.both(a.ult(row, height), a.ult(last, width))));
  if (lanes != 1)
    ok = a.both(ok, a.eq(a.urem(j, a.constant(lanes)), a.constant(0)));
  return {a.add(a.mul(row, width), column), ok};
}

/// The element `j` of the set `shape` gives its owner, as the Ownership enum defines the sets.
///
/// `A` is the arithmetic, over `typename A::Value` (numbers and conditions alike): constant(v);
/// add and mul, which the formula uses only where they cannot wrap (the IR marks them nuw), and
/// add_wrapping and mul_wrapping, which may; sub, udiv, urem; ult, uge, eq, ne; both (a
/// conjunction), negate; select(c, x, y); mul_overflow(x, y), the product and whether it wrapped;
/// and the launch: lane(), thread_in_block(), block_threads(), cluster_rank(), read(kind, dim).
template <class A>
OwnedElement<typename A::Value> owned_element(A &a, intrinsic::Ownership shape,
                                              const OwnedElementOperands<typename A::Value> &in) {
  using V = typename A::Value;
  using intrinsic::Dim;
  using intrinsic::GeometryKind;
  using intrinsic::Ownership;
  const V owner = in.owner, j = in.j, width = in.width;
  V zero = a.constant(0);
  // Row `row` of a 2-D output, column `first + step * j`, with j < width so that it cannot wrap.
  auto row_column = [&](V row, V first, V step) -> OwnedElement<V> {
    V column = a.add(first, a.mul(step, j));
    V ok = a.both(a.both(a.ult(row, in.height), a.ult(j, width)), a.ult(column, width));
    return {a.add(a.mul(row, width), column), ok};
  };
  switch (shape) {
  case Ownership::warp_leader:
    return {owner, a.both(a.eq(a.lane(), zero), a.ult(owner, width))};
  case Ownership::warp_lanes: {
    V lane = a.lane();
    return row_column(owner, lane, a.constant(kWarpSize));
  }
  case Ownership::block_leader:
    return {owner, a.both(a.eq(a.thread_in_block(), zero), a.ult(owner, width))};
  case Ownership::block_threads: {
    V thread = a.thread_in_block();
    return row_column(owner, thread, a.block_threads());
  }
  case Ownership::cluster_leader: {
    V first_block = a.eq(a.cluster_rank(), zero);
    return {owner, a.both(a.both(first_block, a.eq(a.thread_in_block(), zero)), a.ult(owner, width))};
  }
  case Ownership::launch_strided: {
    // owner + T * j, in bounds only if the product does not wrap and the sum stays below width.
    V grid = a.read(GeometryKind::grid_dim, Dim::x);
    V threads = a.mul(grid, a.read(GeometryKind::block_dim, Dim::x));
    auto [offset, wrapped] = a.mul_overflow(threads, j);
    V fits = a.negate(wrapped);
    V room = a.sub(width, offset); // used only when offset < width
    V ok = a.both(a.both(fits, a.ult(offset, width)), a.ult(owner, room));
    return {a.add_wrapping(owner, offset), ok};
  }
  case Ownership::block_strided: {
    // (b K + j) B + t; K <= 2^16 (the verifier), so with j < K nothing wraps.
    V k = a.constant(in.count);
    V chunk = a.add(a.mul(a.read(GeometryKind::block_idx, Dim::x), k), j);
    V block_dim = a.read(GeometryKind::block_dim, Dim::x);
    V element = a.add(a.mul(chunk, block_dim), a.read(GeometryKind::thread_idx, Dim::x));
    return {element, a.both(a.ult(j, k), a.ult(element, width))};
  }
  case Ownership::strided_rows: {
    V k = a.constant(in.count);
    V chunk = a.add(a.mul(a.read(GeometryKind::block_idx, Dim::y), k), j);
    V block_dim = a.read(GeometryKind::block_dim, Dim::y);
    V row = a.add(a.mul(chunk, block_dim), a.read(GeometryKind::thread_idx, Dim::y));
    V ok = a.both(a.both(a.ult(j, k), a.ult(owner, width)), a.ult(row, in.height));
    return {a.add(a.mul(row, width), owner), ok};
  }
  case Ownership::pair: {
    // element lo + h j with lo = (i / h) 2h + i % h; h < width and lo < width keep the sum from wrapping.
    V h = in.uniform;
    V one = a.constant(1);
    V safe_h = a.select(a.eq(h, zero), one, h); // no division by zero
    V quotient = a.udiv(owner, safe_h);
    // (i / h) 2h + i % h == (i / h) h + i.
    V lo = a.add_wrapping(a.mul_wrapping(quotient, safe_h), owner);
    V valid =
        a.both(a.both(a.ult(zero, h), a.ult(h, width)), a.both(a.ult(j, a.constant(2)), a.ult(lo, width)));
    V element = a.add_wrapping(lo, a.mul_wrapping(h, j));
    return {element, a.both(valid, a.ult(element, width))};
  }
  case Ownership::z_column: {
    V ok = a.both(a.both(a.ult(owner, width), a.ult(in.owner_y, in.height)), a.ult(j, in.depth));
    return {a.add(a.mul(a.add(a.mul(j, in.height), in.owner_y), width), owner), ok};
  }
  case Ownership::warpgroup_tile:
    return warpgroup_tile_element(a, in.tile, owner, j, width, in.height, in.lanes, in.uniform);
  }
  return {zero, a.ult(zero, zero)};
}

} // namespace oxide::detail
