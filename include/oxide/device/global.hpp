// Device global variables (CUDA's `__device__` globals): one value in global memory that every
// kernel sees and the host sets and reads.
//
//   oxide::device_global<unsigned> hits;                        // at namespace scope
//   [[kernel, ...]] void k(...) { hits.atomic().fetch_add(1); } // every thread may count
//   oxide::set_global(stream, hits, 0u);                        // host: before the launches
//   unsigned n = oxide::get_global(stream, hits);               // host: after them (waits)
//
// In the device compile the variable lives in the GPU's global memory (the compiler makes it a
// __device__ variable); on the host it is an ordinary global, which the CPU simulator's kernels
// use directly. Every thread of every kernel shares it, so in a kernel with a launch contract a
// plain write to it is a data race that the compiler rejects: write it through atomic() (or from
// a kernel launched with oxide::unsafe_launch). So is a plain read in a kernel that also updates
// it: read it there with atomic().load(); kernels that only read it keep plain loads.
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>

#include "oxide/device/atomic.hpp"
#include "oxide/device/constant.hpp" // detail::constant_extent_v
#include "oxide/device/intrinsics.hpp"

namespace oxide {

namespace detail {
struct GlobalAccess;
template <class T> struct global_element {
  using type = void;
};
template <class E, std::size_t N> struct global_element<std::array<E, N>> {
  using type = E;
};
template <class E, std::size_t N> struct global_element<E[N]> {
  using type = E;
};
} // namespace detail

/// A value of T in global memory. Declare it at namespace scope; kernels read it and update it
/// atomically, the host writes it with oxide::set_global and reads it with oxide::get_global
/// (oxide/host/global.hpp). Starts as `initial` (or T{}).
template <class T> class device_global {
  static_assert(std::is_trivially_copyable_v<T>, "oxide::device_global holds trivially copyable values only");
  using element_type = typename detail::global_element<T>::type; // of an array; else void

public:
  constexpr device_global() noexcept = default;
  constexpr explicit device_global(const T &initial) noexcept : value_(initial) {}
  device_global(const device_global &) = delete;
  device_global &operator=(const device_global &) = delete;

  /// The value, for plain (non-atomic) reads: in a kernel with a launch contract that also
  /// updates this global atomically, a plain read races with the other threads' updates and is
  /// rejected; read it there with atomic().load() (or atomic(i).load()).
  [[nodiscard]] constexpr const T &get() const noexcept { return value_; }
  [[nodiscard]] constexpr const T &operator*() const noexcept { return value_; }
  [[nodiscard]] constexpr const T *operator->() const noexcept { return &value_; }

  /// Atomic access (device scope) to a scalar global: 32/64-bit integers, float, double, half,
  /// bfloat16.
  [[nodiscard]] auto atomic() noexcept
    requires detail::AtomicValue<T>
  {
    return AtomicRef<T>(value_);
  }

  /// Atomic access (device scope) to element `i` of an array global of 32/64-bit integers,
  /// floats or doubles; an index out of bounds stops the kernel like operator[].
  [[nodiscard]] auto atomic(std::size_t i) noexcept
    requires detail::AtomicValue<element_type>
  {
    check(i);
    return AtomicRef<element_type>(value_[i]);
  }

  /// Element `i` of an array global (std::array or T[N]); an index out of bounds stops the
  /// kernel like a Span access.
  [[nodiscard]] constexpr const auto &operator[](std::size_t i) const noexcept
    requires(!std::is_void_v<element_type>)
  {
    check(i);
    return value_[i];
  }
  /// Number of elements of an array global.
  [[nodiscard]] static constexpr std::size_t size() noexcept
    requires(detail::constant_extent_v<T> != 0)
  {
    return detail::constant_extent_v<T>;
  }

  /// The value for plain writes, in kernels launched with oxide::unsafe_launch only: in a kernel
  /// with a launch contract, a plain write to a global that every thread shares is rejected.
  [[nodiscard]] constexpr T &unsafe_ref() noexcept { return value_; }

private:
  friend struct detail::GlobalAccess;
  static constexpr void check(std::size_t i) noexcept {
    if (i >= detail::constant_extent_v<T>) [[unlikely]]
      __oxide_bounds_fail(i, detail::constant_extent_v<T>);
  }
  T value_{};
};

namespace detail {
struct GlobalAccess {
  template <class T> static T &storage(device_global<T> &g) noexcept { return g.value_; }
};
} // namespace detail

} // namespace oxide
