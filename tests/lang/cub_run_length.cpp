// CUB's run-length decoding in contracted kernels (oxide::cub::BlockRunLengthDecode), written as
// a CUDA program writes it with CUB, checked against the runs expanded on the host: blocks of 64,
// 128 and 256 threads and of 32 x 2, 1, 2 and 4 runs a thread, 1, 3 and 4 decoded items a thread;
// random run lengths with runs of length 0 anywhere (first, in the middle, trailing, a block of
// nothing but), uniform lengths, one run longer than a window; totals of several windows, the
// kernel looping over `from_decoded_offset` (items past the total are the last run's, as CUB's);
// the relative-offsets form; the run-offsets constructor with offsets that start past 0; int,
// float and struct items; 16-bit and signed DecodedOffsetT; the constructor without a
// TempStorage; one TempStorage used by two decoders. Every thread's total is checked too. The
// same source runs on the GPU and the CPU simulator.
#include <oxide/cub.hpp>
#include <oxide/oxide.hpp>

#include "lang_check.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace cub = oxide::cub;

// Trivially copyable, not trivially default constructible (shared memory could not hold it as
// it is): the decoder holds its bytes.
struct Record {
  std::int16_t bucket = 0;
  std::uint8_t tag = 7;
  std::int32_t id = -1;
};

// ---- from the runs' lengths ----

// Each thread's Runs runs of the block's (value, length), the block's decoded sequence read a
// window of Threads * Items items at a time from 0 while there are items left (at most Windows
// windows): window w's items into the thread's tile of Windows * Items at w * Items, with their
// offsets in their runs where Relative. OwnStorage: CUB's constructor without a TempStorage.
// Every thread's total into its element of `totals`.
template <class T, int Threads, int Runs, int Items, int Windows, bool Relative, bool OwnStorage>
void decode_windows(const oxide::Span<const T> &values, const oxide::Span<const std::uint32_t> &lengths,
                    const oxide::DisjointSpan<T> &items_out,
                    const oxide::DisjointSpan<std::uint32_t> &offsets_out,
                    const oxide::DisjointSpan<std::uint32_t> &totals) {
  const auto i = oxide::thread::index_1d();
  T v[Runs];
  std::uint32_t len[Runs];
  for (int j = 0; j < Runs; ++j) {
    v[j] = values[i.get() * Runs + j];
    len[j] = lengths[i.get() * Runs + j];
  }
  using Decode = cub::BlockRunLengthDecode<T, Threads, Runs, Items>;
  std::uint32_t total = 0;
  auto decode = [&] {
    if constexpr (OwnStorage)
      return Decode(v, len, total);
    else
      return Decode(cub::temp_storage<Decode>(), v, len, total);
  }();
  auto items = items_out.template tile_mut<Windows * Items>(i);
  auto offsets = offsets_out.template tile_mut<Windows * Items>(i);
  int w = 0;
  for (std::uint32_t window = 0; window < total && w < Windows; window += Threads * Items, ++w) {
    T decoded[Items];
    std::uint32_t relative[Items];
    if constexpr (Relative)
      decode.RunLengthDecode(decoded, relative, window);
    else
      decode.RunLengthDecode(decoded, window);
    for (int j = 0; j < Items; ++j) {
      items[w * Items + j] = decoded[j];
      if constexpr (Relative)
        offsets[w * Items + j] = relative[j];
    }
  }
  if (std::uint32_t *t = totals.get_mut(i))
    *t = total;
}
[[kernel, oxide::launch_contract("domain = 1, block = 128")]] void
ints_128x2x4(oxide::Span<const int> values, oxide::Span<const std::uint32_t> lengths,
             oxide::DisjointSpan<int> items, oxide::DisjointSpan<std::uint32_t> offsets,
             oxide::DisjointSpan<std::uint32_t> totals) {
  decode_windows<int, 128, 2, 4, 4, true, false>(values, lengths, items, offsets, totals);
}
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void
floats_64x4x3(oxide::Span<const float> values, oxide::Span<const std::uint32_t> lengths,
              oxide::DisjointSpan<float> items, oxide::DisjointSpan<std::uint32_t> offsets,
              oxide::DisjointSpan<std::uint32_t> totals) {
  decode_windows<float, 64, 4, 3, 7, false, true>(values, lengths, items, offsets, totals);
}
[[kernel, oxide::launch_contract("domain = 1, block = 256")]] void
records_256x1x1(oxide::Span<const Record> values, oxide::Span<const std::uint32_t> lengths,
                oxide::DisjointSpan<Record> items, oxide::DisjointSpan<std::uint32_t> offsets,
                oxide::DisjointSpan<std::uint32_t> totals) {
  decode_windows<Record, 256, 1, 1, 4, true, false>(values, lengths, items, offsets, totals);
}

