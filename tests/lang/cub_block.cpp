// CUB's block and warp collectives in contracted kernels (oxide::cub::WarpReduce, WarpScan,
// BlockReduce, BlockScan, BlockExchange, BlockLoad, BlockStore, BlockHistogram,
// BlockRadixSort), written as a CUDA program writes them with CUB, checked against the host's
// answers: full and partial warps and blocks, logical warps, blocks of three warps, items in
// blocked and striped order, a running prefix over tiles, stable pair sorts with duplicates,
// float keys with -0.0 and NaN, key bit ranges, tails shorter than a tile. The same source runs
// on the GPU and the CPU simulator.
#include <oxide/cub.hpp>
#include <oxide/oxide.hpp>

#include "lang_check.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

namespace cub = oxide::cub;

constexpr int kResults = 16; // per thread in `collectives`

// Each thread's results of the warp and block collectives over `in` (256 threads a block).
[[kernel, oxide::launch_contract("domain = 1, block = 256")]] void collectives(oxide::Span<const int> in,
                                                                               oxide::DisjointSpan<int> out) {
  const auto i = oxide::thread::index_1d();
  const int x = in[i.get()];
  int r[kResults] = {};
  r[0] = cub::WarpReduce<int>().Sum(x);
  r[1] = cub::WarpReduce<int>().Reduce(x, cub::Max{});
  r[2] = cub::WarpReduce<int, 8>().Sum(x);
  r[3] = cub::WarpReduce<int>().Sum(x, 20); // lane 0: lanes 0..19
  cub::WarpScan<int>().InclusiveSum(x, r[4]);
  cub::WarpScan<int, 16>().ExclusiveSum(x, r[5], r[6]);
  cub::WarpScan<int>().ExclusiveScan(x, r[7], 1000, cub::Min{});

  using BlockReduce = cub::BlockReduce<int, 256>;
  auto &reduce_storage = cub::temp_storage<BlockReduce>();
  r[8] = BlockReduce(reduce_storage).Sum(x);
  oxide::sync_threads(); // the storage is used again
  r[9] = BlockReduce(reduce_storage).Reduce(x, cub::Max{});
  r[10] = BlockReduce().Sum(x, 100); // threads 0..99, its own storage

  using BlockScan = cub::BlockScan<int, 256>;
  BlockScan().ExclusiveSum(x, r[11], r[12]);
  BlockScan().InclusiveScan(x, r[13], cub::Max{});
  // The last nonzero value: associative, not commutative.
  BlockScan().ExclusiveScan(x, r[14], -7, [](int a, int b) { return b != 0 ? b : a; });
  r[15] = cub::WarpScan<int>().Broadcast(x, 5);

  auto mine = out.tile_mut<kResults>(i);
  for (std::size_t k = 0; k < mine.size(); ++k)
    mine[k] = r[k];
}

// Three warps a block, four float items a thread: reductions and scans of items in blocked order.
constexpr int kItemResults = 10;
[[kernel, oxide::launch_contract("domain = 1, block = 96")]] void items(oxide::Span<const float> in,
                                                                        oxide::DisjointSpan<float> out) {
  const auto i = oxide::thread::index_1d();
  float v[4];
  for (int k = 0; k < 4; ++k)
    v[k] = in[4 * i.get() + k];
  float r[kItemResults] = {};
  r[0] = cub::BlockReduce<float, 96>().Sum(v);
  float inclusive[4], aggregate = 0;
  cub::BlockScan<float, 96>().InclusiveSum(v, inclusive, aggregate);
  float exclusive[4];
  cub::BlockScan<float, 96>().ExclusiveSum(v, exclusive);
  for (int k = 0; k < 4; ++k) {
    r[1 + k] = inclusive[k];
    r[5 + k] = exclusive[k];
  }
  r[9] = aggregate;
  auto mine = out.tile_mut<kItemResults>(i);
  for (std::size_t k = 0; k < mine.size(); ++k)
    mine[k] = r[k];
}

// A running sum over a row of any length, one block a row, tile after tile: BlockScan with a
// block prefix callback, as CUB's single-pass tile scans use it.
struct RunningTotal {
  long long total = 0;
  long long operator()(long long block_aggregate) {
    const long long before = total;
    total += block_aggregate;
    return before;
  }
};
[[kernel, oxide::launch_contract("domain = 1, block = 128")]] void
row_scan(oxide::Span<const int> in, oxide::DisjointSpan2D<long long> out) {
  const auto &b = oxide::block::index();
  const std::size_t width = out.width();
  auto row = out.row_mut(b);
  auto &storage = cub::temp_storage<cub::BlockScan<long long, 128>>();
  RunningTotal running;
  const std::uint32_t t = oxide::thread_idx().x;
  for (std::size_t j = 0; j * 128 < width; ++j) {
    const std::size_t column = j * 128 + t;
    const long long x = column < width ? in[b.get() * width + column] : 0;
    long long prefix = 0;
    cub::BlockScan<long long, 128>(storage).InclusiveSum(x, prefix, running);
    if (long long *o = row.get_mut(j))
      *o = prefix;
  }
}

