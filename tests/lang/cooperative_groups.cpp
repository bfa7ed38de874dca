// Cooperative groups and warp masks (oxide/device/cooperative.hpp, oxide/device/warp.hpp): every
// operation of a tile of each size 1..32 (ranks, shuffles, votes, 32- and 64-bit matches,
// reductions through redux.sync and through shuffles, scans), tiles of tiles, groups of a size
// known at run time, shuffles of 12- and 16-byte vectors, binary and labeled partitions, the
// grid's ranks, coalesced groups in divergent branches (if and else at once, and nested),
// activemask and the lane masks, each lane's results checked against a scalar model of its warp
// on the host.
//
//   oxcc run tests/lang/cooperative_groups.cpp
#include "lang_check.hpp"

#include <oxide/device/cooperative.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>

namespace cg = oxide::cg;
using Row = std::array<std::int64_t, 28>;

// The input of thread i, in [-50, 50]: the same function on both sides.
constexpr std::int32_t value_of(std::uint64_t i) {
  return static_cast<std::int32_t>((i * 2654435761u >> 7) % 101) - 50;
}

// --- tiles ---------------------------------------------------------------------------------------

template <std::uint32_t N> Row tile_row(const cg::thread_block_tile<N> &tile, std::int32_t v) {
  Row r{};
  const std::uint32_t rank = tile.thread_rank();
  r[0] = rank;
  r[1] = tile.meta_group_rank();
  r[2] = tile.meta_group_size();
  r[3] = tile.size() + 100 * tile.num_threads();
  r[4] = tile.shfl(v, rank * 3 + 1); // taken mod N
  r[5] = tile.shfl_up(v, 1);
  r[6] = tile.shfl_down(v, std::max(1u, N / 2));
  r[7] = tile.shfl_xor(v, N - 1);
  r[8] = tile.any(v > 40) + 2 * tile.all(v > -45);
  r[9] = tile.ballot(v > 0);
  r[10] = tile.match_any(v % 4);
  r[11] = tile.match_all(v / 1000) + (std::int64_t{tile.match_all(v)} << 32);
  // 64-bit keys equal in their low halves, different in their high ones.
  r[12] = tile.match_any(std::uint64_t(std::uint32_t(v % 3)) << 40 | 5u);
  r[13] = tile.match_all(std::uint64_t(rank == 0) << 33 | 7u);
  r[14] = cg::reduce(tile, v, cg::plus<std::int32_t>());
  r[15] = cg::reduce(tile, v, cg::less<std::int32_t>());
  r[16] = cg::reduce(tile, v, cg::greater<std::int32_t>());
  r[17] = cg::reduce(tile, std::uint32_t(v) * 2654435761u, cg::bit_xor<std::uint32_t>());
  r[18] = cg::reduce(tile, std::int64_t{v} << 33, cg::plus<std::int64_t>()) >> 33;
  r[19] = static_cast<std::int64_t>(cg::reduce(tile, double(v), cg::plus<double>()));
  r[20] = cg::reduce(tile, std::int64_t{v}, [](std::int64_t a, std::int64_t b) { return std::max(a, b); });
  r[21] = cg::inclusive_scan(tile, v, cg::plus<std::int32_t>());
  r[22] = cg::exclusive_scan(tile, v, cg::plus<std::int32_t>());
  r[23] = cg::exclusive_scan(tile, v, cg::less<std::int32_t>());
  r[24] = cg::inclusive_scan(tile, std::uint32_t{1} << (rank % 32), cg::bit_or<std::uint32_t>());
  r[25] = static_cast<std::int64_t>(cg::inclusive_scan(tile, float(v), cg::greater<float>()));
  r[26] = cg::exclusive_scan(tile, std::int64_t{v}, cg::plus<std::int64_t>(), std::int64_t{1000});
  tile.sync();
  r[27] = tile.mask();
  return r;
}

template <std::uint32_t N>
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void tiles(oxide::DisjointSpan<Row> out) {
  const auto i = oxide::thread::index_1d();
  const auto tile = cg::tiled_partition<N>(cg::this_thread_block());
  const Row r = tile_row(tile, value_of(i.get()));
  if (Row *o = out.get_mut(i))
    *o = r;
}

