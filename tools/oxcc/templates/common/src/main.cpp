// @NAME@: c = a + b on the GPU (or the CPU simulator), checked against the host.
#include <oxide/oxide.hpp>

#include <cstdio>
#include <vector>

// A kernel is a void function marked [[kernel]]. Its launch contract states the launch it
// expects: a 1-D grid of 256-thread blocks and matching sizes, checked when it is prepared.
[[kernel,
  oxide::launch_contract("domain = 1, block = 256, requires = (a.size() == c.size(), b.size() == c.size())")]]
void vecadd(oxide::Span<const float> a, oxide::Span<const float> b, oxide::DisjointSpan<float> c) {
  const auto idx = oxide::thread::index_1d(); // this thread's own index: the only way to write c
  if (float *out = c.get_mut(idx))            // nullptr past the end of c
    *out = a[idx.get()] + b[idx.get()];
}

int main() try {
  constexpr std::size_t n = 1 << 20;
  std::vector<float> ha(n), hb(n);
  for (std::size_t i = 0; i < n; ++i) {
    ha[i] = static_cast<float>(i);
    hb[i] = 2.0f * static_cast<float>(i);
  }

  auto ctx = oxide::Context::create(); // a GPU if there is one, else the CPU simulator
  auto stream = ctx.default_stream();
  auto a = oxide::DeviceBuffer<float>::from_host(stream, ha);
  auto b = oxide::DeviceBuffer<float>::from_host(stream, hb);
  auto c = oxide::DeviceBuffer<float>::zeroed(stream, n);

  // Prepared once (module load, parameter checks), launched as often as needed.
  auto launch = oxide::prepare(ctx, vecadd, oxide::LaunchConfig1D::for_elements(n));
  launch(stream, a, b, c);
  const std::vector<float> hc = c.to_host(stream);

  for (std::size_t i = 0; i < n; ++i)
    if (hc[i] != ha[i] + hb[i]) {
      std::printf("FAIL: c[%zu] = %g, expected %g\n", i, hc[i], ha[i] + hb[i]);
      return 1;
    }
  std::printf("@NAME@: %zu elements on %s\nPASS\n", n, ctx.device().name().c_str());
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