// Load, rearrange and store a tile of 128 x 4 ints, each item marked with its place in the
// thread's array: blocked and striped loads and stores, direct and transposed.
template <cub::BlockLoadAlgorithm Load, cub::BlockStoreAlgorithm Store>
void copy_tile(const oxide::Span<const int> &in, const oxide::DisjointSpan<int> &out,
               const oxide::thread::ThreadIndex1D &i) {
  constexpr int kTile = 128 * 4;
  const std::size_t offset = oxide::block::index().get() * kTile;
  const int valid = static_cast<int>(std::min<std::size_t>(kTile, in.size() - offset));
  int v[4];
  cub::BlockLoad<int, 128, 4, Load>().Load(in, offset, v, valid, -1);
  for (int k = 0; k < 4; ++k)
    v[k] = v[k] * 2 + static_cast<int>(oxide::thread_idx().x) * 4 + k;
  cub::BlockStore<int, 128, 4, Store>().Store(out, i, v, valid);
}
[[kernel, oxide::launch_contract("domain = 1, block = 128")]] void copy_direct(oxide::Span<const int> in,
                                                                               oxide::DisjointSpan<int> out) {
  copy_tile<cub::BLOCK_LOAD_DIRECT, cub::BLOCK_STORE_DIRECT>(in, out, oxide::thread::index_1d());
}
[[kernel, oxide::launch_contract("domain = 1, block = 128")]] void
copy_vectorized(oxide::Span<const int> in, oxide::DisjointSpan<int> out) {
  copy_tile<cub::BLOCK_LOAD_VECTORIZE, cub::BLOCK_STORE_VECTORIZE>(in, out, oxide::thread::index_1d());
}
[[kernel, oxide::launch_contract("domain = 1, block = 128")]] void
copy_striped(oxide::Span<const int> in, oxide::DisjointSpan<int> out) {
  copy_tile<cub::BLOCK_LOAD_STRIPED, cub::BLOCK_STORE_STRIPED>(in, out, oxide::thread::index_1d());
}
[[kernel, oxide::launch_contract("domain = 1, block = 128")]] void
copy_transposed(oxide::Span<const int> in, oxide::DisjointSpan<int> out) {
  copy_tile<cub::BLOCK_LOAD_TRANSPOSE, cub::BLOCK_STORE_TRANSPOSE>(in, out, oxide::thread::index_1d());
}
[[kernel, oxide::launch_contract("domain = 1, block = 128")]] void
copy_warp_transposed(oxide::Span<const int> in, oxide::DisjointSpan<int> out) {
  copy_tile<cub::BLOCK_LOAD_WARP_TRANSPOSE, cub::BLOCK_STORE_WARP_TRANSPOSE>(in, out,
                                                                             oxide::thread::index_1d());
}

// A loop over tiles of 128 x 4 ints with fewer blocks than tiles (block_stride), each tile stored
// into the block's row of a DisjointSpan2D of tiles: blocked items (through the store's own
// exchange), striped and transposed; a block of 32 x 4 threads too.
template <cub::BlockStoreAlgorithm Store, int X, int Y>
void copy_rows_tile(const oxide::Span<const int> &in, const oxide::DisjointSpan2D<int> &out) {
  constexpr int kTile = X * Y * 4;
  const auto t = static_cast<int>(oxide::thread_idx().y * X + oxide::thread_idx().x);
  for (const auto &b : oxide::block::block_stride(out.height())) {
    const std::size_t offset = b.get() * kTile;
    const int valid = static_cast<int>(std::min<std::size_t>(kTile, in.size() - offset));
    int v[4];
    cub::BlockLoad<int, X, 4, cub::BLOCK_LOAD_DIRECT, Y>().Load(in, offset, v, valid, -1);
    for (int k = 0; k < 4; ++k)
      v[k] = v[k] * 2 + t * 4 + k;
    cub::BlockStore<int, X, 4, Store, Y>().Store(out.row_mut(b), v, valid);
    oxide::sync_threads(); // the next tile reuses the collectives' storage
  }
}
[[kernel, oxide::launch_contract("domain = 1, block = 128")]] void
rows_direct(oxide::Span<const int> in, oxide::DisjointSpan2D<int> out) {
  copy_rows_tile<cub::BLOCK_STORE_DIRECT, 128, 1>(in, out);
}
[[kernel, oxide::launch_contract("domain = 1, block = 128")]] void
rows_striped(oxide::Span<const int> in, oxide::DisjointSpan2D<int> out) {
  copy_rows_tile<cub::BLOCK_STORE_STRIPED, 128, 1>(in, out);
}
[[kernel, oxide::launch_contract("domain = 1, block = 128")]] void
rows_transposed(oxide::Span<const int> in, oxide::DisjointSpan2D<int> out) {
  copy_rows_tile<cub::BLOCK_STORE_WARP_TRANSPOSE, 128, 1>(in, out);
}
[[kernel, oxide::launch_contract("domain = 2, block = (32, 4)")]] void
rows_2d_block(oxide::Span<const int> in, oxide::DisjointSpan2D<int> out) {
  copy_rows_tile<cub::BLOCK_STORE_DIRECT, 32, 4>(in, out);
}

