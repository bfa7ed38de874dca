// Process start to first kernel done, Oxide side: a vecadd over 2^20 floats (a context, three
// buffers, one prepared launch, a synchronize), then the copy back and the check. Prints the
// CLOCK_MONOTONIC times of main's entry and of the end of the first kernel's synchronize, which
// startup.py subtracts from the time it started the process; startup_cuda.cu is the nvcc twin.
// Without a GPU it stops with an error unless OXIDE_DEVICE=cpu asks for the simulator.
#include <oxide/oxide.hpp>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "launch_common.hpp"

namespace lb = launchbench;

[[kernel, oxide::launch_contract(
              "domain = 1, block = 256, requires = (a.size() == c.size(), b.size() == c.size())")]] void
vecadd(oxide::Span<const float> a, oxide::Span<const float> b, oxide::DisjointSpan<float> c) {
  const auto idx = oxide::thread::index_1d();
  if (float *out = c.get_mut(idx))
    *out = a[idx.get()] + b[idx.get()];
}

int main() try {
  const long long t_main = lb::monotonic_ns();
  const std::size_t n = static_cast<std::size_t>(lb::env_long("STARTUP_ELEMENTS", 1 << 20));
  std::vector<float> ha(n), hb(n);
  for (std::size_t i = 0; i < n; ++i) {
    ha[i] = static_cast<float>(i % 1000);
    hb[i] = 0.25f * static_cast<float>(i % 777);
  }

  auto ctx = std::getenv("OXIDE_DEVICE") ? oxide::Context::create() : oxide::Context::create(0);
  const long long t_context = lb::monotonic_ns();
  auto stream = ctx.default_stream();
  auto a = oxide::DeviceBuffer<float>::from_host(stream, ha);
  auto b = oxide::DeviceBuffer<float>::from_host(stream, hb);
  auto c = oxide::DeviceBuffer<float>::zeroed(stream, n);
  const long long t_buffers = lb::monotonic_ns();
  auto launch = oxide::prepare(ctx, vecadd, oxide::LaunchConfig1D::for_elements(n, 256));
  const long long t_prepare = lb::monotonic_ns();
  launch(stream, a, b, c);
  stream.synchronize();
  const long long t_done = lb::monotonic_ns();

  const std::vector<float> hc = c.to_host(stream);
  for (std::size_t i = 0; i < n; ++i)
    if (hc[i] != ha[i] + hb[i]) {
      std::fprintf(stderr, "startup_oxide: FAIL: c[%zu] = %g, expected %g\n", i, hc[i], ha[i] + hb[i]);
      return 1;
    }
  std::printf("RESULT section=startup side=oxide backend=%s main_ns=%lld done_ns=%lld context_us=%.1f "
              "buffers_us=%.1f prepare_us=%.1f launch_sync_us=%.1f\n",
              ctx.is_simulator() ? "simulator" : "gpu", t_main, t_done, (t_context - t_main) / 1e3,
              (t_buffers - t_context) / 1e3, (t_prepare - t_buffers) / 1e3, (t_done - t_prepare) / 1e3);
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "startup_oxide: %s\n", e.what());
  return 2;
}
