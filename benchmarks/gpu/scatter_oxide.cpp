// Scatter out[dest[i]] = in[i] of 2^26 floats in the safe tier, two ways: through claim bits
// (DisjointSpan::claim_mut and a ClaimSet, for indices the kernel could compute; the bits are
// reset before each launch, inside the timed region) and through a host-checked permutation
// (scatter_mut and a PermutationSpan). Two index patterns: a random permutation (every store
// and claim to a different cache line) and the identity (consecutive destinations, as a radix
// sort's digit runs: the claims of a warp share one 32-bit word of bits). Twin: scatter_cuda.cu.
//
//   scatter_oxide [floats, default 2^26]    prints RESULT lines (bench_common.hpp)
#include "bench_oxide.hpp"

#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>

constexpr std::uint32_t kBlock = 256;

[[kernel, oxide::launch_contract("domain = 1, block = 256, requires = (dest.size() == in.size())")]] void
scatter_claim(oxide::Span<const float> in, oxide::Span<const std::uint32_t> dest, oxide::ClaimSet claims,
              oxide::DisjointSpan<float> out) {
  const auto i = oxide::thread::index_1d();
  if (i.get() < in.size())
    if (float *o = out.claim_mut(dest[i.get()], claims))
      *o = in[i.get()];
}

[[kernel, oxide::launch_contract("domain = 1, block = 256, requires = (perm.size() == in.size())")]] void
scatter_perm(oxide::Span<const float> in, oxide::PermutationSpan perm, oxide::DisjointSpan<float> out) {
  const auto &i = oxide::thread::index_1d();
  if (float *o = out.scatter_mut(i, perm))
    *o = in[i.get()];
}

int main(int argc, char **argv) try {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : std::size_t{1} << 26;
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  bench::EventTimer timer(ctx);
  const std::vector<float> hin = bench::uniform_vector(1, n);
  std::vector<std::uint32_t> random(n), identity(n);
  std::iota(identity.begin(), identity.end(), 0u);
  random = identity;
  std::shuffle(random.begin(), random.end(), std::mt19937_64(42));
  const std::string size = std::to_string(n);
  const double bytes = 3.0 * n * sizeof(float); // in, dest, out
  const auto config = oxide::LaunchConfig1D::for_elements(n, kBlock);

  auto in = oxide::DeviceBuffer<float>::from_host(stream, hin);
  auto out = oxide::DeviceBuffer<float>::uninitialized(stream, n);
  auto claims = oxide::Claims::create(stream, n);
  auto k_claim = oxide::prepare(ctx, scatter_claim, config);
  auto k_perm = oxide::prepare(ctx, scatter_perm, config);
  // Every element of `out` must hold in[i] at dest[i].
  auto check = [&](const char *name, const std::vector<std::uint32_t> &dest) {
    const std::vector<float> got = out.to_host(stream);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (got[dest[i]] != hin[i] && bad++ < 3)
        bench::mismatch(name, dest[i], got[dest[i]], hin[i]);
    return bad == 0;
  };
  for (const auto &[pattern, dest] : {std::pair{"random", &random}, std::pair{"sorted", &identity}}) {
    auto d = oxide::DeviceBuffer<std::uint32_t>::from_host(stream, *dest);
    const std::string claim_name = std::string("scatter_") + pattern;
    bench::poison(timer, stream, out);
    const float claim_ms = timer.median_ms(stream, [&](int) {
      claims.reset(stream);
      k_claim(stream, in, d, claims, out);
    });
    bench::report(claim_name.c_str(), size, "bytes", bytes, claim_ms, check(claim_name.c_str(), *dest),
                  "safe");

    auto perm = oxide::Permutation::from_host(stream, *dest);
    const std::string perm_name = std::string("scatter_perm_") + pattern;
    bench::poison(timer, stream, out);
    const float perm_ms = timer.median_ms(stream, [&](int) { k_perm(stream, in, perm, out); });
    bench::report(perm_name.c_str(), size, "bytes", bytes, perm_ms, check(perm_name.c_str(), *dest), "safe");
  }
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "scatter_oxide: %s\n", e.what());
  return 1;
}