// Each block's histogram of its 256 x 8 bytes, into its row of `out`.
[[kernel, oxide::launch_contract("domain = 1, block = 256")]] void
histogram(oxide::Span<const std::uint8_t> in, oxide::DisjointSpan2D<unsigned> out) {
  const auto &b = oxide::block::index();
  std::uint8_t v[8];
  cub::BlockLoad<std::uint8_t, 256, 8, cub::BLOCK_LOAD_STRIPED>().Load(in, b.get() * 2048, v);
  auto bins = oxide::shared_array<unsigned, 256>();
  cub::BlockHistogram<std::uint8_t, 256, 8, 256>().Histogram(v, bins);
  oxide::sync_threads();
  auto row = out.row_mut(b);
  if (unsigned *o = row.get_mut(0))
    *o = bins[oxide::thread_idx().x];
}

// Tiles of 128 x 8 (key, index) pairs sorted by key, stable; the tail padded with the largest
// key as CUB programs do.
[[kernel, oxide::launch_contract("domain = 1, block = 128")]] void
sort_pairs(oxide::Span<const std::uint32_t> keys, oxide::DisjointSpan<std::uint32_t> sorted,
           oxide::DisjointSpan<std::uint32_t> ids) {
  const auto i = oxide::thread::index_1d();
  const std::size_t offset = oxide::block::index().get() * 1024;
  const int valid = static_cast<int>(std::min<std::size_t>(1024, keys.size() - offset));
  std::uint32_t k[8], v[8];
  cub::BlockLoad<std::uint32_t, 128, 8, cub::BLOCK_LOAD_WARP_TRANSPOSE>().Load(keys, offset, k, valid, ~0U);
  for (int j = 0; j < 8; ++j)
    v[j] = static_cast<std::uint32_t>(offset + oxide::thread_idx().x * 8 + j);
  cub::BlockRadixSort<std::uint32_t, 128, 8, std::uint32_t>().Sort(k, v);
  cub::BlockStore<std::uint32_t, 128, 8>().Store(sorted, i, k, valid);
  cub::BlockStore<std::uint32_t, 128, 8>().Store(ids, i, v, valid);
}

// The same in tiles of 512 x 16 pairs, the collectives' storage one union as CUB programs write
// it: 33 KB, inside the 48 KB of static shared memory because BlockRadixSort's ranking and its
// exchanges of keys and of values share theirs too, as in CUB.
[[kernel, oxide::launch_contract("domain = 1, block = 512")]] void
sort_pairs_large(oxide::Span<const std::uint32_t> keys, oxide::DisjointSpan<std::uint32_t> sorted,
                 oxide::DisjointSpan<std::uint32_t> ids) {
  using Load = cub::BlockLoad<std::uint32_t, 512, 16, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Sort = cub::BlockRadixSort<std::uint32_t, 512, 16, std::uint32_t>;
  using Store = cub::BlockStore<std::uint32_t, 512, 16, cub::BLOCK_STORE_WARP_TRANSPOSE>;
  union Storage {
    Load::TempStorage load;
    Sort::TempStorage sort;
    Store::TempStorage store;
  };
  auto &storage = oxide::shared_object<Storage>();
  const auto i = oxide::thread::index_1d();
  const std::size_t offset = oxide::block::index().get() * 8192;
  const int valid = static_cast<int>(std::min<std::size_t>(8192, keys.size() - offset));
  std::uint32_t k[16], v[16];
  Load(storage.load).Load(keys, offset, k, valid, ~0U);
  for (int j = 0; j < 16; ++j)
    v[j] = static_cast<std::uint32_t>(offset + oxide::thread_idx().x * 16 + j);
  oxide::sync_threads();
  Sort(storage.sort).Sort(k, v);
  oxide::sync_threads();
  Store(storage.store).Store(sorted, i, k, valid);
  oxide::sync_threads();
  Store(storage.store).Store(ids, i, v, valid);
}

