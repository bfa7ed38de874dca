// blur_2d: a 3 x 3 box blur of a 1920 x 1081 image, edges clamped. A 2-D launch contract: each
// thread owns one output pixel through its 2-D witness (index_2d), and reads its neighbours from
// the shared input. The output is the image buffer seen as width x height (view_2d).
//
//   oxcc run examples/blur_2d.cpp
#include <oxide/oxide.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

[[kernel, oxide::launch_contract("domain = 2, block = (16, 16), requires = (in.size() == out.size())")]] void
blur(oxide::Span<const float> in, oxide::DisjointSpan2D<float> out) {
  const auto idx = oxide::thread::index_2d();
  float *pixel = out.get_mut(idx); // nullptr outside width x height
  if (!pixel)
    return;
  const std::size_t w = out.width(), h = out.height(), x = idx.x(), y = idx.y();
  float sum = 0.0f;
  for (std::size_t dy = 0; dy < 3; ++dy) {
    const std::size_t row = std::min(std::max(y + dy, std::size_t{1}) - 1, h - 1); // y - 1 .. y + 1, clamped
    for (std::size_t dx = 0; dx < 3; ++dx) {
      const std::size_t column = std::min(std::max(x + dx, std::size_t{1}) - 1, w - 1);
      sum += in[row * w + column];
    }
  }
  *pixel = sum / 9.0f;
}

int main() try {
  constexpr std::size_t width = 1920, height = 1081; // not multiples of the block
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(0.0f, 255.0f);
  std::vector<float> image(width * height);
  for (float &p : image)
    p = dist(rng);

  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  auto in = oxide::DeviceBuffer<float>::from_host(stream, image);
  // Poisoned with NaN so a pixel the kernel never wrote cannot pass the check.
  auto out = oxide::DeviceBuffer<float>::from_host(
      stream, std::vector<float>(image.size(), std::numeric_limits<float>::quiet_NaN()));
  auto launch = oxide::prepare(ctx, blur, oxide::LaunchConfig2D::for_elements(width, height, {16, 16, 1}));
  launch(stream, in, out.view_2d(width, height));
  const std::vector<float> result = out.to_host(stream);

  std::size_t wrong = 0;
  for (std::size_t y = 0; y < height; ++y)
    for (std::size_t x = 0; x < width; ++x) {
      float sum = 0.0f;
      for (std::size_t dy = 0; dy < 3; ++dy)
        for (std::size_t dx = 0; dx < 3; ++dx)
          sum += image[std::min(std::max(y + dy, std::size_t{1}) - 1, height - 1) * width +
                       std::min(std::max(x + dx, std::size_t{1}) - 1, width - 1)];
      const float expected = sum / 9.0f, got = result[y * width + x];
      if (!(std::fabs(got - expected) <= 1e-5f * expected + 1e-5f) && wrong++ < 5)
        std::printf("pixel (%zu, %zu): got %g, expected %g\n", x, y, got, expected);
    }
  if (wrong != 0) {
    std::printf("FAIL: %zu of %zu pixels wrong\n", wrong, image.size());
    return 1;
  }
  std::printf("blur_2d: %zu x %zu pixels on %s\nPASS\n", width, height, ctx.device().name().c_str());
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
