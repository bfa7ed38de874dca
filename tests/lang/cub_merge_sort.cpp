// CUB's comparison sorts in contracted kernels (oxide::cub::BlockMergeSort, WarpMergeSort),
// written as a CUDA program writes them with CUB, checked against a stable sort on the host:
// int keys in blocks of 64, 96 (three warps: not a power of two), 128 and 256 threads and of
// 32 x 4, with 1, 3, 4, 5 and 8 items a thread; float keys in descending order (-0.0 and +0.0
// equal, so only a stable sort gives the expected bits); a struct with default member
// initialisers sorted by one field (its other fields show the order of equal keys); key-value
// pairs with many equal keys (each value is its key's input position, so an unstable sort moves
// them); partial tiles (valid_items below 0, 0, 1, mid-thread, the whole tile less one, past
// the tile) with an oob_default after every key and one before them; one TempStorage used twice;
// logical warps of 8, 16 and 32 lanes, each with its own TempStorage. The same source runs on the
// GPU and the CPU simulator.
#include <oxide/cub.hpp>
#include <oxide/oxide.hpp>

#include "lang_check.hpp"

#include <algorithm>
#include <bit>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

namespace cub = oxide::cub;

// CUB's examples' comparators: any strict weak order, called on two const keys.
struct Less {
  template <class T> bool operator()(const T &a, const T &b) const { return a < b; }
};
struct Greater {
  template <class T> bool operator()(const T &a, const T &b) const { return b < a; }
};
// As CUB's documentation writes it: a member that is not const.
struct CustomLess {
  template <class DataType> bool operator()(const DataType &lhs, const DataType &rhs) { return lhs < rhs; }
};

// Not trivially default constructible (shared memory could not hold it as it is), trivially
// copyable (the sorts take it); sorted by `bucket` alone, descending, so `id` tells equal keys apart.
struct Record {
  std::int16_t bucket = 0;
  std::uint8_t tag = 7;
  std::int32_t id = -1;
};
struct ByBucketDescending {
  bool operator()(const Record &a, const Record &b) const { return a.bucket > b.bucket; }
};

// The valid items of tile b in the partial kernels: below 0, none, one, mid-thread, the whole
// tile less one, past the tile (then again).
constexpr int valid_of_tile(int b, int tile) {
  constexpr int kCases = 6;
  const int cases[kCases] = {-3, 0, 1, tile / 2 + 1, tile - 1, tile + 5};
  return cases[b % kCases];
}

// ---- BlockMergeSort ----

// Each thread's Items keys from its tile, sorted by the block, back into its tile of `out`.
template <int Threads, int Items, class Key, class Compare, bool Stable>
void sort_keys(const oxide::Span<const Key> &in, const oxide::DisjointSpan<Key> &out) {
  const auto i = oxide::thread::index_1d();
  Key k[Items];
  for (int j = 0; j < Items; ++j)
    k[j] = in[i.get() * Items + j];
  using Sort = cub::BlockMergeSort<Key, Threads, Items>;
  if constexpr (Stable)
    Sort().StableSort(k, Compare{});
  else
    Sort(cub::temp_storage<Sort>()).Sort(k, Compare{});
  auto mine = out.template tile_mut<Items>(i);
  for (std::size_t j = 0; j < mine.size(); ++j)
    mine[j] = k[j];
}
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void ints_64x1(oxide::Span<const int> in,
                                                                            oxide::DisjointSpan<int> out) {
  sort_keys<64, 1, int, Less, false>(in, out);
}
[[kernel, oxide::launch_contract("domain = 1, block = 128")]] void ints_128x4(oxide::Span<const int> in,
                                                                              oxide::DisjointSpan<int> out) {
  sort_keys<128, 4, int, Less, false>(in, out);
}
[[kernel, oxide::launch_contract("domain = 1, block = 256")]] void ints_256x8(oxide::Span<const int> in,
                                                                              oxide::DisjointSpan<int> out) {
  sort_keys<256, 8, int, Less, true>(in, out);
}
[[kernel, oxide::launch_contract("domain = 1, block = 96")]] void ints_96x3(oxide::Span<const int> in,
                                                                            oxide::DisjointSpan<int> out) {
  sort_keys<96, 3, int, Greater, false>(in, out);
}
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void ints_64x5(oxide::Span<const int> in,
                                                                            oxide::DisjointSpan<int> out) {
  sort_keys<64, 5, int, CustomLess, true>(in, out);
}
[[kernel, oxide::launch_contract("domain = 1, block = 128")]] void
floats_128x5(oxide::Span<const float> in, oxide::DisjointSpan<float> out) {
  sort_keys<128, 5, float, Greater, false>(in, out);
}
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void
records_64x4(oxide::Span<const Record> in, oxide::DisjointSpan<Record> out) {
  sort_keys<64, 4, Record, ByBucketDescending, false>(in, out);
}

