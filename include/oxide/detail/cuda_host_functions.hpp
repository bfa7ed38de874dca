// CUDA's device functions that C++ does not have (rsqrtf, normcdff, erfinvf, __saturatef,
// __fdividef, __popc, __umulhi, __dp4a, __funnelshift_l, ...), for the host compile, where kernels also run
// (the CPU simulator). The device compile has CUDA's own (cuda_headers.hpp); without these, a kernel that
// calls one failed to compile for the host, so ported CUDA code needed #ifdef __CUDA_ARCH__.
//
// Each is a function template with a defaulted parameter: a call deduces nothing from it, and a
// user's own non-template function of the same name and signature is the better match and does
// not collide (tests/lang/cuda_names.cpp). The values are those of CUDA's definitions up to
// rounding (tests/lang/cuda_functions.cpp compares them on a GPU). The intrinsics that glibc's
// <math.h> already declares (__expf, __logf, __sinf, ...) are defined in the runtime
// (runtime/sim/cuda_functions.cpp).
#pragma once

#if !defined(__CUDA__)

#include <sched.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace oxide::detail::cuda_host {

inline constexpr double kPi = 3.141592653589793238462643383279502884;

/// sin(pi x) and cos(pi x), exact at integers and half-integers: x reduced to [-1, 1] first.
inline double sin_pi(double x) noexcept {
  if (!std::isfinite(x))
    return std::numeric_limits<double>::quiet_NaN();
  const double r = std::remainder(x, 2.0); // exact, in [-1, 1]
  if (r == 0.0 || std::fabs(r) == 1.0)
    return std::copysign(0.0, x);
  if (std::fabs(r) == 0.5)
    return r > 0 ? 1.0 : -1.0;
  return std::sin(kPi * r);
}
inline double cos_pi(double x) noexcept {
  if (!std::isfinite(x))
    return std::numeric_limits<double>::quiet_NaN();
  const double r = std::fabs(std::remainder(x, 2.0));
  if (r == 0.5)
    return 0.0;
  if (r == 0.0)
    return 1.0;
  if (r == 1.0)
    return -1.0;
  return std::cos(kPi * r);
}

/// The inverse of erf on (-1, 1): an initial rational approximation refined by Newton steps on
/// erf (three steps take it to double precision).
inline double erf_inverse(double y) noexcept {
  if (std::isnan(y) || y < -1.0 || y > 1.0)
    return std::numeric_limits<double>::quiet_NaN();
  if (y == 1.0)
    return std::numeric_limits<double>::infinity();
  if (y == -1.0)
    return -std::numeric_limits<double>::infinity();
  // Giles, "Approximating the erfinv function" (single-precision coefficients), as a start.
  double w = -std::log((1.0 - y) * (1.0 + y)), x;
  if (w < 5.0) {
    w -= 2.5;
    double p = 2.81022636e-08;
    for (double c : {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                     -0.00417768164, 0.246640727, 1.50140941})
      p = c + p * w;
    x = p * y;
  } else {
    w = std::sqrt(w) - 3.0;
    double p = -0.000200214257;
    for (double c : {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
                     0.00943887047, 1.00167406, 2.83297682})
      p = c + p * w;
    x = p * y;
  }
  const double scale = 2.0 / std::sqrt(kPi);
  for (int i = 0; i < 3; ++i)
    x -= (std::erf(x) - y) / (scale * std::exp(-x * x));
  return x;
}

/// The inverse of erfc on (0, 2), refined on erfc itself so that tiny arguments keep their
/// precision.
inline double erfc_inverse(double y) noexcept {
  if (std::isnan(y) || y < 0.0 || y > 2.0)
    return std::numeric_limits<double>::quiet_NaN();
  if (y == 0.0)
    return std::numeric_limits<double>::infinity();
  if (y == 2.0)
    return -std::numeric_limits<double>::infinity();
  double x = erf_inverse(1.0 - y);
  if (!std::isfinite(x)) // 1 - y rounded to +-1: start from the tail's asymptote
    x = y < 1.0 ? std::sqrt(-std::log(y * std::sqrt(kPi)))
                : -std::sqrt(-std::log((2.0 - y) * std::sqrt(kPi)));
  const double scale = 2.0 / std::sqrt(kPi);
  for (int i = 0; i < 4; ++i)
    x += (std::erfc(x) - y) / (scale * std::exp(-x * x));
  return x;
}