// The host model of lane i's tile of N lanes.
template <std::uint32_t N> Row tile_expected(std::size_t i) {
  const std::size_t first = i & ~std::size_t{N - 1};
  const std::uint32_t rank = static_cast<std::uint32_t>(i - first);
  auto v = [&](std::uint32_t k) { return value_of(first + k); };
  Row r{};
  r[0] = rank;
  r[1] = (i % 64) / N;
  r[2] = 64 / N;
  r[3] = N + 100 * N;
  r[4] = v((rank * 3 + 1) % N);
  r[5] = rank >= 1 ? v(rank - 1) : v(rank);
  const std::uint32_t down = std::max(1u, N / 2);
  r[6] = rank + down < N ? v(rank + down) : v(rank);
  r[7] = v(rank ^ (N - 1));
  bool any = false, all = true;
  std::uint32_t ballot = 0, peers = 0, same_all = 0, keys = 0;
  std::int32_t sum = 0, min = v(0), max = v(0);
  std::uint32_t xored = 0;
  for (std::uint32_t k = 0; k < N; ++k) {
    any = any || v(k) > 40;
    all = all && v(k) > -45;
    ballot |= (v(k) > 0 ? 1u : 0u) << k;
    peers |= (v(k) % 4 == v(rank) % 4 ? 1u : 0u) << k;
    same_all += v(k) == v(0);
    keys |= (v(k) % 3 == v(rank) % 3 ? 1u : 0u) << k;
    sum += v(k);
    min = std::min(min, v(k));
    max = std::max(max, v(k));
    xored ^= std::uint32_t(v(k)) * 2654435761u;
  }
  const std::uint32_t tile_bits = N == 32 ? ~0u : (1u << N) - 1;
  r[8] = any + 2 * all;
  r[9] = ballot;
  r[10] = peers;
  r[11] = tile_bits + (std::int64_t{same_all == N ? tile_bits : 0u} << 32);
  r[12] = keys;
  r[13] = N == 1 ? tile_bits : 0;
  r[14] = sum;
  r[15] = min;
  r[16] = max;
  r[17] = xored;
  r[18] = sum;
  r[19] = sum;
  r[20] = max;
  std::int32_t prefix = 0, prefix_min = std::numeric_limits<std::int32_t>::max();
  float prefix_max = -1e30f;
  for (std::uint32_t k = 0; k < rank; ++k) {
    prefix += v(k);
    prefix_min = std::min(prefix_min, v(k));
  }
  for (std::uint32_t k = 0; k <= rank; ++k)
    prefix_max = std::max(prefix_max, float(v(k)));
  r[21] = prefix + v(rank);
  r[22] = prefix;
  r[23] = prefix_min;
  r[24] = rank == 31 ? 0xffffffffu : (2u << rank) - 1;
  r[25] = static_cast<std::int64_t>(prefix_max);
  r[26] = rank == 0 ? 1000 : prefix;
  r[27] = std::int64_t{tile_bits << (first % 32)};
  return r;
}

// A tile of N lanes of a tile of M: the operations of a block's tile of N, but ranked among the
// M-lane tile's tiles; it converts to thread_block_tile<N> (tile_row's parameter).
template <std::uint32_t N, std::uint32_t M>
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void subtiles(oxide::DisjointSpan<Row> out) {
  const auto i = oxide::thread::index_1d();
  const auto parent = cg::tiled_partition<M>(cg::this_thread_block());
  const cg::thread_block_tile<N, cg::thread_block_tile<M, cg::thread_block>> tile =
      cg::tiled_partition<N>(parent);
  const Row r = tile_row(tile, value_of(i.get()));
  if (Row *o = out.get_mut(i))
    *o = r;
}

template <std::uint32_t N, std::uint32_t M> Row subtile_expected(std::size_t i) {
  Row r = tile_expected<N>(i);
  r[1] = (i % M) / N;
  r[2] = M / N;
  return r;
}

// Groups of a size known at run time: of the block, of a 16-lane tile, of such a group.
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void groups(oxide::DisjointSpan<Row> out,
                                                                         std::uint32_t size) {
  const auto i = oxide::thread::index_1d();
  const cg::thread_block block = cg::this_thread_block();
  const cg::thread_group g = cg::tiled_partition(block, size);
  const cg::thread_group h = cg::tiled_partition(cg::tiled_partition<16>(block), size / 2);
  const cg::thread_group k = cg::tiled_partition(g, size / 4);
  g.sync();
  h.sync();
  k.sync();
  Row r{};
  std::size_t c = 0;
  for (const cg::thread_group *x : {&g, &h, &k}) {
    r[c++] = x->thread_rank();
    r[c++] = x->meta_group_rank();
    r[c++] = x->meta_group_size();
    r[c++] = x->size() + 100 * x->num_threads();
    r[c++] = x->mask();
  }
  if (Row *o = out.get_mut(i))
    *o = r;
}