// Key-value pairs, each value its key's position in the input: keys then values into the
// thread's tile of 2 * Items.
template <int Threads, int Items, class Compare, bool Stable>
void sort_pairs(const oxide::Span<const int> &in, const oxide::DisjointSpan<int> &out) {
  const auto i = oxide::thread::index_1d();
  int k[Items], v[Items];
  for (int j = 0; j < Items; ++j) {
    k[j] = in[i.get() * Items + j];
    v[j] = static_cast<int>(i.get() * Items + j);
  }
  using Sort = cub::BlockMergeSort<int, Threads, Items, int>;
  if constexpr (Stable)
    Sort().StableSort(k, v, Compare{});
  else
    Sort().Sort(k, v, Compare{});
  auto mine = out.template tile_mut<2 * Items>(i);
  for (std::size_t j = 0; j < mine.size(); ++j)
    mine[j] = j < Items ? k[j] : v[j - Items];
}
[[kernel, oxide::launch_contract("domain = 1, block = 128")]] void pairs_128x4(oxide::Span<const int> in,
                                                                               oxide::DisjointSpan<int> out) {
  sort_pairs<128, 4, Less, false>(in, out);
}
[[kernel, oxide::launch_contract("domain = 1, block = 256")]] void pairs_256x3(oxide::Span<const int> in,
                                                                               oxide::DisjointSpan<int> out) {
  sort_pairs<256, 3, Greater, true>(in, out);
}
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void pairs_64x8(oxide::Span<const int> in,
                                                                             oxide::DisjointSpan<int> out) {
  sort_pairs<64, 8, Less, false>(in, out);
}

// A block of 32 x 4 threads (ranked x fastest, as CUB), tiles of 512 pairs: block b sorts tile b
// and stores the keys and the values into row b of the outputs.
[[kernel, oxide::launch_contract("domain = 2, block = (32, 4)")]] void
pairs_32x4(oxide::Span<const int> in, oxide::DisjointSpan2D<int> keys_out,
           oxide::DisjointSpan2D<int> values_out) {
  constexpr int kTile = 32 * 4 * 4;
  const auto rank = static_cast<int>(oxide::thread_idx().y * 32 + oxide::thread_idx().x);
  for (const auto &b : oxide::block::block_stride(keys_out.height())) {
    const std::size_t offset = b.get() * kTile + rank * 4;
    int k[4], v[4];
    for (int j = 0; j < 4; ++j) {
      k[j] = in[offset + j];
      v[j] = static_cast<int>(offset) + j;
    }
    cub::BlockMergeSort<int, 32, 4, int, 4>().Sort(k, v, Less{});
    cub::BlockStore<int, 32, 4, cub::BLOCK_STORE_DIRECT, 4>().Store(keys_out.row_mut(b), k);
    cub::BlockStore<int, 32, 4, cub::BLOCK_STORE_DIRECT, 4>().Store(values_out.row_mut(b), v);
    oxide::sync_threads(); // the next tile reuses the collectives' storage
  }
}

