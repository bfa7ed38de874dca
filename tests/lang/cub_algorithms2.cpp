// oxide::cub (include/oxide/cub.hpp), continued from cub_algorithms.cpp: CUB's partition
// (DevicePartition::Flagged), histogram over given levels (DeviceHistogram::HistogramRange) and
// segmented sorts (DeviceSegmentedSort) on Oxide buffers, checked against the host's algorithms:
// CUB's documented orders (the rejected elements of a partition reversed at the back; stable sorts
// per segment in both directions, empty segments, elements outside every segment untouched),
// samples outside the levels, slices of larger buffers, and the errors of misuse (sizes,
// overlaps, levels too short). Keys come from a kernel, as in a port. On the GPU the toolkit's CUB
// runs them; on the CPU simulator the library's host algorithms.
#include <oxide/cub.hpp>
#include <oxide/oxide.hpp>

#include "lang_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <span>
#include <string>
#include <vector>

// A hash of the index (splitmix64's finaliser), truncated: keys with duplicates when masked.
[[kernel, oxide::launch_contract("domain = 1")]] void make_keys(oxide::DisjointSpan<std::uint32_t> keys,
                                                                std::uint32_t mask) {
  const auto i = oxide::thread::index_1d();
  if (std::uint32_t *k = keys.get_mut(i)) {
    std::uint64_t z = i.get() + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    *k = static_cast<std::uint32_t>(z ^ (z >> 31)) & mask;
  }
}

