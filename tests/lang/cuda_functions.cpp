// Language coverage, CUDA's device functions by their CUDA names, as ported kernels call them:
// rsqrtf, sinpif, normcdff, erfinvf, __saturatef, the _rn operations, the fast intrinsics
// (__expf, __logf, __sinf...) and the integer intrinsics (__popc, __clz, __ffs, __brev,
// __byte_perm, __umulhi, __usad...). On the GPU they are CUDA's; on the host (the simulator,
// and the reference here) oxide/detail/cuda_host_functions.hpp and the runtime give the same
// values, within lang_check.hpp's tolerance for the floating-point ones.
//
//   oxcc run tests/lang/cuda_functions.cpp
#include "lang_check.hpp"

#include <cstdint>

using FloatRow = std::array<float, 30>;
using DoubleRow = std::array<double, 16>;
using IntRow = std::array<std::uint64_t, 34>;

FloatRow float_row(std::int64_t i) {
  const float t = static_cast<float>(i) / 53.0f;               // [0, ~4)
  const float u = t / 4.5f;                                    // [0, ~0.85)
  const float s = (i % 2 ? -1.0f : 1.0f) * (u * 0.9f + 0.01f); // (-0.8, 0.8)
  FloatRow r{};
  int k = 0;
  r[k++] = rsqrtf(t + 0.25f);
  r[k++] = rcbrtf(t + 0.5f);
  r[k++] = sinpif(s * 3.0f);
  r[k++] = cospif(s * 3.0f);
  float sp = 0, cp = 0;
  sincospif(t, &sp, &cp);
  r[k++] = sp;
  r[k++] = cp;
  r[k++] = normcdff(s * 4.0f);
  r[k++] = normcdfinvf(u * 0.9f + 0.05f);
  r[k++] = erfinvf(s);
  r[k++] = erfcinvf(u + 0.1f);
  r[k++] = erfcxf(t);
  r[k++] = __saturatef(s * 2.0f + 0.5f);
  r[k++] = __fdividef(s, t + 1.0f);
  r[k++] = __fadd_rn(s, t);
  r[k++] = __fsub_rn(s, t);
  r[k++] = __fmul_rn(s, t);
  r[k++] = __fdiv_rn(s, t + 1.0f);
  r[k++] = __frcp_rn(t + 1.0f);
  r[k++] = __fsqrt_rn(t);
  r[k++] = __fmaf_rn(s, t, u);
  r[k++] = __expf(s);
  r[k++] = __exp10f(s);
  r[k++] = __logf(t + 0.5f);
  r[k++] = __log2f(t + 0.5f);
  r[k++] = __log10f(t + 0.5f);
  r[k++] = __sinf(s);
  r[k++] = __cosf(s);
  r[k++] = __tanf(s);
  r[k++] = __powf(t + 0.5f, s);
  float sf = 0, cf = 0;
  __sincosf(s, &sf, &cf);
  r[k++] = sf + cf;
  return r;
}

DoubleRow double_row(std::int64_t i) {
  const double t = static_cast<double>(i) / 53.0;
  const double u = t / 4.5;
  const double s = (i % 2 ? -1.0 : 1.0) * (u * 0.9 + 0.01);
  DoubleRow r{};
  int k = 0;
  r[k++] = rsqrt(t + 0.25);
  r[k++] = rcbrt(t + 0.5);
  r[k++] = sinpi(s * 3.0);
  r[k++] = cospi(s * 3.0);
  double sp = 0, cp = 0;
  sincospi(t, &sp, &cp);
  r[k++] = sp + 2.0 * cp;
  r[k++] = normcdf(s * 4.0);
  r[k++] = normcdfinv(u * 0.9 + 0.05);
  r[k++] = erfinv(s);
  r[k++] = erfcinv(u + 0.1);
  r[k++] = erfcx(t);
  r[k++] = __dadd_rn(s, t);
  r[k++] = __dmul_rn(s, t);
  r[k++] = __ddiv_rn(s, t + 1.0);
  r[k++] = __drcp_rn(t + 1.0);
  r[k++] = __dsqrt_rn(t);
  r[k++] = __fma_rn(s, t, u);
  return r;
}

