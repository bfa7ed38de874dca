// heat_3d: 20 explicit steps of heat diffusion in a 130 x 67 x 45 volume (a 7-point stencil;
// the boundary is held fixed). A 3-D launch contract: each thread owns one cell through its 3-D
// witness (index_3d) and writes it into a DisjointSpan3D. One prepared launch is reused for
// every step, swapping the input and output buffers.
//
//   oxcc run examples/heat_3d.cpp
#include <oxide/oxide.hpp>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <utility>
#include <vector>

constexpr float kRate = 0.1f; // diffusion per step; below 1/6 keeps the explicit scheme stable

[[kernel, oxide::launch_contract("domain = 3, block = (8, 8, 4), requires = (in.size() == out.size())")]] void
heat_step(oxide::Span<const float> in, oxide::DisjointSpan3D<float> out) {
  const auto idx = oxide::thread::index_3d();
  float *cell = out.get_mut(idx); // nullptr outside the volume
  if (!cell)
    return;
  const std::size_t w = out.width(), h = out.height(), d = out.depth();
  const std::size_t x = idx.x(), y = idx.y(), z = idx.z(), i = (z * h + y) * w + x;
  if (x == 0 || y == 0 || z == 0 || x == w - 1 || y == h - 1 || z == d - 1) {
    *cell = in[i]; // the boundary keeps its temperature
    return;
  }
  const float around = in[i - 1] + in[i + 1] + in[i - w] + in[i + w] + in[i - w * h] + in[i + w * h];
  *cell = in[i] + kRate * (around - 6.0f * in[i]);
}

int main() try {
  constexpr std::size_t width = 130, height = 67, depth = 45; // not multiples of the block
  constexpr int steps = 20;
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(0.0f, 100.0f);
  std::vector<float> volume(width * height * depth);
  for (float &t : volume)
    t = dist(rng);

  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  auto a = oxide::DeviceBuffer<float>::from_host(stream, volume);
  // Poisoned with NaN so a cell the kernel never wrote cannot pass the check.
  auto b = oxide::DeviceBuffer<float>::from_host(
      stream, std::vector<float>(volume.size(), std::numeric_limits<float>::quiet_NaN()));
  auto step =
      oxide::prepare(ctx, heat_step, oxide::LaunchConfig3D::for_elements(width, height, depth, {8, 8, 4}));
  for (int s = 0; s < steps; ++s) {
    step(stream, a, b.view_3d(width, height, depth));
    std::swap(a, b); // the step's output is the next one's input
  }
  const std::vector<float> result = a.to_host(stream);

  // The same steps on the host.
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
    // Contracted multiply-adds round differently: allow a few ulps per step.
    if (!(std::fabs(result[i] - volume[i]) <= 1e-4f * (1.0f + std::fabs(volume[i]))) && wrong++ < 5)
      std::printf("cell %zu: got %g, expected %g\n", i, result[i], volume[i]);
  if (wrong != 0) {
    std::printf("FAIL: %zu of %zu cells wrong\n", wrong, volume.size());
    return 1;
  }
  std::printf("heat_3d: %d steps over %zu x %zu x %zu cells on %s\nPASS\n", steps, width, height, depth,
              ctx.device().name().c_str());
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
