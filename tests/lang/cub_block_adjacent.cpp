// CUB's block collectives over neighbouring items in contracted kernels
// (oxide::cub::BlockDiscontinuity, BlockAdjacentDifference, BlockShuffle), written as a CUDA
// program writes them with CUB, checked against the host's answers: blocks of 256 threads and of
// three warps, one and four items a thread, int, float and a 6-byte struct with default member
// initialisers, tile predecessor and successor items, partial tiles (none valid, mid-thread,
// past the tile), in-place differences and shuffles, flag operators with and without the item's
// rank, an output type other than T, offsets either way and out of the block, rotations past the
// block's size, block prefixes and suffixes. The same source runs on the GPU and the CPU
// simulator.
#include <oxide/cub.hpp>
#include <oxide/oxide.hpp>

#include "lang_check.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

namespace cub = oxide::cub;

// Not trivially default constructible (shared memory could not hold it as a T), trivially
// copyable (the collectives take it), 6 bytes (no warp shuffle moves it).
struct Point {
  short x = 0, y = 0, z = 0;
};
constexpr Point point_of(int v) {
  return {static_cast<short>(v % 3), static_cast<short>(v / 3 % 100), static_cast<short>(v / 300)};
}
// A discontinuity in x, and at the ranks 7, 57, 107...: a wrong b_index moves the flags.
struct SplitAtRanks {
  bool operator()(const Point &a, const Point &b, unsigned int b_index) const {
    return a.x != b.x || b_index % 50 == 7;
  }
};
// Without the rank: tens of y.
struct SplitByTens {
  bool operator()(const Point &a, const Point &b) const { return a.y / 10 != b.y / 10; }
};
// Not commutative in any component.
struct PointDifference {
  Point operator()(const Point &a, const Point &b) const {
    return {static_cast<short>(a.x - b.x), static_cast<short>(a.y - b.y), static_cast<short>(2 * a.z - b.z)};
  }
};

// The valid items of block b's tile in the partial-tile kernels: none, a thread's first item,
// mid-thread, more than the tile.
constexpr int valid_of_block(int b, int step, int start) { return b * step + start; }

// ---- BlockDiscontinuity ----

constexpr int kFlags = 14; // per thread in `flags_256`
[[kernel, oxide::launch_contract("domain = 1, block = 256")]] void flags_256(oxide::Span<const int> in,
                                                                             oxide::DisjointSpan<int> out) {
  const auto i = oxide::thread::index_1d();
  const std::size_t first = oxide::block::index().get() * 256, n = in.size();
  const int v[1] = {in[i.get()]};
  // The neighbouring tiles' edge items; the first and last tiles get their own edge (no flag).
  const int pred = in[first == 0 ? 0 : first - 1];
  const int succ = in[first + 256 < n ? first + 256 : n - 1];
  using Discontinuity = cub::BlockDiscontinuity<int, 256>;
  int r[kFlags] = {};
  int h[1], t[1];
  Discontinuity().FlagHeads(h, v, cub::Inequality{});
  r[0] = h[0];
  Discontinuity().FlagHeads(h, v, cub::Inequality{}, pred);
  r[1] = h[0];
  Discontinuity().FlagTails(t, v, cub::Inequality{});
  r[2] = t[0];
  Discontinuity().FlagTails(t, v, cub::Inequality{}, succ);
  r[3] = t[0];
  // One storage for the four heads-and-tails forms, a barrier between the uses; bool flags.
  auto &storage = cub::temp_storage<Discontinuity>();
  bool hb[1], tb[1];
  Discontinuity(storage).FlagHeadsAndTails(hb, tb, v, cub::Inequality{});
  r[4] = hb[0];
  r[5] = tb[0];
  oxide::sync_threads();
  Discontinuity(storage).FlagHeadsAndTails(hb, tb, succ, v, cub::Inequality{});
  r[6] = hb[0];
  r[7] = tb[0];
  oxide::sync_threads();
  Discontinuity(storage).FlagHeadsAndTails(hb, pred, tb, v, cub::Inequality{});
  r[8] = hb[0];
  r[9] = tb[0];
  oxide::sync_threads();
  Discontinuity(storage).FlagHeadsAndTails(hb, pred, tb, succ, v, cub::Inequality{});
  r[10] = hb[0];
  r[11] = tb[0];
  // With b's rank in the tile.
  const auto by_rank = [](int a, int b, unsigned int b_index) { return (a + b + int(b_index)) % 3 == 0; };
  Discontinuity().FlagHeads(h, v, by_rank, pred);
  r[12] = h[0];
  Discontinuity().FlagTails(t, v, by_rank);
  r[13] = t[0];
  auto mine = out.tile_mut<kFlags>(i);
  for (std::size_t k = 0; k < mine.size(); ++k)
    mine[k] = r[k];
}