template <std::uint32_t Size> Row groups_expected(std::size_t i) {
  Row r{};
  std::size_t c = 0;
  auto group = [&](std::uint32_t n, std::uint32_t meta_rank, std::uint32_t meta_size) {
    const std::uint32_t lane = static_cast<std::uint32_t>(i % 32);
    r[c++] = lane % n;
    r[c++] = meta_rank;
    r[c++] = meta_size;
    r[c++] = n + 100 * n;
    r[c++] = (n == 32 ? ~0u : (1u << n) - 1) << (lane & ~(n - 1));
  };
  group(Size, (i % 64) / Size, 64 / Size);
  group(Size / 2, (i % 16) / (Size / 2), 16 / (Size / 2));
  group(Size / 4, (i % Size) / (Size / 4), 4);
  return r;
}

// Shuffles of 12- and 16-byte values (one shfl.sync per 32-bit word), through the warp, a tile
// and a tile's reduction.
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void wide(oxide::DisjointSpan<Row> out) {
  const auto i = oxide::thread::index_1d();
  const auto v = static_cast<float>(value_of(i.get()));
  const oxide::Float4 f{v, v + 1, v * 2, -v};
  const oxide::Double2 d{double(v) * 3, double(v) - 7};
  const oxide::Int3 k{int(v), int(v) * 5, 11};
  const std::uint32_t lane = oxide::warp::lane_id();
  const oxide::Float4 a = oxide::warp::shuffle(f, (lane + 5) % 32);
  const oxide::Double2 b = cg::tiled_partition<8>(cg::this_thread_block()).shfl_xor(d, 3);
  const oxide::Int3 c = oxide::warp::shuffle_down(k, 2);
  const oxide::Float4 sum =
      cg::reduce(cg::tiled_partition<16>(cg::this_thread_block()), f, [](oxide::Float4 x, oxide::Float4 y) {
        return oxide::Float4{x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w};
      });
  auto whole = [](auto x) { return static_cast<std::int64_t>(x); };
  const Row r{whole(a.x), whole(a.y), whole(a.z),   whole(a.w),   whole(b.x),   whole(b.y),  c.x,
              c.y,        c.z,        whole(sum.x), whole(sum.y), whole(sum.z), whole(sum.w)};
  if (Row *o = out.get_mut(i))
    *o = r;
}

Row wide_expected(std::size_t i) {
  const std::size_t base = i & ~std::size_t{31};
  const std::uint32_t lane = static_cast<std::uint32_t>(i - base);
  auto v = [&](std::uint32_t l) { return std::int64_t{value_of(base + l)}; };
  const std::uint32_t from = (lane + 5) % 32, xored = (lane & ~7u) | ((lane & 7u) ^ 3u),
                      down = lane + 2 < 32 ? lane + 2 : lane;
  std::int64_t total = 0;
  for (std::uint32_t l = lane & ~15u; l < (lane & ~15u) + 16; ++l)
    total += v(l);
  return Row{v(from),     v(from) + 1, v(from) * 2, -v(from),   v(xored) * 3, v(xored) - 7, v(down),
             v(down) * 5, 11,          total,       total + 16, total * 2,    -total};
}

// Partitions of a tile by a predicate and by a label (coalesced groups made without divergence:
// both halves call the same shuffles with different masks), and the grid's ranks.
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void partitions(oxide::DisjointSpan<Row> out) {
  const auto i = oxide::thread::index_1d();
  const std::int32_t v = value_of(i.get());
  const auto tile = cg::tiled_partition<16>(cg::this_thread_block());
  const cg::coalesced_group sign = cg::binary_partition(tile, v > 0);
  const cg::coalesced_group label = cg::labeled_partition(sign, v % 3);
  const cg::grid_group grid = cg::this_grid();
  Row r{};
  r[0] = sign.mask();
  r[1] = sign.size();
  r[2] = sign.thread_rank();
  r[3] = cg::reduce(sign, v, cg::plus<std::int32_t>());
  r[4] = cg::reduce(sign, std::int64_t{v} << 33, cg::plus<std::int64_t>()) >> 33;
  r[5] = label.mask();
  r[6] = label.thread_rank();
  r[7] = cg::reduce(label, v, cg::plus<std::int32_t>());
  r[8] = cg::inclusive_scan(label, std::int64_t{v}, cg::plus<std::int64_t>());
  r[9] = static_cast<std::int64_t>(grid.thread_rank());
  r[10] = static_cast<std::int64_t>(grid.size() + 7 * grid.num_threads());
  r[11] = grid.block_rank() + 1000 * grid.num_blocks();
  r[12] = grid.block_index().x + 1000 * grid.dim_blocks().x;
  if (Row *o = out.get_mut(i))
    *o = r;
}

