// Memory orders and scopes of oxide::AtomicRef / AtomicSpan in the patterns that need them:
//  - the last block to finish adds every block's sum (CUDA's threadFenceReduction sample): each
//    block's thread 0 stores its sum, then takes a ticket with fetch_add; the acq_rel (or
//    seq_cst) ticket makes every earlier block's sum visible to the block that takes the last
//    one. A relaxed ticket (what LLVM 22's NVPTX back end made of every ordered fetch_add before
//    the compiler added the fences) lets that block read a stale sum;
//  - a release store of a flag after the data it guards, read back with an acquire load by
//    another block;
//  - block-scope counters in shared memory (atom with .cta semantics);
//  - every read-modify-write at block, device and system scope, in global and shared memory
//    (LLVM 22's NVPTX back end prints them all at PTX's default .gpu scope; the compiler writes
//    the others with their own, oxide-scoped-atomics).
// Every value is exact (integers), and compared with the host's.
//
//   oxcc run tests/lang/atomic_orderings.cpp
#include "lang_check.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

constexpr std::uint32_t kBlock = 128;

template <oxide::MemoryOrder Ticket>
[[kernel, oxide::launch_contract("domain = 1, block = 128")]] void
last_block_sum(oxide::Span<const std::uint32_t> in, oxide::AtomicSpan<std::uint32_t> partials,
               oxide::AtomicSpan<std::uint32_t> tickets, oxide::AtomicSpan<std::uint32_t> total) {
  auto warp_sums = oxide::shared_array<std::uint32_t, kBlock / oxide::warp::kSize>();
  const std::uint32_t t = oxide::thread_idx().x;
  const std::size_t i = oxide::thread::index_1d().get();
  const std::uint32_t sum = oxide::warp::sum(i < in.size() ? in[i] : 0u);
  if (oxide::warp::lane_id() == 0)
    warp_sums[t / oxide::warp::kSize] = sum;
  oxide::sync_threads();
  if (t != 0)
    return;
  std::uint32_t block_sum = 0;
  for (std::uint32_t w = 0; w < kBlock / oxide::warp::kSize; ++w)
    block_sum += warp_sums[w];
  const std::uint32_t block = oxide::block_idx().x, blocks = oxide::grid_dim().x;
  partials.store(block, block_sum);
  if (tickets.fetch_add(0, 1u, Ticket) != blocks - 1)
    return;
  std::uint32_t grand = 0; // the last block: every other block's sum is visible now
  for (std::uint32_t b = 0; b < blocks; ++b)
    grand += partials.load(b);
  total.store(0, grand);
}

// Block b publishes data[b] with a release store of ready[b]; its successor waits for the flag
// with acquire loads and copies the data. The grid is small enough to be resident at once, so
// the waiting cannot deadlock.
[[kernel, oxide::launch_contract("domain = 1, block = 32")]] void
pass_messages(oxide::AtomicSpan<std::uint32_t> data, oxide::AtomicSpan<std::uint32_t> ready,
              oxide::AtomicSpan<std::uint32_t> received) {
  if (oxide::thread_idx().x != 0)
    return;
  const std::uint32_t b = oxide::block_idx().x, blocks = oxide::grid_dim().x;
  data.store(b, 1000 + b);
  ready.store(b, 1u, oxide::MemoryOrder::release);
  const std::uint32_t from = (b + 1) % blocks;
  while (ready.load(from, oxide::MemoryOrder::acquire) == 0) {
  }
  received.store(b, data.load(from));
}

// Each block counts its threads whose value is odd into a shared counter with block-scope
// atomics, then thread 0 writes the count as the block's element.
[[kernel, oxide::launch_contract("domain = 1, block = 128")]] void
count_odd(oxide::Span<const std::uint32_t> in, oxide::DisjointSpan<std::uint32_t> counts) {
  auto counter = oxide::shared_array<std::uint32_t, 1>();
  const std::uint32_t t = oxide::thread_idx().x;
  if (t == 0)
    counter[0] = 0;
  oxide::sync_threads();
  const std::size_t i = oxide::thread::index_1d().get();
  if (i < in.size() && in[i] % 2 == 1)
    oxide::AtomicRef<std::uint32_t, oxide::Scope::block>(counter[0])
        .fetch_add(1u, oxide::MemoryOrder::relaxed);
  oxide::sync_threads();
  if (std::uint32_t *out = counts.get_mut(oxide::block::index()))
    *out = oxide::AtomicRef<std::uint32_t, oxide::Scope::block>(counter[0]).load(oxide::MemoryOrder::acquire);
}

