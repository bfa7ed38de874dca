// Safe-tier ownership beyond "thread i writes element i": every shape of intrinsic::Ownership
// (oxide/device/span.hpp, group.hpp) writes f(element) at each element it owns, over an output
// poisoned first, with launches that leave some owners without elements (past the end). Every
// element must hold f(element) afterwards: a shape that misses, doubles or displaces an element
// fails, and the simulator's checking mode reports any element two threads claim.
//
//   oxcc run tests/lang/ownership.cpp
#include <oxide/oxide.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

using Value = std::uint32_t;
constexpr Value kPoison = 0xdeadbeef;
constexpr Value f(std::size_t e) { return static_cast<Value>(e * 7 + 3); }

[[kernel, oxide::launch_contract("domain = 1, block = (96)")]] void
warp_leaders(oxide::DisjointSpan<Value> out) {
  for (const auto &w : oxide::warp::warp_stride(out.size()))
    if (Value *o = out.get_mut(w))
      *o = f(w.get());
}

[[kernel, oxide::launch_contract("domain = 1, block = (64)")]] void
warp_rows(oxide::DisjointSpan2D<Value> out) {
  for (const auto &w : oxide::warp::warp_stride(out.height())) {
    const auto row = out.row_mut(w);
    for (std::size_t j = 0; j < row.size(); ++j)
      if (Value *o = row.get_mut(j))
        *o = f(w.get() * out.width() + oxide::warp::lane_id() + 32 * j);
  }
}

[[kernel, oxide::launch_contract("domain = 1, block = (32)")]] void
block_leaders(oxide::DisjointSpan<Value> out) {
  for (const auto &b : oxide::block::block_stride(out.size()))
    if (Value *o = out.get_mut(b))
      *o = f(b.get());
}

[[kernel, oxide::launch_contract("domain = 1, block = (128)")]] void
block_rows(oxide::DisjointSpan2D<Value> out) {
  for (const auto &b : oxide::block::block_stride(out.height())) {
    const auto row = out.row_mut(b);
    for (std::size_t j = 0; j < row.size(); ++j)
      if (Value *o = row.get_mut(j))
        *o = f(b.get() * out.width() + oxide::thread_idx().x + 128 * j);
  }
}

[[kernel, oxide::launch_contract("domain = 1")]] void launch_strided(oxide::DisjointSpan<Value> out) {
  const auto &i = oxide::thread::index_1d();
  const auto mine = out.strided_mut(i);
  const std::size_t threads = std::size_t{oxide::grid_dim().x} * oxide::block_dim().x;
  for (std::size_t j = 0; j < mine.size(); ++j)
    mine[j] = f(i.get() + threads * j);
}

[[kernel, oxide::launch_contract("domain = 1, block = (64)")]] void
block_strided(oxide::DisjointSpan<Value> out) {
  const auto &i = oxide::thread::index_1d();
  const auto mine = out.block_strided_mut<4>(i);
  const std::size_t first = std::size_t{oxide::block_idx().x} * 64 * 4 + oxide::thread_idx().x;
  for (std::size_t j = 0; j < mine.size(); ++j)
    if (Value *o = mine.get_mut(j))
      *o = f(first + 64 * j);
}

// Sorting-network pairs at a distance the host passes: thread i owns lo and lo + distance.
[[kernel, oxide::launch_contract("domain = 1")]] void pairs(oxide::DisjointSpan<Value> out,
                                                            std::uint32_t distance) {
  const auto &i = oxide::thread::index_1d();
  const auto pair = out.pair_mut(i, distance);
  const std::size_t lo = i.get() / distance * 2 * distance + i.get() % distance;
  for (std::size_t j = 0; j < 2; ++j)
    if (Value *o = pair.get_mut(j))
      *o = f(lo + distance * j);
}

[[kernel, oxide::launch_contract("domain = 2, block = (8, 4)")]] void
strided_rows(oxide::DisjointSpan2D<Value> out) {
  const auto &index = oxide::thread::index_2d();
  const auto mine = out.strided_rows_mut<4>(index);
  const std::size_t first_row = std::size_t{oxide::block_idx().y} * 4 * 4 + oxide::thread_idx().y;
  for (std::size_t j = 0; j < mine.size(); ++j)
    if (Value *o = mine.get_mut(j))
      *o = f((first_row + 4 * j) * out.width() + index.x());
}

[[kernel, oxide::launch_contract("domain = 2, block = (4, 4)")]] void
z_columns(oxide::DisjointSpan3D<Value> out) {
  const auto &index = oxide::thread::index_2d();
  const auto column = out.column_mut(index);
  for (std::size_t z = 0; z < column.size(); ++z)
    if (Value *o = column.get_mut(z))
      *o = f((z * out.height() + index.y()) * out.width() + index.x());
}

