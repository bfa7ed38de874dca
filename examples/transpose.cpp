// transpose: out = in^T for a 1000 x 777 matrix, through 32 x 32 tiles of shared memory. Reads
// and writes both walk rows (coalesced on a GPU); the tile's extra column keeps the column-wise
// reads from hitting one shared-memory bank 32 times. A 2-D launch: one block per tile, 32 x 8
// threads each copying four rows.
//
//   oxcc run examples/transpose.cpp
#include <oxide/oxide.hpp>

#include <cstdio>
#include <limits>
#include <random>
#include <vector>

constexpr std::uint32_t kTile = 32;
constexpr std::uint32_t kRows = 8;          // threads per block along y; each copies kTile / kRows rows
constexpr std::uint32_t kPitch = kTile + 1; // a tile row in shared memory, one float of padding

[[kernel]] void transpose(std::uint32_t width, std::uint32_t height, oxide::Span<const float> in,
                          oxide::Span<float> out) {
  auto tile = oxide::shared_array<float, std::size_t{kTile} * kPitch>();
  const oxide::Dim3 t = oxide::thread_idx(), b = oxide::block_idx();
  const std::uint32_t x = b.x * kTile + t.x;
  for (std::uint32_t r = t.y; r < kTile; r += kRows) {
    const std::uint32_t y = b.y * kTile + r;
    if (x < width && y < height)
      tile[r * kPitch + t.x] = in[std::size_t{y} * width + x];
  }
  oxide::sync_threads(); // the whole tile is loaded
  // The block writes the mirrored tile: its rows are the input tile's columns.
  const std::uint32_t out_x = b.y * kTile + t.x;
  for (std::uint32_t r = t.y; r < kTile; r += kRows) {
    const std::uint32_t out_y = b.x * kTile + r;
    if (out_x < height && out_y < width)
      out[std::size_t{out_y} * height + out_x] = tile[t.x * kPitch + r];
  }
}

int main() try {
  constexpr std::uint32_t width = 1000, height = 777; // not multiples of the tile
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
  std::vector<float> host(std::size_t{width} * height);
  for (float &x : host)
    x = dist(rng);

  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  auto in = oxide::DeviceBuffer<float>::from_host(stream, host);
  auto out = oxide::DeviceBuffer<float>::from_host(
      stream, std::vector<float>(host.size(), std::numeric_limits<float>::quiet_NaN()));
  const oxide::LaunchConfig2D config{{(width + kTile - 1) / kTile, (height + kTile - 1) / kTile, 1},
                                     {kTile, kRows, 1}};
  oxide::prepare(ctx, transpose, config)(stream, width, height, in, out);
  const std::vector<float> result = out.to_host(stream);

  std::size_t wrong = 0;
  for (std::uint32_t y = 0; y < height; ++y)
    for (std::uint32_t x = 0; x < width; ++x) {
      const float got = result[std::size_t{x} * height + y], expected = host[std::size_t{y} * width + x];
      if (got != expected && wrong++ < 5)
        std::printf("out[%u][%u]: got %g, expected %g\n", x, y, got, expected);
    }
  if (wrong != 0) {
    std::printf("FAIL: %zu of %zu elements wrong\n", wrong, host.size());
    return 1;
  }
  std::printf("transpose: %u x %u in %u x %u tiles on %s\nPASS\n", width, height, config.grid.x,
              config.grid.y, ctx.device().name().c_str());
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
