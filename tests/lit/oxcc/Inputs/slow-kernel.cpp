#include <oxide/oxide.hpp>
#include <cstdio>
#include <vector>
// Long enough on the CPU simulator for its progress line (over two seconds): about 5 s at
// 100000 rounds on two cores.
[[kernel, oxide::launch_contract("domain = 1")]] void spin(oxide::DisjointSpan<float> out, int rounds) {
  const auto idx = oxide::thread::index_1d();
  if (float *o = out.get_mut(idx)) {
    float x = 0.0f;
    for (int r = 0; r < rounds; ++r)
      x = x * 0.999f + static_cast<float>(r & 7);
    *o = x;
  }
}
int main(int argc, char **argv) {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  const std::size_t n = 1 << 16;
  auto out = oxide::DeviceBuffer<float>::zeroed(stream, n);
  oxide::prepare(ctx, spin, oxide::LaunchConfig1D::for_elements(n))(stream, out, argc > 1 ? std::atoi(argv[1]) : 20000);
  auto h = out.to_host(stream);
  std::printf("%s\n", h[0] == h[n - 1] ? "PASS" : "FAIL");
}