// Partial tiles of 128 x 4: pairs with oob_default INT_MAX (after every key, CUB's use), then,
// through the same storage, keys alone with oob_default INT_MIN (before every key: the valid
// keys still come first). Into the thread's tile of 3 * 4: keys, values, keys.
constexpr int kPartialItems = 4;
[[kernel, oxide::launch_contract("domain = 1, block = 128")]] void
partial_128x4(oxide::Span<const int> in, oxide::DisjointSpan<int> out) {
  const auto i = oxide::thread::index_1d();
  const int valid = valid_of_tile(static_cast<int>(oxide::block::index().get()), 128 * kPartialItems);
  int k[kPartialItems], v[kPartialItems], keys_only[kPartialItems];
  for (int j = 0; j < kPartialItems; ++j) {
    k[j] = keys_only[j] = in[i.get() * kPartialItems + j];
    v[j] = static_cast<int>(i.get() * kPartialItems + j);
  }
  using Sort = cub::BlockMergeSort<int, 128, kPartialItems, int>;
  auto &storage = cub::temp_storage<Sort>();
  Sort(storage).Sort(k, v, Less{}, valid, INT_MAX);
  oxide::sync_threads(); // the storage is used again
  Sort(storage).StableSort(keys_only, Greater{}, valid, INT_MIN);
  auto mine = out.tile_mut<3 * kPartialItems>(i);
  for (std::size_t j = 0; j < mine.size(); ++j)
    mine[j] = j < kPartialItems ? k[j] : j < 2 * kPartialItems ? v[j - kPartialItems] : keys_only[j - 8];
}

// Partial tiles of 64 x 3 records, keys only, and of 64 x 3 pairs by StableSort.
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void
partial_records_64x3(oxide::Span<const Record> in, oxide::DisjointSpan<Record> out) {
  const auto i = oxide::thread::index_1d();
  const int valid = valid_of_tile(static_cast<int>(oxide::block::index().get()), 64 * 3);
  Record k[3];
  for (int j = 0; j < 3; ++j)
    k[j] = in[i.get() * 3 + j];
  cub::BlockMergeSort<Record, 64, 3>().Sort(k, ByBucketDescending{}, valid, Record{-32768, 1, -2});
  auto mine = out.tile_mut<3>(i);
  for (std::size_t j = 0; j < mine.size(); ++j)
    mine[j] = k[j];
}

// A block of 128 threads running a sort made for 256: stops with the collective's message.
[[kernel, oxide::launch_contract("domain = 1")]] void wrong_block(oxide::Span<const int> in,
                                                                  oxide::DisjointSpan<int> out) {
  const auto i = oxide::thread::index_1d();
  int k[1] = {in[i.get()]};
  cub::BlockMergeSort<int, 256, 1>().Sort(k, Less{});
  if (int *o = out.get_mut(i))
    *o = k[0];
}

// ---- WarpMergeSort ----