// Float keys descending, the result striped; int64 keys by bits [4, 20); 16-bit keys by 3 bits a
// pass in a block of one warp.
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void
sort_floats(oxide::Span<const float> keys, oxide::DisjointSpan<float> sorted) {
  const auto i = oxide::thread::index_1d();
  float k[4];
  cub::BlockLoad<float, 64, 4>().Load(keys, oxide::block::index().get() * 256, k);
  cub::BlockRadixSort<float, 64, 4>().SortDescendingBlockedToStriped(k);
  cub::BlockStore<float, 64, 4, cub::BLOCK_STORE_STRIPED>().Store(sorted, i, k);
}
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void
sort_bits(oxide::Span<const std::int64_t> keys, oxide::DisjointSpan<std::int64_t> sorted) {
  const auto i = oxide::thread::index_1d();
  std::int64_t k[4];
  cub::BlockLoad<std::int64_t, 64, 4, cub::BLOCK_LOAD_TRANSPOSE>().Load(keys,
                                                                        oxide::block::index().get() * 256, k);
  cub::BlockRadixSort<std::int64_t, 64, 4>().Sort(k, 4, 20);
  cub::BlockStore<std::int64_t, 64, 4>().Store(sorted, i, k);
}
[[kernel, oxide::launch_contract("domain = 1, block = 32")]] void
sort_shorts(oxide::Span<const std::int16_t> keys, oxide::DisjointSpan<std::int16_t> sorted) {
  const auto i = oxide::thread::index_1d();
  std::int16_t k[5];
  cub::BlockLoad<std::int16_t, 32, 5>().Load(keys, oxide::block::index().get() * 160, k);
  cub::BlockRadixSort<std::int16_t, 32, 5, cub::NullType, 3>().Sort(k);
  cub::BlockStore<std::int16_t, 32, 5>().Store(sorted, i, k);
}

// A block of 128 threads running a collective made for 256: stops with the collective's message.
[[kernel, oxide::launch_contract("domain = 1")]] void wrong_block(oxide::Span<const int> in,
                                                                  oxide::DisjointSpan<int> out) {
  const auto i = oxide::thread::index_1d();
  const int total = cub::BlockReduce<int, 256>().Sum(in[i.get()]);
  if (int *o = out.get_mut(i))
    *o = total;
}

namespace {

using lang::Checks;

using lang::mix;

/// The order CUB's radix sorts give floats: by radix key (-0.0 == +0.0, NaNs by sign), stable.
std::uint32_t float_key(float f) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(f);
  if (bits == 0x80000000u)
    return 0x80000000u;
  return (bits & 0x80000000u) ? ~bits : bits | 0x80000000u;
}

template <class T, class Key>
std::vector<T> stable_sorted(std::vector<T> v, Key key, bool descending = false) {
  std::vector<std::size_t> p(v.size());
  std::iota(p.begin(), p.end(), std::size_t{0});
  std::sort(p.begin(), p.end(), [&](std::size_t a, std::size_t b) {
    const auto ka = key(v[a]), kb = key(v[b]);
    if (ka != kb)
      return descending ? kb < ka : ka < kb;
    return a < b;
  });
  std::vector<T> out(v.size());
  for (std::size_t j = 0; j < p.size(); ++j)
    out[j] = v[p[j]];
  return out;
}