// 256 threads, 4 runs and 3 items a thread, 16-bit decoded positions, 16-bit relative offsets:
// the windows as above; then, through the same TempStorage, a second decoder of the same values
// each repeated once, whose first window goes to `again`.
constexpr int kReuseWindows = 3;
[[kernel, oxide::launch_contract("domain = 1, block = 256")]] void
ints_256x4x3_reused(oxide::Span<const int> values, oxide::Span<const std::uint32_t> lengths,
                    oxide::DisjointSpan<int> items_out, oxide::DisjointSpan<std::uint32_t> offsets_out,
                    oxide::DisjointSpan<std::uint32_t> totals, oxide::DisjointSpan<int> again) {
  const auto i = oxide::thread::index_1d();
  int v[4];
  std::uint16_t len[4];
  for (int j = 0; j < 4; ++j) {
    v[j] = values[i.get() * 4 + j];
    len[j] = static_cast<std::uint16_t>(lengths[i.get() * 4 + j]);
  }
  using Decode = cub::BlockRunLengthDecode<int, 256, 4, 3, std::uint16_t>;
  auto &storage = cub::temp_storage<Decode>();
  std::uint32_t total = 0;
  Decode decode(storage, v, len, total);
  auto items = items_out.tile_mut<kReuseWindows * 3>(i);
  auto offsets = offsets_out.tile_mut<kReuseWindows * 3>(i);
  int w = 0;
  for (std::uint32_t window = 0; window < total && w < kReuseWindows; window += 256 * 3, ++w) {
    int decoded[3];
    std::uint16_t relative[3];
    decode.RunLengthDecode(decoded, relative, static_cast<std::uint16_t>(window));
    for (int j = 0; j < 3; ++j) {
      items[w * 3 + j] = decoded[j];
      offsets[w * 3 + j] = relative[j];
    }
  }
  if (std::uint32_t *t = totals.get_mut(i))
    *t = total;
  oxide::sync_threads(); // the storage is used again
  int ones[4] = {1, 1, 1, 1};
  std::uint16_t total_again = 0;
  int first[3];
  Decode(storage, v, ones, total_again).RunLengthDecode(first);
  auto mine = again.tile_mut<3>(i);
  for (std::size_t j = 0; j < mine.size(); ++j)
    mine[j] = total_again == 1024 ? first[j] : -1000;
}

// ---- from the runs' offsets ----

// 64 threads, 4 runs and 4 items a thread, int positions: block b's runs start at the offsets
// given (non-decreasing, the first one past 0), and its windows run from bounds[2b] while below
// bounds[2b + 1], at most 4 of them, with the items' offsets in their runs.
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void
offsets_64x4x4(oxide::Span<const int> values, oxide::Span<const int> run_offsets,
               oxide::Span<const int> bounds, oxide::DisjointSpan<int> items_out,
               oxide::DisjointSpan<std::uint32_t> offsets_out) {
  const auto i = oxide::thread::index_1d();
  int v[4], starts[4];
  for (int j = 0; j < 4; ++j) {
    v[j] = values[i.get() * 4 + j];
    starts[j] = run_offsets[i.get() * 4 + j];
  }
  using Decode = cub::BlockRunLengthDecode<int, 64, 4, 4, int>;
  Decode decode(cub::temp_storage<Decode>(), v, starts);
  const std::size_t b = oxide::block::index().get();
  const int first = bounds[2 * b], end = bounds[2 * b + 1];
  auto items = items_out.tile_mut<4 * 4>(i);
  auto offsets = offsets_out.tile_mut<4 * 4>(i);
  int w = 0;
  for (int window = first; window < end && w < 4; window += 64 * 4, ++w) {
    int decoded[4];
    std::uint32_t relative[4];
    decode.RunLengthDecode(decoded, relative, window);
    for (int j = 0; j < 4; ++j) {
      items[w * 4 + j] = decoded[j];
      offsets[w * 4 + j] = relative[j];
    }
  }
}

