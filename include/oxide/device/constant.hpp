// Constant memory: read-only kernel parameters that every thread reads, set from the host.
//
//   oxide::constant<std::array<float, 9>> weights;              // at namespace scope
//   [[kernel]] void blur(...) { ... weights[k] ... }              // every thread reads it
//   oxide::set_constant(stream, weights, host_weights);          // host: before the launches
//
// In the device compile the variable lives in the GPU's constant memory (the compiler makes it
// a __constant__ variable), which is cached and broadcast when a warp's threads read the same
// element. On the host it is an ordinary global: the CPU simulator reads it directly.
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>

#include "oxide/device/intrinsics.hpp"

namespace oxide {

namespace detail {
struct ConstantAccess;
template <class T> inline constexpr std::size_t constant_extent_v = 0;
template <class T, std::size_t N> inline constexpr std::size_t constant_extent_v<std::array<T, N>> = N;
template <class T, std::size_t N> inline constexpr std::size_t constant_extent_v<T[N]> = N;
} // namespace detail

/// A value of T in constant memory. Declare it at namespace scope; kernels read it, the host
/// writes it with oxide::set_constant (oxide/host/constant.hpp). Starts as `initial` (or T{}).
template <class T> class constant {
  static_assert(std::is_trivially_copyable_v<T>, "oxide::constant holds trivially copyable values only");
  static_assert(sizeof(T) <= 64 * 1024, "constant memory holds at most 64 KiB");

public:
  constexpr constant() noexcept = default;
  constexpr explicit constant(const T &initial) noexcept : value_(initial) {}
  constant(const constant &) = delete;
  constant &operator=(const constant &) = delete;

  [[nodiscard]] constexpr const T &get() const noexcept { return value_; }
  [[nodiscard]] constexpr const T &operator*() const noexcept { return value_; }
  [[nodiscard]] constexpr const T *operator->() const noexcept { return &value_; }

  /// Element `i` of an array constant (std::array or T[N]); an index out of bounds stops the
  /// kernel like a Span access.
  [[nodiscard]] constexpr const auto &operator[](std::size_t i) const noexcept
    requires(detail::constant_extent_v<T> != 0)
  {
    if (i >= detail::constant_extent_v<T>) [[unlikely]]
      __oxide_bounds_fail(i, detail::constant_extent_v<T>);
    return value_[i];
  }
  /// Number of elements of an array constant.
  [[nodiscard]] static constexpr std::size_t size() noexcept
    requires(detail::constant_extent_v<T> != 0)
  {
    return detail::constant_extent_v<T>;
  }

private:
  friend struct detail::ConstantAccess;
  T value_{};
};

namespace detail {
struct ConstantAccess {
  template <class T> static T &storage(constant<T> &c) noexcept { return c.value_; }
};
} // namespace detail

} // namespace oxide