namespace {

using lang::Checks;
using oxide::cub::Order;

/// A stable sort of `v` by `less` (std::stable_sort warns under clang 22 with libstdc++ 12).
template <class T, class Less> void stable_sort_by(std::vector<T> &v, Less less) {
  std::vector<std::size_t> p(v.size());
  std::iota(p.begin(), p.end(), std::size_t{0});
  std::sort(p.begin(), p.end(),
            [&](std::size_t a, std::size_t b) { return less(v[a], v[b]) || (!less(v[b], v[a]) && a < b); });
  std::vector<T> sorted(v.size());
  for (std::size_t i = 0; i < p.size(); ++i)
    sorted[i] = v[p[i]];
  v = std::move(sorted);
}

template <class T> bool same_bits(const std::vector<T> &a, const std::vector<T> &b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

/// CUB's partition of `in` by `flags`, built the way std::stable_partition would split it: the
/// selected elements in order, then the rejected ones, reversed (CUB fills them from the back).
template <class T, class Flag>
std::vector<T> partitioned(const std::vector<T> &in, const Flag *flags, std::size_t &selected) {
  std::vector<T> front, back;
  for (std::size_t i = 0; i < in.size(); ++i)
    (flags[i] ? front : back).push_back(in[i]);
  selected = front.size();
  front.insert(front.end(), back.rbegin(), back.rend());
  return front;
}

/// The bins [levels[i], levels[i + 1]) counted by a plain loop over the bins.
template <class T, class Level>
std::vector<std::uint32_t> histogram_of(const std::vector<T> &samples, const std::vector<Level> &levels) {
  std::vector<std::uint32_t> counts(levels.size() - 1, 0);
  for (const T x : samples)
    for (std::size_t b = 0; b + 1 < levels.size(); ++b)
      if (static_cast<Level>(x) >= levels[b] && static_cast<Level>(x) < levels[b + 1])
        ++counts[b];
  return counts;
}

/// `keys` (and `values`) with each segment [bounds[s], bounds[s + 1]) stably sorted by key in
/// `order`; the elements outside every segment as in `outside`.
template <class K, class V>
void sort_segments(std::vector<K> &keys, std::vector<V> *values, const std::vector<std::int64_t> &bounds,
                   Order order) {
  for (std::size_t s = 0; s + 1 < bounds.size(); ++s) {
    std::vector<std::size_t> p(static_cast<std::size_t>(bounds[s + 1] - bounds[s]));
    std::iota(p.begin(), p.end(), static_cast<std::size_t>(bounds[s]));
    stable_sort_by(p, [&](std::size_t a, std::size_t b) {
      return order == Order::ascending ? keys[a] < keys[b] : keys[b] < keys[a];
    });
    const std::vector<K> k = keys;
    for (std::size_t i = 0; i < p.size(); ++i)
      keys[static_cast<std::size_t>(bounds[s]) + i] = k[p[i]];
    if (values) {
      const std::vector<V> v = *values;
      for (std::size_t i = 0; i < p.size(); ++i)
        (*values)[static_cast<std::size_t>(bounds[s]) + i] = v[p[i]];
    }
  }
}

struct alignas(16) Record {
  std::uint32_t id;
  float x, y, z;
};

} // namespace

int main() try {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  Checks c;

  constexpr std::size_t n = 100003;
  auto keys = oxide::DeviceBuffer<std::uint32_t>::uninitialized(stream, n);
  oxide::prepare(ctx, make_keys, oxide::LaunchConfig1D::for_elements(n))(stream, keys, ~0U);
  const std::vector<std::uint32_t> host_keys = keys.to_host(stream);
  auto count = oxide::DeviceBuffer<std::int64_t>::uninitialized(stream, 1);

  // Partition: CUB's own example, then 16-byte records, then bytes in slices with bool flags.
  {
    auto in = oxide::DeviceBuffer<std::int32_t>::from_host(stream,
                                                           std::vector<std::int32_t>{1, 2, 3, 4, 5, 6, 7, 8});
    auto flags = oxide::DeviceBuffer<std::uint8_t>::from_host(
        stream, std::vector<std::uint8_t>{1, 0, 0, 1, 0, 1, 1, 0});
    auto out = oxide::DeviceBuffer<std::int32_t>::uninitialized(stream, 8);
    oxide::cub::partition_flagged(stream, in, flags, out, count);
    c.expect(out.to_host(stream) == std::vector<std::int32_t>{1, 4, 6, 7, 8, 5, 3, 2} &&
                 count.to_host(stream)[0] == 4,
             "partition_flagged: CUB's example, the rejected reversed at the back");
  }
  std::vector<Record> records(5000);
  std::vector<std::uint8_t> record_flags(records.size());
  for (std::uint32_t i = 0; i < records.size(); ++i) {
    records[i] = {i, float(i), -float(i), 0.5f};
    record_flags[i] =
        static_cast<std::uint8_t>(host_keys[i] % 3 == 0 ? 1 + host_keys[i] % 200 : 0); // any nonzero
  }
  auto rin = oxide::DeviceBuffer<Record>::from_host(stream, records);
  auto rflags = oxide::DeviceBuffer<std::uint8_t>::from_host(stream, record_flags);
  auto rout = oxide::DeviceBuffer<Record>::uninitialized(stream, records.size());
  {
    std::size_t selected = 0;
    const std::vector<Record> want = partitioned(records, record_flags.data(), selected);
    oxide::cub::partition_flagged(stream, rin, rflags, rout, count);
    c.expect(count.to_host(stream)[0] == static_cast<std::int64_t>(selected) &&
                 same_bits(rout.to_host(stream), want),
             "partition_flagged 16-byte records");
  }
  {
    std::vector<std::uint8_t> bytes(3000);
    const std::size_t m = 2000;
    std::unique_ptr<bool[]> flag_bits(new bool[m]);
    for (std::size_t i = 0; i < bytes.size(); ++i)
      bytes[i] = static_cast<std::uint8_t>(host_keys[i] >> 24);
    for (std::size_t i = 0; i < m; ++i)
      flag_bits[i] = (host_keys[i + 500] & 4) != 0;
    auto in = oxide::DeviceBuffer<std::uint8_t>::from_host(stream, bytes);
    auto flags = oxide::DeviceBuffer<bool>::from_host(stream, std::span<const bool>(flag_bits.get(), m));
    auto out = oxide::DeviceBuffer<std::uint8_t>::from_host(stream, std::vector<std::uint8_t>(3000, 0xee));
    oxide::cub::partition_flagged(stream, in.slice(500, m), flags, out.slice(700, m), count.slice(0, 1));
    std::size_t selected = 0;
    const std::vector<std::uint8_t> part(bytes.begin() + 500, bytes.begin() + 500 + m);
    const std::vector<std::uint8_t> want = partitioned(part, flag_bits.get(), selected);
    const std::vector<std::uint8_t> got = out.to_host(stream);
    bool right = count.to_host(stream)[0] == static_cast<std::int64_t>(selected);
    for (std::size_t i = 0; i < got.size(); ++i)
      right = right && got[i] == (i >= 700 && i < 700 + m ? want[i - 700] : 0xee);
    c.expect(right, "partition_flagged bytes by bool flags on slices, nothing outside them written");
    auto none = oxide::DeviceBuffer<std::uint8_t>::uninitialized(stream, 0);
    auto no_flags = oxide::DeviceBuffer<std::uint8_t>::uninitialized(stream, 0);
    auto none_out = oxide::DeviceBuffer<std::uint8_t>::uninitialized(stream, 0);
    oxide::cub::partition_flagged(stream, none, no_flags, none_out, count);
    c.expect(count.to_host(stream)[0] == 0, "partition_flagged of nothing selects 0");
  }

  // Histograms over given levels: samples below the first level, at or above the last, on the
  // levels themselves, an empty bin between equal levels.
  {
    std::vector<std::uint8_t> bytes(100000);
    for (std::size_t i = 0; i < bytes.size(); ++i)
      bytes[i] = static_cast<std::uint8_t>(host_keys[i] >> 8);
    const std::vector<int> levels = {10, 20, 20, 50, 51, 128, 200};
    auto samples = oxide::DeviceBuffer<std::uint8_t>::from_host(stream, bytes);
    auto lv = oxide::DeviceBuffer<int>::from_host(stream, levels);
    auto counters = oxide::DeviceBuffer<std::uint32_t>::from_host(stream, std::vector<std::uint32_t>(6, 77));
    oxide::cub::histogram_range(stream, samples, lv, counters);
    const std::vector<std::uint32_t> want = histogram_of(bytes, levels);
    c.expect(counters.to_host(stream) == want && want[1] == 0 && want[0] != 0,
             "histogram_range uint8, 6 bins (one empty) over [10, 200)");
  }
  {
    std::vector<std::uint16_t> shorts(60000);
    for (std::size_t i = 0; i < shorts.size(); ++i)
      shorts[i] = static_cast<std::uint16_t>(host_keys[i] >> 16);
    const std::vector<int> levels = {0, 1, 1000, 30000, 65535};
    auto samples = oxide::DeviceBuffer<std::uint16_t>::from_host(stream, shorts);
    auto lv = oxide::DeviceBuffer<int>::from_host(stream, levels);
    auto counters = oxide::DeviceBuffer<std::uint32_t>::uninitialized(stream, 4);
    oxide::cub::histogram_range(stream, samples, lv, counters);
    c.expect(counters.to_host(stream) == histogram_of(shorts, levels),
             "histogram_range uint16, 65535 uncounted");
  }
  {
    // int32 samples into 1000 bins of uneven widths (more bins than CUB keeps in shared memory).
    std::vector<std::int32_t> ints(n);
    for (std::size_t i = 0; i < n; ++i)
      ints[i] = static_cast<std::int32_t>(host_keys[i] % 250000) - 120000;
    std::vector<int> levels(1001);
    for (std::size_t i = 0; i < levels.size(); ++i)
      levels[i] = -100000 + static_cast<int>(i * i / 5);
    auto samples = oxide::DeviceBuffer<std::int32_t>::from_host(stream, ints);
    auto lv = oxide::DeviceBuffer<int>::from_host(stream, levels);
    auto counters = oxide::DeviceBuffer<std::uint32_t>::uninitialized(stream, 1000);
    oxide::cub::histogram_range(stream, samples, lv, counters);
    const std::vector<std::uint32_t> want = histogram_of(ints, levels);
    const auto counted = std::accumulate(want.begin(), want.end(), std::uint64_t{0});
    c.expect(counters.to_host(stream) == want && counted > 0 && counted < n,
             "histogram_range int32, 1000 uneven bins, samples on both sides outside");
  }
  {
    // Floats: on the levels, between them, outside, the infinities and NaN (never counted).
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    std::vector<float> values = {-2.0f, -1.0f, -0.75f, -0.5f, -0.0f, 0.0f, 0.1f, 0.25f, 0.9f,
                                 1.0f,  3.9f,  4.0f,   7.0f,  -inf,  inf,  nan,  -nan};
    for (std::size_t i = 0; i < 20000; ++i)
      values.push_back(static_cast<float>(host_keys[i] % 1200) / 200.0f - 1.5f);
    const std::vector<float> levels = {-1.0f, -0.5f, 0.0f, 0.25f, 1.0f, 4.0f};
    auto samples = oxide::DeviceBuffer<float>::from_host(stream, values);
    auto lv = oxide::DeviceBuffer<float>::from_host(stream, levels);
    auto counters = oxide::DeviceBuffer<std::uint32_t>::uninitialized(stream, 5);
    oxide::cub::histogram_range(stream, samples, lv, counters);
    c.expect(counters.to_host(stream) == histogram_of(values, levels),
             "histogram_range float, NaN and inf outside");
    auto one = oxide::DeviceBuffer<float>::from_host(stream, std::vector<float>{0.0f, 1.0f, 2.0f, 3.0f});
    oxide::cub::histogram_range(stream, one.slice(1, 2), lv.slice(4, 2), counters.slice(2, 1));
    const std::vector<std::uint32_t> got = counters.to_host(stream);
    c.expect(got[2] == 2 && got[1] == histogram_of(values, levels)[1],
             "histogram_range on slices: one bin [1, 4), nothing outside it written");
  }
  {
    // Levels out of order: neither CUB nor the simulator checks them; both bin each sample by
    // CUB's binary search (the bin before the first level above it). By hand, for levels
    // {0, 50, 10, 100}: 5 -> bin 0; 30, 45, 60 -> bin 2; -1 and 100 -> none.
    auto samples = oxide::DeviceBuffer<std::int32_t>::from_host(
        stream, std::vector<std::int32_t>{5, 30, 60, 100, -1, 45});
    auto lv = oxide::DeviceBuffer<int>::from_host(stream, std::vector<int>{0, 50, 10, 100});
    auto counters = oxide::DeviceBuffer<std::uint32_t>::uninitialized(stream, 3);
    oxide::cub::histogram_range(stream, samples, lv, counters);
    c.expect(counters.to_host(stream) == std::vector<std::uint32_t>{1, 0, 3},
             "histogram_range with unsorted levels bins as CUB's binary search");
  }

  // Segmented sorts: segments of every size CUB treats differently (empty, 1, 2, small, medium,
  // large), elements before the first and after the last segment left as they were.
  const std::vector<std::int64_t> bounds = {7,   7,   8,    10,   13,   30,    30,    100,
                                            356, 357, 1000, 5000, 5000, 12000, 60000, 99000};
  auto seg = oxide::DeviceBuffer<std::int64_t>::from_host(stream, bounds);
  auto sorted = oxide::DeviceBuffer<std::uint32_t>::uninitialized(stream, n);
  for (const Order order : {Order::ascending, Order::descending}) {
    const char *name = order == Order::ascending ? "ascending" : "descending";
    std::vector<std::uint32_t> want = host_keys;
    sort_segments(want, static_cast<std::vector<std::uint32_t> *>(nullptr), bounds, order);
    std::fill(want.begin(), want.begin() + 7, 0xabcdefU);
    std::fill(want.begin() + 99000, want.end(), 0xabcdefU);
    sorted.copy_from_host(stream, std::vector<std::uint32_t>(n, 0xabcdefU));
    oxide::cub::segmented_sort(stream, keys, sorted, seg, order);
    c.expect(sorted.to_host(stream) == want, std::string("segmented_sort uint32 ") + name);
  }
  {
    // Pairs with duplicate keys: stable in both orders.
    auto dup = oxide::DeviceBuffer<std::uint32_t>::uninitialized(stream, n);
    oxide::prepare(ctx, make_keys, oxide::LaunchConfig1D::for_elements(n))(stream, dup, 0x1fU);
    const std::vector<std::uint32_t> dup_keys = dup.to_host(stream);
    std::vector<std::uint32_t> ids(n);
    std::iota(ids.begin(), ids.end(), 0U);
    auto id_in = oxide::DeviceBuffer<std::uint32_t>::from_host(stream, ids);
    auto id_out = oxide::DeviceBuffer<std::uint32_t>::from_host(stream, ids);
    const std::vector<std::int64_t> whole = {0, 1, 3, 40, 40, 300, 2000, 40000, 100003};
    auto whole_seg = oxide::DeviceBuffer<std::int64_t>::from_host(stream, whole);
    for (const Order order : {Order::ascending, Order::descending}) {
      const char *name = order == Order::ascending ? "ascending" : "descending";
      std::vector<std::uint32_t> want_keys = dup_keys, want_ids = ids;
      sort_segments(want_keys, &want_ids, whole, order);
      oxide::cub::segmented_sort_pairs(stream, dup, sorted, id_in, id_out, whole_seg, order);
      c.expect(sorted.to_host(stream) == want_keys, std::string("segmented_sort_pairs keys ") + name);
      c.expect(id_out.to_host(stream) == want_ids, std::string("segmented_sort_pairs values stable ") + name);
    }
  }
  {
    // int64 keys with double values, descending, in slices of larger buffers.
    std::vector<std::int64_t> big_keys(1000);
    std::vector<double> big_values(1000);
    for (std::size_t i = 0; i < big_keys.size(); ++i) {
      big_keys[i] = static_cast<std::int64_t>(host_keys[i] % 50) * ((i % 3 == 0) ? -1 : 1) - 7;
      big_values[i] = static_cast<double>(i) + 0.25;
    }
    auto ik = oxide::DeviceBuffer<std::int64_t>::from_host(stream, big_keys);
    auto iv = oxide::DeviceBuffer<double>::from_host(stream, big_values);
    auto ok = oxide::DeviceBuffer<std::int64_t>::zeroed(stream, 1000);
    auto ov = oxide::DeviceBuffer<double>::zeroed(stream, 1000);
    const std::vector<std::int64_t> parts = {0, 100, 101, 101, 480, 500};
    auto part_seg = oxide::DeviceBuffer<std::int64_t>::from_host(stream, parts);
    oxide::cub::segmented_sort_pairs(stream, ik.slice(100, 500), ok.slice(300, 500), iv.slice(100, 500),
                                     ov.slice(300, 500), part_seg, Order::descending);
    std::vector<std::int64_t> want_k(big_keys.begin() + 100, big_keys.begin() + 600);
    std::vector<double> want_v(big_values.begin() + 100, big_values.begin() + 600);
    sort_segments(want_k, &want_v, parts, Order::descending);
    const std::vector<std::int64_t> got_k = ok.to_host(stream);
    const std::vector<double> got_v = ov.to_host(stream);
    bool right = got_k[299] == 0 && got_k[800] == 0 && got_v[299] == 0.0 && got_v[800] == 0.0;
    for (std::size_t i = 0; i < 500; ++i)
      right = right && got_k[300 + i] == want_k[i] && got_v[300 + i] == want_v[i];
    c.expect(right, "segmented_sort_pairs int64/double descending on slices, nothing outside them written");
  }
  {
    // Floats bit for bit: -0.0 and +0.0 equal keys that keep their order, the infinities at the
    // ends (no NaNs: CUB's order of them depends on the segment's size).
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<float> fkeys = {3.5f,  0.0f, -1e-40f, inf,   -0.0f, 1e-40f,
                                -2.5f, -inf, 0.0f,    -0.0f, 1.0f,  -1e30f};
    for (std::size_t i = 0; i < 3000; ++i) {
      const float v = static_cast<float>(host_keys[i] % 100) - 50.0f;
      fkeys.push_back(v == 0.0f && (host_keys[i] & 1) != 0 ? -0.0f : v);
    }
    const std::vector<std::int64_t> fb = {0, 12, 12, 40, 3012};
    auto fin = oxide::DeviceBuffer<float>::from_host(stream, fkeys);
    auto fout = oxide::DeviceBuffer<float>::uninitialized(stream, fkeys.size());
    auto fseg = oxide::DeviceBuffer<std::int64_t>::from_host(stream, fb);
    for (const Order order : {Order::ascending, Order::descending}) {
      std::vector<float> want = fkeys;
      sort_segments(want, static_cast<std::vector<float> *>(nullptr), fb, order);
      oxide::cub::segmented_sort(stream, fin, fout, fseg, order);
      c.expect(same_bits(fout.to_host(stream), want),
               std::string("segmented_sort float, -0.0 and +0.0 kept in order, ") +
                   (order == Order::ascending ? "ascending" : "descending"));
    }
    std::vector<double> dkeys(777);
    for (std::size_t i = 0; i < dkeys.size(); ++i)
      dkeys[i] = static_cast<double>(host_keys[i] % 1000) / 3.0 - 100.0;
    const std::vector<std::int64_t> db = {0, 777};
    auto din = oxide::DeviceBuffer<double>::from_host(stream, dkeys);
    auto dout = oxide::DeviceBuffer<double>::uninitialized(stream, dkeys.size());
    oxide::cub::segmented_sort(stream, din, dout, oxide::DeviceBuffer<std::int64_t>::from_host(stream, db),
                               Order::descending);
    sort_segments(dkeys, static_cast<std::vector<double> *>(nullptr), db, Order::descending);
    c.expect(dout.to_host(stream) == dkeys, "segmented_sort double, one segment, descending");
    auto no_keys = oxide::DeviceBuffer<double>::uninitialized(stream, 0);
    auto no_out = oxide::DeviceBuffer<double>::uninitialized(stream, 0);
    oxide::cub::segmented_sort(stream, no_keys, no_out, oxide::DeviceBuffer<std::int64_t>::zeroed(stream, 3));
    c.expect(true, "segmented_sort of nothing");
  }

  // Misuse: each refused before anything runs, with its kind.
  using K = oxide::ErrorKind;
  auto small = oxide::DeviceBuffer<std::int64_t>::uninitialized(stream, 2);
  c.expect_error(K::SizeMismatch, "a partition into a smaller buffer",
                 [&] { oxide::cub::partition_flagged(stream, rin, rflags, rout.slice(0, 4999), count); });
  c.expect_error(K::SizeMismatch, "a partition with too few flags",
                 [&] { oxide::cub::partition_flagged(stream, rin, rflags.slice(0, 10), rout, count); });
  c.expect_error(K::SizeMismatch, "a partition's count of two elements",
                 [&] { oxide::cub::partition_flagged(stream, rin, rflags, rout, small); });
  c.expect_error(K::OverlappingArguments, "a partition in place",
                 [&] { oxide::cub::partition_flagged(stream, rin, rflags, rin, count); });
  c.expect_error(K::OverlappingArguments, "a partition into an overlapping slice", [&] {
    oxide::cub::partition_flagged(stream, rin.slice(0, 100), rflags.slice(0, 100), rin.slice(99, 100), count);
  });
  {
    auto s8 = oxide::DeviceBuffer<std::uint8_t>::zeroed(stream, 10);
    auto one_level = oxide::DeviceBuffer<int>::from_host(stream, std::vector<int>{5});
    auto three_levels = oxide::DeviceBuffer<int>::from_host(stream, std::vector<int>{1, 2, 3});
    auto no_counters = oxide::DeviceBuffer<std::uint32_t>::uninitialized(stream, 0);
    auto three_counters = oxide::DeviceBuffer<std::uint32_t>::uninitialized(stream, 3);
    c.expect_error(K::SizeMismatch, "a histogram over one level",
                   [&] { oxide::cub::histogram_range(stream, s8, one_level, no_counters); });
    c.expect_error(K::SizeMismatch, "a histogram with as many counters as levels",
                   [&] { oxide::cub::histogram_range(stream, s8, three_levels, three_counters); });
  }
  c.expect_error(K::SizeMismatch, "a segmented sort into a shorter buffer",
                 [&] { oxide::cub::segmented_sort(stream, keys, sorted.slice(0, 3), seg); });
  c.expect_error(K::OverlappingArguments, "a segmented sort in place",
                 [&] { oxide::cub::segmented_sort(stream, keys, keys, seg); });
  c.expect_error(K::SizeMismatch, "a segmented sort without offsets", [&] {
    oxide::cub::segmented_sort(stream, keys, sorted,
                               oxide::DeviceBuffer<std::int64_t>::uninitialized(stream, 0));
  });
  c.expect_error(K::OverlappingArguments, "segmented pairs whose values overlap", [&] {
    auto v = oxide::DeviceBuffer<std::uint32_t>::uninitialized(stream, 101);
    oxide::cub::segmented_sort_pairs(stream, keys.slice(0, 100), sorted.slice(0, 100), v.slice(0, 100),
                                     v.slice(1, 100), seg.slice(0, 2));
  });
  if (ctx.is_simulator()) {
    // Offsets are read on the GPU unchecked; the simulator checks them.
    c.expect_error(K::Other, "segments past the keys (simulator)", [&] {
      oxide::cub::segmented_sort(stream, keys.slice(0, 50), sorted.slice(0, 50), seg.slice(0, 8));
    });
  }

  std::printf("cub_algorithms2: %zu checks on %s\n", c.count, ctx.device().name().c_str());
  if (c.failures != 0) {
    std::printf("FAIL: %zu of %zu\n", c.failures, c.count);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
} catch (const std::exception &e) {
  std::printf("FAIL: %s\n", e.what());
  return 1;
}