// A block of 32 x 2 threads (ranked x fastest, as CUB), 2 runs and 3 items a thread, one window
// from the default constructor: thread (x, y)'s items into row y, columns 3x .. 3x + 2.
[[kernel, oxide::launch_contract("domain = 2, block = (32, 2)")]] void
block_32x2(oxide::Span<const int> values, oxide::Span<const std::uint32_t> lengths,
           oxide::DisjointSpan2D<int> items_out, oxide::DisjointSpan2D<std::uint32_t> offsets_out) {
  const std::size_t rank = oxide::thread_idx().y * 32 + oxide::thread_idx().x;
  int v[2];
  std::uint32_t len[2];
  for (int j = 0; j < 2; ++j) {
    v[j] = values[rank * 2 + j];
    len[j] = lengths[rank * 2 + j];
  }
  std::uint32_t total = 0;
  cub::BlockRunLengthDecode<int, 32, 2, 3, std::uint32_t, 2> decode(v, len, total);
  int decoded[3];
  std::uint32_t relative[3];
  decode.RunLengthDecode(decoded, relative);
  const auto idx = oxide::thread::index_2d();
  auto items = items_out.tile_mut<1, 3>(idx);
  auto offsets = offsets_out.tile_mut<1, 3>(idx);
  for (std::size_t j = 0; j < 3; ++j) {
    items(0, j) = decoded[j];
    offsets(0, j) = relative[j];
  }
}

// A block of 128 threads running a decoder made for 256: stops with the collective's message.
[[kernel, oxide::launch_contract("domain = 1")]] void wrong_block(oxide::Span<const int> in,
                                                                  oxide::DisjointSpan<int> out) {
  const auto i = oxide::thread::index_1d();
  int v[1] = {in[i.get()]};
  int len[1] = {1};
  int total = 0;
  cub::BlockRunLengthDecode<int, 256, 1, 1> decode(v, len, total);
  int decoded[1];
  decode.RunLengthDecode(decoded);
  if (int *o = out.get_mut(i))
    *o = decoded[0];
}

namespace {

using lang::Checks;

using lang::mix;

// Equal bits, so that a struct's every field counts.
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
  else
    return std::to_string(v);
}

/// One check: every element of `got` equals `want`'s, the first two differences printed.
template <class T>
void expect_all(Checks &c, const std::vector<T> &got, const std::vector<T> &want, const std::string &name) {
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < want.size() && k < got.size(); ++k)
    if (!same(got[k], want[k]) && wrong++ < 2)
      std::printf("%s: element %zu: %s, want %s\n", name.c_str(), k, show(got[k]).c_str(),
                  show(want[k]).c_str());
  c.expect(got.size() == want.size() && wrong == 0, name + ": " + std::to_string(wrong) + " elements wrong");
}

/// The decoded sequence of one block's runs, run r starting at starts[r] (non-decreasing) and
/// holding values[r] until the next run starts; past the last start, the last run goes on. Built
/// by expanding the runs, not searched: item p (p >= starts[0]) and its offset in its run.
template <class T> struct Expanded {
  std::vector<T> items;
  std::vector<std::int64_t> relative;
  std::int64_t first = 0, last_start = 0;
  T last{};

  Expanded(const std::vector<T> &values, const std::vector<std::int64_t> &starts) {
    first = starts.front();
    for (std::size_t r = 0; r + 1 < values.size(); ++r)
      for (std::int64_t k = 0; k < starts[r + 1] - starts[r]; ++k) {
        items.push_back(values[r]);
        relative.push_back(k);
      }
    last = values.back();
    last_start = starts.back();
  }
  [[nodiscard]] T item(std::int64_t p) const {
    return p - first < static_cast<std::int64_t>(items.size()) ? items[p - first] : last;
  }
  [[nodiscard]] std::int64_t offset(std::int64_t p) const {
    return p - first < static_cast<std::int64_t>(relative.size()) ? relative[p - first] : p - last_start;
  }
};