void check_collectives(Checks &c, oxide::Context &ctx, oxide::Stream &stream) {
  constexpr std::size_t blocks = 3, n = blocks * 256;
  std::vector<int> x(n);
  for (std::size_t j = 0; j < n; ++j)
    x[j] = static_cast<int>(mix(j) % 101) - 50;
  auto in = oxide::DeviceBuffer<int>::from_host(stream, x);
  auto out = oxide::DeviceBuffer<int>::from_host(stream, std::vector<int>(n * kResults, 0x7fffffff));
  oxide::prepare(ctx, collectives, oxide::LaunchConfig1D{blocks, 256})(stream, in, out);
  const std::vector<int> r = out.to_host(stream);
  const auto at = [&](std::size_t t, int k) { return r[t * kResults + k]; };
  std::size_t wrong[kResults] = {};
  for (std::size_t t = 0; t < n; ++t) {
    const std::size_t warp = t / 32 * 32, lane = t % 32, block = t / 256 * 256, sub = t / 8 * 8,
                      half = t / 16 * 16;
    int sum = 0, max = x[warp], sum8 = 0, sum20 = 0, incl = 0, excl16 = 0, agg16 = 0, minscan = 1000;
    for (std::size_t j = warp; j < warp + 32; ++j) {
      sum += x[j];
      max = std::max(max, x[j]);
      sum20 += j < warp + 20 ? x[j] : 0;
      incl += j <= t ? x[j] : 0;
      minscan = j < t ? std::min(minscan, x[j]) : minscan;
    }
    for (std::size_t j = sub; j < sub + 8; ++j)
      sum8 += x[j];
    for (std::size_t j = half; j < half + 16; ++j) {
      excl16 += j < t ? x[j] : 0;
      agg16 += x[j];
    }
    int bsum = 0, bmax = x[block], bsum100 = 0, bexcl = 0, bincl_max = x[block], weird = -7;
    for (std::size_t j = block; j < block + 256; ++j) {
      bsum += x[j];
      bmax = std::max(bmax, x[j]);
      bsum100 += j < block + 100 ? x[j] : 0;
      if (j < t) {
        bexcl += x[j];
        weird = x[j] != 0 ? x[j] : weird;
      }
      if (j <= t)
        bincl_max = std::max(bincl_max, x[j]);
    }
    const int want[kResults] = {sum,  max,  sum8,    sum20, incl, excl16,    agg16, minscan,
                                bsum, bmax, bsum100, bexcl, bsum, bincl_max, weird, x[warp + 5]};
    for (int k = 0; k < kResults; ++k) {
      const bool lane0_only = k == 3, thread0_only = k == 8 || k == 9 || k == 10;
      if ((lane0_only && lane != 0) || (thread0_only && t != block))
        continue;
      wrong[k] += at(t, k) != want[k];
    }
  }
  const char *names[kResults] = {"WarpReduce Sum",
                                 "WarpReduce Max",
                                 "WarpReduce<8> Sum",
                                 "WarpReduce Sum(valid)",
                                 "WarpScan InclusiveSum",
                                 "WarpScan<16> ExclusiveSum",
                                 "WarpScan aggregate",
                                 "WarpScan ExclusiveScan",
                                 "BlockReduce Sum",
                                 "BlockReduce Max",
                                 "BlockReduce Sum(valid)",
                                 "BlockScan ExclusiveSum",
                                 "BlockScan aggregate",
                                 "BlockScan InclusiveScan max",
                                 "BlockScan ExclusiveScan (not commutative)",
                                 "WarpScan Broadcast"};
  for (int k = 0; k < kResults; ++k)
    c.expect(wrong[k] == 0, std::string(names[k]) + ": " + std::to_string(wrong[k]) + " threads wrong");
}

void check_items(Checks &c, oxide::Context &ctx, oxide::Stream &stream) {
  constexpr std::size_t blocks = 2, threads = blocks * 96;
  std::vector<float> x(threads * 4);
  for (std::size_t j = 0; j < x.size(); ++j)
    x[j] = static_cast<float>(mix(j + 7) % 17); // small integers: sums exact in float
  auto in = oxide::DeviceBuffer<float>::from_host(stream, x);
  auto out = oxide::DeviceBuffer<float>::uninitialized(stream, threads * kItemResults);
  oxide::prepare(ctx, items, oxide::LaunchConfig1D{blocks, 96})(stream, in, out);
  const std::vector<float> r = out.to_host(stream);
  std::size_t wrong_sum = 0, wrong_scan = 0;
  for (std::size_t t = 0; t < threads; ++t) {
    const std::size_t first = t / 96 * 96 * 4;
    float total = 0, before = 0;
    for (std::size_t j = first; j < first + 96 * 4; ++j) {
      total += x[j];
      before += j < t * 4 ? x[j] : 0;
    }
    if (t % 96 == 0)
      wrong_sum += r[t * kItemResults] != total;
    float running = before;
    for (int k = 0; k < 4; ++k) {
      wrong_scan += r[t * kItemResults + 5 + k] != running;
      running += x[t * 4 + k];
      wrong_scan += r[t * kItemResults + 1 + k] != running;
    }
    wrong_scan += r[t * kItemResults + 9] != total;
  }
  c.expect(wrong_sum == 0,
           "BlockReduce<float, 96> Sum of 4 items: " + std::to_string(wrong_sum) + " blocks wrong");
  c.expect(wrong_scan == 0,
           "BlockScan<float, 96> of 4 items: " + std::to_string(wrong_scan) + " values wrong");
}