// Three warps a block, four Points a thread: flags, differences and shuffles of a struct, as ints.
constexpr int kPointResults = 70;
[[kernel, oxide::launch_contract("domain = 1, block = 96")]] void points_96(oxide::Span<const int> in,
                                                                            oxide::DisjointSpan<int> out) {
  const auto i = oxide::thread::index_1d();
  const int b = static_cast<int>(oxide::block::index().get());
  Point v[4];
  for (int k = 0; k < 4; ++k)
    v[k] = point_of(in[4 * i.get() + k]);
  int r[kPointResults] = {};
  int n = 0;
  const auto put = [&](const Point &p) {
    r[n++] = p.x;
    r[n++] = p.y;
    r[n++] = p.z;
  };
  int h[4], t[4];
  cub::BlockDiscontinuity<Point, 96>().FlagHeadsAndTails(h, Point{}, t, Point{1, 0, 0}, v, SplitAtRanks{});
  for (int k = 0; k < 4; ++k) {
    r[n++] = h[k];
    r[n++] = t[k];
  }
  unsigned char hc[4], tc[4];
  cub::BlockDiscontinuity<Point, 96>().FlagHeads(hc, v, SplitByTens{});
  cub::BlockDiscontinuity<Point, 96>().FlagTails(tc, v, SplitByTens{});
  for (int k = 0; k < 4; ++k) {
    r[n++] = hc[k];
    r[n++] = tc[k];
  }
  Point d[4];
  cub::BlockAdjacentDifference<Point, 96>().SubtractLeft(v, d, PointDifference{}, Point{1, 2, 3});
  for (const Point &p : d)
    put(p);
  Point w[4] = {v[0], v[1], v[2], v[3]};
  cub::BlockAdjacentDifference<Point, 96>().SubtractRightPartialTile(w, w, PointDifference{},
                                                                     valid_of_block(b, 150, -50));
  for (const Point &p : w)
    put(p);
  Point prev[4] = {{-1, -1, -1}, {-1, -1, -1}, {-1, -1, -1}, {-1, -1, -1}}, suffix;
  cub::BlockShuffle<Point, 96>().Up(v, prev, suffix);
  for (const Point &p : prev)
    put(p);
  put(suffix);
  Point next[4] = {v[0], v[1], v[2], v[3]}, prefix;
  cub::BlockShuffle<Point, 32, 3>().Down(next, next, prefix); // the block named as 32 x 3
  for (const Point &p : next)
    put(p);
  put(prefix);
  auto mine = out.tile_mut<kPointResults>(i);
  for (std::size_t k = 0; k < mine.size(); ++k)
    mine[k] = r[k];
}

// ---- BlockAdjacentDifference ----