/// A kernel of decode_windows' parameters over `blocks` blocks of the runs' values and lengths:
/// each thread's items and offsets of each window, the windows after the last one untouched, and
/// every thread's total.
template <class T, class Kernel>
void check_lengths(Checks &c, oxide::Context &ctx, oxide::Stream &stream, Kernel kernel,
                   std::uint32_t threads, int runs, int items, int windows, bool relative,
                   const std::vector<T> &values, const std::vector<std::uint32_t> &lengths, T untouched,
                   const std::string &name) {
  const std::size_t block_runs = std::size_t{threads} * runs, blocks = values.size() / block_runs;
  const std::size_t per_thread = std::size_t(windows) * items, n = blocks * threads * per_thread;
  const std::size_t window = std::size_t{threads} * items;
  auto values_in = oxide::DeviceBuffer<T>::from_host(stream, values);
  auto lengths_in = oxide::DeviceBuffer<std::uint32_t>::from_host(stream, lengths);
  auto items_out = oxide::DeviceBuffer<T>::from_host(stream, std::vector<T>(n, untouched));
  auto offsets_out =
      oxide::DeviceBuffer<std::uint32_t>::from_host(stream, std::vector<std::uint32_t>(n, 99999));
  auto totals =
      oxide::DeviceBuffer<std::uint32_t>::from_host(stream, std::vector<std::uint32_t>(blocks * threads, 7));
  oxide::prepare(ctx, kernel, oxide::LaunchConfig1D{static_cast<std::uint32_t>(blocks), threads})(
      stream, values_in, lengths_in, items_out, offsets_out, totals);
  std::vector<T> want_items(n, untouched);
  std::vector<std::uint32_t> want_offsets(n, 99999), want_totals(blocks * threads);
  for (std::size_t b = 0; b < blocks; ++b) {
    std::vector<T> v(values.begin() + b * block_runs, values.begin() + (b + 1) * block_runs);
    std::vector<std::int64_t> starts(block_runs);
    std::int64_t total = 0;
    for (std::size_t r = 0; r < block_runs; ++r) {
      starts[r] = total;
      total += lengths[b * block_runs + r];
    }
    const Expanded<T> expanded(v, starts);
    // The last run's items past its start: those of its length, then on past the total.
    const std::size_t used = std::min<std::size_t>(windows, (total + window - 1) / window);
    for (std::size_t t = 0; t < threads; ++t) {
      want_totals[b * threads + t] = static_cast<std::uint32_t>(total);
      for (std::size_t w = 0; w < used; ++w)
        for (int j = 0; j < items; ++j) {
          const std::int64_t p = static_cast<std::int64_t>(w * window + t * items + j);
          const std::size_t at = (b * threads + t) * per_thread + w * items + j;
          want_items[at] = expanded.item(p);
          if (relative)
            want_offsets[at] = static_cast<std::uint32_t>(expanded.offset(p));
        }
    }
  }
  expect_all(c, items_out.to_host(stream), want_items, name + " items");
  if (relative)
    expect_all(c, offsets_out.to_host(stream), want_offsets, name + " relative offsets");
  expect_all(c, totals.to_host(stream), want_totals, name + " total_decoded_size");
}