void check_row_scan(Checks &c, oxide::Context &ctx, oxide::Stream &stream) {
  constexpr std::size_t rows = 5, width = 1000; // not a multiple of the block
  std::vector<int> x(rows * width);
  for (std::size_t j = 0; j < x.size(); ++j)
    x[j] = static_cast<int>(mix(j + 3) % 2001) - 1000;
  auto in = oxide::DeviceBuffer<int>::from_host(stream, x);
  auto out = oxide::DeviceBuffer<long long>::uninitialized(stream, rows * width);
  oxide::prepare(ctx, row_scan, oxide::LaunchConfig1D{rows, 128})(stream, in, out.view_2d(width, rows));
  const std::vector<long long> r = out.to_host(stream);
  std::size_t wrong = 0;
  for (std::size_t row = 0; row < rows; ++row) {
    long long total = 0;
    for (std::size_t j = 0; j < width; ++j) {
      total += x[row * width + j];
      if (r[row * width + j] != total && wrong++ < 3)
        std::printf("row %zu column %zu: %lld, want %lld\n", row, j, r[row * width + j], total);
    }
  }
  c.expect(wrong == 0, "BlockScan InclusiveSum with a running prefix: " + std::to_string(wrong) + " wrong");
}

template <class Kernel>
void check_copy(Checks &c, oxide::Context &ctx, oxide::Stream &stream, Kernel kernel, const char *name,
                bool striped_load, bool striped_store) {
  constexpr std::size_t n = 3 * 512 + 200; // a partial last tile
  std::vector<int> x(n);
  for (std::size_t j = 0; j < n; ++j)
    x[j] = static_cast<int>(mix(j) % 1000);
  auto in = oxide::DeviceBuffer<int>::from_host(stream, x);
  auto out = oxide::DeviceBuffer<int>::from_host(stream, std::vector<int>(n, -5));
  oxide::prepare(ctx, kernel, oxide::LaunchConfig1D{4, 128})(stream, in, out);
  const std::vector<int> r = out.to_host(stream);
  // Thread t's item k is tile position (t, k) in the load's order; it is stored at (t, k) in the
  // store's order, marked with t * 4 + k.
  std::vector<int> want(n, -5);
  for (std::size_t tile = 0; tile < 4; ++tile)
    for (std::size_t t = 0; t < 128; ++t)
      for (std::size_t k = 0; k < 4; ++k) {
        const std::size_t from = tile * 512 + (striped_load ? k * 128 + t : t * 4 + k);
        const std::size_t to = tile * 512 + (striped_store ? k * 128 + t : t * 4 + k);
        const int value = from < n ? x[from] : -1;
        if (to < n && from < n)
          want[to] = value * 2 + static_cast<int>(t * 4 + k);
      }
  std::size_t wrong = 0;
  for (std::size_t j = 0; j < n; ++j)
    wrong += r[j] != want[j];
  c.expect(wrong == 0, std::string(name) + ": " + std::to_string(wrong) + " elements wrong");
}

// copy_rows_tile's kernels: 2 blocks (1 x 2 of the 2-D launch) over 4 tiles, the last partial.
template <class Kernel, class Config>
void check_rows(Checks &c, oxide::Context &ctx, oxide::Stream &stream, Kernel kernel, Config config,
                const char *name, bool striped_store) {
  constexpr std::size_t n = 3 * 512 + 200, tiles = 4;
  std::vector<int> x(n);
  for (std::size_t j = 0; j < n; ++j)
    x[j] = static_cast<int>(mix(j + 3) % 1000);
  auto in = oxide::DeviceBuffer<int>::from_host(stream, x);
  auto out = oxide::DeviceBuffer<int>::from_host(stream, std::vector<int>(tiles * 512, -5));
  oxide::prepare(ctx, kernel, config)(stream, in, out.view_2d(512, tiles));
  const std::vector<int> r = out.to_host(stream);
  std::vector<int> want(tiles * 512, -5);
  for (std::size_t tile = 0; tile < tiles; ++tile)
    for (std::size_t t = 0; t < 128; ++t)
      for (std::size_t k = 0; k < 4; ++k) {
        const std::size_t from = tile * 512 + t * 4 + k;
        const std::size_t to = tile * 512 + (striped_store ? k * 128 + t : t * 4 + k);
        if (to < n) // an item past the input was loaded as -1
          want[to] = (from < n ? x[from] : -1) * 2 + static_cast<int>(t * 4 + k);
      }
  std::size_t wrong = 0;
  for (std::size_t j = 0; j < r.size(); ++j)
    wrong += r[j] != want[j];
  c.expect(wrong == 0, std::string(name) + ": " + std::to_string(wrong) + " elements wrong");
}

