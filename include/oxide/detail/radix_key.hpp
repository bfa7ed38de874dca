// The unsigned key a radix sort orders by, in CUB's order: shared by oxide::cub's block sort
// (device/cub_block_radix_sort.hpp) and the simulator's device-wide sort (runtime/cub).
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

namespace oxide::detail {

template <std::size_t Bytes> struct RadixBitsOf;
template <> struct RadixBitsOf<1> {
  using type = std::uint8_t;
};
template <> struct RadixBitsOf<2> {
  using type = std::uint16_t;
};
template <> struct RadixBitsOf<4> {
  using type = std::uint32_t;
};
template <> struct RadixBitsOf<8> {
  using type = std::uint64_t;
};

/// The keys a radix sort takes: integers of 1 to 8 bytes other than bool, float and double.
template <class K>
concept RadixKey = (std::is_integral_v<K> && !std::is_same_v<K, bool> && sizeof(K) <= 8) ||
                   std::is_same_v<K, float> || std::is_same_v<K, double>;

/// The unsigned radix key of `key`: the sign bit flipped for signed integers; for floats all
/// bits flipped when negative, else the sign bit, and -0.0 taken as +0.0 (CUB's radix sorts
/// treat the two zeros as equal). NaNs go by their sign: after +inf, or before -inf.
template <RadixKey K> constexpr auto radix_key(K key) noexcept {
  using U = typename RadixBitsOf<sizeof(K)>::type;
  constexpr U sign = static_cast<U>(U{1} << (8 * sizeof(K) - 1));
  const U bits = std::bit_cast<U>(key);
  if constexpr (std::is_floating_point_v<K>)
    return bits == sign ? sign : (bits & sign) ? static_cast<U>(~bits) : static_cast<U>(bits | sign);
  else if constexpr (std::is_signed_v<K>)
    return static_cast<U>(bits ^ sign);
  else
    return bits;
}

} // namespace oxide::detail