// Warpgroups 1 and 2 of 3 hold 64 x 24 accumulators of a (128 x 24)-element block tile, the
// blocks taking the tiles 2 tile rows at a time; each thread writes f(element) from the element's
// coordinates, which wgmma::Accumulator::coord gives for its registers. The launch has 2 blocks
// more than there are tiles (they own nothing).
using Acc = oxide::wgmma::Accumulator<oxide::bfloat16, 24>;
[[kernel, oxide::launch_contract("domain = 1, block = (384)")]] void
warpgroup_tiles(oxide::DisjointSpan2D<Value> out) {
  const auto block = oxide::block::index();
  const auto origin = out.warpgroup_tile_origin<24, 2, 1, 2>(block);
  const auto mine = out.warpgroup_tile_mut<24, 2, 1, 2>(block);
  const std::uint32_t rank = oxide::warpgroup::rank(), consumer = oxide::warpgroup::index() - 1;
  for (std::uint32_t j = 0; j < mine.size(); ++j) {
    const oxide::mma::Coord at = Acc::coord(rank, j);
    if (Value *o = mine.get_mut(j))
      *o = f((origin.row + 64 * consumer + at.row) * out.width() + origin.column + at.col);
  }
}

// The same tiles written a pair at a time (store_pair): one 2-element store where both elements
// are inside the output and the pair is aligned, else each element that is inside (the last
// column of an odd width; every other row of an odd width, whose pairs start at odd addresses).
[[kernel, oxide::launch_contract("domain = 1, block = (384)")]] void
warpgroup_pairs(oxide::DisjointSpan2D<Value> out) {
  const auto block = oxide::block::index();
  const auto origin = out.warpgroup_tile_origin<24, 2, 1, 2>(block);
  const auto mine = out.warpgroup_tile_mut<24, 2, 1, 2>(block);
  const std::uint32_t rank = oxide::warpgroup::rank(), consumer = oxide::warpgroup::index() - 1;
  auto element = [&](std::uint32_t j) {
    const oxide::mma::Coord at = Acc::coord(rank, j);
    return (origin.row + 64 * consumer + at.row) * out.width() + origin.column + at.col;
  };
  for (std::uint32_t j = 0; j < mine.size(); j += 2)
    mine.store_pair(j, f(element(j)), f(element(j + 1)));
}

// get_mut_pair alone, asked at every j: only even j give a pair (an odd j's pointer would write
// f(e) + 1 over the next pair's elements). With an even width and an aligned output every pair
// inside is given, so the output ends exactly f.
[[kernel, oxide::launch_contract("domain = 1, block = (384)")]] void
warpgroup_pairs_only(oxide::DisjointSpan2D<Value> out) {
  const auto block = oxide::block::index();
  const auto origin = out.warpgroup_tile_origin<24, 2, 1, 2>(block);
  const auto mine = out.warpgroup_tile_mut<24, 2, 1, 2>(block);
  const std::uint32_t rank = oxide::warpgroup::rank(), consumer = oxide::warpgroup::index() - 1;
  for (std::uint32_t j = 0; j < mine.size(); ++j) {
    const oxide::mma::Coord at = Acc::coord(rank, j);
    const std::size_t e = (origin.row + 64 * consumer + at.row) * out.width() + origin.column + at.col;
    if (oxide::Vec<Value, 2> *pair = mine.get_mut_pair(j))
      *pair = {f(e) + j % 2, f(e + 1) + j % 2};
  }
}

// mma.sync's accumulators, FlashAttention-2's output: warp w of a 4-warp block holds rows
// [16 w, 16 w + 16) of the block's 64-row tile, as D / 8 m16n8 fragments. That is the layout of
// warpgroup_tile with one consumer warpgroup (First = 0): element 4 n + i of the thread's set is
// element i of its fragment n (FragmentC::coord), so the fragments are written straight from
// registers, pairs at once.
constexpr std::uint32_t kHeadDim = 40;
[[kernel, oxide::launch_contract("domain = 1, block = (128)")]] void
mma_rows(oxide::DisjointSpan2D<Value> out) {
  const auto block = oxide::block::index();
  const auto origin = out.warpgroup_tile_origin<kHeadDim, 1>(block);
  const auto mine = out.warpgroup_tile_mut<kHeadDim, 1>(block);
  const std::uint32_t lane = oxide::warp::lane_id(), warp = oxide::warpgroup::rank() / 32;
  for (std::uint32_t n = 0; n < kHeadDim / 8; ++n)
    for (std::uint32_t i = 0; i < oxide::mma::FragmentC<float>::size; i += 2) {
      const oxide::mma::Coord at = oxide::mma::FragmentC<float>::coord(lane, i);
      const std::size_t e = (origin.row + 16 * warp + at.row) * out.width() + origin.column + 8 * n + at.col;
      mine.store_pair(4 * n + i, f(e), f(e + 1));
    }
}

struct Run {
  oxide::Context ctx = oxide::Context::create();
  oxide::Stream stream = ctx.default_stream();
  std::size_t checks = 0, failures = 0;

