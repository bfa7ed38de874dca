// Check-once tiles: each thread owns 8 consecutive outputs, bounds-checked once for the whole
// tile (the last thread's tile is shorter), then written with no per-element checks.
#include <oxide/oxide.hpp>

#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

constexpr std::size_t kTile = 8;

[[kernel, oxide::launch_contract("domain = 1, block = 128, requires = (in.size() == out.size())")]] void
prefix_in_tile(oxide::Span<const std::uint32_t> in, oxide::DisjointSpan<std::uint32_t> out) {
  const auto idx = oxide::thread::index_1d();
  auto tile = out.tile_mut<kTile>(idx);
  const std::size_t base = idx.get() * kTile;
  std::uint32_t running = 0;
  std::size_t j = 0;
  for (std::uint32_t &o : tile) {
    running += in[base + j++];
    o = running; // inclusive prefix sum within the tile
  }
}

int main() try {
  constexpr std::size_t n = 1'000'003; // the last tile is partial
  std::mt19937 rng(std::random_device{}());
  std::vector<std::uint32_t> host(n);
  for (auto &v : host)
    v = rng() % 1000;

  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  auto in = oxide::DeviceBuffer<std::uint32_t>::from_host(stream, host);
  auto out = oxide::DeviceBuffer<std::uint32_t>::from_host(
      stream, std::vector<std::uint32_t>(n, std::numeric_limits<std::uint32_t>::max()));
  const std::size_t threads = (n + kTile - 1) / kTile;
  auto launch = oxide::prepare(ctx, prefix_in_tile, oxide::LaunchConfig1D::for_elements(threads, 128));
  launch(stream, in, out);
  const std::vector<std::uint32_t> result = out.to_host(stream);

  std::size_t wrong = 0;
  std::uint32_t running = 0;
  for (std::size_t i = 0; i < n; ++i) {
    running = (i % kTile == 0 ? 0 : running) + host[i];
    if (result[i] != running && wrong++ < 5)
      std::printf("mismatch at %zu: got %u, expected %u\n", i, result[i], running);
  }
  if (wrong) {
    std::printf("FAIL: %zu of %zu elements wrong\n", wrong, n);
    return 1;
  }
  std::printf("tiles: %zu elements in tiles of %zu\nPASS\n", n, kTile);
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