/// exp(x^2) erfc(x), without overflow for large x (its asymptotic series past 26).
inline double erfc_scaled(double x) noexcept {
  if (x < 26.0)
    return std::exp(x * x) * std::erfc(x);
  const double inv = 1.0 / (x * x);
  return (1.0 - 0.5 * inv * (1.0 - 1.5 * inv * (1.0 - 2.5 * inv))) / (x * std::sqrt(kPi));
}

} // namespace oxide::detail::cuda_host

// --- single precision -------------------------------------------------------------------
template <class = void> float rsqrtf(float x) noexcept { return 1.0f / std::sqrt(x); }
template <class = void> float rcbrtf(float x) noexcept { return 1.0f / std::cbrt(x); }
template <class = void> float sinpif(float x) noexcept {
  return static_cast<float>(oxide::detail::cuda_host::sin_pi(x));
}
template <class = void> float cospif(float x) noexcept {
  return static_cast<float>(oxide::detail::cuda_host::cos_pi(x));
}
template <class = void> void sincospif(float x, float *s, float *c) noexcept {
  *s = static_cast<float>(oxide::detail::cuda_host::sin_pi(x));
  *c = static_cast<float>(oxide::detail::cuda_host::cos_pi(x));
}
template <class = void> float normcdff(float x) noexcept {
  return static_cast<float>(0.5 * std::erfc(-static_cast<double>(x) / std::sqrt(2.0)));
}
template <class = void> float normcdfinvf(float p) noexcept {
  return static_cast<float>(-std::sqrt(2.0) * oxide::detail::cuda_host::erfc_inverse(2.0 * p));
}
template <class = void> float erfinvf(float y) noexcept {
  return static_cast<float>(oxide::detail::cuda_host::erf_inverse(y));
}
template <class = void> float erfcinvf(float y) noexcept {
  return static_cast<float>(oxide::detail::cuda_host::erfc_inverse(y));
}
template <class = void> float erfcxf(float x) noexcept {
  return static_cast<float>(oxide::detail::cuda_host::erfc_scaled(x));
}
/// x clamped to [0, 1]; NaN gives 0.
template <class = void> float __saturatef(float x) noexcept {
  return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f;
}
template <class = void> float __fdividef(float x, float y) noexcept { return x / y; }
// The _rn operations round once, to nearest even: the host's arithmetic, never contracted into
// an fma across the call.
template <class = void> float __fadd_rn(float x, float y) noexcept { return x + y; }
template <class = void> float __fsub_rn(float x, float y) noexcept { return x - y; }
template <class = void> float __fmul_rn(float x, float y) noexcept { return x * y; }
template <class = void> float __fdiv_rn(float x, float y) noexcept { return x / y; }
template <class = void> float __frcp_rn(float x) noexcept { return 1.0f / x; }
template <class = void> float __fsqrt_rn(float x) noexcept { return std::sqrt(x); }
template <class = void> float __fmaf_rn(float x, float y, float z) noexcept { return std::fma(x, y, z); }

// --- double precision -------------------------------------------------------------------
template <class = void> double rsqrt(double x) noexcept { return 1.0 / std::sqrt(x); }
template <class = void> double rcbrt(double x) noexcept { return 1.0 / std::cbrt(x); }
template <class = void> double sinpi(double x) noexcept { return oxide::detail::cuda_host::sin_pi(x); }
template <class = void> double cospi(double x) noexcept { return oxide::detail::cuda_host::cos_pi(x); }
template <class = void> void sincospi(double x, double *s, double *c) noexcept {
  *s = oxide::detail::cuda_host::sin_pi(x);
  *c = oxide::detail::cuda_host::cos_pi(x);
}
template <class = void> double normcdf(double x) noexcept { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }
template <class = void> double normcdfinv(double p) noexcept {
  return -std::sqrt(2.0) * oxide::detail::cuda_host::erfc_inverse(2.0 * p);
}
template <class = void> double erfinv(double y) noexcept { return oxide::detail::cuda_host::erf_inverse(y); }
template <class = void> double erfcinv(double y) noexcept {
  return oxide::detail::cuda_host::erfc_inverse(y);
}
template <class = void> double erfcx(double x) noexcept { return oxide::detail::cuda_host::erfc_scaled(x); }
template <class = void> double __dadd_rn(double x, double y) noexcept { return x + y; }
template <class = void> double __dsub_rn(double x, double y) noexcept { return x - y; }
template <class = void> double __dmul_rn(double x, double y) noexcept { return x * y; }
template <class = void> double __ddiv_rn(double x, double y) noexcept { return x / y; }
template <class = void> double __drcp_rn(double x) noexcept { return 1.0 / x; }
template <class = void> double __dsqrt_rn(double x) noexcept { return std::sqrt(x); }
template <class = void> double __fma_rn(double x, double y, double z) noexcept { return std::fma(x, y, z); }