  void check(const char *name, oxide::DeviceBuffer<Value> &out) {
    const std::vector<Value> got = out.to_host(stream);
    std::size_t wrong = 0;
    for (std::size_t e = 0; e < got.size(); ++e, ++checks)
      if (got[e] != f(e) && wrong++ < 4)
        std::printf("%s: mismatch at %zu: got %#x, want %#x\n", name, e, got[e], f(e));
    failures += wrong;
  }
  oxide::DeviceBuffer<Value> poisoned(std::size_t n) {
    return oxide::DeviceBuffer<Value>::from_host(stream, std::vector<Value>(n, kPoison));
  }
};

int main() try {
  Run run;
  auto &ctx = run.ctx;
  auto &stream = run.stream;
  {
    auto out = run.poisoned(29); // 3 warps per block, 4 blocks: 12 warps stride over 29 results
    oxide::prepare(ctx, warp_leaders, oxide::LaunchConfig1D{4, 96})(stream, out);
    run.check("warp_leaders", out);
  }
  {
    auto out = run.poisoned(70 * 13); // rows of 70 (lanes write 3, 3 or 2 columns), 6 warps for 13 rows
    oxide::prepare(ctx, warp_rows, oxide::LaunchConfig1D{3, 64})(stream, out.view_2d(70, 13));
    run.check("warp_rows", out);
  }
  {
    auto out = run.poisoned(11);
    oxide::prepare(ctx, block_leaders, oxide::LaunchConfig1D{4, 32})(stream, out);
    run.check("block_leaders", out);
  }
  {
    auto out = run.poisoned(300 * 5);
    oxide::prepare(ctx, block_rows, oxide::LaunchConfig1D{2, 128})(stream, out.view_2d(300, 5));
    run.check("block_rows", out);
  }
  {
    auto out = run.poisoned(1000);
    oxide::prepare(ctx, launch_strided, oxide::LaunchConfig1D{3, 64})(stream, out);
    run.check("launch_strided", out);
  }
  {
    auto out = run.poisoned(1001); // ceil(1001 / 4) threads in blocks of 64
    oxide::prepare(ctx, block_strided, oxide::LaunchConfig1D::for_elements(251, 64))(stream, out);
    run.check("block_strided", out);
  }
  for (std::uint32_t distance : {1u, 2u, 8u, 3u, 100u}) {
    auto out = run.poisoned(600);
    oxide::prepare(ctx, pairs, oxide::LaunchConfig1D::for_elements(300, 64))(stream, out, distance);
    run.check("pairs", out);
  }
  {
    auto out = run.poisoned(40 * 70); // 70 rows: 5 block rows of 16, the last cut short
    oxide::prepare(ctx, strided_rows, oxide::LaunchConfig2D{{5, 5, 1}, {8, 4, 1}})(stream,
                                                                                   out.view_2d(40, 70));
    run.check("strided_rows", out);
  }
  {
    auto out = run.poisoned(9 * 7 * 5);
    oxide::prepare(ctx, z_columns,
                   oxide::LaunchConfig2D::for_elements(9, 7, {4, 4, 1}))(stream, out.view_3d(9, 7, 5));
    run.check("z_columns", out);
  }
  {
    // 300 x 100: 3 tile rows (the last cut short) of 5 tiles (the last 4 wide), in groups of 2
    // tile rows: the last group has one.
    auto out = run.poisoned(100 * 300);
    oxide::prepare(ctx, warpgroup_tiles, oxide::LaunchConfig1D{3 * 5 + 2, 384})(stream,
                                                                                out.view_2d(100, 300));
    run.check("warpgroup_tiles", out);
  }
  // Widths with pairs everywhere; with odd rows' and the last column's pairs split; of one tile.
  for (const std::size_t width : {100, 99, 7}) {
    auto out = run.poisoned(width * 300);
    const std::size_t tiles = 3 * ((width + 23) / 24);
    oxide::prepare(ctx, warpgroup_pairs, oxide::LaunchConfig1D{static_cast<std::uint32_t>(tiles + 2), 384})(
        stream, out.view_2d(width, 300));
    run.check("warpgroup_pairs", out);
  }
  {
    auto out = run.poisoned(kHeadDim * 200); // 4 blocks of 64 rows, the last cut to 8, and 1 more
    oxide::prepare(ctx, mma_rows, oxide::LaunchConfig1D{5, 128})(stream, out.view_2d(kHeadDim, 200));
    run.check("mma_rows", out);
  }
  {
    auto out = run.poisoned(96 * 200);
    oxide::prepare(ctx, warpgroup_pairs_only, oxide::LaunchConfig1D{2 * 4, 384})(stream,
                                                                                 out.view_2d(96, 200));
    run.check("warpgroup_pairs_only", out);
  }
  std::printf("ownership: %zu checks on %s\n", run.checks, ctx.device().name().c_str());
  std::printf("%s\n", run.failures == 0 ? "PASS" : "FAIL");
  return run.failures == 0 ? 0 : 1;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "ownership: %s\n", e.what());
  return 1;
}
