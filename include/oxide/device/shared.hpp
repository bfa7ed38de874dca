// Shared memory: per-block scratch space, static (sized at compile time) or dynamic (sized at
// launch).
#pragma once

#include <cstddef>
#include <type_traits>

#include "oxide/device/intrinsics.hpp"
#include "oxide/device/span.hpp"

namespace oxide {

namespace detail {
template <class T, std::size_t N, class Site> inline T *shared_array_storage() noexcept {
  // One site variable per (T, N, declaration): its address names the allocation.
  static constexpr char site = 0;
  return static_cast<T *>(__oxide_shared_alloc(N * sizeof(T), alignof(T), &site));
}
} // namespace detail

/// `N` elements of T in shared memory, one array per block and per place in the source where
/// it is called (each call expression gets its own array; calling the same expression again in
/// the block, e.g. in a loop, returns the same array). Contents start uninitialised.
///
///   auto tile = oxide::shared_array<float, 256>();
template <class T, std::size_t N, auto Site = [] {}> [[nodiscard]] inline Span<T> shared_array() noexcept {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_default_constructible_v<T>,
                "shared memory holds trivial types only: no constructor runs for it");
  static_assert(N > 0, "a shared array needs at least one element");
  return detail::SpanAccess::make_span(detail::shared_array_storage<T, N, decltype(Site)>(), N);
}

/// One T in shared memory, one per block and per place in the source where it is called, as
/// shared_array (a struct of a block's scratch arrays: CUB's `__shared__ typename
/// BlockReduce::TempStorage temp;`). Contents start uninitialised.
///
///   auto &temp = oxide::shared_object<oxide::cub::BlockReduce<float, 256>::TempStorage>();
template <class T, auto Site = [] {}> [[nodiscard]] inline T &shared_object() noexcept {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_default_constructible_v<T>,
                "shared memory holds trivial types only: no constructor runs for it");
  return *detail::shared_array_storage<T, 1, decltype(Site)>();
}

/// The block's dynamic shared memory viewed as T (sized by the launch's dynamic_shared_bytes).
template <class T> [[nodiscard]] inline Span<T> dynamic_shared() noexcept {
  static_assert(std::is_trivially_copyable_v<T>, "shared memory holds trivial types only");
  static_assert(alignof(T) <= 16, "dynamic shared memory is 16-byte aligned");
  return detail::SpanAccess::make_span(static_cast<T *>(__oxide_dynamic_shared()),
                                       __oxide_dynamic_shared_size() / sizeof(T));
}

/// The bytes of dynamic shared memory a launch gives for dynamic_shared_object<T>(): T and room
/// to align it (the dynamic area itself is 16-byte aligned).
template <class T>
inline constexpr std::size_t dynamic_shared_bytes_for = sizeof(T) + (alignof(T) > 16 ? alignof(T) - 16 : 0);

/// The block's dynamic shared memory as one T (a struct of the block's shared buffers, such as
/// SharedMatrix stages and Mbarriers), aligned to alignof(T), which may be up to 1024 bytes.
/// Launch with at least dynamic_shared_bytes_for<T> bytes; the kernel stops otherwise. With
/// that minimum in the launch contract (`dynamic_shared = N..M`, N >= dynamic_shared_bytes_for<T>),
/// the runtime checks it at launch and the kernel's own check compiles away. Its contents start
/// uninitialised.
template <class T> [[nodiscard]] inline T &dynamic_shared_object() noexcept {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_default_constructible_v<T>,
                "shared memory holds trivial types only: no constructor runs for it");
  static_assert(alignof(T) <= 1024, "dynamic shared memory objects are aligned to at most 1024 bytes");
  constexpr std::size_t need = dynamic_shared_bytes_for<T>;
  if (__oxide_dynamic_shared_size() < need) [[unlikely]]
    __oxide_bounds_fail(need - 1, __oxide_dynamic_shared_size());
  // The dynamic area is 16-byte aligned, so the padding is at most alignof(T) - 16: T fits.
  auto *base = static_cast<unsigned char *>(__oxide_dynamic_shared());
  const std::size_t pad = (alignof(T) - __oxide_shared_address(base) % alignof(T)) % alignof(T);
  return *reinterpret_cast<T *>(base + pad);
}

} // namespace oxide