// --- integers ---------------------------------------------------------------------------
template <class = void> int __popc(unsigned x) noexcept { return std::popcount(x); }
template <class = void> int __popcll(unsigned long long x) noexcept { return std::popcount(x); }
template <class = void> int __clz(int x) noexcept { return std::countl_zero(static_cast<unsigned>(x)); }
template <class = void> int __clzll(long long x) noexcept {
  return std::countl_zero(static_cast<unsigned long long>(x));
}
/// The position (1-based) of the least significant set bit; 0 for 0.
template <class = void> int __ffs(int x) noexcept {
  return x == 0 ? 0 : std::countr_zero(static_cast<unsigned>(x)) + 1;
}
template <class = void> int __ffsll(long long x) noexcept {
  return x == 0 ? 0 : std::countr_zero(static_cast<unsigned long long>(x)) + 1;
}
template <class = void> unsigned __brev(unsigned x) noexcept {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i, x >>= 1)
    r = (r << 1) | (x & 1u);
  return r;
}
template <class = void> unsigned long long __brevll(unsigned long long x) noexcept {
  unsigned long long r = 0;
  for (int i = 0; i < 64; ++i, x >>= 1)
    r = (r << 1) | (x & 1u);
  return r;
}
/// Byte i of the result is byte (s >> 4i) & 7 of the 8 bytes {y, x} (x the low four): prmt.
template <class = void> unsigned __byte_perm(unsigned x, unsigned y, unsigned s) noexcept {
  const unsigned long long bytes = (static_cast<unsigned long long>(y) << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i)
    r |= static_cast<unsigned>((bytes >> (8 * ((s >> (4 * i)) & 7u))) & 0xffu) << (8 * i);
  return r;
}
template <class = void> int __mulhi(int x, int y) noexcept {
  return static_cast<int>((static_cast<long long>(x) * y) >> 32);
}
template <class = void> unsigned __umulhi(unsigned x, unsigned y) noexcept {
  return static_cast<unsigned>((static_cast<unsigned long long>(x) * y) >> 32);
}
template <class = void> long long __mul64hi(long long x, long long y) noexcept {
  return static_cast<long long>((static_cast<__int128>(x) * y) >> 64);
}
template <class = void> unsigned long long __umul64hi(unsigned long long x, unsigned long long y) noexcept {
  return static_cast<unsigned long long>((static_cast<unsigned __int128>(x) * y) >> 64);
}
/// The product of the low 24 bits of each (sign-extended for __mul24), low 32 bits kept.
template <class = void> int __mul24(int x, int y) noexcept {
  const auto low = [](int v) {
    return static_cast<long long>(static_cast<std::int32_t>(static_cast<unsigned>(v) << 8) >> 8);
  };
  return static_cast<int>(static_cast<unsigned>(low(x) * low(y)));
}
template <class = void> unsigned __umul24(unsigned x, unsigned y) noexcept {
  return (x & 0xffffffu) * (y & 0xffffffu);
}
template <class = void> unsigned __sad(int x, int y, unsigned z) noexcept {
  return z + static_cast<unsigned>(x > y ? static_cast<long long>(x) - y : static_cast<long long>(y) - x);
}
template <class = void> unsigned __usad(unsigned x, unsigned y, unsigned z) noexcept {
  return z + (x > y ? x - y : y - x);
}
template <class = void> int __hadd(int x, int y) noexcept {
  return static_cast<int>((static_cast<long long>(x) + y) >> 1);
}
template <class = void> int __rhadd(int x, int y) noexcept {
  return static_cast<int>((static_cast<long long>(x) + y + 1) >> 1);
}
template <class = void> unsigned __uhadd(unsigned x, unsigned y) noexcept {
  return static_cast<unsigned>((static_cast<unsigned long long>(x) + y) >> 1);
}
template <class = void> unsigned __urhadd(unsigned x, unsigned y) noexcept {
  return static_cast<unsigned>((static_cast<unsigned long long>(x) + y + 1) >> 1);
}