// Every read-modify-write operation at scope S, each thread once, on global memory (the spans)
// and on a block-shared copy whose total thread 0 adds to the global one. exchange hands each
// thread the value another thread left: the values taken and the last one left are then the
// initial value and every thread's, each once (their sum is checked).
template <oxide::Scope S>
[[kernel, oxide::launch_contract("domain = 1, block = 128")]] void
every_operation(oxide::Span<const std::int32_t> in, oxide::AtomicSpan<std::int32_t, S> ints,
                oxide::AtomicSpan<std::uint64_t, S> bits, oxide::AtomicSpan<float, S> floats,
                oxide::AtomicSpan<double, S> doubles, oxide::DisjointSpan<std::uint32_t> taken) {
  auto shared_sum = oxide::shared_array<std::int64_t, 1>();
  const std::uint32_t t = oxide::thread_idx().x;
  if (t == 0)
    shared_sum[0] = 0;
  oxide::sync_threads();
  const auto me = oxide::thread::index_1d();
  const std::size_t i = me.get();
  if (i < in.size()) {
    const std::int32_t v = in[i];
    ints.fetch_add(0, v);
    ints[1].fetch_sub(v);
    ints.fetch_min(2, v);
    ints.fetch_max(3, v);
    bits[0].fetch_or(std::uint64_t{1} << (i % 64));
    bits[1].fetch_xor(static_cast<std::uint64_t>(v) << 20);
    bits[2].fetch_and(~(std::uint64_t{1} << (i % 61)));
    floats.fetch_add(0, 1.0f);
    doubles.fetch_add(0, 0.5);
    if (std::uint32_t *mine = taken.get_mut(me))
      *mine = static_cast<std::uint32_t>(ints[4].exchange(static_cast<std::int32_t>(i)));
    oxide::AtomicRef<std::int64_t, S>(shared_sum[0]).fetch_add(v);
  }
  oxide::sync_threads();
  if (t == 0)
    ints.fetch_add(5, static_cast<std::int32_t>(shared_sum[0]));
}

