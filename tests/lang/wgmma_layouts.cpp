// The warpgroup tensor cores' two operand layouts (oxide/device/wgmma.hpp): each of A and B
// K-major (a SharedMatrix whose columns are k) or MN-major (a SharedPanels whose columns are m or
// n, in 64-column panels), all four pairings, on the same A (64 x 64) and B (64 x 128). The
// threads fill the tiles through their operator(), so the swizzled indexing and the descriptors
// wgmma reads through must agree; the products (exact in f32: small multiples of 1/32) are
// compared exactly with the host's.
//
//   oxcc run --arch=sm_90 tests/lang/wgmma_layouts.cpp   (a Hopper GPU, or the simulator)
#include <oxide/oxide.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

using bf16 = oxide::bfloat16;
constexpr std::uint32_t kM = 64, kN = 128, kK = 64;

struct Tiles {
  oxide::SharedMatrix<bf16, kM, kK, oxide::Swizzle::b128> a_k;  // (m, k)
  oxide::SharedPanels<bf16, kK, kM, oxide::Swizzle::b128> a_mn; // (k, m)
  oxide::SharedMatrix<bf16, kN, kK, oxide::Swizzle::b128> b_k;  // (n, k)
  oxide::SharedPanels<bf16, kK, kN, oxide::Swizzle::b128> b_mn; // (k, n)
};
constexpr std::uint32_t kSharedBytes = oxide::dynamic_shared_bytes_for<Tiles>;

/// Block p computes C = A B with A MN-major when p is odd and B MN-major when p >= 2, into rows
/// [64 p, 64 p + 64) of `c` (256 x 128). a is A row-major (m x k), w is B^T row-major (n x k).
[[kernel, oxide::launch_contract("domain = 1, block = 128, dynamic_shared = kSharedBytes, "
                                 "requires = (a.size() == 64 * 64, w.size() == 128 * 64)")]] void
layouts(oxide::DisjointSpan2D<float> c, oxide::Span<const bf16> a, oxide::Span<const bf16> w) {
  auto &s = oxide::dynamic_shared_object<Tiles>();
  const auto block = oxide::block::index();
  const std::uint32_t t = oxide::thread_idx().x, p = oxide::block_idx().x;
  for (std::uint32_t e = t; e < kM * kK; e += 128) {
    const std::uint32_t m = e / kK, k = e % kK;
    s.a_k(m, k) = a[e];
    s.a_mn(k, m) = a[e];
  }
  for (std::uint32_t e = t; e < kN * kK; e += 128) {
    const std::uint32_t n = e / kK, k = e % kK;
    s.b_k(n, k) = w[e];
    s.b_mn(k, n) = w[e];
  }
  oxide::fence_async_shared(); // the threads' stores, before the tensor cores read them
  oxide::sync_threads();

  oxide::wgmma::Accumulator<bf16, kN> acc;
  oxide::wgmma::fence();
  switch (p) {
  case 0:
    oxide::wgmma::mma_async<false>(acc, s.a_k, 0, s.b_k, 0);
    break;
  case 1:
    oxide::wgmma::mma_async<false>(acc, s.a_mn, 0, s.b_k, 0);
    break;
  case 2:
    oxide::wgmma::mma_async<false>(acc, s.a_k, 0, s.b_mn, 0);
    break;
  default:
    oxide::wgmma::mma_async<false>(acc, s.a_mn, 0, s.b_mn, 0);
    break;
  }
  oxide::wgmma::commit_group();
  oxide::wgmma::wait_group<0>();
  const auto mine = c.warpgroup_tile_mut<kN, 1>(block);
  for (std::uint32_t j = 0; j < acc.size; j += 2)
    mine.store_pair(j, acc.x[j], acc.x[j + 1]);
}

int main() try {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  if (!ctx.is_simulator() && ctx.device().compute_capability().as_int() != 90) {
    std::printf("wgmma_layouts: skipped: %s is not a Hopper GPU (compute capability 9.0)\n",
                ctx.device().name().c_str());
    return 0;
  }
  std::vector<bf16> a(kM * kK), w(kN * kK);
  std::vector<float> fa(a.size()), fw(w.size());
  for (std::size_t e = 0; e < a.size(); ++e)
    fa[e] = oxide::to_float(a[e] = oxide::to_bfloat16(float(int(e * 7 % 13) - 6) / 4));
  for (std::size_t e = 0; e < w.size(); ++e)
    fw[e] = oxide::to_float(w[e] = oxide::to_bfloat16(float(int(e * 5 % 11) - 5) / 8));
  const std::vector<float> poison(4 * kM * kN, -1e30f);
  auto c = oxide::DeviceBuffer<float>::from_host(stream, poison);
  auto da = oxide::DeviceBuffer<bf16>::from_host(stream, a);
  auto dw = oxide::DeviceBuffer<bf16>::from_host(stream, w);
  oxide::prepare(ctx, layouts, oxide::LaunchConfig1D{4, 128, kSharedBytes})(stream, c.view_2d(kN, 4 * kM), da,
                                                                            dw);
  const std::vector<float> got = c.to_host(stream);
  const char *names[] = {"A K-major, B K-major", "A MN-major, B K-major", "A K-major, B MN-major",
                         "A MN-major, B MN-major"};
  std::size_t checks = 0, failures = 0;
  for (std::uint32_t p = 0; p < 4; ++p)
    for (std::uint32_t m = 0; m < kM; ++m)
      for (std::uint32_t n = 0; n < kN; ++n, ++checks) {
        float want = 0;
        for (std::uint32_t k = 0; k < kK; ++k)
          want += fa[m * kK + k] * fw[n * kK + k];
        const float g = got[(std::size_t{p} * kM + m) * kN + n];
        if (g != want && failures++ < 8)
          std::printf("wgmma_layouts: %s: mismatch at C[%u][%u]: got %g, want %g\n", names[p], m, n, g, want);
      }
  std::printf("wgmma_layouts: %zu checks on %s\n%s\n", checks, ctx.device().name().c_str(),
              failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "wgmma_layouts: %s\n", e.what());
  return 1;
}
