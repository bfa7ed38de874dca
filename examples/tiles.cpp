// Tiles: each thread owns 8 consecutive outputs (the last thread's tile is shorter); every
// access names one element of the tile, so the compiler proves each write stays in it. Then 2-D
// register tiles, as a matrix product uses them: each thread of a 2-D launch owns a 4 x 4 block
// of a 1001 x 999 output (the right and bottom edge tiles are partial).
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

constexpr std::size_t kRows = 4, kCols = 4;

// out[r][c] = row[r] * col[c] (an outer product): thread (x, y) computes rows y * 4.. and
// columns x * 4.. in registers and writes them through its tile.
[[kernel, oxide::launch_contract("domain = 2, block = (16, 8), "
                                 "requires = (rows.size() * cols.size() == out.size())")]] void
outer_product(oxide::Span<const float> rows, oxide::Span<const float> cols,
              oxide::DisjointSpan2D<float> out) {
  const auto idx = oxide::thread::index_2d();
  auto tile = out.tile_mut<kRows, kCols>(idx);
  const std::size_t r0 = idx.y() * kRows, c0 = idx.x() * kCols;
  for (std::size_t r = 0; r < tile.rows(); ++r)
    for (std::size_t c = 0; c < tile.cols(); ++c)
      tile(r, c) = rows[r0 + r] * cols[c0 + c];
}

/// The 2-D tiles: every element written once, with the right value.
bool check_outer_product(oxide::Context &ctx, oxide::Stream &stream) {
  constexpr std::size_t height = 1001, width = 999; // neither a multiple of the tile
  std::vector<float> rows(height), cols(width);
  for (std::size_t i = 0; i < height; ++i)
    rows[i] = static_cast<float>(i % 97) * 0.5f;
  for (std::size_t i = 0; i < width; ++i)
    cols[i] = static_cast<float>(i % 89) - 40.0f;
  auto d_rows = oxide::DeviceBuffer<float>::from_host(stream, rows);
  auto d_cols = oxide::DeviceBuffer<float>::from_host(stream, cols);
  auto out = oxide::DeviceBuffer<float>::from_host(
      stream, std::vector<float>(width * height, std::numeric_limits<float>::quiet_NaN()));
  const auto config = oxide::LaunchConfig2D::for_elements((width + kCols - 1) / kCols,
                                                          (height + kRows - 1) / kRows, {16, 8, 1});
  oxide::prepare(ctx, outer_product, config)(stream, d_rows, d_cols, out.view_2d(width, height));
  const std::vector<float> result = out.to_host(stream);
  std::size_t wrong = 0;
  for (std::size_t r = 0; r < height; ++r)
    for (std::size_t c = 0; c < width; ++c)
      if (result[r * width + c] != rows[r] * cols[c] && wrong++ < 5)
        std::printf("mismatch at [%zu][%zu]: got %g, expected %g\n", r, c, result[r * width + c],
                    rows[r] * cols[c]);
  if (wrong)
    std::printf("FAIL: %zu of %zu elements of the outer product wrong\n", wrong, width * height);
  else
    std::printf("tiles: %zu x %zu outer product in %zu x %zu register tiles\n", height, width, kRows, kCols);
  return wrong == 0;
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
  std::printf("tiles: %zu elements in tiles of %zu\n", n, kTile);
  if (!check_outer_product(ctx, stream))
    return 1;
  std::printf("PASS\n");
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