int main() {
  return lang::run_group("atomic_orderings", [](lang::Checker &c) {
    auto &stream = c.stream;
    auto check = [&](const char *what, std::uint64_t got, std::uint64_t want) {
      ++c.checks;
      if (got != want) {
        std::printf("%s: mismatch: got %llu, expected %llu\n", what, static_cast<unsigned long long>(got),
                    static_cast<unsigned long long>(want));
        ++c.failures;
      }
    };

    constexpr std::size_t n = 200'000;
    std::vector<std::uint32_t> host(n);
    std::uint32_t want_total = 0;
    for (std::size_t i = 0; i < n; ++i) {
      host[i] = static_cast<std::uint32_t>((i * 2654435761u) % 1000);
      want_total += host[i];
    }
    auto in = oxide::DeviceBuffer<std::uint32_t>::from_host(stream, host);
    const auto config = oxide::LaunchConfig1D::for_elements(n, kBlock);

    auto sum_with = [&](const char *what, auto kernel) {
      auto partials = oxide::DeviceBuffer<std::uint32_t>::zeroed(stream, config.grid);
      auto tickets = oxide::DeviceBuffer<std::uint32_t>::zeroed(stream, 1);
      auto total =
          oxide::DeviceBuffer<std::uint32_t>::from_host(stream, std::vector<std::uint32_t>{0xdeadbeef});
      auto launch = oxide::prepare(c.ctx, kernel, config);
      for (int round = 0; round < 20; ++round) {
        tickets.copy_from_host(stream, std::vector<std::uint32_t>{0});
        launch(stream, in, partials, tickets, total);
        check(what, total.to_host(stream)[0], want_total);
      }
    };
    sum_with("last_block_sum (acq_rel ticket)", last_block_sum<oxide::MemoryOrder::acq_rel>);
    sum_with("last_block_sum (seq_cst ticket)", last_block_sum<oxide::MemoryOrder::seq_cst>);

    constexpr std::uint32_t kMessengers = 64;
    for (int round = 0; round < 20; ++round) {
      auto data = oxide::DeviceBuffer<std::uint32_t>::zeroed(stream, kMessengers);
      auto ready = oxide::DeviceBuffer<std::uint32_t>::zeroed(stream, kMessengers);
      auto received = oxide::DeviceBuffer<std::uint32_t>::zeroed(stream, kMessengers);
      auto launch = oxide::prepare(c.ctx, pass_messages, oxide::LaunchConfig1D{kMessengers, 32});
      launch(stream, data, ready, received);
      const std::vector<std::uint32_t> got = received.to_host(stream);
      for (std::uint32_t b = 0; b < kMessengers; ++b)
        check("pass_messages", got[b], 1000 + (b + 1) % kMessengers);
    }

    auto counts = oxide::DeviceBuffer<std::uint32_t>::zeroed(stream, config.grid);
    oxide::prepare(c.ctx, count_odd, config)(stream, in, counts);
    const std::vector<std::uint32_t> got = counts.to_host(stream);
    for (std::uint32_t b = 0; b < config.grid; ++b) {
      std::uint32_t want = 0;
      for (std::size_t i = std::size_t{b} * kBlock; i < std::min(n, std::size_t{b + 1} * kBlock); ++i)
        want += host[i] % 2;
      check("count_odd", got[b], want);
    }

    auto every_operation_at = [&](const char *what, auto kernel) {
      constexpr std::size_t m = 5000;
      std::vector<std::int32_t> values(m);
      std::int64_t sum = 0;
      std::int32_t lo = 1 << 30, hi = -(1 << 30);
      std::uint64_t any = 0, flips = 0, kept = ~std::uint64_t{0};
      for (std::size_t i = 0; i < m; ++i) {
        values[i] = static_cast<std::int32_t>((i * 2654435761u) % 20001) - 10000;
        sum += values[i];
        lo = std::min(lo, values[i]);
        hi = std::max(hi, values[i]);
        any |= std::uint64_t{1} << (i % 64);
        flips ^= static_cast<std::uint64_t>(values[i]) << 20;
        kept &= ~(std::uint64_t{1} << (i % 61));
      }
      const std::int32_t start = 77;
      auto in = oxide::DeviceBuffer<std::int32_t>::from_host(stream, values);
      auto ints = oxide::DeviceBuffer<std::int32_t>::from_host(
          stream, std::vector<std::int32_t>{0, 0, 1 << 30, -(1 << 30), start, 0});
      auto bits =
          oxide::DeviceBuffer<std::uint64_t>::from_host(stream, std::vector<std::uint64_t>{0, 0, ~0ull});
      auto floats = oxide::DeviceBuffer<float>::zeroed(stream, 1);
      auto doubles = oxide::DeviceBuffer<double>::zeroed(stream, 1);
      auto taken = oxide::DeviceBuffer<std::uint32_t>::zeroed(stream, m);
      oxide::prepare(c.ctx, kernel, oxide::LaunchConfig1D::for_elements(m, kBlock))(stream, in, ints, bits,
                                                                                    floats, doubles, taken);
      const std::vector<std::int32_t> i = ints.to_host(stream);
      const std::vector<std::uint64_t> b = bits.to_host(stream);
      const std::vector<std::uint32_t> olds = taken.to_host(stream);
      std::uint64_t exchanged = static_cast<std::uint32_t>(i[4]);
      for (const std::uint32_t old : olds)
        exchanged += old;
      check(what, static_cast<std::uint64_t>(i[0] - sum), 0);
      check(what, static_cast<std::uint64_t>(i[1] + sum), 0);
      check(what, static_cast<std::uint64_t>(i[2] - lo), 0);
      check(what, static_cast<std::uint64_t>(i[3] - hi), 0);
      check(what, static_cast<std::uint64_t>(i[5] - sum), 0);
      check(what, b[0], any);
      check(what, b[1], flips);
      check(what, b[2], kept);
      check(what, static_cast<std::uint64_t>(floats.to_host(stream)[0]), m);
      check(what, static_cast<std::uint64_t>(2 * doubles.to_host(stream)[0]), m);
      check(what, exchanged, start + m * (m - 1) / 2);
    };
    every_operation_at("every_operation (block scope)", every_operation<oxide::Scope::block>);
    every_operation_at("every_operation (device scope)", every_operation<oxide::Scope::device>);
    every_operation_at("every_operation (system scope)", every_operation<oxide::Scope::system>);
  });
}
