// 16-bit floats: y = a * x + b in half and in bfloat16, accumulated in float, checked against
// the same arithmetic on the host within the formats' precision.
#include <oxide/oxide.hpp>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

[[kernel, oxide::launch_contract(
              "domain = 1, block = 256, requires = (x.size() == out.size(), xb.size() == out.size())")]] void
axpb(oxide::half a, oxide::Span<const oxide::half> x, oxide::Span<const oxide::bfloat16> xb,
     oxide::DisjointSpan<float> out) {
  const auto idx = oxide::thread::index_1d();
  const oxide::half h = a * x[idx.get()] + oxide::to_half(0.5f);
  const oxide::bfloat16 b = xb[idx.get()] * oxide::to_bfloat16(2.0f);
  if (float *o = out.get_mut(idx))
    *o = oxide::to_float(h) + oxide::to_float(b);
}

int main() try {
  constexpr std::size_t n = 1 << 20;
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  std::vector<oxide::half> hx(n);
  std::vector<oxide::bfloat16> hb(n);
  for (std::size_t i = 0; i < n; ++i) {
    hx[i] = oxide::to_half(dist(rng));
    hb[i] = oxide::to_bfloat16(dist(rng));
  }
  const oxide::half a = oxide::to_half(1.25f);

  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  auto x = oxide::DeviceBuffer<oxide::half>::from_host(stream, hx);
  auto xb = oxide::DeviceBuffer<oxide::bfloat16>::from_host(stream, hb);
  auto out = oxide::DeviceBuffer<float>::from_host(
      stream, std::vector<float>(n, std::numeric_limits<float>::quiet_NaN()));
  auto launch = oxide::prepare(ctx, axpb, oxide::LaunchConfig1D::for_elements(n));
  launch(stream, a, x, xb, out);
  const std::vector<float> result = out.to_host(stream);

  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float expected = (1.25f * oxide::to_float(hx[i]) + 0.5f) + 2.0f * oxide::to_float(hb[i]);
    // |h| < 8 and half has 11 significant bits, so one rounding costs at most 2^-8; allow the
    // product and the sum to round separately (plus slack). Doubling a bfloat16 is exact.
    if (!(std::fabs(result[i] - expected) <= 3.0f * 0x1p-8f) && wrong++ < 5)
      std::printf("mismatch at %zu: got %g, expected %g\n", i, result[i], expected);
  }
  if (wrong) {
    std::printf("FAIL: %zu of %zu elements wrong\n", wrong, n);
    return 1;
  }
  std::printf("half/bfloat16: %zu elements\nPASS\n", n);
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