constexpr int kFloatDifferences = 8; // arrays of 4 a thread in `differences_96`
[[kernel, oxide::launch_contract("domain = 1, block = 96")]] void
differences_96(oxide::Span<const float> in, oxide::DisjointSpan<float> out) {
  const auto i = oxide::thread::index_1d();
  const int valid = valid_of_block(static_cast<int>(oxide::block::index().get()), 150, -50);
  float v[4];
  for (int k = 0; k < 4; ++k)
    v[k] = in[4 * i.get() + k];
  using Adjacent = cub::BlockAdjacentDifference<float, 96>;
  float r[kFloatDifferences][4];
  auto &storage = cub::temp_storage<Adjacent>();
  Adjacent(storage).SubtractLeft(v, r[0], cub::Difference{});
  for (int k = 0; k < 4; ++k)
    r[1][k] = v[k];
  oxide::sync_threads();
  Adjacent(storage).SubtractLeft(r[1], r[1], cub::Difference{}); // in place
  oxide::sync_threads();
  Adjacent(storage).SubtractLeft(v, r[2], cub::Difference{}, 0.5f);
  Adjacent().SubtractLeftPartialTile(v, r[3], cub::Difference{}, valid);
  for (int k = 0; k < 4; ++k)
    r[4][k] = v[k];
  Adjacent().SubtractLeftPartialTile(r[4], r[4], cub::Difference{}, valid, 0.5f);
  Adjacent().SubtractRight(v, r[5], cub::Difference{});
  for (int k = 0; k < 4; ++k)
    r[6][k] = v[k];
  Adjacent().SubtractRight(r[6], r[6], cub::Difference{}, 0.25f);
  Adjacent().SubtractRightPartialTile(v, r[7], cub::Difference{}, valid);
  auto mine = out.tile_mut<kFloatDifferences * 4>(i);
  for (std::size_t k = 0; k < mine.size(); ++k)
    mine[k] = r[k / 4][k % 4];
}

// One int a thread into long long differences, by an operator that is not a subtraction.
constexpr int kIntDifferences = 4;
[[kernel, oxide::launch_contract("domain = 1, block = 256")]] void
differences_256(oxide::Span<const int> in, oxide::DisjointSpan<long long> out) {
  const auto i = oxide::thread::index_1d();
  const std::size_t first = oxide::block::index().get() * 256, n = in.size();
  const int valid = valid_of_block(static_cast<int>(oxide::block::index().get()), 100, 37);
  const int v[1] = {in[i.get()]};
  const int succ = first + 256 < n ? in[first + 256] : -1;
  const auto op = [](int a, int b) { return static_cast<long long>(a) * 1000 - b; };
  using Adjacent = cub::BlockAdjacentDifference<int, 256>;
  long long r[kIntDifferences][1];
  Adjacent().SubtractLeft(v, r[0], op);
  Adjacent().SubtractRight(v, r[1], op, succ);
  Adjacent().SubtractLeftPartialTile(v, r[2], op, valid, 5);
  Adjacent().SubtractRightPartialTile(v, r[3], op, valid);
  auto mine = out.tile_mut<kIntDifferences>(i);
  for (std::size_t k = 0; k < mine.size(); ++k)
    mine[k] = r[k][0];
}

// ---- BlockShuffle ----

constexpr int kUntouched = -123456; // outputs a shuffle must leave as they were
constexpr int kIntShuffles = 12;
[[kernel, oxide::launch_contract("domain = 1, block = 256")]] void
shuffles_256(oxide::Span<const int> in, oxide::DisjointSpan<int> out) {
  const auto i = oxide::thread::index_1d();
  const int x = in[i.get()];
  using Shuffle = cub::BlockShuffle<int, 256>;
  int r[kIntShuffles];
  for (int &o : r)
    o = kUntouched;
  auto &storage = cub::temp_storage<Shuffle>();
  Shuffle(storage).Offset(x, r[0]);
  oxide::sync_threads();
  Shuffle(storage).Offset(x, r[1], -3);
  oxide::sync_threads();
  Shuffle(storage).Offset(x, r[2], 1000);
  r[3] = x;
  Shuffle().Offset(r[3], r[3], 5); // in place: the last five keep theirs
  Shuffle().Rotate(x, r[4]);
  Shuffle().Rotate(x, r[5], 255);
  Shuffle().Rotate(x, r[6], 300); // past the block: by 300 % 256
  const int v[1] = {x};
  int prev[1] = {kUntouched}, next[1] = {kUntouched};
  Shuffle().Up(v, prev, r[8]);
  r[7] = prev[0];
  Shuffle().Down(v, next, r[10]);
  r[9] = next[0];
  Shuffle().Offset(x, r[11], std::numeric_limits<int>::min());
  auto mine = out.tile_mut<kIntShuffles>(i);
  for (std::size_t k = 0; k < mine.size(); ++k)
    mine[k] = r[k];
}