/// The four byte products of a and b (signed or unsigned bytes) added to c: dp4a.
template <class = void> int __dp4a(int a, int b, int c) noexcept {
  long long sum = c;
  for (int i = 0; i < 32; i += 8)
    sum += static_cast<long long>(static_cast<std::int8_t>(a >> i)) * static_cast<std::int8_t>(b >> i);
  return static_cast<int>(static_cast<std::uint32_t>(sum));
}
template <class = void> unsigned __dp4a(unsigned a, unsigned b, unsigned c) noexcept {
  unsigned sum = c;
  for (int i = 0; i < 32; i += 8)
    sum += ((a >> i) & 0xffu) * ((b >> i) & 0xffu);
  return sum;
}
/// The two 16-bit halves of a times bytes 0 and 1 (lo) or 2 and 3 (hi) of b, added to c: dp2a.
template <class = void> int __dp2a_lo(int a, int b, int c) noexcept {
  const auto half = [&](int i) { return static_cast<long long>(static_cast<std::int16_t>(a >> (16 * i))); };
  const auto byte = [&](int i) { return static_cast<long long>(static_cast<std::int8_t>(b >> (8 * i))); };
  return static_cast<int>(static_cast<std::uint32_t>(c + half(0) * byte(0) + half(1) * byte(1)));
}
template <class = void> int __dp2a_hi(int a, int b, int c) noexcept {
  const auto half = [&](int i) { return static_cast<long long>(static_cast<std::int16_t>(a >> (16 * i))); };
  const auto byte = [&](int i) { return static_cast<long long>(static_cast<std::int8_t>(b >> (8 * i))); };
  return static_cast<int>(static_cast<std::uint32_t>(c + half(0) * byte(2) + half(1) * byte(3)));
}
template <class = void> unsigned __dp2a_lo(unsigned a, unsigned b, unsigned c) noexcept {
  return c + (a & 0xffffu) * (b & 0xffu) + (a >> 16) * ((b >> 8) & 0xffu);
}
template <class = void> unsigned __dp2a_hi(unsigned a, unsigned b, unsigned c) noexcept {
  return c + (a & 0xffffu) * ((b >> 16) & 0xffu) + (a >> 16) * (b >> 24);
}
/// The 64 bits {hi, lo} shifted by `shift` (taken modulo 32, or clamped to 32 by the -c forms):
/// the high word of a left shift, the low word of a right shift (shf.l / shf.r).
template <class = void> unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned shift) noexcept {
  const unsigned long long both = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>((both << (shift & 31u)) >> 32);
}
template <class = void> unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned shift) noexcept {
  const unsigned long long both = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>((both << (shift < 32u ? shift : 32u)) >> 32);
}
template <class = void> unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned shift) noexcept {
  const unsigned long long both = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>(both >> (shift & 31u));
}
template <class = void> unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned shift) noexcept {
  const unsigned long long both = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>(both >> (shift < 32u ? shift : 32u));
}

// The SIMD video intrinsics: 2 lanes of 16 bits or 4 lanes of 8 bits of a 32-bit word, lane 0 the
// lowest. simd::map applies `op` to each pair of lanes (as signed or unsigned values, as `op`
// takes them) and packs the results back, each cut to its lane.
namespace oxide::detail::cuda_host::simd {
template <unsigned Lanes, bool Signed> inline long long lane(unsigned word, unsigned k) noexcept {
  constexpr unsigned bits = 32 / Lanes;
  const unsigned v = (word >> (bits * k)) & ((1u << bits) - 1u);
  if constexpr (Signed)
    return v >= (1u << (bits - 1)) ? static_cast<long long>(v) - (1ll << bits) : static_cast<long long>(v);
  else
    return v;
}
template <unsigned Lanes, bool Signed, class Op> inline unsigned map(unsigned a, unsigned b, Op op) noexcept {
  constexpr unsigned bits = 32 / Lanes;
  unsigned r = 0;
  for (unsigned k = 0; k < Lanes; ++k)
    r |= (static_cast<unsigned>(op(lane<Lanes, Signed>(a, k), lane<Lanes, Signed>(b, k))) &
          ((1u << bits) - 1u))
         << (bits * k);
  return r;
}
template <unsigned Lanes, bool Signed> inline long long saturate(long long v) noexcept {
  constexpr unsigned bits = 32 / Lanes;
  const long long lo = Signed ? -(1ll << (bits - 1)) : 0,
                  hi = Signed ? (1ll << (bits - 1)) - 1 : (1ll << bits) - 1;
  return v < lo ? lo : v > hi ? hi : v;
}
template <unsigned Lanes, bool Signed> inline unsigned sad(unsigned a, unsigned b) noexcept {
  unsigned sum = 0;
  for (unsigned k = 0; k < Lanes; ++k) {
    const long long d = lane<Lanes, Signed>(a, k) - lane<Lanes, Signed>(b, k);
    sum += static_cast<unsigned>(d < 0 ? -d : d);
  }
  return sum;
}
} // namespace oxide::detail::cuda_host::simd

