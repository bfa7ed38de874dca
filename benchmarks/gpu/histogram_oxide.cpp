// 256-bin histogram of 2^30 random bytes (1 GiB), read as 32-bit words in a grid-stride loop:
// each block counts into its own bins in shared memory with block-scope atomics, then adds them
// to the global bins (an AtomicSpan) with one device-scope atomic per bin. Twin: histogram_cuda.cu.
// histogram_packed (issue 41's held-out form) counts without atomics instead: each thread has its
// own 8-bit counters, four to a shared word, emptied into the block's 32-bit bins every 224 bytes.
//
//   histogram_oxide [bytes, a multiple of 4, default 2^30]    prints RESULT lines
#include "bench_oxide.hpp"

#include <cstdint>
#include <cstdio>

constexpr std::uint32_t kBins = 256;
constexpr std::uint32_t kBlock = 256;

// histogram_packed: 256 8-bit counters a thread (64 words) take 32 KiB of shared memory for a
// block of 128, 33 KiB with the block's bins: 6 blocks (768 threads) fit an SM's 228 KiB, so the
// grid is 6 blocks per SM. A counter grows by at most 224 between flushes (56 words of 4 bytes).
constexpr std::uint32_t kPackedBlock = 128;
constexpr std::uint32_t kPackedBlocksPerSm = 6;
constexpr std::uint32_t kCounterWords = kBins / 4; // a thread's counters: 4 bins a word
constexpr std::uint32_t kWordsPerFlush = 224 / 4;  // bytes a thread counts between flushes, as words
constexpr std::uint32_t kBatch = 8; // words a thread loads before counting them: 768 threads an SM
                                    // with one load each in flight would leave the memory idle
static_assert(kWordsPerFlush % kBatch == 0);
// The flush: two threads a word column, each summing 64 threads' counters in 16-bit lanes.
static_assert(kPackedBlock == 2 * kCounterWords && kCounterWords * kWordsPerFlush * 4 < 65536);

// Each block's shared bins are block-local scratch updated with block-scope atomics (allowed in
// both tiers); the global bins are an AtomicSpan, which a contracted kernel may take. Call `slot`
// counts into bins[slot * 256 .. slot * 256 + 255] (zeroed once), so no clearing launch runs
// between the repetitions.
[[kernel, oxide::launch_contract("domain = 1, block = 256")]] void
histogram(oxide::Span<const std::uint32_t> words, oxide::AtomicSpan<std::uint32_t> bins, std::uint32_t slot) {
  auto local = oxide::shared_array<std::uint32_t, kBins>();
  const std::uint32_t t = oxide::thread_idx().x;
  local[t] = 0; // kBlock == kBins: one bin per thread
  oxide::sync_threads();
  for (const auto &i : oxide::thread::grid_stride(words.size())) {
    const std::uint32_t w = words[i.get()];
    for (std::uint32_t byte = 0; byte < 4; ++byte)
      oxide::AtomicRef<std::uint32_t, oxide::Scope::block>(local[(w >> (8 * byte)) & 0xff]).fetch_add(1);
  }
  oxide::sync_threads();
  if (const std::uint32_t count = local[t])
    bins.fetch_add(std::size_t{slot} * kBins + t, count);
}

// Lane-private bins (the classic form for skewed data): 32 copies of the 256 bins per block in
// shared memory, bin b of lane l at b * 32 + l, so the lanes of a warp never collide on a word
// and each lane's 32 copies sit in distinct banks. The merge reads lane (l + t) % 32 first so the
// 32 threads of a warp start on 32 different banks, then one device-scope atomic per bin.
[[kernel, oxide::launch_contract("domain = 1, block = 256")]] void
histogram_lanes(oxide::Span<const std::uint32_t> words, oxide::AtomicSpan<std::uint32_t> bins,
                std::uint32_t slot) {
  auto local = oxide::shared_array<std::uint32_t, kBins * 32>();
  const std::uint32_t t = oxide::thread_idx().x;
  const std::uint32_t lane = t % 32;
  for (std::uint32_t k = t; k < kBins * 32; k += kBlock)
    local[k] = 0;
  oxide::sync_threads();
  for (const auto &i : oxide::thread::grid_stride(words.size())) {
    const std::uint32_t w = words[i.get()];
    for (std::uint32_t byte = 0; byte < 4; ++byte)
      oxide::AtomicRef<std::uint32_t, oxide::Scope::block>(local[((w >> (8 * byte)) & 0xff) * 32 + lane])
          .fetch_add(1);
  }
  oxide::sync_threads();
  std::uint32_t count = 0;
  for (std::uint32_t l = 0; l < 32; ++l)
    count += local[t * 32 + (l + t) % 32];
  if (count != 0)
    bins.fetch_add(std::size_t{slot} * kBins + t, count);
}

