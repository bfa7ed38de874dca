// 2-D 5-point stencil (Jacobi step) on a 16384 x 16384 grid of floats (1 GiB in, 1 GiB out):
// out = 0.5 * centre + 0.125 * (left + right + up + down) inside, out = in on the border. A 2-D
// launch contract, blocks of 32 x 8 threads, one output element per thread written through its
// witness. Twin: stencil_cuda.cu.
//
//   stencil_oxide [width height]    prints RESULT lines (bench_common.hpp)
#include "bench_oxide.hpp"

#include <cstdint>
#include <cstdio>

constexpr float kCentre = 0.5f, kSide = 0.125f;

/// out's element at `p` from the grid `at` (any callable at(index) -> float).
template <class At>
void stencil_point(const oxide::thread::ThreadIndex2D &p, oxide::DisjointSpan2D<float> out, At &&at) {
  float *o = out.get_mut(p);
  if (!o)
    return;
  const std::size_t w = out.width(), h = out.height(), x = p.x(), y = p.y(), c = y * w + x;
  if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
    *o = at(c);
  else
    *o = kCentre * at(c) + kSide * (at(c - 1) + at(c + 1) + at(c - w) + at(c + w));
}

[[kernel, oxide::launch_contract("domain = 2, block = (32, 8), requires = (in.size() == out.size())")]] void
stencil(oxide::Span<const float> in, oxide::DisjointSpan2D<float> out) {
  stencil_point(oxide::thread::index_2d(), out, [&](std::size_t i) { return in[i]; });
}

// Diagnostic (not a kernel to copy): the same stencil reading through in.data(), without the
// five bounds checks that LLVM cannot remove (it cannot prove y * w + x +- 1 and +- w below
// in.size() == w * h). The gap to `stencil` is what a 2-D input span with per-coordinate checks,
// or a compiler that proves them, would be worth.
[[kernel, oxide::launch_contract("domain = 2, block = (32, 8), requires = (in.size() == out.size())")]] void
stencil_nocheck(oxide::Span<const float> in, oxide::DisjointSpan2D<float> out) {
  const float *data = in.data();
  stencil_point(oxide::thread::index_2d(), out, [&](std::size_t i) { return data[i]; });
}

int main(int argc, char **argv) try {
  const std::size_t w = argc > 2 ? std::strtoull(argv[1], nullptr, 10) : 16384,
                    h = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 16384, n = w * h;
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  bench::EventTimer timer(ctx);
  const std::vector<float> host = bench::uniform_vector(7, n);
  auto in = oxide::DeviceBuffer<float>::from_host(stream, host);
  auto out = oxide::DeviceBuffer<float>::uninitialized(stream, n);
  const auto config = oxide::LaunchConfig2D::for_elements(w, h, {32, 8, 1});
  auto run = [&](const char *name, auto &&launch) {
    bench::poison(timer, stream, out);
    const float ms = timer.median_ms(stream, [&](int) { launch(stream, in, out.view_2d(w, h)); });
    const std::vector<float> got = out.to_host(stream);
    const bool ok = bench::check_sampled(name, got.data(), n, [&](std::size_t c) {
      const std::size_t x = c % w, y = c / w;
      if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
        return host[c];
      return kCentre * host[c] + kSide * (host[c - 1] + host[c + 1] + host[c - w] + host[c + w]);
    });
    bench::report(name, bench::dims(w, h), "bytes", 2.0 * n * sizeof(float), ms, ok, "safe");
  };
  run("stencil5", oxide::prepare(ctx, stencil, config));
  run("stencil5_nocheck", oxide::prepare(ctx, stencil_nocheck, config));
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "stencil_oxide: %s\n", e.what());
  return 1;
}