// Blocks of 64 threads, logical warps of Lanes lanes, each with its own TempStorage. Part 0:
// the warp's pairs ascending, into the thread's tile of 2 * Items (keys, values). Part 1: its pairs
// descending by StableSort with a partial tile (oob_default INT_MIN, before every key), the same
// storage sorting the keys ascending first. Part 2: its keys alone, descending.
template <int Lanes, int Items, int Part>
void warp_sorts(const oxide::Span<const int> &in, const oxide::DisjointSpan<int> &out) {
  const auto i = oxide::thread::index_1d();
  using Sort = cub::WarpMergeSort<int, Items, Lanes, int>;
  auto &storage = oxide::shared_object<typename Sort::TempStorage[64 / Lanes]>();
  Sort sort(storage[oxide::thread_idx().x / Lanes]);
  int k[Items], v[Items];
  for (int j = 0; j < Items; ++j) {
    k[j] = in[i.get() * Items + j];
    v[j] = static_cast<int>(i.get() * Items + j);
  }
  if constexpr (Part == 0) {
    sort.Sort(k, v, Less{});
  } else if constexpr (Part == 1) {
    int before[Items];
    for (int j = 0; j < Items; ++j)
      before[j] = k[j];
    sort.Sort(before, Less{});
    oxide::warp::sync(); // the storage is used again
    const int valid = valid_of_tile(static_cast<int>(i.get() / Lanes), Lanes * Items);
    sort.StableSort(k, v, Greater{}, valid, INT_MIN);
  } else {
    sort.Sort(k, Greater{});
  }
  auto mine = out.template tile_mut<2 * Items>(i);
  for (std::size_t j = 0; j < mine.size(); ++j)
    mine[j] = j < Items ? k[j] : v[j - Items];
}
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void warps_8x3(oxide::Span<const int> in,
                                                                            oxide::DisjointSpan<int> out) {
  warp_sorts<8, 3, 0>(in, out);
}
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void
warps_8x3_partial(oxide::Span<const int> in, oxide::DisjointSpan<int> out) {
  warp_sorts<8, 3, 1>(in, out);
}
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void
warps_8x3_keys(oxide::Span<const int> in, oxide::DisjointSpan<int> out) {
  warp_sorts<8, 3, 2>(in, out);
}
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void warps_16x4(oxide::Span<const int> in,
                                                                             oxide::DisjointSpan<int> out) {
  warp_sorts<16, 4, 0>(in, out);
}
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void
warps_16x4_partial(oxide::Span<const int> in, oxide::DisjointSpan<int> out) {
  warp_sorts<16, 4, 1>(in, out);
}
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void
warps_16x4_keys(oxide::Span<const int> in, oxide::DisjointSpan<int> out) {
  warp_sorts<16, 4, 2>(in, out);
}
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void warps_32x5(oxide::Span<const int> in,
                                                                             oxide::DisjointSpan<int> out) {
  warp_sorts<32, 5, 0>(in, out);
}
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void
warps_32x5_partial(oxide::Span<const int> in, oxide::DisjointSpan<int> out) {
  warp_sorts<32, 5, 1>(in, out);
}
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void
warps_32x5_keys(oxide::Span<const int> in, oxide::DisjointSpan<int> out) {
  warp_sorts<32, 5, 2>(in, out);
}

// Whole warps of float keys, one a lane, and each lane's mask of its logical warp's lanes (8).
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void
warps_float_32x1(oxide::Span<const float> in, oxide::DisjointSpan<float> out) {
  const auto i = oxide::thread::index_1d();
  using Sort = cub::WarpMergeSort<float, 1>;
  auto &storage = oxide::shared_object<Sort::TempStorage[2]>();
  float k[1] = {in[i.get()]};
  Sort(storage[oxide::thread_idx().x / 32]).Sort(k, Greater{});
  if (float *o = out.get_mut(i))
    *o = k[0];
}
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void
member_masks(oxide::DisjointSpan<unsigned> out) {
  const auto i = oxide::thread::index_1d();
  using Sort = cub::WarpMergeSort<int, 2, 8>;
  auto &storage = oxide::shared_object<Sort::TempStorage[8]>();
  const unsigned mask = Sort(storage[oxide::thread_idx().x / 8]).get_member_mask();
  if (unsigned *o = out.get_mut(i))
    *o = mask;
}

namespace {

using lang::Checks;

using lang::mix;

/// The positions [first, first + count) of x in the order std::stable_sort of the first `valid`
/// by `cmp` gives them (equal keys by position: std::sort on the positions, as libstdc++ 12's
/// stable_sort draws a deprecation warning from clang 22), the rest where they are.
template <class Key, class Compare>
std::vector<std::size_t> sorted_positions(const std::vector<Key> &x, std::size_t first, std::size_t count,
                                          std::size_t valid, Compare cmp) {
  std::vector<std::size_t> order(count);
  std::iota(order.begin(), order.end(), first);
  std::sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(std::min(valid, count)),
            [&](std::size_t a, std::size_t b) { return cmp(x[a], x[b]) || (!cmp(x[b], x[a]) && a < b); });
  return order;
}

// Equal bits, so that -0.0 is not +0.0 and a struct's every field counts.
template <class T> bool same(const T &a, const T &b) {
  if constexpr (std::is_same_v<T, float>)
    return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
  else if constexpr (std::is_same_v<T, Record>)
    return a.bucket == b.bucket && a.tag == b.tag && a.id == b.id;
  else
    return a == b;
}
template <class T> std::string show(const T &v) {
  if constexpr (std::is_same_v<T, Record>)
    return "{" + std::to_string(v.bucket) + ", " + std::to_string(v.tag) + ", " + std::to_string(v.id) + "}";
  else if constexpr (std::is_same_v<T, float>)
    return std::to_string(v) + (std::signbit(v) ? " (sign)" : "");
  else
    return std::to_string(v);
}

