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
using SimdRow = std::array<std::uint32_t, 80>;

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
  __nanosleep(static_cast<unsigned>(idx.get() % 4) * 100); // a pause changes no value, on either side
  if (IntRow *o = out.get_mut(idx))
    *o = int_row(static_cast<std::int64_t>(idx.get()));
}

// The SIMD video intrinsics, on lanes with every sign and size (the inputs mix 0x00, 0x7f, 0x80
// and 0xff bytes with hashed ones so that saturation and wrap-around are reached).
SimdRow simd_row(std::int64_t i) {
  constexpr std::uint32_t kEdges[] = {0x00000000u, 0x7f7f7f7fu, 0x80808080u,
                                      0xffffffffu, 0x7fff8000u, 0x80007fffu};
  const auto hash = static_cast<std::uint32_t>(i * 2654435761u);
  const std::uint32_t a = i % 3 == 0 ? kEdges[i % 6] : hash;
  const std::uint32_t b = i % 5 == 0 ? kEdges[(i / 5) % 6] : hash ^ 0x5bd1e995u;
  SimdRow r{};
  int k = 0;
  r[k++] = __vadd2(a, b);
  r[k++] = __vadd4(a, b);
  r[k++] = __vsub2(a, b);
  r[k++] = __vsub4(a, b);
  r[k++] = __vaddss2(a, b);
  r[k++] = __vaddss4(a, b);
  r[k++] = __vaddus2(a, b);
  r[k++] = __vaddus4(a, b);
  r[k++] = __vsubss2(a, b);
  r[k++] = __vsubss4(a, b);
  r[k++] = __vsubus2(a, b);
  r[k++] = __vsubus4(a, b);
  r[k++] = __vabsdiffs2(a, b);
  r[k++] = __vabsdiffs4(a, b);
  r[k++] = __vabsdiffu2(a, b);
  r[k++] = __vabsdiffu4(a, b);
  r[k++] = __vavgu2(a, b);
  r[k++] = __vavgu4(a, b);
  r[k++] = __vhaddu2(a, b);
  r[k++] = __vhaddu4(a, b);
  r[k++] = __vmaxs2(a, b);
  r[k++] = __vmaxs4(a, b);
  r[k++] = __vmaxu2(a, b);
  r[k++] = __vmaxu4(a, b);
  r[k++] = __vmins2(a, b);
  r[k++] = __vmins4(a, b);
  r[k++] = __vminu2(a, b);
  r[k++] = __vminu4(a, b);
  r[k++] = __vcmpeq2(a, b);
  r[k++] = __vcmpeq4(a, b);
  r[k++] = __vcmpne2(a, b);
  r[k++] = __vcmpne4(a, b);
  r[k++] = __vcmpges2(a, b);
  r[k++] = __vcmpges4(a, b);
  r[k++] = __vcmpgeu2(a, b);
  r[k++] = __vcmpgeu4(a, b);
  r[k++] = __vcmpgts2(a, b);
  r[k++] = __vcmpgts4(a, b);
  r[k++] = __vcmpgtu2(a, b);
  r[k++] = __vcmpgtu4(a, b);
  r[k++] = __vcmples2(a, b);
  r[k++] = __vcmples4(a, b);
  r[k++] = __vcmpleu2(a, b);
  r[k++] = __vcmpleu4(a, b);
  r[k++] = __vcmplts2(a, b);
  r[k++] = __vcmplts4(a, b);
  r[k++] = __vcmpltu2(a, b);
  r[k++] = __vcmpltu4(a, b);
  r[k++] = __vseteq2(a, b);
  r[k++] = __vseteq4(a, b);
  r[k++] = __vsetne2(a, b);
  r[k++] = __vsetne4(a, b);
  r[k++] = __vsetges2(a, b);
  r[k++] = __vsetges4(a, b);
  r[k++] = __vsetgeu2(a, b);
  r[k++] = __vsetgeu4(a, b);
  r[k++] = __vsetgts2(a, b);
  r[k++] = __vsetgts4(a, b);
  r[k++] = __vsetgtu2(a, b);
  r[k++] = __vsetgtu4(a, b);
  r[k++] = __vsetles2(a, b);
  r[k++] = __vsetles4(a, b);
  r[k++] = __vsetleu2(a, b);
  r[k++] = __vsetleu4(a, b);
  r[k++] = __vsetlts2(a, b);
  r[k++] = __vsetlts4(a, b);
  r[k++] = __vsetltu2(a, b);
  r[k++] = __vsetltu4(a, b);
  r[k++] = __vsads2(a, b);
  r[k++] = __vsads4(a, b);
  r[k++] = __vsadu2(a, b);
  r[k++] = __vsadu4(a, b);
  r[k++] = __vneg2(a);
  r[k++] = __vneg4(a);
  r[k++] = __vnegss2(a);
  r[k++] = __vnegss4(a);
  r[k++] = __vabs2(a);
  r[k++] = __vabs4(a);
  r[k++] = __vabsss2(a);
  r[k++] = __vabsss4(a);
  return r;
}

