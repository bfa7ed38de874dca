// Blocks that spin on each other on the CPU simulator (issue 39). A chained scan whose block b
// spins until block b-1 has published its prefix (the look-back of a decoupled scan, by block
// index) must complete in any block order: the simulator gives spinning blocks more host
// threads. A block that spins on a flag no thread sets must be reported, not hang. argv[1] picks
// the kernel; the program prints its result and "done", or the launch's error (exit status 1).
#include <oxide/oxide.hpp>

#include <cstdint>
#include <cstdio>
#include <string_view>
#include <vector>

constexpr std::uint32_t kBlocks = 16, kThreads = 64;

// Inclusive prefix sums of `in`: each block sums its part, waits for the prefix of the block
// before, publishes its own and adds the prefix to its part's running sums.
[[kernel]] void chained_scan(const std::uint32_t *in, std::uint32_t *out, std::uint32_t *prefix,
                             std::uint32_t *published) {
  auto part = oxide::shared_array<std::uint32_t, kThreads>();
  auto before = oxide::shared_array<std::uint32_t, 1>();
  const std::uint32_t t = oxide::thread_idx().x, b = oxide::block_idx().x;
  part[t] = in[b * kThreads + t];
  oxide::sync_threads();
  if (t == 0) {
    for (std::uint32_t i = 1; i < kThreads; ++i)
      part[i] += part[i - 1];
    std::uint32_t sum = 0;
    if (b > 0) {
      while (oxide::AtomicRef<std::uint32_t>(published[b - 1]).load(oxide::MemoryOrder::acquire) == 0) {
      }
      sum = prefix[b - 1];
    }
    before[0] = sum;
    prefix[b] = sum + part[kThreads - 1];
    oxide::AtomicRef<std::uint32_t>(published[b]).store(1, oxide::MemoryOrder::release);
  }
  oxide::sync_threads();
  out[b * kThreads + t] = before[0] + part[t];
}

// Block 3 waits for a flag that no thread sets; the other blocks finish.
[[kernel]] void wait_for_nobody(std::uint32_t *flag, std::uint32_t *out) {
  const std::uint32_t t = oxide::thread_idx().x, b = oxide::block_idx().x;
  if (b == 3 && t == 0)
    while (oxide::AtomicRef<std::uint32_t>(*flag).load(oxide::MemoryOrder::acquire) == 0) {
    }
  out[b * kThreads + t] = 1;
}

int main(int argc, char **argv) try {
  const std::string_view which = argc > 1 ? argv[1] : "";
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  const oxide::LaunchConfig1D config{kBlocks, kThreads};
  const std::vector<std::uint32_t> ones(kBlocks * kThreads, 1);
  const auto in = oxide::DeviceBuffer<std::uint32_t>::from_host(stream, ones);
  auto out = oxide::DeviceBuffer<std::uint32_t>::zeroed(stream, kBlocks * kThreads);
  auto prefix = oxide::DeviceBuffer<std::uint32_t>::zeroed(stream, kBlocks);
  auto published = oxide::DeviceBuffer<std::uint32_t>::zeroed(stream, kBlocks);
  if (which == "scan")
    oxide::unsafe_launch(stream, chained_scan, config, in, out, prefix, published);
  else if (which == "nobody")
    oxide::unsafe_launch(stream, wait_for_nobody, config, published, out);
  else {
    std::fprintf(stderr, "usage: %s scan|nobody\n", argv[0]);
    return 2;
  }
  const std::vector<std::uint32_t> host = out.to_host(stream);
  std::uint32_t wrong = 0;
  for (std::uint32_t i = 0; i < host.size(); ++i)
    wrong += host[i] != (which == "scan" ? i + 1 : 1);
  std::printf("wrong: %u\ndone\n", wrong);
  return 0;
} catch (const oxide::Error &e) {
  std::printf("%s\n", e.what());
  return 1;
}
