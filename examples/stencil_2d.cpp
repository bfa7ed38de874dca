// stencil_2d: Jacobi iterations of the 2-D heat equation's steady state (each interior cell
// becomes the average of its four neighbours, a 5-point stencil) on a grid whose sides are not
// multiples of the block, with a fixed (Dirichlet) boundary: a hot top edge, a warm left edge and
// cold right and bottom edges. Each block first loads its 32 x 8 cells and a one-cell halo around
// them into a shared-memory tile, cooperatively (every thread loads one or two of its 340 cells),
// then waits at a barrier and computes its cells from the tile. A 2-D launch contract: each thread
// owns one cell through its 2-D witness. One prepared launch is reused for every iteration,
// ping-ponging between two buffers.
//
// The result is compared bit for bit with the same iterations on the host. That is possible
// because the update, 0.25f * ((north + south) + (west + east)), has no multiply feeding an add:
// the GPU's default contraction of a * b + c into one FMA (which rounds once where the host rounds
// twice) has nothing to fuse, so both sides do the same correctly rounded float operations in the
// same order.
//
//   oxcc run examples/stencil_2d.cpp
#include <oxide/oxide.hpp>

#include "problem_size.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <utility>
#include <vector>

constexpr std::uint32_t kBlockX = 32, kBlockY = 8;
constexpr std::uint32_t kTileX = kBlockX + 2, kTileY = kBlockY + 2; // the block's cells and a halo

// The new value of an interior cell: the same expression on the GPU and on the host.
inline float average(float north, float south, float west, float east) {
  return 0.25f * ((north + south) + (west + east));
}

[[kernel, oxide::launch_contract("domain = 2, block = (32, 8), requires = (in.size() == out.size())")]] void
jacobi_step(oxide::Span<const float> in, oxide::DisjointSpan2D<float> out) {
  auto tile = oxide::shared_array<float, std::size_t{kTileX} * kTileY>();
  const oxide::Dim3 t = oxide::thread_idx(), b = oxide::block_idx();
  const std::size_t w = out.width(), h = out.height();
  // Tile cell (tx, ty) is grid cell (x0 + tx - 1, y0 + ty - 1), where (x0, y0) is the block's
  // first cell; halo cells outside the grid stay unset (no interior cell reads them).
  const std::size_t x0 = std::size_t{b.x} * kBlockX, y0 = std::size_t{b.y} * kBlockY;
  for (std::uint32_t i = t.y * kBlockX + t.x; i < kTileX * kTileY; i += kBlockX * kBlockY) {
    const std::size_t x = x0 + i % kTileX, y = y0 + i / kTileX; // the grid cell plus (1, 1)
    if (x >= 1 && x - 1 < w && y >= 1 && y - 1 < h)
      tile[i] = in[(y - 1) * w + (x - 1)];
  }
  oxide::sync_threads(); // the tile is loaded, halo included: every thread, also those past the edge
  const auto idx = oxide::thread::index_2d();
  float *cell = out.get_mut(idx); // nullptr outside the grid
  if (!cell)
    return;
  const std::uint32_t c = (t.y + 1) * kTileX + (t.x + 1); // this thread's cell in the tile
  if (idx.x() == 0 || idx.y() == 0 || idx.x() == w - 1 || idx.y() == h - 1)
    *cell = tile[c]; // the boundary keeps its temperature
  else
    *cell = average(tile[c - kTileX], tile[c + kTileX], tile[c - 1], tile[c + 1]);
}

int main() try {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  // Neither side is a multiple of the block. The simulator runs each thread as a fiber that waits
  // once per iteration, so it gets a smaller grid and fewer iterations, to finish in a second.
  const bool simulator = example::small_problem(ctx);
  const std::size_t width = simulator ? 515 : 4099, height = simulator ? 389 : 2053;
  const int iterations = simulator ? 30 : 200;
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(0.0f, 50.0f);
  std::vector<float> grid(width * height);
  for (std::size_t y = 0; y < height; ++y)
    for (std::size_t x = 0; x < width; ++x)
      grid[y * width + x] = y == 0                              ? 100.0f
                            : x == 0                            ? 50.0f
                            : x == width - 1 || y == height - 1 ? 0.0f
                                                                : dist(rng);

  auto a = oxide::DeviceBuffer<float>::from_host(stream, grid);
  // Poisoned with NaN so a cell the kernel never wrote cannot pass the check.
  auto b = oxide::DeviceBuffer<float>::from_host(
      stream, std::vector<float>(grid.size(), std::numeric_limits<float>::quiet_NaN()));
  auto step = oxide::prepare(ctx, jacobi_step,
                             oxide::LaunchConfig2D::for_elements(width, height, {kBlockX, kBlockY, 1}));
  for (int s = 0; s < iterations; ++s) {
    step(stream, a, b.view_2d(width, height));
    std::swap(a, b); // this iteration's output is the next one's input
  }
  const std::vector<float> result = a.to_host(stream);

  // The same iterations on the host, with the same float operations in the same order.
  std::vector<float> next(grid);
  for (int s = 0; s < iterations; ++s) {
    for (std::size_t y = 1; y + 1 < height; ++y)
      for (std::size_t x = 1; x + 1 < width; ++x) {
        const std::size_t i = y * width + x;
        next[i] = average(grid[i - width], grid[i + width], grid[i - 1], grid[i + 1]);
      }
    std::swap(grid, next); // the boundary is the same in both
  }
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < grid.size(); ++i)
    if (std::memcmp(&result[i], &grid[i], sizeof(float)) != 0 && wrong++ < 5)
      std::printf("cell (%zu, %zu): got %.9g, expected %.9g\n", i % width, i / width, result[i], grid[i]);
  if (wrong != 0) {
    std::printf("FAIL: %zu of %zu cells differ\n", wrong, grid.size());
    return 1;
  }
  std::printf(
      "stencil_2d: %d Jacobi iterations over %zu x %zu cells in %u x %u blocks, bitwise equal, on %s\n"
      "PASS\n",
      iterations, width, height, kBlockX, kBlockY, ctx.device().name().c_str());
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