[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void simd(oxide::DisjointSpan<SimdRow> out) {
  const auto idx = oxide::thread::index_1d();
  if (SimdRow *o = out.get_mut(idx))
    *o = simd_row(static_cast<std::int64_t>(idx.get()));
}

// Values worked out by hand from the PTX ISA's definitions, so that the simulator, which computes
// both sides of the comparisons above, is checked against something it did not compute.
using KnownRow = std::array<std::uint64_t, 20>;
KnownRow known_row() {
  return {static_cast<std::uint32_t>(__dp4a(0x01020304, 0x05060708, 10)),
          static_cast<std::uint32_t>(__dp4a(static_cast<int>(0xff020304u), 0x05060708, 0)),
          __dp4a(0xff020304u, 0x05060708u, 0u),
          static_cast<std::uint32_t>(__dp2a_lo(static_cast<int>(0xfffe0003u), 0x00000204, 1)),
          __funnelshift_l(0x80000000u, 0x1u, 33u),
          __funnelshift_lc(0x80000000u, 0x1u, 33u),
          __funnelshift_r(0x80000000u, 0x1u, 36u),
          __funnelshift_rc(0x80000000u, 0x1u, 40u),
          __vadd4(0x01ff7f80u, 0x01010101u),
          __vaddss2(0x7fff8000u, 0x00010001u),
          __vsubus4(0x05030100u, 0x01040200u),
          __vabsdiffs4(0x00000080u, 0x0000007fu),
          __vcmpgts2(0x00010000u, 0xffff0001u),
          __vsadu4(0x0a000000u, 0x00000005u),
          __vavgu4(3u, 4u),
          __vhaddu4(3u, 4u),
          __vabsss4(0x00000080u),
          __vabs4(0x00000080u),
          __vnegss2(0x00008000u),
          __vseteq4(0x01020304u, 0x01000300u)};
}
[[kernel, oxide::launch_contract("domain = 1")]] void known(oxide::DisjointSpan<KnownRow> out) {
  if (KnownRow *o = out.get_mut(oxide::thread::index_1d()))
    *o = known_row();
}

int main() {
  return lang::run_group("cuda_functions", [](lang::Checker &check) {
    // 1*5 + 2*6 + 3*7 + 4*8 + 10; (-1)*5 + ... signed; 255*5 + ... unsigned; 3*4 + (-2)*2 + 1;
    // {1, 0x80000000} << 1 -> 3 (33 mod 32); << 32 -> the low word; >> 4; >> 32 -> the high word.
    // SIMD: bytes 80+01, 7f+01, ff+01 (wraps), 01+01; -32768+1 and 32767+1 (saturates); 0-0, 1-2
    // and 3-4 (saturate at 0), 5-1; |-128 - 127|; 0 > 1 no, 1 > -1 yes; 10 + 5; (3+4+1)/2; (3+4)/2;
    // |-128| saturated and wrapped; -(-32768) saturated; lanes equal at bytes 1 and 3.
    check.run("known_answers", known, 1, [](std::size_t) {
      return KnownRow{80, 60,          1340,        9,           3,           0x80000000u, 0x18000000u,
                      1,  0x02008081u, 0x7fff8001u, 0x04000000u, 0x000000ffu, 0xffff0000u, 15,
                      4,  3,           0x0000007fu, 0x00000080u, 0x00007fffu, 0x01000100u};
    });
    check.run("floats", floats, 200, [](std::size_t i) { return float_row(static_cast<std::int64_t>(i)); });
    check.run("doubles", doubles, 200,
              [](std::size_t i) { return double_row(static_cast<std::int64_t>(i)); });
    check.run("integers", integers, 200, [](std::size_t i) { return int_row(static_cast<std::int64_t>(i)); });
    check.run("simd", simd, 200, [](std::size_t i) { return simd_row(static_cast<std::int64_t>(i)); });
  });
}
