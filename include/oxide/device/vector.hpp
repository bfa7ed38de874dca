// Small vector types: oxide::Float2, Float4, Int4, UInt2, Double2... (CUDA's float2, float4...).
//
//   oxide::Span<const oxide::Float4> in;  oxide::DisjointSpan<oxide::Float4> out;
//   if (oxide::Float4 *o = out.get_mut(i))
//     *o = in[i.get()] * 2.0f;          // one ld.global.nc.v4 and one st.global.v4
//
// A vector of 2 or 4 elements is aligned to its size (up to 16 bytes, as CUDA's are), so a
// load, store, copy or `c ? a : b` of a whole vector is one 8- or 16-byte access; 3-element
// vectors have their element's alignment (12 bytes for float3: three accesses). The same types
// are used by the host and the kernels, so buffers of them pass between the two.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <type_traits>

namespace oxide {

namespace detail {
/// CUDA's alignments: 2 and 4 elements to their size, at most 16 bytes; 3 to the element's.
template <class T, std::size_t N>
inline constexpr std::size_t vector_alignment = N == 3               ? alignof(T)
                                                : sizeof(T) * N < 16 ? sizeof(T) * N
                                                                     : std::size_t{16};
} // namespace detail

/// N (2, 3 or 4) elements of arithmetic type T named x, y, z, w. An aggregate:
/// `oxide::Float4{1, 2, 3, 4}`; value-initialised (`oxide::Float4{}`) it is all zeros.
template <class T, std::size_t N> struct Vec;

template <class T> struct alignas(detail::vector_alignment<T, 2>) Vec<T, 2> {
  using value_type = T;
  static constexpr std::size_t size = 2;
  T x, y;
};
template <class T> struct alignas(detail::vector_alignment<T, 3>) Vec<T, 3> {
  using value_type = T;
  static constexpr std::size_t size = 3;
  T x, y, z;
};
template <class T> struct alignas(detail::vector_alignment<T, 4>) Vec<T, 4> {
  using value_type = T;
  static constexpr std::size_t size = 4;
  T x, y, z, w;
};

// CUDA's set, spelled like oxide::Dim3 so that they never meet CUDA's ::float4 and friends,
// which the device compile also sees. (CUDA's 1-element types are the scalars themselves.)
using Char2 = Vec<signed char, 2>;
using Char3 = Vec<signed char, 3>;
using Char4 = Vec<signed char, 4>;
using UChar2 = Vec<unsigned char, 2>;
using UChar3 = Vec<unsigned char, 3>;
using UChar4 = Vec<unsigned char, 4>;
using Short2 = Vec<std::int16_t, 2>;
using Short3 = Vec<std::int16_t, 3>;
using Short4 = Vec<std::int16_t, 4>;
using UShort2 = Vec<std::uint16_t, 2>;
using UShort3 = Vec<std::uint16_t, 3>;
using UShort4 = Vec<std::uint16_t, 4>;
using Int2 = Vec<std::int32_t, 2>;
using Int3 = Vec<std::int32_t, 3>;
using Int4 = Vec<std::int32_t, 4>;
using UInt2 = Vec<std::uint32_t, 2>;
using UInt3 = Vec<std::uint32_t, 3>;
using UInt4 = Vec<std::uint32_t, 4>;
using LongLong2 = Vec<std::int64_t, 2>;
using ULongLong2 = Vec<std::uint64_t, 2>;
using Float2 = Vec<float, 2>;
using Float3 = Vec<float, 3>;
using Float4 = Vec<float, 4>;
using Double2 = Vec<double, 2>;
using Double3 = Vec<double, 3>;
using Double4 = Vec<double, 4>; // 32 bytes, 16-byte aligned: two 16-byte accesses

static_assert(sizeof(Float4) == 16 && alignof(Float4) == 16 && alignof(Float2) == 8);
static_assert(sizeof(Double2) == 16 && alignof(Double2) == 16 && sizeof(Float3) == 12);
static_assert(std::is_trivially_copyable_v<Float4> && std::is_aggregate_v<Float4>);

/// make_float4 and friends for any element type: `oxide::make_vec(1.0f, 2.0f)` is a Float2.
/// All arguments have the same type (write `2.0f`, not `2`, beside floats).
template <class T, class... U>
  requires(sizeof...(U) >= 1 && sizeof...(U) <= 3 && (std::is_same_v<T, U> && ...))
constexpr Vec<T, 1 + sizeof...(U)> make_vec(T x, U... rest) noexcept {
  return {x, rest...};
}

namespace detail {
/// Vec<T, N>{f(a.x, b.x), f(a.y, b.y), ...}, each converted back to T (small integers promote).
template <class T, std::size_t N, class F>
constexpr Vec<T, N> elementwise(const Vec<T, N> &a, const Vec<T, N> &b, F f) noexcept {
  auto g = [&](T p, T q) { return static_cast<T>(f(p, q)); };
  if constexpr (N == 2)
    return {g(a.x, b.x), g(a.y, b.y)};
  else if constexpr (N == 3)
    return {g(a.x, b.x), g(a.y, b.y), g(a.z, b.z)};
  else
    return {g(a.x, b.x), g(a.y, b.y), g(a.z, b.z), g(a.w, b.w)};
}
template <class T, std::size_t N> constexpr Vec<T, N> splat(T s) noexcept {
  if constexpr (N == 2)
    return {s, s};
  else if constexpr (N == 3)
    return {s, s, s};
  else
    return {s, s, s, s};
}
} // namespace detail

// Element-wise arithmetic, with a vector or an element on either side (the element type's own
// rules apply: Int4 / Int4 divides as ints), and the compound assignments.
template <class T, std::size_t N>
constexpr Vec<T, N> operator+(const Vec<T, N> &a, const Vec<T, N> &b) noexcept {
  return detail::elementwise(a, b, std::plus<>{});
}
template <class T, std::size_t N>
constexpr Vec<T, N> operator-(const Vec<T, N> &a, const Vec<T, N> &b) noexcept {
  return detail::elementwise(a, b, std::minus<>{});
}
template <class T, std::size_t N>
constexpr Vec<T, N> operator*(const Vec<T, N> &a, const Vec<T, N> &b) noexcept {
  return detail::elementwise(a, b, std::multiplies<>{});
}
template <class T, std::size_t N>
constexpr Vec<T, N> operator/(const Vec<T, N> &a, const Vec<T, N> &b) noexcept {
  return detail::elementwise(a, b, std::divides<>{});
}
template <class T, std::size_t N>
constexpr Vec<T, N> operator+(const Vec<T, N> &a, std::type_identity_t<T> s) noexcept {
  return a + detail::splat<T, N>(s);
}
template <class T, std::size_t N>
constexpr Vec<T, N> operator-(const Vec<T, N> &a, std::type_identity_t<T> s) noexcept {
  return a - detail::splat<T, N>(s);
}
template <class T, std::size_t N>
constexpr Vec<T, N> operator*(const Vec<T, N> &a, std::type_identity_t<T> s) noexcept {
  return a * detail::splat<T, N>(s);
}
template <class T, std::size_t N>
constexpr Vec<T, N> operator/(const Vec<T, N> &a, std::type_identity_t<T> s) noexcept {
  return a / detail::splat<T, N>(s);
}
template <class T, std::size_t N>
constexpr Vec<T, N> operator+(std::type_identity_t<T> s, const Vec<T, N> &a) noexcept {
  return detail::splat<T, N>(s) + a;
}
template <class T, std::size_t N>
constexpr Vec<T, N> operator-(std::type_identity_t<T> s, const Vec<T, N> &a) noexcept {
  return detail::splat<T, N>(s) - a;
}
template <class T, std::size_t N>
constexpr Vec<T, N> operator*(std::type_identity_t<T> s, const Vec<T, N> &a) noexcept {
  return detail::splat<T, N>(s) * a;
}
template <class T, std::size_t N>
constexpr Vec<T, N> operator/(std::type_identity_t<T> s, const Vec<T, N> &a) noexcept {
  return detail::splat<T, N>(s) / a;
}
template <class T, std::size_t N, class U>
constexpr Vec<T, N> &operator+=(Vec<T, N> &a, const U &b) noexcept {
  return a = a + b;
}
template <class T, std::size_t N, class U>
constexpr Vec<T, N> &operator-=(Vec<T, N> &a, const U &b) noexcept {
  return a = a - b;
}
template <class T, std::size_t N, class U>
constexpr Vec<T, N> &operator*=(Vec<T, N> &a, const U &b) noexcept {
  return a = a * b;
}
template <class T, std::size_t N, class U>
constexpr Vec<T, N> &operator/=(Vec<T, N> &a, const U &b) noexcept {
  return a = a / b;
}

template <class T, std::size_t N> constexpr Vec<T, N> operator-(const Vec<T, N> &a) noexcept {
  return detail::elementwise(a, a, [](T p, T) { return -p; });
}

/// True when every element compares equal (floats: so a NaN element makes vectors unequal).
template <class T, std::size_t N> constexpr bool operator==(const Vec<T, N> &a, const Vec<T, N> &b) noexcept {
  bool equal = a.x == b.x && a.y == b.y;
  if constexpr (N >= 3)
    equal = equal && a.z == b.z;
  if constexpr (N == 4)
    equal = equal && a.w == b.w;
  return equal;
}

/// The sum of the element-wise products.
template <class T, std::size_t N> constexpr T dot(const Vec<T, N> &a, const Vec<T, N> &b) noexcept {
  T sum = a.x * b.x + a.y * b.y;
  if constexpr (N >= 3)
    sum += a.z * b.z;
  if constexpr (N == 4)
    sum += a.w * b.w;
  return sum;
}

} // namespace oxide