IntRow int_row(std::int64_t i) {
  const auto a = static_cast<std::uint32_t>(i * 2654435761u);
  const auto b = static_cast<std::uint32_t>((i + 17) * 40503u) ^ 0x5bd1e995u;
  const std::uint64_t w = (static_cast<std::uint64_t>(a) << 32) | b;
  const int sa = static_cast<int>(a), sb = static_cast<int>(b);
  IntRow r{};
  int k = 0;
  r[k++] = static_cast<std::uint64_t>(__popc(a));
  r[k++] = static_cast<std::uint64_t>(__popcll(w));
  r[k++] = static_cast<std::uint64_t>(__clz(sa >> (i % 31)));
  r[k++] = static_cast<std::uint64_t>(__clzll(static_cast<long long>(w >> (i % 63))));
  r[k++] = static_cast<std::uint64_t>(__ffs(sa << (i % 31)));
  r[k++] = static_cast<std::uint64_t>(__ffsll(static_cast<long long>(w << (i % 63))));
  r[k++] = __brev(a);
  r[k++] = __brevll(w);
  r[k++] = __byte_perm(a, b, static_cast<unsigned>(i * 0x1234567u));
  r[k++] = static_cast<std::uint32_t>(__mulhi(sa, sb));
  r[k++] = __umulhi(a, b);
  r[k++] = static_cast<std::uint64_t>(__mul64hi(static_cast<long long>(w), sa));
  r[k++] = __umul64hi(w, w ^ a);
  r[k++] = static_cast<std::uint32_t>(__mul24(sa, sb));
  r[k++] = __umul24(a, b);
  r[k++] = __sad(sa, sb, 7u);
  r[k++] = __usad(a, b, 7u);
  r[k++] = static_cast<std::uint32_t>(__hadd(sa, sb));
  r[k++] = static_cast<std::uint32_t>(__rhadd(sa, sb));
  r[k++] = __uhadd(a, b);
  r[k++] = __urhadd(a, b);
  r[k++] = static_cast<std::uint64_t>(__popc(0u));
  r[k++] = static_cast<std::uint64_t>(__ffs(0));
  r[k++] = static_cast<std::uint64_t>(__clz(0));
  // CUDA writes these as inline PTX that computes in registers (dp4a, dp2a, shf).
  r[k++] = static_cast<std::uint32_t>(__dp4a(sa, sb, static_cast<int>(i) - 100));
  r[k++] = __dp4a(a, b, static_cast<unsigned>(i));
  r[k++] = static_cast<std::uint32_t>(__dp2a_lo(sa, sb, 5));
  r[k++] = static_cast<std::uint32_t>(__dp2a_hi(sa, sb, -5));
  r[k++] = __dp2a_lo(a, b, 5u);
  r[k++] = __dp2a_hi(a, b, 5u);
  r[k++] = __funnelshift_l(a, b, static_cast<unsigned>(i));
  r[k++] = __funnelshift_lc(a, b, static_cast<unsigned>(i));
  r[k++] = __funnelshift_r(a, b, static_cast<unsigned>(i));
  r[k++] = __funnelshift_rc(a, b, static_cast<unsigned>(i));
  return r;
}

[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void floats(oxide::DisjointSpan<FloatRow> out) {
  const auto idx = oxide::thread::index_1d();
  if (FloatRow *o = out.get_mut(idx))
    *o = float_row(static_cast<std::int64_t>(idx.get()));
}

[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void
doubles(oxide::DisjointSpan<DoubleRow> out) {
  const auto idx = oxide::thread::index_1d();
  if (DoubleRow *o = out.get_mut(idx))
    *o = double_row(static_cast<std::int64_t>(idx.get()));
}

[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void integers(oxide::DisjointSpan<IntRow> out) {
  const auto idx = oxide::thread::index_1d();
  if (IntRow *o = out.get_mut(idx))
    *o = int_row(static_cast<std::int64_t>(idx.get()));
}

// Values worked out by hand from the PTX ISA's definitions, so that the simulator, which computes
// both sides of the comparisons above, is checked against something it did not compute.
using KnownRow = std::array<std::uint64_t, 8>;
KnownRow known_row() {
  return {static_cast<std::uint32_t>(__dp4a(0x01020304, 0x05060708, 10)),
          static_cast<std::uint32_t>(__dp4a(static_cast<int>(0xff020304u), 0x05060708, 0)),
          __dp4a(0xff020304u, 0x05060708u, 0u),
          static_cast<std::uint32_t>(__dp2a_lo(static_cast<int>(0xfffe0003u), 0x00000204, 1)),
          __funnelshift_l(0x80000000u, 0x1u, 33u),
          __funnelshift_lc(0x80000000u, 0x1u, 33u),
          __funnelshift_r(0x80000000u, 0x1u, 36u),
          __funnelshift_rc(0x80000000u, 0x1u, 40u)};
}
[[kernel, oxide::launch_contract("domain = 1")]] void known(oxide::DisjointSpan<KnownRow> out) {
  if (KnownRow *o = out.get_mut(oxide::thread::index_1d()))
    *o = known_row();
}

int main() {
  return lang::run_group("cuda_functions", [](lang::Checker &check) {
    // 1*5 + 2*6 + 3*7 + 4*8 + 10; (-1)*5 + ... signed; 255*5 + ... unsigned; 3*4 + (-2)*2 + 1;
    // {1, 0x80000000} << 1 -> 3 (33 mod 32); << 32 -> the low word; >> 4; >> 32 -> the high word.
    check.run("known_answers", known, 1,
              [](std::size_t) { return KnownRow{80, 60, 1340, 9, 3, 0x80000000u, 0x18000000u, 1}; });
    check.run("floats", floats, 200, [](std::size_t i) { return float_row(static_cast<std::int64_t>(i)); });
    check.run("doubles", doubles, 200,
              [](std::size_t i) { return double_row(static_cast<std::int64_t>(i)); });
    check.run("integers", integers, 200, [](std::size_t i) { return int_row(static_cast<std::int64_t>(i)); });
  });
}