/// Parts [first, first + count) of each thread's row of `per_thread` results, one check a part.
struct Part {
  std::string name;
  int first, count;
};
template <class T>
void expect_parts(Checks &c, const std::vector<T> &got, const std::vector<T> &want, int per_thread,
                  const std::vector<Part> &parts) {
  const std::size_t threads = want.size() / per_thread;
  for (const Part &p : parts) {
    std::size_t wrong = 0;
    for (std::size_t t = 0; t < threads; ++t)
      for (int k = p.first; k < p.first + p.count; ++k) {
        const std::size_t at = t * per_thread + k;
        if (at < got.size() && !same(got[at], want[at]) && wrong++ < 2)
          std::printf("%s: thread %zu item %d: %s, want %s\n", p.name.c_str(), t, k - p.first,
                      show(got[at]).c_str(), show(want[at]).c_str());
      }
    c.expect(got.size() == want.size() && wrong == 0, p.name + ": " + std::to_string(wrong) + " items wrong");
  }
}

/// A kernel that sorts tiles of `threads` threads' `items` keys, in blocks of `block` threads.
template <class Key, class Compare, class Kernel>
void check_keys(Checks &c, oxide::Context &ctx, oxide::Stream &stream, Kernel kernel, std::uint32_t threads,
                int items, const std::vector<Key> &x, const std::string &name, std::uint32_t block = 0) {
  block = block == 0 ? threads : block;
  const std::size_t tile = threads * items, tiles = x.size() / tile;
  auto in = oxide::DeviceBuffer<Key>::from_host(stream, x);
  auto out = oxide::DeviceBuffer<Key>::uninitialized(stream, x.size());
  oxide::prepare(ctx, kernel,
                 oxide::LaunchConfig1D{static_cast<std::uint32_t>(x.size() / items / block), block})(stream,
                                                                                                     in, out);
  std::vector<Key> want(x.size());
  for (std::size_t b = 0; b < tiles; ++b) {
    const auto order = sorted_positions(x, b * tile, tile, tile, Compare{});
    for (std::size_t p = 0; p < tile; ++p)
      want[b * tile + p] = x[order[p]];
  }
  expect_parts(c, out.to_host(stream), want, items, {{name, 0, items}});
}

template <class Compare, class Kernel>
void check_pairs(Checks &c, oxide::Context &ctx, oxide::Stream &stream, Kernel kernel, std::uint32_t threads,
                 int items, std::size_t blocks, const std::string &name) {
  const std::size_t tile = threads * items, n = blocks * tile;
  std::vector<int> x(n);
  for (std::size_t j = 0; j < n; ++j)
    x[j] = static_cast<int>(mix(j + 11) % 13) - 6; // many equal keys
  auto in = oxide::DeviceBuffer<int>::from_host(stream, x);
  auto out = oxide::DeviceBuffer<int>::from_host(stream, std::vector<int>(2 * n, -99));
  oxide::prepare(ctx, kernel, oxide::LaunchConfig1D{static_cast<std::uint32_t>(blocks), threads})(stream, in,
                                                                                                  out);
  std::vector<int> want(2 * n);
  for (std::size_t b = 0; b < blocks; ++b) {
    const auto order = sorted_positions(x, b * tile, tile, tile, Compare{});
    for (std::size_t p = 0; p < tile; ++p) {
      const std::size_t t = (b * tile + p) / items, k = p % items;
      want[t * 2 * items + k] = x[order[p]];
      want[t * 2 * items + items + k] = static_cast<int>(order[p]);
    }
  }
  expect_parts(c, out.to_host(stream), want, 2 * items,
               {{name + " keys", 0, items}, {name + " values", items, items}});
}

