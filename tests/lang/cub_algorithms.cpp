// oxide::cub (include/oxide/cub.hpp): CUB's device-wide radix sort, scans, reductions,
// segmented reductions and selection on Oxide buffers, as a CUDA program calls them, checked
// against the host's algorithms: the orders CUB documents (stable sorts, floats with -0.0 before
// +0.0 and NaNs at the ends by sign, key bit ranges), slices of larger buffers, empty inputs, and
// the errors of misuse (sizes, overlaps, bit ranges). Keys come from a kernel, as in a port.
// On the GPU the toolkit's CUB runs them; on the CPU simulator the library's host algorithms.
#include <oxide/cub.hpp>
#include <oxide/oxide.hpp>

#include "lang_check.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numeric>
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

struct alignas(16) Record {
  std::uint32_t id;
  float x, y, z;
};

} // namespace

int main() try {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  Checks c;

  // Keys from a kernel, sorted ascending and descending.
  constexpr std::size_t n = 100003;
  auto keys = oxide::DeviceBuffer<std::uint32_t>::uninitialized(stream, n);
  auto sorted = oxide::DeviceBuffer<std::uint32_t>::uninitialized(stream, n);
  oxide::prepare(ctx, make_keys, oxide::LaunchConfig1D::for_elements(n))(stream, keys, ~0U);
  std::vector<std::uint32_t> host_keys = keys.to_host(stream), want = host_keys;
  std::sort(want.begin(), want.end());
  oxide::cub::sort(stream, keys, sorted);
  c.expect(sorted.to_host(stream) == want, "sort uint32 ascending");
  oxide::cub::sort(stream, keys, sorted, oxide::cub::Order::descending);
  std::reverse(want.begin(), want.end());
  c.expect(sorted.to_host(stream) == want, "sort uint32 descending");

  // Pairs with duplicate keys: stable in both orders (equal keys keep their input order).
  oxide::prepare(ctx, make_keys, oxide::LaunchConfig1D::for_elements(n))(stream, keys, 0x3fU);
  host_keys = keys.to_host(stream);
  std::vector<std::uint32_t> ids(n);
  std::iota(ids.begin(), ids.end(), 0U);
  auto id_in = oxide::DeviceBuffer<std::uint32_t>::from_host(stream, ids);
  auto id_out = oxide::DeviceBuffer<std::uint32_t>::uninitialized(stream, n);
  for (const auto order : {oxide::cub::Order::ascending, oxide::cub::Order::descending}) {
    std::vector<std::uint32_t> perm = ids;
    stable_sort_by(perm, [&](std::uint32_t a, std::uint32_t b) {
      return order == oxide::cub::Order::ascending ? host_keys[a] < host_keys[b]
                                                   : host_keys[a] > host_keys[b];
    });
    std::vector<std::uint32_t> perm_keys(n);
    for (std::size_t i = 0; i < n; ++i)
      perm_keys[i] = host_keys[perm[i]];
    oxide::cub::sort_pairs(stream, keys, sorted, id_in, id_out, order);
    const char *name = order == oxide::cub::Order::ascending ? "ascending" : "descending";
    c.expect(sorted.to_host(stream) == perm_keys, std::string("sort_pairs keys ") + name);
    c.expect(id_out.to_host(stream) == perm, std::string("sort_pairs values stable ") + name);
  }

  // Key bits [2, 5): a stable sort by those three bits alone.
  oxide::prepare(ctx, make_keys, oxide::LaunchConfig1D::for_elements(n))(stream, keys, ~0U);
  host_keys = keys.to_host(stream);
  want = host_keys;
  stable_sort_by(want, [](std::uint32_t a, std::uint32_t b) { return (a >> 2 & 7) < (b >> 2 & 7); });
  oxide::cub::sort(stream, keys, sorted, oxide::cub::Order::ascending, {2, 5});
  c.expect(sorted.to_host(stream) == want, "sort by key bits [2, 5)");

  // Floats in CUB's order, bit for bit: -NaN, -inf, ..., 0, ..., inf, +NaN, where -0.0 and +0.0
  // are equal keys (the input has +0.0 first, so a stable sort keeps it first either way).
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<float> below = {-nan, -inf, -1e30f, -2.5f, -1e-40f},
                           above = {1e-40f, 1.0f, 3.5f, inf, nan};
  const std::vector<float> shuffled = {3.5f,  0.0f,  -1e-40f, inf,  -nan, 1e-40f,
                                       -2.5f, -0.0f, nan,     -inf, 1.0f, -1e30f};
  std::vector<float> ascending = below, descending(above.rbegin(), above.rend());
  for (std::vector<float> *v : {&ascending, &descending})
    v->insert(v->end(), {0.0f, -0.0f});
  ascending.insert(ascending.end(), above.begin(), above.end());
  descending.insert(descending.end(), below.rbegin(), below.rend());
  auto fin = oxide::DeviceBuffer<float>::from_host(stream, shuffled);
  auto fout = oxide::DeviceBuffer<float>::uninitialized(stream, shuffled.size());
  oxide::cub::sort(stream, fin, fout);
  c.expect(same_bits(fout.to_host(stream), ascending), "float keys in CUB's order");
  oxide::cub::sort(stream, fin, fout, oxide::cub::Order::descending);
  c.expect(same_bits(fout.to_host(stream), descending), "float keys descending");

  // int64 keys with double values, in slices of larger buffers.
  std::vector<std::int64_t> big_keys(1000);
  std::vector<double> big_values(1000);
  for (std::size_t i = 0; i < big_keys.size(); ++i) {
    big_keys[i] = static_cast<std::int64_t>(host_keys[i]) * ((i % 3 == 0) ? -1 : 1) - 7;
    big_values[i] = static_cast<double>(i) + 0.25;
  }
  auto ik = oxide::DeviceBuffer<std::int64_t>::from_host(stream, big_keys);
  auto iv = oxide::DeviceBuffer<double>::from_host(stream, big_values);
  auto ok = oxide::DeviceBuffer<std::int64_t>::zeroed(stream, 1000);
  auto ov = oxide::DeviceBuffer<double>::zeroed(stream, 1000);
  oxide::cub::sort_pairs(stream, ik.slice(100, 500), ok.slice(300, 500), iv.slice(100, 500),
                         ov.slice(300, 500));
  {
    std::vector<std::size_t> p(500);
    std::iota(p.begin(), p.end(), std::size_t{100});
    stable_sort_by(p, [&](std::size_t a, std::size_t b) { return big_keys[a] < big_keys[b]; });
    const std::vector<std::int64_t> got_k = ok.to_host(stream);
    const std::vector<double> got_v = ov.to_host(stream);
    bool right = got_k[299] == 0 && got_k[800] == 0 && got_v[299] == 0.0 && got_v[800] == 0.0;
    for (std::size_t i = 0; i < 500; ++i)
      right = right && got_k[300 + i] == big_keys[p[i]] && got_v[300 + i] == big_values[p[i]];
    c.expect(right, "sort_pairs int64/double on slices, nothing outside them written");
  }

  // Scans: sums exact in integers, min/max, in place.
  std::vector<std::int64_t> values(n);
  for (std::size_t i = 0; i < n; ++i)
    values[i] = static_cast<std::int64_t>(host_keys[i] % 2001) - 1000;
  auto vin = oxide::DeviceBuffer<std::int64_t>::from_host(stream, values);
  auto vout = oxide::DeviceBuffer<std::int64_t>::uninitialized(stream, n);
  std::vector<std::int64_t> scan(n);
  std::inclusive_scan(values.begin(), values.end(), scan.begin());
  oxide::cub::inclusive_sum(stream, vin, vout);
  c.expect(vout.to_host(stream) == scan, "inclusive_sum int64");
  std::exclusive_scan(values.begin(), values.end(), scan.begin(), std::int64_t{0});
  oxide::cub::exclusive_sum(stream, vin, vout);
  c.expect(vout.to_host(stream) == scan, "exclusive_sum int64");
  std::inclusive_scan(values.begin(), values.end(), scan.begin(),
                      [](std::int64_t a, std::int64_t b) { return std::max(a, b); });
  oxide::cub::inclusive_max(stream, vin, vout);
  c.expect(vout.to_host(stream) == scan, "inclusive_max int64");
  std::inclusive_scan(values.begin(), values.end(), scan.begin(),
                      [](std::int64_t a, std::int64_t b) { return std::min(a, b); });
  oxide::cub::inclusive_min(stream, vin, vin); // in place
  c.expect(vin.to_host(stream) == scan, "inclusive_min int64 in place");
  std::vector<std::uint32_t> counts(n), offsets(n);
  for (std::size_t i = 0; i < n; ++i)
    counts[i] = host_keys[i] >> 20; // the sum wraps: uint32 arithmetic, as in CUB
  std::exclusive_scan(counts.begin(), counts.end(), offsets.begin(), 0U);
  auto cin = oxide::DeviceBuffer<std::uint32_t>::from_host(stream, counts);
  oxide::cub::exclusive_sum(stream, cin, sorted);
  c.expect(sorted.to_host(stream) == offsets, "exclusive_sum uint32 (wrapping)");

  // Reductions, an empty input, segmented reductions with empty segments.
  std::vector<float> floats(n);
  for (std::size_t i = 0; i < n; ++i)
    floats[i] = static_cast<float>(host_keys[i] % 1000) / 7.0f - 60.0f;
  auto fv = oxide::DeviceBuffer<float>::from_host(stream, floats);
  auto one = oxide::DeviceBuffer<float>::uninitialized(stream, 1);
  oxide::cub::reduce_max(stream, fv, one);
  c.expect(one.to_host(stream)[0] == *std::max_element(floats.begin(), floats.end()), "reduce_max float");
  oxide::cub::reduce_min(stream, fv, one);
  c.expect(one.to_host(stream)[0] == *std::min_element(floats.begin(), floats.end()), "reduce_min float");
  oxide::cub::reduce_sum(stream, fv, one);
  const double sum = std::accumulate(floats.begin(), floats.end(), 0.0);
  c.expect(std::fabs(one.to_host(stream)[0] - sum) <= 1e-4 * std::fabs(sum) + 1e-2, "reduce_sum float");
  auto none = oxide::DeviceBuffer<float>::uninitialized(stream, 0);
  oxide::cub::reduce_sum(stream, none, one);
  c.expect(one.to_host(stream)[0] == 0.0f, "reduce_sum of nothing is 0");
  auto isum = oxide::DeviceBuffer<std::int64_t>::uninitialized(stream, 1);
  oxide::cub::reduce_sum(stream, oxide::DeviceBuffer<std::int64_t>::from_host(stream, values), isum);
  c.expect(isum.to_host(stream)[0] == std::accumulate(values.begin(), values.end(), std::int64_t{0}),
           "reduce_sum int64");
  const std::vector<std::int64_t> bounds = {0, 10, 10, 5000, 5001, 100003, 100003};
  auto seg = oxide::DeviceBuffer<std::int64_t>::from_host(stream, bounds);
  auto per = oxide::DeviceBuffer<std::int64_t>::uninitialized(stream, bounds.size() - 1);
  oxide::cub::segmented_reduce_max(stream, oxide::DeviceBuffer<std::int64_t>::from_host(stream, values), seg,
                                   per);
  {
    const std::vector<std::int64_t> got = per.to_host(stream);
    bool right = true;
    for (std::size_t s = 0; s + 1 < bounds.size(); ++s) {
      std::int64_t m = std::numeric_limits<std::int64_t>::lowest();
      for (std::int64_t i = bounds[s]; i < bounds[s + 1]; ++i)
        m = std::max(m, values[i]);
      right = right && got[s] == m;
    }
    c.expect(right, "segmented_reduce_max int64 (empty segments: the lowest value)");
  }

  // Selection of 16-byte records by flags.
  std::vector<Record> records(5000);
  std::vector<std::uint8_t> flags(5000);
  std::vector<Record> kept;
  for (std::uint32_t i = 0; i < records.size(); ++i) {
    records[i] = {i, float(i), -float(i), 0.5f};
    flags[i] = host_keys[i] % 3 == 0;
    if (flags[i])
      kept.push_back(records[i]);
  }
  auto rin = oxide::DeviceBuffer<Record>::from_host(stream, records);
  auto rflags = oxide::DeviceBuffer<std::uint8_t>::from_host(stream, flags);
  auto rout = oxide::DeviceBuffer<Record>::uninitialized(stream, records.size());
  auto rcount = oxide::DeviceBuffer<std::int64_t>::uninitialized(stream, 1);
  oxide::cub::select_flagged(stream, rin, rflags, rout, rcount);
  {
    const std::int64_t got_count = rcount.to_host(stream)[0];
    std::vector<Record> got = rout.to_host(stream);
    got.resize(static_cast<std::size_t>(std::max<std::int64_t>(0, got_count)));
    c.expect(got_count == static_cast<std::int64_t>(kept.size()) && same_bits(got, kept),
             "select_flagged 16-byte records");
  }

  // Runs of equal elements: unique and run-length encoding of sorted keys with duplicates, and of
  // floats where -0.0 equals +0.0.
  {
    std::vector<std::int32_t> runs_in(20000);
    for (std::size_t i = 0; i < runs_in.size(); ++i)
      runs_in[i] = static_cast<std::int32_t>(host_keys[i % host_keys.size()] % 7) - 3 +
                   static_cast<std::int32_t>(i / 9);
    std::vector<std::int32_t> want_unique;
    std::vector<std::int64_t> want_lengths;
    for (std::size_t i = 0; i < runs_in.size(); ++i) {
      if (i == 0 || runs_in[i] != runs_in[i - 1]) {
        want_unique.push_back(runs_in[i]);
        want_lengths.push_back(0);
      }
      ++want_lengths.back();
    }
    auto in = oxide::DeviceBuffer<std::int32_t>::from_host(stream, runs_in);
    auto firsts = oxide::DeviceBuffer<std::int32_t>::uninitialized(stream, runs_in.size());
    auto lengths = oxide::DeviceBuffer<std::int64_t>::uninitialized(stream, runs_in.size());
    auto count = oxide::DeviceBuffer<std::int64_t>::uninitialized(stream, 1);
    oxide::cub::unique(stream, in, firsts, count);
    std::int64_t n_runs = count.to_host(stream)[0];
    std::vector<std::int32_t> got = firsts.to_host(stream);
    got.resize(static_cast<std::size_t>(std::clamp<std::int64_t>(n_runs, 0, std::int64_t(got.size()))));
    c.expect(n_runs == std::int64_t(want_unique.size()) && got == want_unique, "unique int32");
    oxide::cub::run_length_encode(stream, in, firsts, lengths, count);
    n_runs = count.to_host(stream)[0];
    got = firsts.to_host(stream);
    std::vector<std::int64_t> got_lengths = lengths.to_host(stream);
    const auto runs = static_cast<std::size_t>(std::clamp<std::int64_t>(n_runs, 0, std::int64_t(got.size())));
    got.resize(runs);
    got_lengths.resize(runs);
    c.expect(n_runs == std::int64_t(want_unique.size()) && got == want_unique && got_lengths == want_lengths,
             "run_length_encode int32");
    auto zeros = oxide::DeviceBuffer<float>::from_host(
        stream, std::vector<float>{1.0f, -0.0f, 0.0f, 0.0f, 2.0f, 2.0f});
    auto zero_firsts = oxide::DeviceBuffer<float>::uninitialized(stream, 6);
    oxide::cub::run_length_encode(stream, zeros, zero_firsts, lengths.slice(0, 6), count);
    const std::vector<std::int64_t> zero_lengths = lengths.to_host(stream);
    c.expect(count.to_host(stream)[0] == 3 && zero_lengths[0] == 1 && zero_lengths[1] == 3 &&
                 zero_lengths[2] == 2,
             "run_length_encode floats: -0.0 == +0.0");
  }

  // Histograms of bytes and of floats (away from the bins' edges, where float rounding decides).
  {
    std::vector<std::uint8_t> bytes(100000);
    for (std::size_t i = 0; i < bytes.size(); ++i)
      bytes[i] = static_cast<std::uint8_t>(host_keys[i % host_keys.size()] >> 8);
    std::vector<std::uint32_t> want(10, 0);
    for (std::uint8_t b : bytes)
      if (b >= 20 && b < 220)
        ++want[(b - 20) * 10 / 200];
    auto samples = oxide::DeviceBuffer<std::uint8_t>::from_host(stream, bytes);
    auto bins = oxide::DeviceBuffer<std::uint32_t>::from_host(stream, std::vector<std::uint32_t>(10, 77));
    oxide::cub::histogram_even(stream, samples, bins, 20, 220);
    c.expect(bins.to_host(stream) == want, "histogram_even uint8, 10 bins over [20, 220)");
    std::vector<float> values(50000);
    std::vector<std::uint32_t> want_f(8, 0);
    for (std::size_t i = 0; i < values.size(); ++i) {
      const int bin = static_cast<int>(host_keys[i % host_keys.size()] % 10) - 1; // -1 and 8: outside
      values[i] = -1.0f + 0.25f * static_cast<float>(bin) + 0.125f;               // bin centres
      if (bin >= 0 && bin < 8)
        ++want_f[static_cast<std::size_t>(bin)];
    }
    auto fsamples = oxide::DeviceBuffer<float>::from_host(stream, values);
    auto fbins = oxide::DeviceBuffer<std::uint32_t>::uninitialized(stream, 8);
    oxide::cub::histogram_even(stream, fsamples, fbins, -1.0f, 1.0f);
    c.expect(fbins.to_host(stream) == want_f, "histogram_even float, 8 bins over [-1, 1)");
  }

  // Misuse: each refused before anything runs, with its kind.
  using K = oxide::ErrorKind;
  c.expect_error(K::SizeMismatch, "sort into a shorter buffer",
                 [&] { oxide::cub::sort(stream, keys, sorted.slice(0, 3)); });
  c.expect_error(K::OverlappingArguments, "sort in place", [&] { oxide::cub::sort(stream, keys, keys); });
  c.expect_error(K::OverlappingArguments, "sort into an overlapping slice",
                 [&] { oxide::cub::sort(stream, keys.slice(0, 100), keys.slice(50, 100)); });
  c.expect_error(K::Other, "key bits past the key",
                 [&] { oxide::cub::sort(stream, keys, sorted, {}, {4, 33}); });
  c.expect_error(K::SizeMismatch, "values of another size",
                 [&] { oxide::cub::sort_pairs(stream, keys, sorted, id_in.slice(0, 10), id_out); });
  c.expect_error(K::SizeMismatch, "a reduction into two elements",
                 [&] { oxide::cub::reduce_sum(stream, fv, fout.slice(0, 2)); });
  c.expect_error(K::SizeMismatch, "a selection into a smaller buffer",
                 [&] { oxide::cub::select_flagged(stream, rin, rflags, rout.slice(0, 10), rcount); });
  c.expect_error(K::SizeMismatch, "offsets that do not match the segments",
                 [&] { oxide::cub::segmented_reduce_max(stream, vout, seg, per.slice(0, 2)); });
  c.expect_error(K::Other, "a histogram over empty levels", [&] {
    auto s8 = oxide::DeviceBuffer<std::uint8_t>::zeroed(stream, 10);
    auto b = oxide::DeviceBuffer<std::uint32_t>::uninitialized(stream, 4);
    oxide::cub::histogram_even(stream, s8, b, 5, 5);
  });
  c.expect_error(K::SizeMismatch, "unique into a smaller buffer", [&] {
    auto out = oxide::DeviceBuffer<std::uint32_t>::uninitialized(stream, 9);
    auto n = oxide::DeviceBuffer<std::int64_t>::uninitialized(stream, 1);
    oxide::cub::unique(stream, keys.slice(0, 10), out, n);
  });
  c.expect_error(K::OverlappingArguments, "a scan into an overlapping, shifted slice",
                 [&] { oxide::cub::inclusive_sum(stream, vout.slice(0, 10), vout.slice(1, 10)); });

  std::printf("cub_algorithms: %zu checks on %s\n", c.count, ctx.device().name().c_str());
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
