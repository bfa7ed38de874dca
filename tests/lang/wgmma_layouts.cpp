// The warpgroup tensor cores' two operand layouts (oxide/device/wgmma.hpp): each of A and B
// K-major (a SharedMatrix whose columns are k) or MN-major (a SharedPanels whose columns are m or
// n, in panels of the swizzle's width), all four pairings, in the 128-, 64- and 32-byte swizzles
// (K = 64, 32 and 16: MN-major A in 1, 2 and 4 panels), on A (64 x K) and B (K x 128). The
// threads fill the tiles through their operator(), so the swizzled indexing and the descriptors
// wgmma reads through must agree; the products (exact in f32: small multiples of 1/32) are
// compared exactly with the host's. Then the register-A form, as attention's P V: S = A W^T
// into an accumulator, P = S rounded to bf16 in registers (to_register_a), O = P V with V
// row-major (MN-major) and transposed (K-major), against the host's same roundings.
//
//   oxcc run --arch=sm_90 tests/lang/wgmma_layouts.cpp   (a Hopper GPU, or the simulator)
#include <oxide/oxide.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

using bf16 = oxide::bfloat16;
constexpr std::uint32_t kM = 64, kN = 128, kK = 64; // kK: the register-A chain's

/// The operands in swizzle S: K = the swizzle's width in bf16 (64, 32 or 16), so that a K-major
/// row is one swizzle row and an MN-major operand is 64 / K or 128 / K panels.
template <oxide::Swizzle S> inline constexpr std::uint32_t kSwizzleK = static_cast<std::uint32_t>(S) / 2;
template <oxide::Swizzle S> struct Tiles {
  static constexpr std::uint32_t k = kSwizzleK<S>;
  oxide::SharedMatrix<bf16, kM, k, S> a_k;  // (m, k)
  oxide::SharedPanels<bf16, k, kM, S> a_mn; // (k, m)
  oxide::SharedMatrix<bf16, kN, k, S> b_k;  // (n, k)
  oxide::SharedPanels<bf16, k, kN, S> b_mn; // (k, n)
};
template <oxide::Swizzle S>
inline constexpr std::uint32_t kSharedBytes = oxide::dynamic_shared_bytes_for<Tiles<S>>;

/// Block p computes C = A B with A MN-major when p is odd and B MN-major when p >= 2, into rows
/// [64 p, 64 p + 64) of `c` (256 x 128). a is A row-major (m x K), w is B^T row-major (n x K).
template <oxide::Swizzle S>
[[kernel,
  oxide::launch_contract("domain = 1, block = 128, dynamic_shared = kSharedBytes<S>, "
                         "requires = (a.size() == 64 * kSwizzleK<S>, w.size() == 128 * kSwizzleK<S>)")]] void
