// saxpy with a grid-stride loop: y = a * x + y over 2^24 floats with a fixed, small grid, so
// each thread handles many elements. Every step of oxide::thread::grid_stride is a witness,
// and the contract's `requires` lets the compiler drop every bounds check in the loop.
#include <oxide/oxide.hpp>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

[[kernel, oxide::launch_contract(
              "domain = 1, block = 256, requires = (x.size() == out.size(), y.size() == out.size())")]] void
saxpy(float a, oxide::Span<const float> x, oxide::Span<const float> y, oxide::DisjointSpan<float> out) {
  for (const auto &i : oxide::thread::grid_stride(out.size()))
    if (float *o = out.get_mut(i))
      *o = a * x[i.get()] + y[i.get()];
}

int main() try {
  constexpr std::size_t n = (std::size_t{1} << 24) + 12345; // not a multiple of the grid
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(-10.0f, 10.0f);
  std::vector<float> hx(n), hy(n);
  for (std::size_t i = 0; i < n; ++i) {
    hx[i] = dist(rng);
    hy[i] = dist(rng);
  }
  const float a = dist(rng);

  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  auto x = oxide::DeviceBuffer<float>::from_host(stream, hx);
  auto y = oxide::DeviceBuffer<float>::from_host(stream, hy);
  auto out = oxide::DeviceBuffer<float>::from_host(
      stream, std::vector<float>(n, std::numeric_limits<float>::quiet_NaN()));

  // 264 blocks of 256 threads: a few waves on any GPU, far fewer threads than elements.
  auto launch = oxide::prepare(ctx, saxpy, oxide::LaunchConfig1D{264, 256});
  launch(stream, a, x, y, out);
  const std::vector<float> result = out.to_host(stream);

  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float expected = std::fma(a, hx[i], hy[i]);
    // FMA contraction is on by default (as nvcc): allow the unfused rounding too.
    if (!(std::fabs(result[i] - expected) <= 1e-5f * (1.0f + std::fabs(expected))) && wrong++ < 5)
      std::printf("mismatch at %zu: got %g, expected %g\n", i, result[i], expected);
  }
  if (wrong) {
    std::printf("FAIL: %zu of %zu elements wrong\n", wrong, n);
    return 1;
  }
  std::printf("saxpy (grid-stride): %zu elements\nPASS\n", n);
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
