// stencil_zmarch: explicit heat diffusion in a volume (a 3-D 7-point stencil, the boundary held
// fixed), computed the 2.5-D way: a 2-D launch over (x, y), each thread marching up its z-column
// with the cells below, at and above it in registers, so each input value is loaded once per
// column instead of three times. The thread owns its whole z-column of the output:
// DisjointSpan3D::column_mut(index_2d()) names elements [z][y][x] for every z.
//
//   oxcc run examples/stencil_zmarch.cpp
#include <oxide/oxide.hpp>

#include "problem_size.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <utility>
#include <vector>

constexpr float kRate = 0.1f; // diffusion per step; below 1/6 keeps the explicit scheme stable

// Safe: thread (x, y) writes only its own column, through column_mut (a 2-D launch, `domain = 2`).
[[kernel, oxide::launch_contract("domain = 2, block = (32, 8), requires = (in.size() == out.size())")]] void
heat_step_zmarch(oxide::Span<const float> in, oxide::DisjointSpan3D<float> out) {
  const auto p = oxide::thread::index_2d();
  const std::size_t w = out.width(), h = out.height(), d = out.depth(), x = p.x(), y = p.y();
  if (x >= w || y >= h || d == 0)
    return; // a thread past the edge owns no cells
  const auto column = out.column_mut(p);
  const std::size_t plane = w * h;
  const bool edge = x == 0 || y == 0 || x == w - 1 || y == h - 1;
  std::size_t i = y * w + x; // the cell [z][y][x], z = 0 first
  float below = 0.0f, here = in[i], above = d > 1 ? in[i + plane] : 0.0f;
  for (std::size_t z = 0; z < d; ++z, i += plane) {
    if (float *cell = column.get_mut(z)) {
      if (edge || z == 0 || z == d - 1)
        *cell = here; // the boundary keeps its temperature
      else
        *cell = here + kRate * (below + above + in[i - 1] + in[i + 1] + in[i - w] + in[i + w] - 6.0f * here);
    }
    // Move up one cell: only the new `above` is loaded.
    below = here;
    here = above;
    above = z + 2 < d ? in[i + 2 * plane] : 0.0f;
  }
}

int main() try {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  // None of the extents is a multiple of the block (32 x 8); the simulator gets a smaller volume.
  const bool simulator = example::small_problem(ctx);
  const std::size_t width = simulator ? 130 : 515, height = simulator ? 67 : 259,
                    depth = simulator ? 45 : 200;
  const int steps = 10;
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(0.0f, 100.0f);
  std::vector<float> volume(width * height * depth);
  for (float &t : volume)
    t = dist(rng);

  auto a = oxide::DeviceBuffer<float>::from_host(stream, volume);
  // Poisoned with NaN so a cell the kernel never wrote cannot pass the check.
  auto b = oxide::DeviceBuffer<float>::from_host(
      stream, std::vector<float>(volume.size(), std::numeric_limits<float>::quiet_NaN()));
  // One thread per (x, y) column.
  auto step =
      oxide::prepare(ctx, heat_step_zmarch, oxide::LaunchConfig2D::for_elements(width, height, {32, 8, 1}));
  for (int s = 0; s < steps; ++s) {
    step(stream, a, b.view_3d(width, height, depth));
    std::swap(a, b); // the step's output is the next one's input
  }
  const std::vector<float> result = a.to_host(stream);

  // The same steps on the host, cell by cell.
  std::vector<float> next(volume.size());
  for (int s = 0; s < steps; ++s) {
    for (std::size_t z = 0; z < depth; ++z)
      for (std::size_t y = 0; y < height; ++y)
        for (std::size_t x = 0; x < width; ++x) {
          const std::size_t i = (z * height + y) * width + x;
          if (x == 0 || y == 0 || z == 0 || x == width - 1 || y == height - 1 || z == depth - 1) {
            next[i] = volume[i];
            continue;
          }
          const float around = volume[i - 1] + volume[i + 1] + volume[i - width] + volume[i + width] +
                               volume[i - width * height] + volume[i + width * height];
          next[i] = volume[i] + kRate * (around - 6.0f * volume[i]);
        }
    std::swap(volume, next);
  }
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < volume.size(); ++i)
    // The sum of the neighbours in another order, contracted multiply-adds: a few ulps per step.
    if (!(std::fabs(result[i] - volume[i]) <= 1e-4f * (1.0f + std::fabs(volume[i]))) && wrong++ < 5)
      std::printf("cell %zu: got %g, expected %g\n", i, result[i], volume[i]);
  if (wrong != 0) {
    std::printf("FAIL: %zu of %zu cells wrong\n", wrong, volume.size());
    return 1;
  }
  std::printf("stencil_zmarch: %d steps on %zu x %zu x %zu cells, one thread per z-column, on %s\nPASS\n",
              steps, width, height, depth, ctx.device().name().c_str());
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
