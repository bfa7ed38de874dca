// permutation_scatter: out[perm[i]] = in[i] for a random permutation, in the safe tier.
//
// examples/unsafe_scatter.cpp writes the same scatter with raw pointers: each thread writes at a
// position it reads from memory, which only the program knows is a permutation. Here the map is
// an oxide::Permutation: from_host checks on the host that it holds each index of [0, n) once
// and keeps it in memory that no kernel can write, and the kernel takes it as a PermutationSpan.
// out.scatter_mut(i, perm) gives thread i element perm[i], so different threads write different
// elements and the kernel has a launch contract. A map that is not a permutation never reaches
// the device: from_host throws ErrorKind::NotAPermutation.
//
//   oxcc run examples/permutation_scatter.cpp
#include <oxide/oxide.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

[[kernel, oxide::launch_contract("domain = 1, requires = (perm.size() == in.size())")]] void
scatter(oxide::Span<const float> in, oxide::PermutationSpan perm, oxide::DisjointSpan<float> out) {
  for (const auto &i : oxide::thread::grid_stride(in.size()))
    if (float *o = out.scatter_mut(i, perm)) // nullptr only past the end of out
      *o = in[i.get()];
}

int main() try {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  // The simulator runs a smaller problem, so that the example takes seconds there too.
  const std::size_t n = ctx.is_simulator() ? std::size_t{1} << 16 : std::size_t{1} << 22;
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> values(n);
  for (float &v : values)
    v = dist(rng);
  std::vector<std::uint32_t> map(n);
  std::iota(map.begin(), map.end(), 0u);
  std::shuffle(map.begin(), map.end(), rng);

  // A map with a repeated index is refused before any kernel sees it.
  std::vector<std::uint32_t> broken = map;
  broken[n - 1] = broken[0];
  bool refused = false;
  try {
    (void)oxide::Permutation::from_host(stream, broken);
  } catch (const oxide::Error &e) {
    refused = e.kind() == oxide::ErrorKind::NotAPermutation;
    std::printf("permutation_scatter: refused a map that is not a permutation (%s)\n", e.kind_name().data());
  }

  const auto perm = oxide::Permutation::from_host(stream, map);
  const auto in = oxide::DeviceBuffer<float>::from_host(stream, values);
  // Poisoned with NaN so an element the kernel never wrote cannot pass the check.
  auto out = oxide::DeviceBuffer<float>::from_host(
      stream, std::vector<float>(n, std::numeric_limits<float>::quiet_NaN()));
  oxide::prepare(ctx, scatter, oxide::LaunchConfig1D::for_elements(n, 256))(stream, in, perm, out);
  const std::vector<float> result = out.to_host(stream);

  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (result[map[i]] != values[i] && wrong++ < 5)
      std::printf("out[%u]: got %g, expected in[%zu] = %g\n", map[i], result[map[i]], i, values[i]);
  const bool ok = refused && wrong == 0;
  std::printf("permutation_scatter: %zu elements on %s, %zu wrong\n%s\n", n, ctx.device().name().c_str(),
              wrong, ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "permutation_scatter: %s\n", e.what());
  return 1;
}