constexpr int kFloatShuffles = 20;
[[kernel, oxide::launch_contract("domain = 1, block = 96")]] void
shuffles_96(oxide::Span<const float> in, oxide::DisjointSpan<float> out) {
  const auto i = oxide::thread::index_1d();
  float v[4];
  for (int k = 0; k < 4; ++k)
    v[k] = in[4 * i.get() + k];
  using Shuffle = cub::BlockShuffle<float, 96>;
  float r[kFloatShuffles];
  float prev[4] = {kUntouched, kUntouched, kUntouched, kUntouched};
  Shuffle().Up(v, prev);
  float up[4] = {v[0], v[1], v[2], v[3]}, suffix = 0;
  Shuffle().Up(up, up, suffix); // in place
  float next[4] = {kUntouched, kUntouched, kUntouched, kUntouched}, prefix = 0;
  Shuffle().Down(v, next, prefix);
  float down[4] = {v[0], v[1], v[2], v[3]};
  Shuffle().Down(down, down); // in place
  for (int k = 0; k < 4; ++k) {
    r[k] = prev[k];
    r[4 + k] = up[k];
    r[9 + k] = next[k];
    r[14 + k] = down[k];
  }
  r[8] = suffix;
  r[13] = prefix;
  // By 4294967295 % 96 = 63 (not t + 4294967295 wrapped at 2^32), and by 0.
  Shuffle().Rotate(v[0], r[18], 4294967295u);
  Shuffle().Rotate(v[0], r[19], 0);
  auto mine = out.tile_mut<kFloatShuffles>(i);
  for (std::size_t k = 0; k < mine.size(); ++k)
    mine[k] = r[k];
}

// A block of 128 threads running a collective made for 256: stops with the collective's message.
[[kernel, oxide::launch_contract("domain = 1")]] void wrong_block(oxide::Span<const int> in,
                                                                  oxide::DisjointSpan<int> out) {
  const auto i = oxide::thread::index_1d();
  int rotated = 0;
  cub::BlockShuffle<int, 256>().Rotate(in[i.get()], rotated);
  if (int *o = out.get_mut(i))
    *o = rotated;
}

