// vecadd: c = a + b over 2^24 floats, checked element by element against the host.
//
//   oxcc run examples/vecadd.cpp
#include <oxide/oxide.hpp>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

[[kernel, oxide::launch_contract(
              "domain = 1, block = 256, requires = (a.size() == c.size(), b.size() == c.size())")]] void
vecadd(oxide::Span<const float> a, oxide::Span<const float> b, oxide::DisjointSpan<float> c) {
  const auto idx = oxide::thread::index_1d(); // this thread's own index: the only way to write c
  if (float *out = c.get_mut(idx))            // nullptr past the end of c
    *out = a[idx.get()] + b[idx.get()];
}

int main() try {
  constexpr std::size_t n = std::size_t{1} << 24;
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(-1000.0f, 1000.0f);
  std::vector<float> ha(n), hb(n);
  for (std::size_t i = 0; i < n; ++i) {
    ha[i] = dist(rng);
    hb[i] = dist(rng);
  }

  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  auto a = oxide::DeviceBuffer<float>::from_host(stream, ha);
  auto b = oxide::DeviceBuffer<float>::from_host(stream, hb);
  // Poisoned with NaN so an element the kernel never wrote cannot pass the check.
  auto c = oxide::DeviceBuffer<float>::from_host(
      stream, std::vector<float>(n, std::numeric_limits<float>::quiet_NaN()));

  auto launch = oxide::prepare(ctx, vecadd, oxide::LaunchConfig1D::for_elements(n));
  launch(stream, a, b, c);
  const std::vector<float> hc = c.to_host(stream);

  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (hc[i] != ha[i] + hb[i] && wrong++ < 5)
      std::printf("mismatch at %zu: got %g, expected %g\n", i, hc[i], ha[i] + hb[i]);
  if (wrong != 0) {
    std::printf("FAIL: %zu of %zu elements wrong\n", wrong, n);
    return 1;
  }
  std::printf("vecadd: %zu elements on %s\nPASS\n", n, ctx.device().name().c_str());
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