layouts(oxide::DisjointSpan2D<float> c, oxide::Span<const bf16> a, oxide::Span<const bf16> w) {
  constexpr std::uint32_t k_extent = kSwizzleK<S>;
  auto &s = oxide::dynamic_shared_object<Tiles<S>>();
  const auto block = oxide::block::index();
  const std::uint32_t t = oxide::thread_idx().x, p = oxide::block_idx().x;
  for (std::uint32_t e = t; e < kM * k_extent; e += 128) {
    const std::uint32_t m = e / k_extent, k = e % k_extent;
    s.a_k(m, k) = a[e];
    s.a_mn(k, m) = a[e];
  }
  for (std::uint32_t e = t; e < kN * k_extent; e += 128) {
    const std::uint32_t n = e / k_extent, k = e % k_extent;
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
#pragma unroll
  for (std::uint32_t j = 0; j < acc.size; j += 2)
    mine.store_pair(j, acc.x[j], acc.x[j + 1]);
}

/// Runs layouts<S> and compares its four products with the host's; adds to checks and failures.
template <oxide::Swizzle S>
void check_layouts(oxide::Context &ctx, oxide::Stream &stream, std::size_t &checks, std::size_t &failures) {
  constexpr std::uint32_t kK = kSwizzleK<S>;
  std::vector<bf16> a(kM * kK), w(kN * kK);
  std::vector<float> fa(a.size()), fw(w.size());
  for (std::size_t e = 0; e < a.size(); ++e)
    fa[e] = oxide::to_float(a[e] = oxide::to_bfloat16(float(int(e * 7 % 13) - 6) / 4));
  for (std::size_t e = 0; e < w.size(); ++e)
    fw[e] = oxide::to_float(w[e] = oxide::to_bfloat16(float(int(e * 5 % 11) - 5) / 8));
  auto c = oxide::DeviceBuffer<float>::from_host(stream, std::vector<float>(4 * kM * kN, -1e30f));
  auto da = oxide::DeviceBuffer<bf16>::from_host(stream, a);
  auto dw = oxide::DeviceBuffer<bf16>::from_host(stream, w);
  oxide::prepare(ctx, layouts<S>,
                 oxide::LaunchConfig1D{4, 128, kSharedBytes<S>})(stream, c.view_2d(kN, 4 * kM), da, dw);
  const std::vector<float> got = c.to_host(stream);
  const char *names[] = {"A K-major, B K-major", "A MN-major, B K-major", "A K-major, B MN-major",
                         "A MN-major, B MN-major"};
  for (std::uint32_t p = 0; p < 4; ++p)
    for (std::uint32_t m = 0; m < kM; ++m)
      for (std::uint32_t n = 0; n < kN; ++n, ++checks) {
        float want = 0;
        for (std::uint32_t k = 0; k < kK; ++k)
          want += fa[m * kK + k] * fw[n * kK + k];
        const float g = got[(std::size_t{p} * kM + m) * kN + n];
        if (g != want && failures++ < 8)
          std::printf("wgmma_layouts: %s, %u-byte swizzle: mismatch at C[%u][%u]: got %g, want %g\n",
                      names[p], static_cast<unsigned>(S), m, n, g, want);
      }
}

struct Chain {
  oxide::SharedMatrix<bf16, kM, kK, oxide::Swizzle::b128> a;    // (m, k)
  oxide::SharedMatrix<bf16, kK, kK, oxide::Swizzle::b128> w;    // (j, k): S = A W^T is 64 x 64
  oxide::SharedPanels<bf16, kK, kN, oxide::Swizzle::b128> v_mn; // (j, n)
  oxide::SharedMatrix<bf16, kN, kK, oxide::Swizzle::b128> v_k;  // (n, j)
};
constexpr std::uint32_t kChainBytes = oxide::dynamic_shared_bytes_for<Chain>;

/// Block p computes O = bf16(A W^T) V into rows [64 p, 64 p + 64) of `c` (128 x 128), P from
/// registers, V MN-major for p = 0 and K-major for p = 1. v is V row-major (64 x 128).
[[kernel,
  oxide::launch_contract("domain = 1, block = 128, dynamic_shared = kChainBytes, "
                         "requires = (a.size() == 64 * 64, w.size() == 64 * 64, v.size() == 64 * 128)")]] void
register_a(oxide::DisjointSpan2D<float> c, oxide::Span<const bf16> a, oxide::Span<const bf16> w,
           oxide::Span<const bf16> v) {
  auto &s = oxide::dynamic_shared_object<Chain>();
  const std::uint32_t t = oxide::thread_idx().x;
  for (std::uint32_t e = t; e < kM * kK; e += 128) {
    s.a(e / kK, e % kK) = a[e];
    s.w(e / kK, e % kK) = w[e];
  }
  for (std::uint32_t e = t; e < kK * kN; e += 128) {
    const std::uint32_t j = e / kN, n = e % kN;
    s.v_mn(j, n) = v[e];
    s.v_k(n, j) = v[e];
  }
  oxide::fence_async_shared();
  oxide::sync_threads();

  oxide::wgmma::Accumulator<bf16, kK> scores;
  oxide::wgmma::fence();
  oxide::wgmma::mma_async<false>(scores, s.a, 0, s.w, 0);
  oxide::wgmma::commit_group();
  oxide::wgmma::wait_group<0>();
  const auto p = oxide::wgmma::to_register_a<bf16>(scores);
  oxide::wgmma::Accumulator<bf16, kN> out;
  oxide::wgmma::fence(); // P's registers, written above, before the wgmma reads them
  if (oxide::block_idx().x == 0)
    oxide::wgmma::mma_async<false>(out, p, s.v_mn, 0);
  else
    oxide::wgmma::mma_async<false>(out, p, s.v_k, 0);
  oxide::wgmma::commit_group();
  oxide::wgmma::wait_group<0>();
  const auto mine = c.warpgroup_tile_mut<kN, 1>(oxide::block::index());
#pragma unroll
  for (std::uint32_t j = 0; j < out.size; j += 2)
    mine.store_pair(j, out.x[j], out.x[j + 1]);
}

int main() try {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  if (!ctx.is_simulator() && ctx.device().compute_capability().as_int() != 90) {
    std::printf("wgmma_layouts: skipped: %s is not a Hopper GPU (compute capability 9.0)\n",
                ctx.device().name().c_str());
    return 0;
  }
  std::size_t checks = 0, failures = 0;
  check_layouts<oxide::Swizzle::b128>(ctx, stream, checks, failures);
  check_layouts<oxide::Swizzle::b64>(ctx, stream, checks, failures);
  check_layouts<oxide::Swizzle::b32>(ctx, stream, checks, failures);

  // The register-A chain: integers in A, quarters in W, eighths in V, so that S, P = bf16(S) (a
  // multiple of 1/4: S's roundings only coarsen it) and O are exact in f32 whatever the order.
  std::vector<bf16> ca(kM * kK), cw(kK * kK), cv(kK * kN);
  std::vector<float> fca(ca.size()), fcw(cw.size()), fcv(cv.size());
  for (std::size_t e = 0; e < ca.size(); ++e)
    fca[e] = oxide::to_float(ca[e] = oxide::to_bfloat16(float(int(e * 5 % 7) - 3)));
  for (std::size_t e = 0; e < cw.size(); ++e)
    fcw[e] = oxide::to_float(cw[e] = oxide::to_bfloat16(float(int(e * 3 % 11) - 5) / 4));
  for (std::size_t e = 0; e < cv.size(); ++e)
    fcv[e] = oxide::to_float(cv[e] = oxide::to_bfloat16(float(int(e * 7 % 9) - 4) / 8));
  auto o = oxide::DeviceBuffer<float>::from_host(stream, std::vector<float>(2 * kM * kN, -1e30f));
  auto dca = oxide::DeviceBuffer<bf16>::from_host(stream, ca);
  auto dcw = oxide::DeviceBuffer<bf16>::from_host(stream, cw);
  auto dcv = oxide::DeviceBuffer<bf16>::from_host(stream, cv);
  oxide::prepare(ctx, register_a, oxide::LaunchConfig1D{2, 128, kChainBytes})(stream, o.view_2d(kN, 2 * kM),
                                                                              dca, dcw, dcv);
  const std::vector<float> got_o = o.to_host(stream);
  std::vector<float> prob(kM * kK);
  for (std::uint32_t m = 0; m < kM; ++m)
    for (std::uint32_t j = 0; j < kK; ++j) {
      float sum = 0;
      for (std::uint32_t k = 0; k < kK; ++k)
        sum += fca[m * kK + k] * fcw[j * kK + k];
      prob[m * kK + j] = oxide::to_float(oxide::to_bfloat16(sum));
    }
  const char *v_names[] = {"P from registers, V MN-major", "P from registers, V K-major"};
  for (std::uint32_t p = 0; p < 2; ++p)
    for (std::uint32_t m = 0; m < kM; ++m)
      for (std::uint32_t n = 0; n < kN; ++n, ++checks) {
        float want = 0;
        for (std::uint32_t j = 0; j < kK; ++j)
          want += prob[m * kK + j] * fcv[j * kN + n];
        const float g = got_o[(std::size_t{p} * kM + m) * kN + n];
        if (g != want && failures++ < 8)
          std::printf("wgmma_layouts: %s: mismatch at O[%u][%u]: got %g, want %g\n", v_names[p], m, n, g,
                      want);
      }
  std::printf("wgmma_layouts: %zu checks on %s\n%s\n", checks, ctx.device().name().c_str(),
              failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "wgmma_layouts: %s\n", e.what());
  return 1;
}
