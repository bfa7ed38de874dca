// unsafe_scatter: out[perm[i]] = in[i] for a random permutation of 2^20 elements, with raw
// pointers and oxide::unsafe_launch.
//
// Each thread writes at a position it reads from memory, so no launch contract can say that
// threads write distinct elements: that holds only because perm is a permutation, which this
// program knows and the compiler cannot. Such a kernel has no contract, may take raw pointers,
// and is launched with oxide::unsafe_launch: Oxide still checks that the kernel is registered,
// the parameter layout and argument types, the launch shape and that the buffers belong to the
// stream's context, but the race freedom and bounds of the writes are the caller's to ensure.
//
//   oxcc run examples/unsafe_scatter.cpp
#include <oxide/oxide.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

[[kernel]] void scatter(const float *in, const std::uint32_t *perm, float *out, std::size_t n) {
  const std::size_t i = oxide::thread::index_1d().get();
  if (i < n)
    out[perm[i]] = in[i];
}

int main() try {
  constexpr std::size_t n = std::size_t{1} << 20;
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> values(n);
  for (float &v : values)
    v = dist(rng);
  std::vector<std::uint32_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0u);
  std::shuffle(perm.begin(), perm.end(), rng);

  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  const auto in = oxide::DeviceBuffer<float>::from_host(stream, values); // const: binds to const float*
  const auto positions = oxide::DeviceBuffer<std::uint32_t>::from_host(stream, perm);
  // Poisoned with NaN so an element the kernel never wrote cannot pass the check.
  auto out = oxide::DeviceBuffer<float>::from_host(
      stream, std::vector<float>(n, std::numeric_limits<float>::quiet_NaN()));
  // UNSAFE: correct only because `perm` is a permutation of 0..n-1 (each out element has one writer).
  oxide::unsafe_launch(stream, scatter, oxide::LaunchConfig1D::for_elements(n), in, positions, out, n);
  const std::vector<float> result = out.to_host(stream);

  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (result[perm[i]] != values[i] && wrong++ < 5)
      std::printf("out[%u]: got %g, expected in[%zu] = %g\n", perm[i], result[perm[i]], i, values[i]);
  if (wrong != 0) {
    std::printf("FAIL: %zu of %zu elements wrong\n", wrong, n);
    return 1;
  }
  std::printf("unsafe_scatter: %zu elements on %s\nPASS\n", n, ctx.device().name().c_str());
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