// 8-bit counters packed 4 to a word: bin b of thread t is byte b % 4 of counters[(b / 4) * 128 + t],
// so only thread t touches its counters while counting (plain shared loads and stores, no
// atomics), and the 32 lanes of a warp use 32 different banks whatever their bytes. The blocks
// take chunks of 128 * 56 words in turn (block_stride: every thread of a block does the same
// number of chunks, so the barriers are uniform); thread t counts words t, t + 128, ... of the
// chunk, 224 bytes at most, so no counter passes 224. Then the block flushes: thread t sums word
// column c = t % 64 (bins 4c .. 4c + 3) over half of the threads, even and odd bytes as two 16-bit
// lanes (64 * 224 < 2^16), starting at a rotated thread so a warp reads 32 banks, and adds the 4
// sums to the block's 32-bit bins (block-scope atomics: two threads share each column); then
// each thread clears its own counters. One device-scope atomic per bin at the end, as `histogram`.
[[kernel, oxide::launch_contract("domain = 1, block = 128")]] void
histogram_packed(oxide::Span<const std::uint32_t> words, oxide::AtomicSpan<std::uint32_t> bins,
                 std::uint32_t slot) {
  auto counters = oxide::shared_array<std::uint32_t, kCounterWords * kPackedBlock>();
  auto local = oxide::shared_array<std::uint32_t, kBins>();
  const std::uint32_t t = oxide::thread_idx().x;
  for (std::uint32_t q = 0; q < kCounterWords; ++q)
    counters[q * kPackedBlock + t] = 0;
  for (std::uint32_t k = t; k < kBins; k += kPackedBlock)
    local[k] = 0;
  oxide::sync_threads();
  constexpr std::size_t kChunk = std::size_t{kPackedBlock} * kWordsPerFlush;
  const std::size_t n = words.size();
  const std::uint32_t column = t % kCounterWords, first = t / kCounterWords * kCounterWords;
  const auto tally = [&](std::uint32_t w) {
    for (std::uint32_t byte = 0; byte < 4; ++byte) {
      const std::uint32_t bin = (w >> (8 * byte)) & 0xff;
      counters[bin / 4 * kPackedBlock + t] += 1u << (8 * (bin % 4));
    }
  };
  for (const auto &chunk : oxide::block::block_stride((n + kChunk - 1) / kChunk)) {
    const std::size_t start = chunk.get() * kChunk;
    if (start + kChunk <= n) { // a whole chunk (all but the last): no test per word
      for (std::uint32_t j = 0; j < kWordsPerFlush; j += kBatch) {
        std::uint32_t w[kBatch]; // kBatch loads in flight before the counting waits on them
#pragma unroll
        for (std::uint32_t k = 0; k < kBatch; ++k)
          w[k] = words[start + (j + k) * kPackedBlock + t];
#pragma unroll // w stays in registers
        for (std::uint32_t k = 0; k < kBatch; ++k)
          tally(w[k]);
      }
    } else {
      for (std::size_t i = start + t; i < n; i += kPackedBlock)
        tally(words[i]);
    }
    oxide::sync_threads();
    std::uint32_t even = 0, odd = 0; // bytes 0 and 2, 1 and 3 of the column's words
    for (std::uint32_t k = 0; k < kCounterWords; ++k) {
      const std::uint32_t w = counters[column * kPackedBlock + first + (k + column) % kCounterWords];
      even += w & 0x00ff00ff;
      odd += (w >> 8) & 0x00ff00ff;
    }
    const std::uint32_t sums[4] = {even & 0xffff, odd & 0xffff, even >> 16, odd >> 16};
    for (std::uint32_t byte = 0; byte < 4; ++byte)
      if (sums[byte] != 0)
        oxide::AtomicRef<std::uint32_t, oxide::Scope::block>(local[4 * column + byte]).fetch_add(sums[byte]);
    oxide::sync_threads(); // every column read before its owners clear it
    for (std::uint32_t q = 0; q < kCounterWords; ++q)
      counters[q * kPackedBlock + t] = 0;
  }
  // The loop's last barrier ordered every flush before these reads (the zeroing after it touches
  // only counters).
  for (std::uint32_t k = t; k < kBins; k += kPackedBlock)
    if (const std::uint32_t count = local[k])
      bins.fetch_add(std::size_t{slot} * kBins + k, count);
}