void check_block_keys(Checks &c, oxide::Context &ctx, oxide::Stream &stream) {
  const auto ints = [](std::size_t n, std::uint64_t seed, int range) {
    std::vector<int> x(n);
    for (std::size_t j = 0; j < n; ++j)
      x[j] = static_cast<int>(mix(j + seed) % range) - range / 2;
    return x;
  };
  check_keys<int, Less>(c, ctx, stream, ints_64x1, 64, 1, ints(3 * 64, 1, 1000),
                        "BlockMergeSort<int, 64, 1>::Sort ascending");
  check_keys<int, Less>(c, ctx, stream, ints_128x4, 128, 4, ints(3 * 512, 2, 1 << 30),
                        "BlockMergeSort<int, 128, 4>::Sort(temp_storage) ascending");
  // Already sorted, reversed and all equal tiles too.
  std::vector<int> x = ints(4 * 2048, 3, 100000);
  std::sort(x.begin(), x.begin() + 2048);
  std::sort(x.begin() + 2048, x.begin() + 4096, std::greater<>{});
  std::fill(x.begin() + 4096, x.begin() + 6144, 5);
  check_keys<int, Less>(c, ctx, stream, ints_256x8, 256, 8, x,
                        "BlockMergeSort<int, 256, 8>::StableSort: sorted, reversed, equal and random tiles");
  check_keys<int, Greater>(c, ctx, stream, ints_96x3, 96, 3, ints(4 * 288, 4, 50),
                           "BlockMergeSort<int, 96, 3>::Sort descending (three warps)");
  check_keys<int, Less>(c, ctx, stream, ints_64x5, 64, 5, ints(3 * 320, 5, 1000),
                        "BlockMergeSort<int, 64, 5>::StableSort ascending by a comparator that is not const");
  std::vector<float> f(2 * 640);
  for (std::size_t j = 0; j < f.size(); ++j) {
    const auto r = mix(j + 6) % 23;
    f[j] = r == 0 ? -0.0f : r == 1 ? 0.0f : static_cast<float>(static_cast<int>(r) - 11) * 0.25f;
  }
  check_keys<float, Greater>(c, ctx, stream, floats_128x5, 128, 5, f,
                             "BlockMergeSort<float, 128, 5>::Sort descending, -0.0 and +0.0 in their order");
  std::vector<Record> records(3 * 256);
  for (std::size_t j = 0; j < records.size(); ++j)
    records[j] = {static_cast<std::int16_t>(mix(j + 7) % 9), static_cast<std::uint8_t>(j % 5),
                  static_cast<std::int32_t>(j)};
  check_keys<Record, ByBucketDescending>(
      c, ctx, stream, records_64x4, 64, 4, records,
      "BlockMergeSort<Record, 64, 4>::Sort by a field, equal keys in order");
}

void check_block_pairs(Checks &c, oxide::Context &ctx, oxide::Stream &stream) {
  check_pairs<Less>(c, ctx, stream, pairs_128x4, 128, 4, 3, "BlockMergeSort<int, 128, 4, int>::Sort pairs");
  check_pairs<Greater>(c, ctx, stream, pairs_256x3, 256, 3, 2,
                       "BlockMergeSort<int, 256, 3, int>::StableSort pairs descending");
  check_pairs<Less>(c, ctx, stream, pairs_64x8, 64, 8, 3, "BlockMergeSort<int, 64, 8, int>::Sort pairs");

  constexpr std::size_t tiles = 3, tile = 512;
  std::vector<int> x(tiles * tile);
  for (std::size_t j = 0; j < x.size(); ++j)
    x[j] = static_cast<int>(mix(j + 12) % 40);
  auto in = oxide::DeviceBuffer<int>::from_host(stream, x);
  auto keys = oxide::DeviceBuffer<int>::from_host(stream, std::vector<int>(x.size(), -99));
  auto values = oxide::DeviceBuffer<int>::from_host(stream, std::vector<int>(x.size(), -99));
  oxide::prepare(ctx, pairs_32x4, oxide::LaunchConfig2D{{1, 2, 1}, {32, 4, 1}})(
      stream, in, keys.view_2d(tile, tiles), values.view_2d(tile, tiles));
  std::vector<int> want_keys(x.size()), want_values(x.size());
  for (std::size_t b = 0; b < tiles; ++b) {
    const auto order = sorted_positions(x, b * tile, tile, tile, Less{});
    for (std::size_t p = 0; p < tile; ++p) {
      want_keys[b * tile + p] = x[order[p]];
      want_values[b * tile + p] = static_cast<int>(order[p]);
    }
  }
  expect_parts(c, keys.to_host(stream), want_keys, 4,
               {{"BlockMergeSort<int, 32, 4, int, 4> keys (a 2-D block)", 0, 4}});
  expect_parts(c, values.to_host(stream), want_values, 4,
               {{"BlockMergeSort<int, 32, 4, int, 4> values (a 2-D block)", 0, 4}});
}

