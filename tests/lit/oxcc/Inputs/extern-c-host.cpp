// A file with a kernel and an extern "C" host function that launches it (the entry point a C or
// ctypes caller would use): the function is host code, so it may call the host runtime.
#include <oxide/oxide.hpp>

#include <cstdio>
#include <vector>

[[kernel, oxide::launch_contract("domain = 1, requires = (a.size() == c.size())")]]
void twice(oxide::Span<const float> a, oxide::DisjointSpan<float> c) {
  const auto idx = oxide::thread::index_1d();
  if (float *out = c.get_mut(idx))
    *out = 2.0f * a[idx.get()];
}

extern "C" int run_twice(int n) {
  auto ctx = oxide::Context::cpu();
  auto stream = ctx.default_stream();
  std::vector<float> host(static_cast<std::size_t>(n), 1.5f);
  auto a = oxide::DeviceBuffer<float>::from_host(stream, host);
  auto c = oxide::DeviceBuffer<float>::zeroed(stream, host.size());
  oxide::prepare(ctx, twice, oxide::LaunchConfig1D::for_elements(host.size()))(stream, a, c);
  return c.to_host(stream) == std::vector<float>(host.size(), 3.0f) ? 0 : 1;
}

extern "C" {
int run_twice_in_block(int n) { return run_twice(n); }
}

int main() {
  const int rc = run_twice(1000) | run_twice_in_block(10);
  std::puts(rc == 0 ? "PASS" : "FAIL");
  return rc;
}
