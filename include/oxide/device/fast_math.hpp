// Fast approximate maths (CUDA's intrinsic functions __expf, __logf, __sinf, __fdividef,
// rsqrtf, __saturatef...): one hardware instruction or two (ex2.approx, lg2.approx, sin.approx,
// cos.approx, div.approx, rsqrt.approx, cvt.sat), where <cmath> gives correctly rounded or
// few-ulp results at a higher cost. The GPU computes them with libdevice's __nv_fast_* functions,
// so the results are nvcc's bit for bit (tests/gpu/math). Their errors are CUDA's (CUDA C++
// Programming Guide, "Intrinsic Functions"); they do not flush denormals unless the build does
// (oxcc --fast-math). On the CPU simulator they are <cmath>'s accurate functions, so a kernel's
// results there are within these errors of the GPU's, not equal to them.
#pragma once

#include <cmath>

namespace oxide::fast {

/// e^x within 2 + floor(|1.173 x|) ulps (ex2.approx of x log2(e)).
[[nodiscard]] inline float exp(float x) noexcept {
#ifdef __CUDA_ARCH__
  return ::__expf(x);
#else
  return std::exp(x);
#endif
}

/// 2^x within 2 ulps, as one ex2.approx.ftz (nvcc's exp2f under --use_fast_math): denormal
/// arguments and results are flushed to zero whatever the build, which saves the two scalings
/// around the instruction that ex2.approx without .ftz needs (FlashAttention's softmax).
[[nodiscard]] inline float exp2(float x) noexcept {
#ifdef __CUDA_ARCH__
  return __nvvm_ex2_approx_ftz_f(x);
#else
  return std::exp2(x);
#endif
}

/// 10^x within 2 + floor(|2.97 x|) ulps.
[[nodiscard]] inline float exp10(float x) noexcept {
#ifdef __CUDA_ARCH__
  return ::__exp10f(x);
#else
  return std::pow(10.0f, x);
#endif
}

/// ln x: for x in [0.5, 2] within 2^-21.41 absolutely, elsewhere within 3 ulps.
[[nodiscard]] inline float log(float x) noexcept {
#ifdef __CUDA_ARCH__
  return ::__logf(x);
#else
  return std::log(x);
#endif
}

/// log2 x: for x in [0.5, 2] within 2^-22 absolutely, elsewhere within 2 ulps.
[[nodiscard]] inline float log2(float x) noexcept {
#ifdef __CUDA_ARCH__
  return ::__log2f(x);
#else
  return std::log2(x);
#endif
}

/// log10 x: for x in [0.5, 2] within 2^-24 absolutely, elsewhere within 3 ulps.
[[nodiscard]] inline float log10(float x) noexcept {
#ifdef __CUDA_ARCH__
  return ::__log10f(x);
#else
  return std::log10(x);
#endif
}

/// sin x: for x in [-pi, pi] within 2^-21.41 absolutely; larger elsewhere (no range reduction).
[[nodiscard]] inline float sin(float x) noexcept {
#ifdef __CUDA_ARCH__
  return ::__sinf(x);
#else
  return std::sin(x);
#endif
}

/// cos x: for x in [-pi, pi] within 2^-21.19 absolutely; larger elsewhere.
[[nodiscard]] inline float cos(float x) noexcept {
#ifdef __CUDA_ARCH__
  return ::__cosf(x);
#else
  return std::cos(x);
#endif
}

/// sin x and cos x at once, with the errors of fast::sin and fast::cos.
inline void sincos(float x, float &sine, float &cosine) noexcept {
#ifdef __CUDA_ARCH__
  ::__sincosf(x, &sine, &cosine);
#else
  sine = std::sin(x);
  cosine = std::cos(x);
#endif
}

/// tan x as fast::sin x / fast::cos x (div.approx): CUDA documents no bound of its own.
[[nodiscard]] inline float tan(float x) noexcept {
#ifdef __CUDA_ARCH__
  return ::__tanf(x);
#else
  return std::tan(x);
#endif
}

/// x^y as 2^(y log2 x) (lg2.approx, ex2.approx): for x > 0 only; the error grows with |y log2 x|.
[[nodiscard]] inline float pow(float x, float y) noexcept {
#ifdef __CUDA_ARCH__
  return ::__powf(x, y);
#else
  return std::pow(x, y);
#endif
}

/// x / y within 2 ulps for 2^-126 <= |y| <= 2^126; 0 for 2^126 < |y| < 2^128 (div.approx).
[[nodiscard]] inline float div(float x, float y) noexcept {
#ifdef __CUDA_ARCH__
  return ::__fdividef(x, y);
#else
  return x / y;
#endif
}

/// 1 / sqrt(x) within 2 ulps (rsqrt.approx).
[[nodiscard]] inline float rsqrt(float x) noexcept {
#ifdef __CUDA_ARCH__
  return ::rsqrtf(x);
#else
  return 1.0f / std::sqrt(x);
#endif
}

/// 1 / sqrt(x) in double within 1 ulp (rsqrt.approx.f64 and a correction step).
[[nodiscard]] inline double rsqrt(double x) noexcept {
#ifdef __CUDA_ARCH__
  return __nv_rsqrt(x); // libdevice: CUDA's global rsqrt(double) is renamed (cuda_headers.hpp)
#else
  return 1.0 / std::sqrt(x);
#endif
}

/// x clamped to [0, 1], NaN to 0 (cvt.sat): exact.
[[nodiscard]] inline float saturate(float x) noexcept {
#ifdef __CUDA_ARCH__
  return ::__saturatef(x);
#else
  return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f; // NaN fails the first test
#endif
}

} // namespace oxide::fast