void check_partial(Checks &c, oxide::Context &ctx, oxide::Stream &stream) {
  {
    constexpr std::size_t blocks = 7, tile = 128 * kPartialItems, n = blocks * tile, per = 3 * kPartialItems;
    std::vector<int> x(n);
    for (std::size_t j = 0; j < n; ++j)
      x[j] = static_cast<int>(mix(j + 13) % 21) - 10;
    auto in = oxide::DeviceBuffer<int>::from_host(stream, x);
    auto out = oxide::DeviceBuffer<int>::from_host(stream, std::vector<int>(n * 3, -99));
    oxide::prepare(ctx, partial_128x4, oxide::LaunchConfig1D{blocks, 128})(stream, in, out);
    std::vector<int> want(n * 3);
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::size_t valid = std::clamp(valid_of_tile(static_cast<int>(b), int(tile)), 0, int(tile));
      const auto up = sorted_positions(x, b * tile, tile, valid, Less{});
      const auto down = sorted_positions(x, b * tile, tile, valid, Greater{});
      for (std::size_t p = 0; p < tile; ++p) {
        const std::size_t t = (b * tile + p) / kPartialItems, k = p % kPartialItems;
        int *row = want.data() + t * per;
        row[k] = p < valid ? x[up[p]] : INT_MAX;
        row[kPartialItems + k] = static_cast<int>(up[p]);
        row[2 * kPartialItems + k] = p < valid ? x[down[p]] : INT_MIN;
      }
    }
    expect_parts(
        c, out.to_host(stream), want, per,
        {{"BlockMergeSort<int, 128, 4, int>::Sort pairs, valid_items, oob_default after the keys", 0,
          2 * kPartialItems},
         {"BlockMergeSort<int, 128, 4, int>::StableSort keys, valid_items, oob_default before the keys",
          2 * kPartialItems, kPartialItems}});
  }
  {
    constexpr std::size_t blocks = 6, tile = 64 * 3, n = blocks * tile;
    std::vector<Record> x(n);
    for (std::size_t j = 0; j < n; ++j)
      x[j] = {static_cast<std::int16_t>(mix(j + 14) % 5), static_cast<std::uint8_t>(j % 3),
              static_cast<std::int32_t>(j)};
    auto in = oxide::DeviceBuffer<Record>::from_host(stream, x);
    auto out = oxide::DeviceBuffer<Record>::uninitialized(stream, n);
    oxide::prepare(ctx, partial_records_64x3, oxide::LaunchConfig1D{blocks, 64})(stream, in, out);
    std::vector<Record> want(n);
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::size_t valid = std::clamp(valid_of_tile(static_cast<int>(b), int(tile)), 0, int(tile));
      const auto order = sorted_positions(x, b * tile, tile, valid, ByBucketDescending{});
      for (std::size_t p = 0; p < tile; ++p)
        want[b * tile + p] = p < valid ? x[order[p]] : Record{-32768, 1, -2};
    }
    expect_parts(c, out.to_host(stream), want, 3,
                 {{"BlockMergeSort<Record, 64, 3>::Sort, valid_items, oob_default", 0, 3}});
  }
}