Row partitions_expected(std::size_t i) {
  const std::size_t first = i & ~std::size_t{15};
  auto v = [&](std::size_t k) { return value_of(k); };
  std::uint32_t sign = 0, label = 0;
  std::int32_t sign_sum = 0, label_sum = 0, label_prefix = 0;
  std::uint32_t sign_rank = 0, label_rank = 0;
  for (std::size_t k = first; k < first + 16; ++k) {
    if ((v(k) > 0) != (v(i) > 0))
      continue;
    sign |= 1u << (k % 32);
    sign_sum += v(k);
    sign_rank += k < i;
    if (v(k) % 3 != v(i) % 3)
      continue;
    label |= 1u << (k % 32);
    label_sum += v(k);
    label_rank += k < i;
    if (k <= i)
      label_prefix += v(k);
  }
  constexpr std::size_t threads = 64 * 12, blocks = threads / 64;
  Row r{};
  r[0] = sign;
  r[1] = std::popcount(sign);
  r[2] = sign_rank;
  r[3] = sign_sum;
  r[4] = sign_sum;
  r[5] = label;
  r[6] = label_rank;
  r[7] = label_sum;
  r[8] = label_prefix;
  r[9] = static_cast<std::int64_t>(i);
  r[10] = 8 * threads;
  r[11] = static_cast<std::int64_t>(i / 64 + 1000 * blocks);
  r[12] = static_cast<std::int64_t>(i / 64 + 1000 * blocks);
  return r;
}

// --- coalesced groups in divergent code ---------------------------------------------------------

// Each branch makes its group (and reads the active mask) itself: the simulator tells branches
// apart by the source location of those calls.
Row coalesced_row(const cg::coalesced_group &g, std::uint32_t active, std::int32_t v) {
  const std::uint32_t rank = g.thread_rank(), n = g.size();
  Row r{};
  r[0] = g.mask();
  r[1] = n + 100 * g.num_threads();
  r[2] = rank;
  r[3] = g.shfl(v, 0);
  r[4] = g.shfl(std::int64_t{v} << 34, n - 1) >> 34;
  r[5] = g.shfl_up(v, 1);
  r[6] = g.shfl_down(v, 2);
  r[7] = g.ballot(v > 0);
  r[8] = g.any(v > 40) + 2 * g.all(v > -45);
  r[9] = g.match_any(v % 2);
  r[10] = g.match_all(std::uint64_t{3} << 36);
  r[11] = cg::reduce(g, v, cg::plus<std::int32_t>());
  r[12] = cg::reduce(g, std::int64_t{v}, cg::plus<std::int64_t>());
  r[13] = static_cast<std::int64_t>(cg::reduce(g, double(v), cg::greater<double>()));
  r[14] = cg::reduce(g, v, [](std::int32_t a, std::int32_t b) { return std::min(a, b); });
  r[15] = cg::inclusive_scan(g, std::int64_t{v}, cg::plus<std::int64_t>());
  r[16] = cg::exclusive_scan(g, v, cg::plus<std::int32_t>());
  r[17] = active;
  g.sync();
  return r;
}