void check_histogram(Checks &c, oxide::Context &ctx, oxide::Stream &stream) {
  constexpr std::size_t blocks = 3;
  std::vector<std::uint8_t> x(blocks * 2048);
  for (std::size_t j = 0; j < x.size(); ++j)
    x[j] = static_cast<std::uint8_t>(j % 7 == 0 ? 42 : mix(j) % 256); // one heavy bin
  auto in = oxide::DeviceBuffer<std::uint8_t>::from_host(stream, x);
  auto out = oxide::DeviceBuffer<unsigned>::uninitialized(stream, blocks * 256);
  oxide::prepare(ctx, histogram, oxide::LaunchConfig1D{blocks, 256})(stream, in, out.view_2d(256, blocks));
  const std::vector<unsigned> r = out.to_host(stream);
  std::vector<unsigned> want(blocks * 256, 0);
  for (std::size_t j = 0; j < x.size(); ++j)
    ++want[j / 2048 * 256 + x[j]];
  c.expect(r == want, "BlockHistogram of 256 bins");
}

void check_sorts(Checks &c, oxide::Context &ctx, oxide::Stream &stream) {
  // Pairs, stable, with a tail: tiles of `tile` keys sorted by blocks of `threads`.
  auto check_pairs = [&](auto kernel, std::size_t tile, unsigned threads, const std::string &name) {
    const std::size_t n = 3 * tile + 300;
    std::vector<std::uint32_t> keys(n);
    for (std::size_t j = 0; j < n; ++j)
      keys[j] = static_cast<std::uint32_t>(mix(j) % 50) * 0x01010101u; // duplicates, every byte used
    auto in = oxide::DeviceBuffer<std::uint32_t>::from_host(stream, keys);
    auto sorted = oxide::DeviceBuffer<std::uint32_t>::uninitialized(stream, n);
    auto ids = oxide::DeviceBuffer<std::uint32_t>::uninitialized(stream, n);
    oxide::prepare(ctx, kernel, oxide::LaunchConfig1D{4, threads})(stream, in, sorted, ids);
    const std::vector<std::uint32_t> got_keys = sorted.to_host(stream), got_ids = ids.to_host(stream);
    std::size_t wrong = 0;
    for (std::size_t first = 0; first < n; first += tile) {
      const std::size_t last = std::min(n, first + tile);
      std::vector<std::uint32_t> id(last - first);
      std::iota(id.begin(), id.end(), static_cast<std::uint32_t>(first));
      id = stable_sorted(id, [&](std::uint32_t j) { return keys[j]; });
      for (std::size_t j = first; j < last; ++j)
        wrong += got_ids[j] != id[j - first] || got_keys[j] != keys[id[j - first]];
    }
    c.expect(wrong == 0, name + ": " + std::to_string(wrong) + " wrong");
  };
  check_pairs(sort_pairs, 1024, 128, "BlockRadixSort pairs, stable, tail");
  check_pairs(sort_pairs_large, 8192, 512, "BlockRadixSort pairs in tiles of 512 x 16, stable, tail");
  { // floats descending, striped
    constexpr std::size_t n = 2 * 256;
    std::vector<float> keys(n);
    const float special[] = {0.0f,
                             -0.0f,
                             std::numeric_limits<float>::infinity(),
                             -std::numeric_limits<float>::infinity(),
                             std::numeric_limits<float>::quiet_NaN(),
                             -std::numeric_limits<float>::quiet_NaN(),
                             1e-40f,
                             -1e-40f};
    for (std::size_t j = 0; j < n; ++j)
      keys[j] = j % 9 < 8 && j % 5 == 0 ? special[j % 8]
                                        : static_cast<float>(static_cast<int>(mix(j) % 200) - 100) / 8;
    auto in = oxide::DeviceBuffer<float>::from_host(stream, keys);
    auto sorted = oxide::DeviceBuffer<float>::uninitialized(stream, n);
    oxide::prepare(ctx, sort_floats, oxide::LaunchConfig1D{2, 64})(stream, in, sorted);
    const std::vector<float> got = sorted.to_host(stream);
    std::size_t wrong = 0;
    for (std::size_t tile = 0; tile < 2; ++tile) {
      const std::vector<float> want = stable_sorted(
          std::vector<float>(keys.begin() + tile * 256, keys.begin() + tile * 256 + 256), float_key, true);
      for (std::size_t j = 0; j < 256; ++j)
        wrong += std::bit_cast<std::uint32_t>(got[tile * 256 + j]) != std::bit_cast<std::uint32_t>(want[j]);
    }
    c.expect(wrong == 0, "BlockRadixSort floats descending (-0.0, NaN, inf), striped: " +
                             std::to_string(wrong) + " wrong");
  }
  { // int64 by bits [4, 20)
    constexpr std::size_t n = 3 * 256;
    std::vector<std::int64_t> keys(n);
    for (std::size_t j = 0; j < n; ++j)
      keys[j] = static_cast<std::int64_t>(mix(j + 11));
    auto in = oxide::DeviceBuffer<std::int64_t>::from_host(stream, keys);
    auto sorted = oxide::DeviceBuffer<std::int64_t>::uninitialized(stream, n);
    oxide::prepare(ctx, sort_bits, oxide::LaunchConfig1D{3, 64})(stream, in, sorted);
    const std::vector<std::int64_t> got = sorted.to_host(stream);
    std::size_t wrong = 0;
    for (std::size_t tile = 0; tile < 3; ++tile) {
      const auto want =
          stable_sorted(std::vector<std::int64_t>(keys.begin() + tile * 256, keys.begin() + tile * 256 + 256),
                        [](std::int64_t k) { return (static_cast<std::uint64_t>(k) >> 4) & 0xffff; });
      for (std::size_t j = 0; j < 256; ++j)
        wrong += got[tile * 256 + j] != want[j];
    }
    c.expect(wrong == 0, "BlockRadixSort int64 by bits [4, 20): " + std::to_string(wrong) + " wrong");
  }
  { // int16, 3 bits a pass, one warp
    constexpr std::size_t n = 2 * 160;
    std::vector<std::int16_t> keys(n);
    for (std::size_t j = 0; j < n; ++j)
      keys[j] = static_cast<std::int16_t>(mix(j + 5));
    auto in = oxide::DeviceBuffer<std::int16_t>::from_host(stream, keys);
    auto sorted = oxide::DeviceBuffer<std::int16_t>::uninitialized(stream, n);
    oxide::prepare(ctx, sort_shorts, oxide::LaunchConfig1D{2, 32})(stream, in, sorted);
    std::vector<std::int16_t> got = sorted.to_host(stream), want = keys;
    std::sort(want.begin(), want.begin() + 160);
    std::sort(want.begin() + 160, want.end());
    c.expect(got == want, "BlockRadixSort int16, 3 bits a pass, one warp");
  }
}

} // namespace