namespace {

using lang::Checks;

using lang::mix;

/// Results [first, first + count) of each thread's row of `per_thread`, one check a part.
struct Part {
  const char *name;
  int first, count;
};
template <class T>
void expect_parts(Checks &c, const std::vector<T> &got, const std::vector<T> &want, int per_thread,
                  std::initializer_list<Part> parts) {
  const std::size_t threads = want.size() / per_thread;
  for (const Part &p : parts) {
    std::size_t wrong = 0;
    for (std::size_t t = 0; t < threads; ++t)
      for (int k = p.first; k < p.first + p.count; ++k) {
        const std::size_t at = t * per_thread + k;
        if (got[at] != want[at] && wrong++ < 2)
          std::printf("%s: thread %zu result %d: %s, want %s\n", p.name, t, k - p.first,
                      std::to_string(got[at]).c_str(), std::to_string(want[at]).c_str());
      }
    c.expect(got.size() == want.size() && wrong == 0,
             std::string(p.name) + ": " + std::to_string(wrong) + " values wrong");
  }
}

void check_flags_256(Checks &c, oxide::Context &ctx, oxide::Stream &stream) {
  constexpr std::size_t blocks = 3, n = blocks * 256;
  std::vector<int> x(n);
  for (std::size_t j = 0; j < n; ++j)
    x[j] = static_cast<int>(mix(j) % 4); // runs of equal items
  auto in = oxide::DeviceBuffer<int>::from_host(stream, x);
  auto out = oxide::DeviceBuffer<int>::from_host(stream, std::vector<int>(n * kFlags, -1));
  oxide::prepare(ctx, flags_256, oxide::LaunchConfig1D{blocks, 256})(stream, in, out);
  std::vector<int> want(n * kFlags);
  const auto by_rank = [](int a, int b, std::size_t rank) { return (a + b + int(rank)) % 3 == 0; };
  for (std::size_t t = 0; t < n; ++t) {
    const std::size_t l = t % 256, first = t - l;
    const int pred = x[first == 0 ? 0 : first - 1], succ = x[std::min(first + 256, n - 1)];
    const int before = l > 0 ? x[t - 1] : pred, after = l < 255 ? x[t + 1] : succ;
    const int heads = l > 0 ? x[t - 1] != x[t] : 1, heads_pred = before != x[t];
    const int tails = l < 255 ? x[t] != x[t + 1] : 1, tails_succ = x[t] != after;
    const int row[kFlags] = {heads,
                             heads_pred,
                             tails,
                             tails_succ,
                             heads,
                             tails,
                             heads,
                             tails_succ,
                             heads_pred,
                             tails,
                             heads_pred,
                             tails_succ,
                             by_rank(before, x[t], l),
                             l < 255 ? by_rank(x[t], x[t + 1], l + 1) : 1};
    std::copy(row, row + kFlags, want.begin() + t * kFlags);
  }
  expect_parts(c, out.to_host(stream), want, kFlags,
               {{"FlagHeads", 0, 1},
                {"FlagHeads(tile_predecessor_item)", 1, 1},
                {"FlagTails", 2, 1},
                {"FlagTails(tile_successor_item)", 3, 1},
                {"FlagHeadsAndTails", 4, 2},
                {"FlagHeadsAndTails(tile_successor_item)", 6, 2},
                {"FlagHeadsAndTails(tile_predecessor_item)", 8, 2},
                {"FlagHeadsAndTails(predecessor, successor)", 10, 2},
                {"FlagHeads by rank", 12, 1},
                {"FlagTails by rank", 13, 1}});
}

void check_points_96(Checks &c, oxide::Context &ctx, oxide::Stream &stream) {
  constexpr std::size_t blocks = 4, threads = blocks * 96, tile = 384;
  std::vector<int> x(threads * 4);
  for (std::size_t j = 0; j < x.size(); ++j)
    x[j] = static_cast<int>(mix(j + 5) % 1000);
  auto in = oxide::DeviceBuffer<int>::from_host(stream, x);
  auto out = oxide::DeviceBuffer<int>::from_host(stream, std::vector<int>(threads * kPointResults, -7));
  oxide::prepare(ctx, points_96, oxide::LaunchConfig1D{blocks, 96})(stream, in, out);
  const auto p = [&](std::size_t g) { return point_of(x[g]); };
  std::vector<int> want(threads * kPointResults);
  for (std::size_t t = 0; t < threads; ++t) {
    const std::size_t b = t / 96, base = b * tile;
    const int valid = std::clamp(valid_of_block(static_cast<int>(b), 150, -50), 0, int(tile));
    int *row = want.data() + t * kPointResults;
    const auto put = [&](const Point &q) {
      *row++ = q.x;
      *row++ = q.y;
      *row++ = q.z;
    };
    for (std::size_t k = 0; k < 4; ++k) {
      const std::size_t r = (t % 96) * 4 + k, g = base + r; // rank in the tile, global position
      const Point before = r > 0 ? p(g - 1) : Point{}, after = r + 1 < tile ? p(g + 1) : Point{1, 0, 0};
      *row++ = SplitAtRanks{}(before, p(g), static_cast<unsigned>(r));
      *row++ = SplitAtRanks{}(p(g), after, static_cast<unsigned>(r + 1));
    }
    for (std::size_t k = 0; k < 4; ++k) {
      const std::size_t r = (t % 96) * 4 + k, g = base + r;
      *row++ = r > 0 ? SplitByTens{}(p(g - 1), p(g)) : 1;
      *row++ = r + 1 < tile ? SplitByTens{}(p(g), p(g + 1)) : 1;
    }
    for (std::size_t k = 0; k < 4; ++k) {
      const std::size_t r = (t % 96) * 4 + k, g = base + r;
      put(PointDifference{}(p(g), r > 0 ? p(g - 1) : Point{1, 2, 3}));
    }
    for (std::size_t k = 0; k < 4; ++k) {
      const std::size_t r = (t % 96) * 4 + k, g = base + r;
      put(int(r) + 1 < valid ? PointDifference{}(p(g), p(g + 1)) : p(g));
    }
    for (std::size_t k = 0; k < 4; ++k) {
      const std::size_t r = (t % 96) * 4 + k, g = base + r;
      put(r > 0 ? p(g - 1) : Point{-1, -1, -1});
    }
    put(p(base + tile - 1));
    for (std::size_t k = 0; k < 4; ++k) {
      const std::size_t r = (t % 96) * 4 + k, g = base + r;
      put(r + 1 < tile ? p(g + 1) : p(g));
    }
    put(p(base));
  }
  expect_parts(c, out.to_host(stream), want, kPointResults,
               {{"BlockDiscontinuity<Point> FlagHeadsAndTails by rank, predecessor and successor", 0, 8},
                {"BlockDiscontinuity<Point> FlagHeads, FlagTails into unsigned char", 8, 8},
                {"BlockAdjacentDifference<Point> SubtractLeft(tile_predecessor_item)", 16, 12},
                {"BlockAdjacentDifference<Point> SubtractRightPartialTile in place", 28, 12},
                {"BlockShuffle<Point> Up(block_suffix)", 40, 15},
                {"BlockShuffle<Point, 32, 3> Down(block_prefix) in place", 55, 15}});
}

void check_differences_96(Checks &c, oxide::Context &ctx, oxide::Stream &stream) {
  constexpr std::size_t blocks = 4, threads = blocks * 96, tile = 384, per = kFloatDifferences * 4;
  std::vector<float> x(threads * 4);
  for (std::size_t j = 0; j < x.size(); ++j)
    x[j] = static_cast<float>(mix(j + 9) % 17); // small integers: differences exact in float
  auto in = oxide::DeviceBuffer<float>::from_host(stream, x);
  auto out = oxide::DeviceBuffer<float>::from_host(stream, std::vector<float>(threads * per, -1e9f));
  oxide::prepare(ctx, differences_96, oxide::LaunchConfig1D{blocks, 96})(stream, in, out);
  std::vector<float> want(threads * per);
  for (std::size_t t = 0; t < threads; ++t) {
    const std::size_t b = t / 96, base = b * tile;
    const int valid = std::clamp(valid_of_block(static_cast<int>(b), 150, -50), 0, int(tile));
    for (std::size_t k = 0; k < 4; ++k) {
      const std::size_t r = (t % 96) * 4 + k, g = base + r;
      const bool has_before = r > 0, has_after = r + 1 < tile;
      const float left = has_before ? x[g] - x[g - 1] : x[g], right = has_after ? x[g] - x[g + 1] : x[g];
      const float left_pred = x[g] - (has_before ? x[g - 1] : 0.5f);
      const float row[kFloatDifferences] = {left,
                                            left,
                                            left_pred,
                                            int(r) < valid ? left : x[g],
                                            int(r) < valid ? left_pred : x[g],
                                            right,
                                            x[g] - (has_after ? x[g + 1] : 0.25f),
                                            int(r) + 1 < valid ? right : x[g]};
      for (int m = 0; m < kFloatDifferences; ++m)
        want[t * per + m * 4 + k] = row[m];
    }
  }
  expect_parts(c, out.to_host(stream), want, per,
               {{"SubtractLeft", 0, 4},
                {"SubtractLeft in place", 4, 4},
                {"SubtractLeft(tile_predecessor_item)", 8, 4},
                {"SubtractLeftPartialTile", 12, 4},
                {"SubtractLeftPartialTile(tile_predecessor_item) in place", 16, 4},
                {"SubtractRight", 20, 4},
                {"SubtractRight(tile_successor_item) in place", 24, 4},
                {"SubtractRightPartialTile", 28, 4}});
}

void check_differences_256(Checks &c, oxide::Context &ctx, oxide::Stream &stream) {
  constexpr std::size_t blocks = 4, n = blocks * 256;
  std::vector<int> x(n);
  for (std::size_t j = 0; j < n; ++j)
    x[j] = static_cast<int>(mix(j + 3) % 2001) - 1000;
  auto in = oxide::DeviceBuffer<int>::from_host(stream, x);
  auto out =
      oxide::DeviceBuffer<long long>::from_host(stream, std::vector<long long>(n * kIntDifferences, -1));
  oxide::prepare(ctx, differences_256, oxide::LaunchConfig1D{blocks, 256})(stream, in, out);
  const auto op = [](int a, int b) { return static_cast<long long>(a) * 1000 - b; };
  std::vector<long long> want(n * kIntDifferences);
  for (std::size_t t = 0; t < n; ++t) {
    const std::size_t l = t % 256, first = t - l;
    const int valid = std::min(valid_of_block(static_cast<int>(t / 256), 100, 37), 256);
    const int succ = first + 256 < n ? x[first + 256] : -1;
    const long long row[kIntDifferences] = {l > 0 ? op(x[t], x[t - 1]) : x[t],
                                            op(x[t], l < 255 ? x[t + 1] : succ),
                                            int(l) < valid ? op(x[t], l > 0 ? x[t - 1] : 5) : x[t],
                                            int(l) + 1 < valid ? op(x[t], x[t + 1]) : x[t]};
    std::copy(row, row + kIntDifferences, want.begin() + t * kIntDifferences);
  }
  expect_parts(c, out.to_host(stream), want, kIntDifferences,
               {{"SubtractLeft<int> into long long", 0, 1},
                {"SubtractRight<int>(tile_successor_item) into long long", 1, 1},
                {"SubtractLeftPartialTile<int>(tile_predecessor_item), valid past the tile", 2, 1},
                {"SubtractRightPartialTile<int>, valid past the tile", 3, 1}});
}

void check_shuffles_256(Checks &c, oxide::Context &ctx, oxide::Stream &stream) {
  constexpr std::size_t blocks = 2, n = blocks * 256;
  std::vector<int> x(n);
  for (std::size_t j = 0; j < n; ++j)
    x[j] = static_cast<int>(mix(j + 1) % 1000);
  auto in = oxide::DeviceBuffer<int>::from_host(stream, x);
  auto out = oxide::DeviceBuffer<int>::from_host(stream, std::vector<int>(n * kIntShuffles, -1));
  oxide::prepare(ctx, shuffles_256, oxide::LaunchConfig1D{blocks, 256})(stream, in, out);
  std::vector<int> want(n * kIntShuffles);
  for (std::size_t t = 0; t < n; ++t) {
    const std::size_t l = t % 256, first = t - l;
    const int row[kIntShuffles] = {l + 1 < 256 ? x[t + 1] : kUntouched,
                                   l >= 3 ? x[t - 3] : kUntouched,
                                   kUntouched,
                                   l + 5 < 256 ? x[t + 5] : x[t],
                                   x[first + (l + 1) % 256],
                                   x[first + (l + 255) % 256],
                                   x[first + (l + 300) % 256],
                                   l > 0 ? x[t - 1] : kUntouched,
                                   x[first + 255],
                                   l < 255 ? x[t + 1] : kUntouched,
                                   x[first],
                                   kUntouched};
    std::copy(row, row + kIntShuffles, want.begin() + t * kIntShuffles);
  }
  expect_parts(c, out.to_host(stream), want, kIntShuffles,
               {{"Offset", 0, 1},
                {"Offset(-3)", 1, 1},
                {"Offset(1000) leaves the output", 2, 1},
                {"Offset(5) in place", 3, 1},
                {"Rotate", 4, 1},
                {"Rotate(255)", 5, 1},
                {"Rotate(300)", 6, 1},
                {"Up(block_suffix) of one item", 7, 2},
                {"Down(block_prefix) of one item", 9, 2},
                {"Offset(INT_MIN) leaves the output", 11, 1}});
}

void check_shuffles_96(Checks &c, oxide::Context &ctx, oxide::Stream &stream) {
  constexpr std::size_t blocks = 2, threads = blocks * 96, tile = 384;
  std::vector<float> x(threads * 4);
  for (std::size_t j = 0; j < x.size(); ++j)
    x[j] = static_cast<float>(mix(j + 2) % 1000);
  auto in = oxide::DeviceBuffer<float>::from_host(stream, x);
  auto out = oxide::DeviceBuffer<float>::from_host(stream, std::vector<float>(threads * kFloatShuffles, -1));
  oxide::prepare(ctx, shuffles_96, oxide::LaunchConfig1D{blocks, 96})(stream, in, out);
  std::vector<float> want(threads * kFloatShuffles);
  const float untouched = kUntouched;
  for (std::size_t t = 0; t < threads; ++t) {
    const std::size_t base = t / 96 * tile;
    float *row = want.data() + t * kFloatShuffles;
    for (std::size_t k = 0; k < 4; ++k) {
      const std::size_t r = (t % 96) * 4 + k, g = base + r;
      row[k] = r > 0 ? x[g - 1] : untouched;
      row[4 + k] = r > 0 ? x[g - 1] : x[g];
      row[9 + k] = r + 1 < tile ? x[g + 1] : untouched;
      row[14 + k] = r + 1 < tile ? x[g + 1] : x[g];
    }
    row[8] = x[base + tile - 1];
    row[13] = x[base];
    row[18] = x[base + (t % 96 + 63) % 96 * 4];
    row[19] = x[base + t % 96 * 4];
  }
  expect_parts(c, out.to_host(stream), want, kFloatShuffles,
               {{"Up of 4 items", 0, 4},
                {"Up(block_suffix) of 4 items in place", 4, 5},
                {"Down(block_prefix) of 4 items", 9, 5},
                {"Down of 4 items in place", 14, 4},
                {"Rotate(4294967295) and Rotate(0) in a block of 96", 18, 2}});
}

} // namespace

int main() try {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  Checks c;
  check_flags_256(c, ctx, stream);
  check_points_96(c, ctx, stream);
  check_differences_96(c, ctx, stream);
  check_differences_256(c, ctx, stream);
  check_shuffles_256(c, ctx, stream);
  check_shuffles_96(c, ctx, stream);

  c.expect_stop("a BlockShuffle<int, 256> in a block of 128", [&] {
    auto in = oxide::DeviceBuffer<int>::from_host(stream, std::vector<int>(128, 1));
    auto out = oxide::DeviceBuffer<int>::uninitialized(stream, 128);
    oxide::prepare(ctx, wrong_block, oxide::LaunchConfig1D{1, 128})(stream, in, out);
    stream.synchronize();
  });
  return c.finish("cub_block_adjacent", ctx);
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\nFAIL\n", e.what());
  return 1;
}