[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void coalesced(oxide::DisjointSpan<Row> out) {
  const auto i = oxide::thread::index_1d();
  const std::int32_t v = value_of(i.get());
  Row r{};
  // Both sides of a branch at once, and a branch inside one.
  if (v % 3 == 0) {
    r = coalesced_row(cg::coalesced_threads(), oxide::warp::active_mask(), v);
    r[18] = 1;
  } else if (v % 2 == 0) {
    r = coalesced_row(cg::coalesced_threads(), oxide::warp::active_mask(), v);
    r[18] = 2;
  } else {
    r = coalesced_row(cg::coalesced_threads(), oxide::warp::active_mask(), v);
    r[18] = 3;
    if (v > 0)
      r[19] = cg::coalesced_threads().mask();
  }
  // Converged again: the whole warp, and the lane masks.
  const cg::coalesced_group all = cg::coalesced_threads();
  r[20] = all.mask();
  r[21] = all.thread_rank();
  r[22] = oxide::warp::lane_mask_lt();
  r[23] = oxide::warp::lane_mask_le();
  r[24] = oxide::warp::lane_mask_eq();
  r[25] = oxide::warp::lane_mask_ge();
  r[26] = oxide::warp::lane_mask_gt();
  // A 64-bit match over the warp: keys equal in their low halves.
  r[27] = oxide::warp::match_any(std::uint64_t(std::uint32_t(v % 5)) << 32 | 9u);
  if (Row *o = out.get_mut(i))
    *o = r;
}

int branch_of(std::int32_t v) { return v % 3 == 0 ? 1 : v % 2 == 0 ? 2 : 3; }

Row coalesced_expected(std::size_t i) {
  const std::size_t base = i & ~std::size_t{31};
  const std::uint32_t lane = static_cast<std::uint32_t>(i - base);
  auto v = [&](std::uint32_t l) { return value_of(base + l); };
  const int branch = branch_of(v(lane));
  std::uint32_t mask = 0;
  for (std::uint32_t l = 0; l < 32; ++l)
    mask |= (branch_of(v(l)) == branch ? 1u : 0u) << l;
  // The group's lanes by rank.
  std::uint32_t lanes[32], n = 0, rank = 0;
  for (std::uint32_t l = 0; l < 32; ++l)
    if (mask >> l & 1u) {
      if (l == lane)
        rank = n;
      lanes[n++] = l;
    }
  auto at = [&](std::uint32_t k) { return v(lanes[k]); };
  Row r{};
  r[0] = mask;
  r[1] = n + 100 * n;
  r[2] = rank;
  r[3] = at(0);
  r[4] = at(n - 1);
  r[5] = rank >= 1 ? at(rank - 1) : at(rank);
  r[6] = rank + 2 < n ? at(rank + 2) : at(rank);
  bool any = false, all = true;
  std::uint32_t ballot = 0, parity = 0;
  std::int32_t sum = 0, max = at(0), min = at(0), prefix = 0;
  for (std::uint32_t k = 0; k < n; ++k) {
    any = any || at(k) > 40;
    all = all && at(k) > -45;
    ballot |= (at(k) > 0 ? 1u : 0u) << k;
    parity |= (at(k) % 2 == at(rank) % 2 ? 1u : 0u) << k;
    sum += at(k);
    max = std::max(max, at(k));
    min = std::min(min, at(k));
    if (k < rank)
      prefix += at(k);
  }
  r[7] = ballot;
  r[8] = any + 2 * all;
  r[9] = parity;
  r[10] = n == 32 ? 0xffffffffu : (1u << n) - 1;
  r[11] = sum;
  r[12] = sum;
  r[13] = max;
  r[14] = min;
  r[15] = prefix + at(rank);
  r[16] = prefix;
  r[17] = mask;
  r[18] = branch;
  if (branch == 3 && v(lane) > 0) {
    std::uint32_t positive = 0;
    for (std::uint32_t l = 0; l < 32; ++l)
      positive |= (branch_of(v(l)) == 3 && v(l) > 0 ? 1u : 0u) << l;
    r[19] = positive;
  }
  r[20] = 0xffffffffu;
  r[21] = lane;
  const std::uint32_t eq = 1u << lane;
  r[22] = eq - 1;
  r[23] = eq | (eq - 1);
  r[24] = eq;
  r[25] = std::uint32_t(~(eq - 1));
  r[26] = std::uint32_t(~(eq | (eq - 1)));
  std::uint32_t keys = 0;
  for (std::uint32_t l = 0; l < 32; ++l)
    keys |= (v(l) % 5 == v(lane) % 5 ? 1u : 0u) << l;
  r[27] = keys;
  return r;
}

int main() {
  constexpr std::size_t n = 64 * 12; // whole warps and whole blocks
  return lang::run_group("cooperative_groups", [&](lang::Checker &check) {
    check.run("tiles<1>", tiles<1>, n, tile_expected<1>);
    check.run("tiles<2>", tiles<2>, n, tile_expected<2>);
    check.run("tiles<4>", tiles<4>, n, tile_expected<4>);
    check.run("tiles<8>", tiles<8>, n, tile_expected<8>);
    check.run("tiles<16>", tiles<16>, n, tile_expected<16>);
    check.run("tiles<32>", tiles<32>, n, tile_expected<32>);
    check.run("subtiles<1, 2>", subtiles<1, 2>, n, subtile_expected<1, 2>);
    check.run("subtiles<4, 16>", subtiles<4, 16>, n, subtile_expected<4, 16>);
    check.run("subtiles<8, 32>", subtiles<8, 32>, n, subtile_expected<8, 32>);
    check.run("subtiles<16, 16>", subtiles<16, 16>, n, subtile_expected<16, 16>);
    check.run("groups(8)", groups, n, groups_expected<8>, 8u);
    check.run("groups(32)", groups, n, groups_expected<32>, 32u);
    check.run("wide", wide, n, wide_expected);
    check.run("partitions", partitions, n, partitions_expected);
    check.run("coalesced", coalesced, n, coalesced_expected);
  });
}
