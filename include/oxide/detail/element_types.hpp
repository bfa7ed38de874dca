// Element types as lists, and the DLPack-style code (oxide/c_api.h) of each arithmetic one. Free
// of CUDA and of the rest of the runtime so that the public headers, the runtime and the CUB call
// files (runtime/cub/*.cu, compiled by nvcc as C++17) share one list of what oxide::cub takes.
#pragma once

#include "oxide/c_api.h"

#include <cstdint>
#include <type_traits>

namespace oxide::detail {

template <class... T> struct TypeList {};

/// Whether T is one of List's types.
template <class T, class List> inline constexpr bool kOneOf = false;
template <class T, class... Ts>
inline constexpr bool kOneOf<T, TypeList<Ts...>> = (std::is_same_v<T, Ts> || ...);

/// OXIDE_DTYPE of an integer or floating-point type of at most 8 bytes: (code << 8) | bits, code
/// 0 signed, 1 unsigned, 2 floating point.
template <class T> constexpr std::int32_t arithmetic_dtype() noexcept {
  static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool> && sizeof(T) <= 8);
  return OXIDE_DTYPE(std::is_floating_point_v<T> ? 2
                     : std::is_signed_v<T>       ? 0
                                                 : 1,
                     8 * static_cast<int>(sizeof(T)));
}

template <class T> struct TypeTag {
  using type = T;
};

/// Calls `f(TypeTag<T>{})` for the type T of List whose arithmetic_dtype is `dtype` and stores
/// its result in `result` (when f returns one); false when no type of List has that code.
template <class... Ts, class F, class R>
bool visit_dtype(TypeList<Ts...>, std::int32_t dtype, F &&f, R &result) {
  return ((arithmetic_dtype<Ts>() == dtype ? (result = f(TypeTag<Ts>{}), true) : false) || ...);
}
template <class... Ts, class F> bool visit_dtype(TypeList<Ts...>, std::int32_t dtype, F &&f) {
  return ((arithmetic_dtype<Ts>() == dtype ? (f(TypeTag<Ts>{}), true) : false) || ...);
}

/// The key types of oxide::cub's radix sorts and the element types of its scans, reductions,
/// unique and run-length encoding.
using CubArithmetic = TypeList<std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, float, double>;
/// The sample types of oxide::cub::histogram_even, and the type of their bin levels (CUB's
/// LevelT): int for the integers, float for float.
using CubHistogramSamples = TypeList<std::uint8_t, std::uint16_t, std::int32_t, float>;
template <class T> using HistogramLevel = std::conditional_t<std::is_floating_point_v<T>, T, int>;

} // namespace oxide::detail
