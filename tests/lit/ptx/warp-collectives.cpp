// Warp reductions of 32-bit integers are one redux.sync; matches are match.sync; float sums
// stay a butterfly of shuffles.
// RUN: oxcc build %s --emit=ptx -o - | FileCheck %s
// RUN: oxcc build %s -o %t && env OXIDE_DEVICE=cpu %t | FileCheck %s --check-prefix=SIM
#include <oxide/oxide.hpp>

#include <algorithm>
#include <cstdio>
#include <vector>

// CHECK-LABEL: .entry {{.*}}collectives
// CHECK-DAG: redux.sync.add.s32
// CHECK-DAG: redux.sync.max.s32
// CHECK-DAG: redux.sync.min.u32
// CHECK-DAG: redux.sync.or.b32
// CHECK-DAG: match.any.sync.b32
// CHECK-DAG: match.all.sync.b32
// CHECK-DAG: shfl.sync.bfly.b32
[[kernel, oxide::launch_contract("domain = 1, block = 64, requires = (in.size() == out.size())")]] void
collectives(oxide::Span<const int> in, oxide::DisjointSpan<unsigned> out) {
  const auto i = oxide::thread::index_1d();
  const int v = in[i.get()];
  const unsigned sum = static_cast<unsigned>(oxide::warp::sum(v));
  const unsigned max = static_cast<unsigned>(oxide::warp::reduce_max(v));
  const unsigned umin = oxide::warp::reduce_min(static_cast<unsigned>(v) + 7u);
  const unsigned bits = oxide::warp::reduce_or(1u << (v % 32));
  const unsigned peers = oxide::warp::match_any(v % 4);
  const unsigned all = oxide::warp::match_all(v / 1000);
  const float fsum = oxide::warp::sum(static_cast<float>(v));
  if (unsigned *o = out.get_mut(i))
    *o = sum ^ (max << 8) ^ (umin << 16) ^ bits ^ peers ^ (all >> 1) ^ static_cast<unsigned>(fsum);
}

// SIM: PASS
int main() {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  std::vector<int> host(256);
  for (int i = 0; i < 256; ++i)
    host[i] = (i * 37) % 101;
  auto in = oxide::DeviceBuffer<int>::from_host(stream, host);
  auto out = oxide::DeviceBuffer<unsigned>::zeroed(stream, host.size());
  oxide::prepare(ctx, collectives, oxide::LaunchConfig1D{4, 64})(stream, in, out);
  const std::vector<unsigned> result = out.to_host(stream);
  int wrong = 0;
  for (int w = 0; w < 8; ++w) {
    const int *v = &host[w * 32];
    int sum = 0, max = v[0];
    unsigned umin = ~0u, bits = 0;
    for (int l = 0; l < 32; ++l) {
      sum += v[l];
      max = std::max(max, v[l]);
      umin = std::min(umin, static_cast<unsigned>(v[l]) + 7u);
      bits |= 1u << (v[l] % 32);
    }
    for (int l = 0; l < 32; ++l) {
      unsigned peers = 0;
      for (int m = 0; m < 32; ++m)
        peers |= (v[m] % 4 == v[l] % 4 ? 1u : 0u) << m;
      const unsigned expected = static_cast<unsigned>(sum) ^ (static_cast<unsigned>(max) << 8) ^
                                (umin << 16) ^ bits ^ peers ^ (0xffffffffu >> 1) ^
                                static_cast<unsigned>(static_cast<float>(sum));
      wrong += result[w * 32 + l] != expected;
    }
  }
  std::printf("%s\n", wrong == 0 ? "PASS" : "FAIL");
  return wrong != 0;
}