// The same kernel in the unsafe tier, as it had to be written before AtomicSpan: the global bins
// a mutable Span updated through AtomicRef, no contract, oxide::unsafe_launch. Kept to compare
// the two tiers' code (histogram_unsafe, a diagnostic row).
[[kernel, oxide::launch_bounds(256)]] void histogram_unsafe(oxide::Span<const std::uint32_t> words,
                                                            oxide::Span<std::uint32_t> bins,
                                                            std::uint32_t slot) {
  auto local = oxide::shared_array<std::uint32_t, kBins>();
  const std::uint32_t t = oxide::thread_idx().x;
  local[t] = 0;
  oxide::sync_threads();
  for (const auto &i : oxide::thread::grid_stride(words.size())) {
    const std::uint32_t w = words[i.get()];
    for (std::uint32_t byte = 0; byte < 4; ++byte)
      oxide::AtomicRef<std::uint32_t, oxide::Scope::block>(local[(w >> (8 * byte)) & 0xff]).fetch_add(1);
  }
  oxide::sync_threads();
  if (const std::uint32_t count = local[t])
    oxide::AtomicRef<std::uint32_t, oxide::Scope::device>(bins[std::size_t{slot} * kBins + t])
        .fetch_add(count);
}

int main(int argc, char **argv) try {
  const std::size_t bytes = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : std::size_t{1} << 30;
  const std::size_t n = bytes / 4;
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  bench::EventTimer timer(ctx);
  std::vector<std::uint32_t> host(n);
  for (std::size_t i = 0; i < n; ++i)
    host[i] = std::uint32_t(bench::mix(i));
  std::vector<std::uint64_t> want(kBins, 0);
  for (std::uint32_t w : host)
    for (int byte = 0; byte < 4; ++byte)
      ++want[(w >> (8 * byte)) & 0xff];
  auto words = oxide::DeviceBuffer<std::uint32_t>::from_host(stream, host);
  const int calls = bench::kWarmups + bench::reps();
  const oxide::LaunchConfig1D config{std::uint32_t(ctx.device().sm_count()) * 8, kBlock};
  auto run = [&](const char *name, const char *api, auto &&launch) {
    auto bins = oxide::DeviceBuffer<std::uint32_t>::zeroed(stream, std::size_t{kBins} * calls);
    const float ms = timer.median_ms(stream, [&](int call) { launch(bins, std::uint32_t(call)); });
    const std::vector<std::uint32_t> got = bins.to_host(stream);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < got.size(); ++i)
      if (got[i] != want[i % kBins] && bad++ < 3)
        bench::mismatch(name, i, got[i], double(want[i % kBins]));
    bench::report(name, std::to_string(n * 4), "bytes", double(n * 4), ms, bad == 0, api);
  };
  auto safe = oxide::prepare(ctx, histogram, config);
  run("histogram", "safe",
      [&](oxide::DeviceBuffer<std::uint32_t> &bins, std::uint32_t slot) { safe(stream, words, bins, slot); });
  auto lanes = oxide::prepare(ctx, histogram_lanes, config);
  run("histogram_lanes", "safe", [&](oxide::DeviceBuffer<std::uint32_t> &bins, std::uint32_t slot) {
    lanes(stream, words, bins, slot);
  });
  const oxide::LaunchConfig1D packed_config{std::uint32_t(ctx.device().sm_count()) * kPackedBlocksPerSm,
                                            kPackedBlock};
  auto packed = oxide::prepare(ctx, histogram_packed, packed_config);
  run("histogram_packed", "safe", [&](oxide::DeviceBuffer<std::uint32_t> &bins, std::uint32_t slot) {
    packed(stream, words, bins, slot);
  });
  run("histogram_unsafe", "unsafe", [&](oxide::DeviceBuffer<std::uint32_t> &bins, std::uint32_t slot) {
    oxide::unsafe_launch(stream, histogram_unsafe, config, words, bins, slot);
  });
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "histogram_oxide: %s\n", e.what());
  return 1;
}