int main() try {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  Checks c;
  check_collectives(c, ctx, stream);
  check_items(c, ctx, stream);
  check_row_scan(c, ctx, stream);
  check_copy(c, ctx, stream, copy_direct, "BlockLoad/BlockStore direct", false, false);
  check_copy(c, ctx, stream, copy_vectorized, "BlockLoad/BlockStore vectorised", false, false);
  check_copy(c, ctx, stream, copy_striped, "BlockLoad/BlockStore striped", true, true);
  check_copy(c, ctx, stream, copy_transposed, "BlockLoad/BlockStore transposed", false, false);
  check_copy(c, ctx, stream, copy_warp_transposed, "BlockLoad/BlockStore warp-transposed", false, false);
  check_rows(c, ctx, stream, rows_direct, oxide::LaunchConfig1D{2, 128}, "BlockStore direct into block rows",
             false);
  check_rows(c, ctx, stream, rows_striped, oxide::LaunchConfig1D{2, 128},
             "BlockStore striped into block rows", true);
  check_rows(c, ctx, stream, rows_transposed, oxide::LaunchConfig1D{2, 128},
             "BlockStore warp-transposed into block rows", false);
  check_rows(c, ctx, stream, rows_2d_block, oxide::LaunchConfig2D{{1, 2, 1}, {32, 4, 1}},
             "BlockStore direct into block rows, a block of 32 x 4", false);
  check_histogram(c, ctx, stream);
  check_sorts(c, ctx, stream);

  c.expect_stop("a BlockReduce<int, 256> in a block of 128", [&] {
    auto in = oxide::DeviceBuffer<int>::from_host(stream, std::vector<int>(128, 1));
    auto out = oxide::DeviceBuffer<int>::uninitialized(stream, 128);
    oxide::prepare(ctx, wrong_block, oxide::LaunchConfig1D{1, 128})(stream, in, out);
    stream.synchronize();
  });
  return c.finish("cub_block", ctx);
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\nFAIL\n", e.what());
  return 1;
}
