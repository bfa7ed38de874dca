// Device global variables (oxide::device_global, CUDA's __device__ globals): the host sets them
// with oxide::set_global and reads them back with oxide::get_global; a contracted kernel reads
// one and counts into another atomically, a second one counts into an array global and reads
// other elements of it with atomic loads (a plain read there would race, and is rejected), a
// kernel without a contract (oxide::unsafe_launch) writes one plainly. Every value is checked
// against what the host expects.
//
//   oxcc run tests/lang/device_globals.cpp
#include "lang_check.hpp"

#include <array>
#include <cstdint>
#include <cstdio>

oxide::device_global<float> scale(1.0f);             // set by the host, read by every thread
oxide::device_global<unsigned> evens;                // counted into atomically
oxide::device_global<std::uint64_t> total;           // a 64-bit atomic sum
oxide::device_global<std::array<int, 4>> table;      // an array, read by index
oxide::device_global<int> last(-1);                  // written plainly by an unsafe kernel
oxide::device_global<std::array<unsigned, 4>> tally; // [0], [1] set by the host; [2], [3] counted into

[[kernel, oxide::launch_contract("domain = 1, requires = (in.size() == out.size())")]] void
scale_and_count(oxide::DisjointSpan<float> out, oxide::Span<const unsigned> in) {
  const auto i = oxide::thread::index_1d();
  if (i.get() >= in.size())
    return;
  const unsigned v = in[i.get()];
  if (v % 2 == 0)
    evens.atomic().fetch_add(1);
  total.atomic().fetch_add(v);
  if (float *o = out.get_mut(i))
    *o = *scale * static_cast<float>(v) + static_cast<float>(table[v % table.size()]);
}

// Updates tally at a computed index (atomic(i) checks it), so every read of it is atomic, even of
// the elements no thread updates.
[[kernel, oxide::launch_contract("domain = 1")]] void count_and_read(oxide::DisjointSpan<unsigned> out) {
  const auto i = oxide::thread::index_1d();
  if (unsigned *o = out.get_mut(i)) {
    tally.atomic(2 + i.get() % 2).fetch_add(1); // [2] counts the even threads, [3] the odd ones
    *o = tally.atomic(i.get() % 2).load(oxide::MemoryOrder::acquire);
  }
}

[[kernel]] void write_last(int value) {
  if (oxide::thread::index_1d().get() == 0)
    last.unsafe_ref() = value;
}

int main() {
  return lang::run_group("device_globals", [](lang::Checker &c) {
    auto &stream = c.stream;
    constexpr std::size_t n = 3000;
    std::vector<unsigned> hin(n);
    for (std::size_t i = 0; i < n; ++i)
      hin[i] = static_cast<unsigned>(i * 7 % 1001);
    auto in = oxide::DeviceBuffer<unsigned>::from_host(stream, hin);
    auto out = oxide::DeviceBuffer<float>::zeroed(stream, n);
    auto launch = oxide::prepare(c.ctx, scale_and_count, oxide::LaunchConfig1D::for_elements(n, 128));

    auto check = [&](const char *what, auto got, auto want) {
      ++c.checks;
      if (got != want) {
        std::printf("%s: mismatch: got %lld, expected %lld\n", what, static_cast<long long>(got),
                    static_cast<long long>(want));
        ++c.failures;
      }
    };
    // The initial values, before anything was set.
    check("initial last", oxide::get_global(stream, last), -1);
    check("initial scale", oxide::get_global(stream, scale) == 1.0f, true);

    const std::array<int, 4> htable = {10, 20, 30, 40};
    oxide::set_global(stream, table, htable);
    unsigned want_evens = 0;
    std::uint64_t want_total = 0;
    for (unsigned v : hin) {
      want_evens += v % 2 == 0;
      want_total += v;
    }
    for (int round = 0; round < 2; ++round) {
      const float s = round == 0 ? 2.0f : -0.5f;
      oxide::set_global(stream, scale, s); // ordered with the launches on the stream
      oxide::set_global(stream, evens, 0u);
      oxide::set_global(stream, total, std::uint64_t{1000});
      launch(stream, out, in);
      check("evens", oxide::get_global(stream, evens), want_evens);
      check("total", oxide::get_global(stream, total), want_total + 1000);
      c.compare(round == 0 ? "scale_and_count (scale 2)" : "scale_and_count (scale -0.5)",
                out.to_host(stream), [&](std::size_t i) {
                  return s * static_cast<float>(hin[i]) + static_cast<float>(htable[hin[i] % 4]);
                });
    }
    // Without resetting, a second launch counts on from the first.
    launch(stream, out, in);
    check("evens after a second launch", oxide::get_global(stream, evens), 2 * want_evens);
    check("table read back", oxide::get_global(stream, table)[3], 40);

    // An array global counted into at one element and read atomically at others.
    oxide::set_global(stream, tally, std::array<unsigned, 4>{5, 9, 100, 1000});
    auto counted = oxide::DeviceBuffer<unsigned>::zeroed(stream, n);
    oxide::prepare(c.ctx, count_and_read, oxide::LaunchConfig1D::for_elements(n, 128))(stream, counted);
    const std::array<unsigned, 4> got_tally = oxide::get_global(stream, tally);
    check("tally[2] counts the even threads", got_tally[2], 100 + n / 2);
    check("tally[3] counts the odd threads", got_tally[3], 1000 + n / 2);
    check("tally[0] unchanged", got_tally[0], 5u);
    const std::vector<unsigned> hcounted = counted.to_host(stream);
    unsigned wrong = 0;
    for (std::size_t i = 0; i < n; ++i)
      wrong += hcounted[i] != (i % 2 == 0 ? 5u : 9u);
    check("count_and_read's atomic loads", wrong, 0u);

    oxide::unsafe_launch(stream, write_last, oxide::LaunchConfig1D::for_elements(32, 32), 42);
    check("last", oxide::get_global(stream, last), 42);
  });
}
