// Bugs the CPU simulator must not hide (issue #20): a warp reduction whose masks leave out the
// lanes it reads, a write through a null pointer, a race in shared memory. argv[1] picks the
// kernel; the program prints its result and "done", or the launch's error (exit status 1).
#include <oxide/oxide.hpp>

#include <cstdint>
#include <cstdio>
#include <numeric>
#include <string_view>
#include <vector>

constexpr std::uint32_t kBlocks = 4, kThreads = 64;

// The tail of the classic block reduction, ported literally from the legacy unrolled
// `if (tid < s) sdata[tid] += sdata[tid + s]`: each mask names the lanes that still add (lanes < s),
// not the lanes they read.
[[kernel]] void masked_tail_sum(const std::uint32_t *in, std::uint32_t *sums) {
  auto partial = oxide::shared_array<std::uint32_t, kThreads>();
  const std::uint32_t t = oxide::thread_idx().x, b = oxide::block_idx().x;
  partial[t] = in[b * kThreads + t];
  oxide::sync_threads();
  if (t < 32) {
    std::uint32_t v = partial[t] + partial[t + 32];
    for (std::uint32_t s = 16; s > 0; s /= 2)
      if (t < s)
        v += oxide::warp::shuffle_down(v, s, (1u << s) - 1);
    if (t == 0)
      sums[b] = v;
  }
}

// The same with the mask the GPU needs: the whole warp takes part in every step.
[[kernel]] void full_tail_sum(const std::uint32_t *in, std::uint32_t *sums) {
  auto partial = oxide::shared_array<std::uint32_t, kThreads>();
  const std::uint32_t t = oxide::thread_idx().x, b = oxide::block_idx().x;
  partial[t] = in[b * kThreads + t];
  oxide::sync_threads();
  if (t < 32) {
    std::uint32_t v = partial[t] + partial[t + 32];
    for (std::uint32_t s = 16; s > 0; s /= 2)
      v += oxide::warp::shuffle_down(v, s);
    if (t == 0)
      sums[b] = v;
  }
}

// The legacy warp-synchronous tail through volatile shared memory: every lane of the first warp
// adds at every step, with no warp::sync() between one lane's write and another's read.
[[kernel]] void legacy_tail_sum(const std::uint32_t *in, std::uint32_t *sums) {
  auto partial = oxide::shared_array<std::uint32_t, kThreads>();
  volatile std::uint32_t *s = partial.data();
  const std::uint32_t t = oxide::thread_idx().x, b = oxide::block_idx().x;
  s[t] = in[b * kThreads + t];
  oxide::sync_threads();
  if (t < 32) {
    for (std::uint32_t offset = 32; offset > 0; offset /= 2)
      s[t] = s[t] + s[t + offset];
    if (t == 0)
      sums[b] = s[0];
  }
}

// Thread 7 of block 2 writes to `address` (unless it is 0): 8 is a field of a null struct pointer.
[[kernel]] void wild_write(std::uint64_t address, std::uint32_t *sums) {
  if (address != 0 && oxide::block_idx().x == 2 && oxide::thread_idx().x == 7)
    *reinterpret_cast<volatile std::uint32_t *>(address) = 1;
  sums[oxide::block_idx().x] = 1;
}

// Each thread reads its neighbour's slot without a barrier after the writes.
[[kernel]] void racy_neighbour(std::uint32_t *sums) {
  auto slots = oxide::shared_array<std::uint32_t, kThreads>();
  const std::uint32_t t = oxide::thread_idx().x, b = oxide::block_idx().x;
  slots[t] = 0;
  oxide::sync_threads();
  slots[t] = t + 1;
  const std::uint32_t neighbour = slots[(t + 1) % kThreads];
  oxide::AtomicRef<std::uint32_t>(sums[b]).fetch_add(neighbour);
}

int main(int argc, char **argv) try {
  const std::string_view which = argc > 1 ? argv[1] : "";
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  std::vector<std::uint32_t> values(kBlocks * kThreads);
  std::iota(values.begin(), values.end(), 1u);
  const auto in = oxide::DeviceBuffer<std::uint32_t>::from_host(stream, values);
  auto sums = oxide::DeviceBuffer<std::uint32_t>::zeroed(stream, kBlocks);
  const oxide::LaunchConfig1D config{kBlocks, kThreads};
  if (which == "masked-reduction")
    oxide::unsafe_launch(stream, masked_tail_sum, config, in, sums);
  else if (which == "legacy-reduction")
    oxide::unsafe_launch(stream, legacy_tail_sum, config, in, sums);
  else if (which == "full-reduction")
    oxide::unsafe_launch(stream, full_tail_sum, config, in, sums);
  else if (which == "null-write") {
    try {
      oxide::unsafe_launch(stream, wild_write, config, std::uint64_t{8}, sums);
    } catch (const oxide::Error &e) {
      std::printf("%s: %s\n", std::string(e.kind_name()).c_str(), e.what());
    }
    // The context goes on working.
    oxide::unsafe_launch(stream, wild_write, config, std::uint64_t{0}, sums);
  } else if (which == "racy")
    oxide::unsafe_launch(stream, racy_neighbour, config, sums);
  else {
    std::fprintf(stderr, "usage: %s <kernel>\n", argv[0]);
    return 2;
  }
  const std::vector<std::uint32_t> host = sums.to_host(stream);
  std::printf("sums:");
  for (const std::uint32_t s : host)
    std::printf(" %u", s);
  std::printf("\ndone\n");
  return 0;
} catch (const oxide::Error &e) {
  std::printf("%s\n", e.what());
  return 1;
}