template <int Lanes, int Items, class Kernel>
void check_warps(Checks &c, oxide::Context &ctx, oxide::Stream &stream, Kernel pairs, Kernel partial,
                 Kernel keys) {
  constexpr std::size_t blocks = 3, threads = blocks * 64, n = threads * Items, tile = Lanes * Items;
  constexpr int per = 2 * Items;
  std::vector<int> x(n);
  for (std::size_t j = 0; j < n; ++j)
    x[j] = static_cast<int>(mix(j + 15 + Lanes) % 11) - 5;
  auto in = oxide::DeviceBuffer<int>::from_host(stream, x);
  const std::string name =
      "WarpMergeSort<int, " + std::to_string(Items) + ", " + std::to_string(Lanes) + ", int>";
  const Kernel kernels[3] = {pairs, partial, keys};
  const char *names[3] = {"::Sort pairs", "::StableSort pairs descending, valid_items, oob_default",
                          "::Sort keys descending"};
  for (int part = 0; part < 3; ++part) {
    auto out = oxide::DeviceBuffer<int>::from_host(stream, std::vector<int>(threads * per, -99));
    oxide::prepare(ctx, kernels[part], oxide::LaunchConfig1D{blocks, 64})(stream, in, out);
    std::vector<int> want(threads * per);
    for (std::size_t w = 0; w < n / tile; ++w) {
      const std::size_t valid =
          part != 1 ? tile : std::clamp(valid_of_tile(static_cast<int>(w), int(tile)), 0, int(tile));
      const auto order = part == 0 ? sorted_positions(x, w * tile, tile, valid, Less{})
                                   : sorted_positions(x, w * tile, tile, valid, Greater{});
      for (std::size_t p = 0; p < tile; ++p) {
        const std::size_t t = (w * tile + p) / Items, k = p % Items;
        want[t * per + k] = p < valid ? x[order[p]] : INT_MIN;
        // Keys alone: the values are left as they were.
        want[t * per + Items + k] = static_cast<int>(part == 2 ? w * tile + p : order[p]);
      }
    }
    expect_parts(c, out.to_host(stream), want, per, {{name + names[part], 0, per}});
  }
}

void check_warp_extras(Checks &c, oxide::Context &ctx, oxide::Stream &stream) {
  std::vector<float> f(2 * 64);
  for (std::size_t j = 0; j < f.size(); ++j)
    f[j] = j % 9 == 0 ? -0.0f : j % 9 == 1 ? 0.0f : static_cast<float>(mix(j + 16) % 1000) / 7.0f - 70.0f;
  check_keys<float, Greater>(c, ctx, stream, warps_float_32x1, 32, 1, f,
                             "WarpMergeSort<float, 1>::Sort descending, one key a lane", 64);
  auto masks = oxide::DeviceBuffer<unsigned>::uninitialized(stream, 64);
  oxide::prepare(ctx, member_masks, oxide::LaunchConfig1D{1, 64})(stream, masks);
  std::vector<unsigned> want(64);
  for (std::size_t t = 0; t < 64; ++t)
    want[t] = 0xffu << (t % 32 / 8 * 8);
  expect_parts(c, masks.to_host(stream), want, 1, {{"WarpMergeSort<int, 2, 8>::get_member_mask", 0, 1}});
}

} // namespace

int main() try {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  Checks c;
  check_block_keys(c, ctx, stream);
  check_block_pairs(c, ctx, stream);
  check_partial(c, ctx, stream);
  check_warps<8, 3>(c, ctx, stream, warps_8x3, warps_8x3_partial, warps_8x3_keys);
  check_warps<16, 4>(c, ctx, stream, warps_16x4, warps_16x4_partial, warps_16x4_keys);
  check_warps<32, 5>(c, ctx, stream, warps_32x5, warps_32x5_partial, warps_32x5_keys);
  check_warp_extras(c, ctx, stream);

  c.expect_stop("a BlockMergeSort<int, 256, 1> in a block of 128", [&] {
    auto in = oxide::DeviceBuffer<int>::from_host(stream, std::vector<int>(128, 1));
    auto out = oxide::DeviceBuffer<int>::uninitialized(stream, 128);
    oxide::prepare(ctx, wrong_block, oxide::LaunchConfig1D{1, 128})(stream, in, out);
    stream.synchronize();
  });
  return c.finish("cub_merge_sort", ctx);
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\nFAIL\n", e.what());
  return 1;
}
