// 16-bit floating point: IEEE half (`oxide::half`) and bfloat16 (`oxide::bfloat16`).
//
// They are clang's native _Float16 and __bf16, so arithmetic, comparisons and conversions are
// ordinary C++ on both sides: the GPU computes in f16/bf16 instructions (sm_90 has both), the
// host and the CPU simulator in float with one rounding per expression (clang's excess
// precision), which can differ from the GPU in the last bit.
//
// Pairs (`oxide::bfloat16x2`, `oxide::halfx2`, CUDA's __nv_bfloat162 and __half2) hold two
// values in one 32-bit register, lane 0 in the low half: the GPU converts, adds, multiplies and
// fmas both lanes in one instruction (cvt.rn.bf16x2.f32, fma.rn.bf16x2...), where two scalars
// cost two.
//
//   const oxide::bfloat16x2 p = oxide::to_bfloat16x2(acc[0], acc[1]);   // one cvt.rn.bf16x2.f32
//   const oxide::bfloat16x2 y = oxide::fma(p, scale, bias);               // one fma.rn.bf16x2
#pragma once

#include "oxide/device/vector.hpp"

namespace oxide {

using half = _Float16;
using bfloat16 = __bf16;

/// Conversions with round-to-nearest-even, usable in kernels and in host code.
constexpr float to_float(half value) noexcept { return static_cast<float>(value); }
constexpr float to_float(bfloat16 value) noexcept { return static_cast<float>(value); }
constexpr half to_half(float value) noexcept { return static_cast<half>(value); }
constexpr bfloat16 to_bfloat16(float value) noexcept { return static_cast<bfloat16>(value); }

/// Two bfloat16 or half values in one 32-bit register (lanes `.x` and `.y`, or [0] and [1]).
/// Arithmetic (+ - * /), comparisons and `c ? a : b` apply lane by lane, as for CUDA's
/// __nv_bfloat162 and __half2; the layout is theirs, so buffers of them pass between the two.
using bfloat16x2 = bfloat16 __attribute__((ext_vector_type(2)));
using halfx2 = half __attribute__((ext_vector_type(2)));

namespace detail {
using float_pair = float __attribute__((ext_vector_type(2)));
} // namespace detail

/// (lo, hi) rounded to nearest even, in one conversion (CUDA's __floats2bfloat162_rn).
constexpr bfloat16x2 to_bfloat16x2(float lo, float hi) noexcept {
  return __builtin_convertvector((detail::float_pair{lo, hi}), bfloat16x2);
}
/// (lo, hi) rounded to nearest even, in one conversion (CUDA's __floats2half2_rn).
constexpr halfx2 to_halfx2(float lo, float hi) noexcept {
  return __builtin_convertvector((detail::float_pair{lo, hi}), halfx2);
}
/// Both lanes as floats (CUDA's __bfloat1622float2, __half22float2).
constexpr Float2 to_float2(bfloat16x2 value) noexcept { return {float(value.x), float(value.y)}; }
constexpr Float2 to_float2(halfx2 value) noexcept { return {float(value.x), float(value.y)}; }
/// a * b + c in each lane with one rounding (CUDA's __hfma2).
inline bfloat16x2 fma(bfloat16x2 a, bfloat16x2 b, bfloat16x2 c) noexcept {
  return __builtin_elementwise_fma(a, b, c);
}
inline halfx2 fma(halfx2 a, halfx2 b, halfx2 c) noexcept { return __builtin_elementwise_fma(a, b, c); }

} // namespace oxide
