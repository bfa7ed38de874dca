// 16-bit floating point: IEEE half (`oxide::half`) and bfloat16 (`oxide::bfloat16`).
//
// They are clang's native _Float16 and __bf16, so arithmetic, comparisons and conversions are
// ordinary C++ on both sides: the GPU computes in f16/bf16 instructions (sm_90 has both), the
// host and the CPU simulator in float with one rounding per expression (clang's excess
// precision), which can differ from the GPU in the last bit.
#pragma once

namespace oxide {

using half = _Float16;
using bfloat16 = __bf16;

/// Conversions with round-to-nearest-even, usable in kernels and in host code.
constexpr float to_float(half value) noexcept { return static_cast<float>(value); }
constexpr float to_float(bfloat16 value) noexcept { return static_cast<float>(value); }
constexpr half to_half(float value) noexcept { return static_cast<half>(value); }
constexpr bfloat16 to_bfloat16(float value) noexcept { return static_cast<bfloat16>(value); }

} // namespace oxide
