// transpose: out = in^T for a 1000 x 777 matrix, through 32 x 32 tiles of shared memory. Each
// block loads one tile of the input row by row (coalesced on a GPU), then each of its threads
// writes its own element of the mirrored output tile, also row by row; the tile's extra column
// keeps the column-wise shared-memory reads from hitting one bank 32 times. A 2-D launch with a
// contract: one thread per output element, written through its witness into a DisjointSpan2D.
//
//   oxcc run examples/transpose.cpp
#include <oxide/oxide.hpp>

#include <cstdio>
#include <limits>
#include <random>
#include <vector>

constexpr std::uint32_t kTile = 32;
constexpr std::uint32_t kPitch = kTile + 1; // a tile row in shared memory, one float of padding

// `in` is height rows of width floats; `out` is its transpose, width rows of height floats.
[[kernel, oxide::launch_contract("domain = 2, block = (32, 32), "
                                 "requires = (width * height == in.size(), in.size() == out.size())")]] void
transpose(std::uint32_t width, std::uint32_t height, oxide::Span<const float> in,
          oxide::DisjointSpan2D<float> out) {
  auto tile = oxide::shared_array<float, std::size_t{kTile} * kPitch>();
  const oxide::Dim3 t = oxide::thread_idx(), b = oxide::block_idx();
  // The block's output tile (columns b.x * kTile.., rows b.y * kTile..) mirrors the input tile
  // at rows b.x * kTile.., columns b.y * kTile..; threads load it with x along input rows.
  const std::uint32_t in_row = b.x * kTile + t.y, in_col = b.y * kTile + t.x;
  if (in_row < height && in_col < width)
    tile[t.y * kPitch + t.x] = in[std::size_t{in_row} * width + in_col];
  oxide::sync_threads(); // the whole tile is loaded
  // out[y][x] = in[x][y]: this thread's own element, nullptr past the edge of the matrix.
  if (float *element = out.get_mut(oxide::thread::index_2d()))
    *element = tile[t.x * kPitch + t.y];
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
  // One thread per output element: the output is height wide and width high.
  const auto config = oxide::LaunchConfig2D::for_elements(height, width, {kTile, kTile, 1});
  oxide::prepare(ctx, transpose, config)(stream, width, height, in, out.view_2d(height, width));
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