void check_from_lengths(Checks &c, oxide::Context &ctx, oxide::Stream &stream) {
  {
    // 128 x 2 runs a block: random lengths 0..8; none at all; one run of 700 after 255 of
    // length 0; random with 60 trailing runs of length 0; random 0..3 after 20 of length 0.
    constexpr std::size_t runs = 256;
    std::vector<int> values(5 * runs);
    std::vector<std::uint32_t> lengths(5 * runs);
    for (std::size_t r = 0; r < values.size(); ++r) {
      values[r] = static_cast<int>(mix(r + 1) % 100000) - 50000;
      const std::size_t b = r / runs, k = r % runs;
      const auto random = static_cast<std::uint32_t>(mix(r + 2) % 9);
      lengths[r] = b == 0   ? random
                   : b == 1 ? 0
                   : b == 2 ? (k == runs - 1 ? 700 : 0)
                   : b == 3 ? (k >= runs - 60 ? 0 : random)
                            : (k < 20 ? 0 : random % 4);
    }
    check_lengths<int>(c, ctx, stream, ints_128x2x4, 128, 2, 4, 4, true, values, lengths, -99,
                       "BlockRunLengthDecode<int, 128, 2, 4>");
  }
  {
    // 64 x 4 runs a block, uniform lengths: 5 (seven windows, the last one partial), 1, 3.
    constexpr std::size_t runs = 256;
    std::vector<float> values(3 * runs);
    std::vector<std::uint32_t> lengths(3 * runs);
    const std::uint32_t uniform[3] = {5, 1, 3};
    for (std::size_t r = 0; r < values.size(); ++r) {
      values[r] = static_cast<float>(mix(r + 3) % 2000) * 0.125f - 100.0f;
      lengths[r] = uniform[r / runs];
    }
    check_lengths<float>(c, ctx, stream, floats_64x4x3, 64, 4, 3, 7, false, values, lengths, -99.0f,
                         "BlockRunLengthDecode<float, 64, 4, 3> (no TempStorage), uniform lengths");
  }
  {
    // 256 x 1 runs a block: random lengths 0..3; 0..2 with every third run of length 0.
    constexpr std::size_t runs = 256;
    std::vector<Record> values(2 * runs);
    std::vector<std::uint32_t> lengths(2 * runs);
    for (std::size_t r = 0; r < values.size(); ++r) {
      values[r] = {static_cast<std::int16_t>(mix(r + 4) % 1000), static_cast<std::uint8_t>(r % 5),
                   static_cast<std::int32_t>(r)};
      const auto random = static_cast<std::uint32_t>(mix(r + 5) % 4);
      lengths[r] = r < runs ? random : (r % 3 == 0 ? 0 : random % 3);
    }
    check_lengths<Record>(c, ctx, stream, records_256x1x1, 256, 1, 1, 4, true, values, lengths,
                          Record{-1, 0, -1}, "BlockRunLengthDecode<Record, 256, 1, 1>");
  }
}

