// device_assert: `assert` inside a kernel. A failed assertion stops the kernel; the device
// prints the failed condition with its file, line, block and thread, and the host gets an
// oxide::Error of kind KernelFault naming the kernel, at the next call that waits for it.
// This program checks good data (PASS), then, with --break, data that violates the assertion.
//
//   oxcc run examples/device_assert.cpp -- --break
#include <oxide/oxide.hpp>

#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

[[kernel, oxide::launch_contract("domain = 1, requires = (in.size() == out.size())")]] void
checked_sqrt(oxide::Span<const float> in, oxide::DisjointSpan<float> out) {
  const auto i = oxide::thread::index_1d();
  if (float *o = out.get_mut(i)) {
    const float x = in[i.get()];
    assert(x >= 0.0f && "checked_sqrt needs non-negative input");
    *o = std::sqrt(x);
  }
}

int main(int argc, char **argv) {
  const bool break_it = argc > 1 && std::strcmp(argv[1], "--break") == 0;
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  std::vector<float> host(100'000);
  for (std::size_t i = 0; i < host.size(); ++i)
    host[i] = static_cast<float>(i);
  if (break_it)
    host[4242] = -1.0f;
  auto in = oxide::DeviceBuffer<float>::from_host(stream, host);
  auto out = oxide::DeviceBuffer<float>::zeroed(stream, host.size());
  try {
    oxide::prepare(ctx, checked_sqrt, oxide::LaunchConfig1D::for_elements(host.size(), 256))(stream, in, out);
    const std::vector<float> result = out.to_host(stream);
    for (std::size_t i = 0; i < host.size(); ++i)
      if (result[i] != std::sqrt(host[i])) {
        std::printf("FAIL: out[%zu] = %g\n", i, result[i]);
        return 1;
      }
  } catch (const oxide::Error &e) {
    std::fprintf(stderr, "%s\n", e.what());
    if (break_it && e.kind() == oxide::ErrorKind::KernelFault && e.kernel() == "checked_sqrt") {
      std::printf("device_assert: the failed assert surfaced as a KernelFault of '%s' on %s\nPASS\n",
                  e.kernel().c_str(), ctx.device().name().c_str());
      return 0;
    }
    return 1;
  }
  if (break_it) {
    std::printf("FAIL: the assertion did not stop the kernel\n");
    return 1;
  }
  std::printf("device_assert: %zu square roots, every assertion held on %s\nPASS\n", host.size(),
              ctx.device().name().c_str());
  return 0;
}