template <class = void> unsigned __vadd2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, false>(a, b, [](long long x, long long y) { return x + y; });
}
template <class = void> unsigned __vadd4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, false>(a, b, [](long long x, long long y) { return x + y; });
}
template <class = void> unsigned __vsub2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, false>(a, b, [](long long x, long long y) { return x - y; });
}
template <class = void> unsigned __vsub4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, false>(a, b, [](long long x, long long y) { return x - y; });
}
template <class = void> unsigned __vaddss2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, true>(a, b, [](long long x, long long y) {
    return oxide::detail::cuda_host::simd::saturate<2, true>(x + y);
  });
}
template <class = void> unsigned __vaddss4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, true>(a, b, [](long long x, long long y) {
    return oxide::detail::cuda_host::simd::saturate<4, true>(x + y);
  });
}
template <class = void> unsigned __vaddus2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, false>(a, b, [](long long x, long long y) {
    return oxide::detail::cuda_host::simd::saturate<2, false>(x + y);
  });
}
template <class = void> unsigned __vaddus4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, false>(a, b, [](long long x, long long y) {
    return oxide::detail::cuda_host::simd::saturate<4, false>(x + y);
  });
}
template <class = void> unsigned __vsubss2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, true>(a, b, [](long long x, long long y) {
    return oxide::detail::cuda_host::simd::saturate<2, true>(x - y);
  });
}
template <class = void> unsigned __vsubss4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, true>(a, b, [](long long x, long long y) {
    return oxide::detail::cuda_host::simd::saturate<4, true>(x - y);
  });
}
template <class = void> unsigned __vsubus2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, false>(a, b, [](long long x, long long y) {
    return oxide::detail::cuda_host::simd::saturate<2, false>(x - y);
  });
}
template <class = void> unsigned __vsubus4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, false>(a, b, [](long long x, long long y) {
    return oxide::detail::cuda_host::simd::saturate<4, false>(x - y);
  });
}
template <class = void> unsigned __vabsdiffs2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, true>(
      a, b, [](long long x, long long y) { return x > y ? x - y : y - x; });
}
template <class = void> unsigned __vabsdiffs4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, true>(
      a, b, [](long long x, long long y) { return x > y ? x - y : y - x; });
}
template <class = void> unsigned __vabsdiffu2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, false>(
      a, b, [](long long x, long long y) { return x > y ? x - y : y - x; });
}
template <class = void> unsigned __vabsdiffu4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, false>(
      a, b, [](long long x, long long y) { return x > y ? x - y : y - x; });
}
template <class = void> unsigned __vavgu2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, false>(
      a, b, [](long long x, long long y) { return (x + y + 1) >> 1; });
}
template <class = void> unsigned __vavgu4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, false>(
      a, b, [](long long x, long long y) { return (x + y + 1) >> 1; });
}
template <class = void> unsigned __vhaddu2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, false>(a, b,
                                                       [](long long x, long long y) { return (x + y) >> 1; });
}
template <class = void> unsigned __vhaddu4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, false>(a, b,
                                                       [](long long x, long long y) { return (x + y) >> 1; });
}
template <class = void> unsigned __vmaxs2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, true>(a, b,
                                                      [](long long x, long long y) { return x > y ? x : y; });
}
template <class = void> unsigned __vmaxs4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, true>(a, b,
                                                      [](long long x, long long y) { return x > y ? x : y; });
}
template <class = void> unsigned __vmaxu2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, false>(
      a, b, [](long long x, long long y) { return x > y ? x : y; });
}
template <class = void> unsigned __vmaxu4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, false>(
      a, b, [](long long x, long long y) { return x > y ? x : y; });
}
template <class = void> unsigned __vmins2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, true>(a, b,
                                                      [](long long x, long long y) { return x < y ? x : y; });
}
template <class = void> unsigned __vmins4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, true>(a, b,
                                                      [](long long x, long long y) { return x < y ? x : y; });
}
template <class = void> unsigned __vminu2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, false>(
      a, b, [](long long x, long long y) { return x < y ? x : y; });
}
template <class = void> unsigned __vminu4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, false>(
      a, b, [](long long x, long long y) { return x < y ? x : y; });
}
template <class = void> unsigned __vcmpeq2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, false>(
      a, b, [](long long x, long long y) { return x == y ? -1 : 0; });
}
template <class = void> unsigned __vcmpeq4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, false>(
      a, b, [](long long x, long long y) { return x == y ? -1 : 0; });
}
template <class = void> unsigned __vcmpne2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, false>(
      a, b, [](long long x, long long y) { return x != y ? -1 : 0; });
}
template <class = void> unsigned __vcmpne4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, false>(
      a, b, [](long long x, long long y) { return x != y ? -1 : 0; });
}
template <class = void> unsigned __vcmpges2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, true>(
      a, b, [](long long x, long long y) { return x >= y ? -1 : 0; });
}
template <class = void> unsigned __vcmpges4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, true>(
      a, b, [](long long x, long long y) { return x >= y ? -1 : 0; });
}
template <class = void> unsigned __vcmpgeu2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, false>(
      a, b, [](long long x, long long y) { return x >= y ? -1 : 0; });
}
template <class = void> unsigned __vcmpgeu4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, false>(
      a, b, [](long long x, long long y) { return x >= y ? -1 : 0; });
}
template <class = void> unsigned __vcmpgts2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, true>(
      a, b, [](long long x, long long y) { return x > y ? -1 : 0; });
}
template <class = void> unsigned __vcmpgts4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, true>(
      a, b, [](long long x, long long y) { return x > y ? -1 : 0; });
}
template <class = void> unsigned __vcmpgtu2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, false>(
      a, b, [](long long x, long long y) { return x > y ? -1 : 0; });
}
template <class = void> unsigned __vcmpgtu4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, false>(
      a, b, [](long long x, long long y) { return x > y ? -1 : 0; });
}
template <class = void> unsigned __vcmples2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, true>(
      a, b, [](long long x, long long y) { return x <= y ? -1 : 0; });
}
template <class = void> unsigned __vcmples4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, true>(
      a, b, [](long long x, long long y) { return x <= y ? -1 : 0; });
}
template <class = void> unsigned __vcmpleu2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, false>(
      a, b, [](long long x, long long y) { return x <= y ? -1 : 0; });
}
template <class = void> unsigned __vcmpleu4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, false>(
      a, b, [](long long x, long long y) { return x <= y ? -1 : 0; });
}
template <class = void> unsigned __vcmplts2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, true>(
      a, b, [](long long x, long long y) { return x < y ? -1 : 0; });
}
template <class = void> unsigned __vcmplts4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, true>(
      a, b, [](long long x, long long y) { return x < y ? -1 : 0; });
}
template <class = void> unsigned __vcmpltu2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, false>(
      a, b, [](long long x, long long y) { return x < y ? -1 : 0; });
}
template <class = void> unsigned __vcmpltu4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, false>(
      a, b, [](long long x, long long y) { return x < y ? -1 : 0; });
}
template <class = void> unsigned __vseteq2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, false>(
      a, b, [](long long x, long long y) { return x == y ? 1 : 0; });
}
template <class = void> unsigned __vseteq4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, false>(
      a, b, [](long long x, long long y) { return x == y ? 1 : 0; });
}
template <class = void> unsigned __vsetne2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, false>(
      a, b, [](long long x, long long y) { return x != y ? 1 : 0; });
}
template <class = void> unsigned __vsetne4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, false>(
      a, b, [](long long x, long long y) { return x != y ? 1 : 0; });
}
template <class = void> unsigned __vsetges2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, true>(
      a, b, [](long long x, long long y) { return x >= y ? 1 : 0; });
}
template <class = void> unsigned __vsetges4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, true>(
      a, b, [](long long x, long long y) { return x >= y ? 1 : 0; });
}
template <class = void> unsigned __vsetgeu2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, false>(
      a, b, [](long long x, long long y) { return x >= y ? 1 : 0; });
}
template <class = void> unsigned __vsetgeu4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, false>(
      a, b, [](long long x, long long y) { return x >= y ? 1 : 0; });
}
template <class = void> unsigned __vsetgts2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, true>(a, b,
                                                      [](long long x, long long y) { return x > y ? 1 : 0; });
}
template <class = void> unsigned __vsetgts4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, true>(a, b,
                                                      [](long long x, long long y) { return x > y ? 1 : 0; });
}
template <class = void> unsigned __vsetgtu2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, false>(
      a, b, [](long long x, long long y) { return x > y ? 1 : 0; });
}
template <class = void> unsigned __vsetgtu4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, false>(
      a, b, [](long long x, long long y) { return x > y ? 1 : 0; });
}
template <class = void> unsigned __vsetles2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, true>(
      a, b, [](long long x, long long y) { return x <= y ? 1 : 0; });
}
template <class = void> unsigned __vsetles4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, true>(
      a, b, [](long long x, long long y) { return x <= y ? 1 : 0; });
}
template <class = void> unsigned __vsetleu2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, false>(
      a, b, [](long long x, long long y) { return x <= y ? 1 : 0; });
}
template <class = void> unsigned __vsetleu4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, false>(
      a, b, [](long long x, long long y) { return x <= y ? 1 : 0; });
}
template <class = void> unsigned __vsetlts2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, true>(a, b,
                                                      [](long long x, long long y) { return x < y ? 1 : 0; });
}
template <class = void> unsigned __vsetlts4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, true>(a, b,
                                                      [](long long x, long long y) { return x < y ? 1 : 0; });
}
template <class = void> unsigned __vsetltu2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<2, false>(
      a, b, [](long long x, long long y) { return x < y ? 1 : 0; });
}
template <class = void> unsigned __vsetltu4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::map<4, false>(
      a, b, [](long long x, long long y) { return x < y ? 1 : 0; });
}
template <class = void> unsigned __vsads2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::sad<2, true>(a, b);
}
template <class = void> unsigned __vsads4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::sad<4, true>(a, b);
}
template <class = void> unsigned __vsadu2(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::sad<2, false>(a, b);
}
template <class = void> unsigned __vsadu4(unsigned a, unsigned b) noexcept {
  return oxide::detail::cuda_host::simd::sad<4, false>(a, b);
}
/// Per-lane negation and absolute value: wrapping (the lowest value stays), or saturated (ss).
template <class = void> unsigned __vneg2(unsigned a) noexcept { return __vsub2(0u, a); }
template <class = void> unsigned __vneg4(unsigned a) noexcept { return __vsub4(0u, a); }
template <class = void> unsigned __vnegss2(unsigned a) noexcept { return __vsubss2(0u, a); }
template <class = void> unsigned __vnegss4(unsigned a) noexcept { return __vsubss4(0u, a); }
template <class = void> unsigned __vabs2(unsigned a) noexcept { return __vabsdiffs2(a, 0u); }
template <class = void> unsigned __vabs4(unsigned a) noexcept { return __vabsdiffs4(a, 0u); }
template <class = void> unsigned __vabsss2(unsigned a) noexcept {
  return oxide::detail::cuda_host::simd::map<2, true>(a, 0u, [](long long x, long long) {
    return oxide::detail::cuda_host::simd::saturate<2, true>(x < 0 ? -x : x);
  });
}
template <class = void> unsigned __vabsss4(unsigned a) noexcept {
  return oxide::detail::cuda_host::simd::map<4, true>(a, 0u, [](long long x, long long) {
    return oxide::detail::cuda_host::simd::saturate<4, true>(x < 0 ? -x : x);
  });
}

/// A thread's pause of about `ns` nanoseconds (PTX's nanosleep waits anywhere in [0, 2 ns]). The
/// simulator gives up the host thread instead, so that the blocks another thread's spin waits for
/// get to run (a decoupled look-back's back-off); the simulated threads of one block share a host
/// thread, so a wait on a thread of the same block still needs a barrier, as on the GPU.
template <class = void> void __nanosleep(unsigned ns) noexcept {
  (void)ns;
  sched_yield();
}

#endif // !__CUDA__