void check_reused(Checks &c, oxide::Context &ctx, oxide::Stream &stream) {
  constexpr std::size_t threads = 256, runs = threads * 4, blocks = 2, per = kReuseWindows * 3;
  constexpr std::size_t window = threads * 3;
  std::vector<int> values(blocks * runs);
  std::vector<std::uint32_t> lengths(blocks * runs);
  for (std::size_t r = 0; r < values.size(); ++r) {
    values[r] = static_cast<int>(r) * 3 - 2000;
    lengths[r] = static_cast<std::uint32_t>(mix(r + 6) % (r < runs ? 3 : 5)); // 0..2, 0..4
  }
  auto values_in = oxide::DeviceBuffer<int>::from_host(stream, values);
  auto lengths_in = oxide::DeviceBuffer<std::uint32_t>::from_host(stream, lengths);
  auto items = oxide::DeviceBuffer<int>::from_host(stream, std::vector<int>(blocks * threads * per, -99));
  auto offsets = oxide::DeviceBuffer<std::uint32_t>::from_host(
      stream, std::vector<std::uint32_t>(blocks * threads * per, 99999));
  auto totals =
      oxide::DeviceBuffer<std::uint32_t>::from_host(stream, std::vector<std::uint32_t>(blocks * threads, 7));
  auto again = oxide::DeviceBuffer<int>::from_host(stream, std::vector<int>(blocks * threads * 3, -99));
  oxide::prepare(ctx, ints_256x4x3_reused, oxide::LaunchConfig1D{blocks, threads})(
      stream, values_in, lengths_in, items, offsets, totals, again);
  std::vector<int> want_items(blocks * threads * per, -99), want_again(blocks * threads * 3);
  std::vector<std::uint32_t> want_offsets(blocks * threads * per, 99999), want_totals(blocks * threads);
  for (std::size_t b = 0; b < blocks; ++b) {
    std::vector<int> v(values.begin() + b * runs, values.begin() + (b + 1) * runs);
    std::vector<std::int64_t> starts(runs);
    std::int64_t total = 0;
    for (std::size_t r = 0; r < runs; ++r) {
      starts[r] = total;
      total += lengths[b * runs + r];
    }
    const Expanded<int> expanded(v, starts);
    const std::size_t used = std::min<std::size_t>(kReuseWindows, (total + window - 1) / window);
    for (std::size_t t = 0; t < threads; ++t) {
      want_totals[b * threads + t] = static_cast<std::uint32_t>(total);
      for (std::size_t w = 0; w < used; ++w)
        for (std::size_t j = 0; j < 3; ++j) {
          const auto p = static_cast<std::int64_t>(w * window + t * 3 + j);
          want_items[(b * threads + t) * per + w * 3 + j] = expanded.item(p);
          want_offsets[(b * threads + t) * per + w * 3 + j] = static_cast<std::uint32_t>(expanded.offset(p));
        }
      for (std::size_t j = 0; j < 3; ++j)
        want_again[(b * threads + t) * 3 + j] = v[t * 3 + j]; // each run once: the runs themselves
    }
  }
  const std::string name = "BlockRunLengthDecode<int, 256, 4, 3, uint16_t>";
  expect_all(c, items.to_host(stream), want_items, name + " items");
  expect_all(c, offsets.to_host(stream), want_offsets, name + " relative offsets (uint16_t)");
  expect_all(c, totals.to_host(stream), want_totals, name + " total_decoded_size");
  expect_all(c, again.to_host(stream), want_again, name + " again through the same TempStorage, lengths 1");
}

void check_from_offsets(Checks &c, oxide::Context &ctx, oxide::Stream &stream) {
  // 64 x 4 runs a block. Block b's runs start at 1000 b + 17 (its lengths random 0..5, its first
  // runs of length 0 in block 1); its windows run to its last start plus 40 (the last run's
  // items: it has no length of its own).
  constexpr std::size_t threads = 64, runs = threads * 4, blocks = 3, per = 4 * 4, window = threads * 4;
  std::vector<int> values(blocks * runs), starts(blocks * runs), bounds(2 * blocks);
  for (std::size_t b = 0; b < blocks; ++b) {
    int at = static_cast<int>(1000 * b + 17);
    bounds[2 * b] = at;
    for (std::size_t r = 0; r < runs; ++r) {
      values[b * runs + r] = static_cast<int>(mix(b * runs + r + 7) % 5000);
      starts[b * runs + r] = at;
      at += b == 1 && r < 10 ? 0 : static_cast<int>(mix(b * runs + r + 8) % 6);
    }
    bounds[2 * b + 1] = starts[b * runs + runs - 1] + 40;
  }
  auto values_in = oxide::DeviceBuffer<int>::from_host(stream, values);
  auto starts_in = oxide::DeviceBuffer<int>::from_host(stream, starts);
  auto bounds_in = oxide::DeviceBuffer<int>::from_host(stream, bounds);
  auto items = oxide::DeviceBuffer<int>::from_host(stream, std::vector<int>(blocks * threads * per, -99));
  auto offsets = oxide::DeviceBuffer<std::uint32_t>::from_host(
      stream, std::vector<std::uint32_t>(blocks * threads * per, 99999));
  oxide::prepare(ctx, offsets_64x4x4, oxide::LaunchConfig1D{blocks, threads})(stream, values_in, starts_in,
                                                                              bounds_in, items, offsets);
  std::vector<int> want_items(blocks * threads * per, -99);
  std::vector<std::uint32_t> want_offsets(blocks * threads * per, 99999);
  for (std::size_t b = 0; b < blocks; ++b) {
    std::vector<int> v(values.begin() + b * runs, values.begin() + (b + 1) * runs);
    std::vector<std::int64_t> s(starts.begin() + b * runs, starts.begin() + (b + 1) * runs);
    const Expanded<int> expanded(v, s);
    const std::int64_t first = bounds[2 * b], end = bounds[2 * b + 1];
    const std::size_t used = std::min<std::size_t>(4, (end - first + window - 1) / window);
    for (std::size_t t = 0; t < threads; ++t)
      for (std::size_t w = 0; w < used; ++w)
        for (std::size_t j = 0; j < 4; ++j) {
          const auto p = first + static_cast<std::int64_t>(w * window + t * 4 + j);
          want_items[(b * threads + t) * per + w * 4 + j] = expanded.item(p);
          want_offsets[(b * threads + t) * per + w * 4 + j] = static_cast<std::uint32_t>(expanded.offset(p));
        }
  }
  const std::string name = "BlockRunLengthDecode<int, 64, 4, 4, int> from run offsets";
  expect_all(c, items.to_host(stream), want_items, name + " items");
  expect_all(c, offsets.to_host(stream), want_offsets, name + " relative offsets");
}

void check_2d(Checks &c, oxide::Context &ctx, oxide::Stream &stream) {
  constexpr std::size_t runs = 64 * 2;
  std::vector<int> values(runs);
  std::vector<std::uint32_t> lengths(runs);
  for (std::size_t r = 0; r < runs; ++r) {
    values[r] = static_cast<int>(r) + 1;
    lengths[r] = static_cast<std::uint32_t>(mix(r + 9) % 3); // about 128 of the window's 192
  }
  auto values_in = oxide::DeviceBuffer<int>::from_host(stream, values);
  auto lengths_in = oxide::DeviceBuffer<std::uint32_t>::from_host(stream, lengths);
  auto items = oxide::DeviceBuffer<int>::from_host(stream, std::vector<int>(2 * 96, -99));
  auto offsets =
      oxide::DeviceBuffer<std::uint32_t>::from_host(stream, std::vector<std::uint32_t>(2 * 96, 99999));
  oxide::prepare(ctx, block_32x2, oxide::LaunchConfig2D{{1, 1, 1}, {32, 2, 1}})(
      stream, values_in, lengths_in, items.view_2d(96, 2), offsets.view_2d(96, 2));
  std::vector<std::int64_t> starts(runs);
  std::int64_t total = 0;
  for (std::size_t r = 0; r < runs; ++r) {
    starts[r] = total;
    total += lengths[r];
  }
  const Expanded<int> expanded(values, starts);
  std::vector<int> want_items(2 * 96);
  std::vector<std::uint32_t> want_offsets(2 * 96);
  for (std::size_t p = 0; p < want_items.size(); ++p) {
    want_items[p] = expanded.item(static_cast<std::int64_t>(p));
    want_offsets[p] = static_cast<std::uint32_t>(expanded.offset(static_cast<std::int64_t>(p)));
  }
  const std::string name = "BlockRunLengthDecode<int, 32, 2, 3, uint32_t, 2> (a 2-D block, total " +
                           std::string(total < 192 ? "below" : "at or past") + " the window)";
  expect_all(c, items.to_host(stream), want_items, name + " items");
  expect_all(c, offsets.to_host(stream), want_offsets, name + " relative offsets");
}

} // namespace

int main() try {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  Checks c;
  check_from_lengths(c, ctx, stream);
  check_reused(c, ctx, stream);
  check_from_offsets(c, ctx, stream);
  check_2d(c, ctx, stream);

  c.expect_stop("a BlockRunLengthDecode<int, 256, 1, 1> in a block of 128", [&] {
    auto in = oxide::DeviceBuffer<int>::from_host(stream, std::vector<int>(128, 1));
    auto out = oxide::DeviceBuffer<int>::uninitialized(stream, 128);
    oxide::prepare(ctx, wrong_block, oxide::LaunchConfig1D{1, 128})(stream, in, out);
    stream.synchronize();
  });
  return c.finish("cub_run_length", ctx);
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\nFAIL\n", e.what());
  return 1;
}
