// Kernel parameter views over device memory.
//
// Span<const T> is a shared read-only input; DisjointSpan<T> is the safe output, written only at
// the calling thread's own index. Both are {pointer, size} pairs with the same layout on host and
// device, so the host runtime passes them to kernels as ordinary parameters.
#pragma once

#include <cstddef>
#include <type_traits>

#include "oxide/device/intrinsics.hpp"
#include "oxide/device/thread.hpp"

namespace oxide {

namespace detail {
struct SpanAccess;
} // namespace detail

/// A bounds-checked view of `size()` elements of T in device memory.
template <class T> class Span {
  static_assert(std::is_trivially_copyable_v<std::remove_const_t<T>>,
                "oxide::Span elements must be trivially copyable");

public:
  using element_type = T;
  using value_type = std::remove_cv_t<T>;
  using size_type = std::size_t;

  constexpr Span() noexcept = default;

  [[nodiscard]] constexpr size_type size() const noexcept { return size_; }
  [[nodiscard]] constexpr bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] constexpr T *data() const noexcept { return data_; }

  /// Element `i`; an out-of-bounds index stops the kernel with a message.
  constexpr T &operator[](size_type i) const noexcept {
    if (i >= size_) [[unlikely]]
      __oxide_bounds_fail(i, size_);
    return data_[i];
  }
  /// Pointer to element `i`, or nullptr when `i` is out of bounds.
  [[nodiscard]] constexpr T *get(size_type i) const noexcept { return i < size_ ? data_ + i : nullptr; }

  constexpr T *begin() const noexcept { return data_; }
  constexpr T *end() const noexcept { return data_ + size_; }

private:
  friend struct detail::SpanAccess;
  constexpr Span(T *data, size_type size) noexcept : data_(data), size_(size) {}
  T *data_ = nullptr;
  size_type size_ = 0;
};

/// An output that each thread may write only at its own index.
template <class T> class DisjointSpan {
  static_assert(!std::is_const_v<T>, "a DisjointSpan is an output; use Span<const T> for inputs");
  static_assert(std::is_trivially_copyable_v<T>, "oxide::DisjointSpan elements must be trivially copyable");

public:
  using element_type = T;
  using size_type = std::size_t;

  constexpr DisjointSpan() noexcept = default;

  [[nodiscard]] constexpr size_type size() const noexcept { return size_; }

  /// The calling thread's element, or nullptr when its index is out of bounds.
  [[nodiscard]] T *get_mut(const thread::ThreadIndex1D &index) const noexcept {
    return static_cast<T *>(__oxide_disjoint_get(data_, size_, sizeof(T), index.get()));
  }

private:
  friend struct detail::SpanAccess;
  constexpr DisjointSpan(T *data, size_type size) noexcept : data_(data), size_(size) {}
  T *data_ = nullptr;
  size_type size_ = 0;
};

/// A row-major width x height output of a 2-D launch; thread (x, y) may write element
/// [y][x] only.
template <class T> class DisjointSpan2D {
  static_assert(!std::is_const_v<T>, "a DisjointSpan2D is an output; use Span<const T> for inputs");
  static_assert(std::is_trivially_copyable_v<T>, "oxide::DisjointSpan2D elements must be trivially copyable");

public:
  using element_type = T;
  using size_type = std::size_t;

  constexpr DisjointSpan2D() noexcept = default;

  [[nodiscard]] constexpr size_type width() const noexcept { return width_; }
  [[nodiscard]] constexpr size_type height() const noexcept { return height_; }
  [[nodiscard]] constexpr size_type size() const noexcept { return width_ * height_; }

  /// Element [y][x] for the calling thread's witness, or nullptr outside width x height.
  [[nodiscard]] T *get_mut(const thread::ThreadIndex2D &index) const noexcept {
    return static_cast<T *>(__oxide_disjoint_get_2d(data_, width_, height_, sizeof(T), index.x(), index.y()));
  }

private:
  friend struct detail::SpanAccess;
  constexpr DisjointSpan2D(T *data, size_type width, size_type height) noexcept
      : data_(data), width_(width), height_(height) {}
  T *data_ = nullptr;
  size_type width_ = 0;
  size_type height_ = 0;
};

/// A width x height x depth output of a 3-D launch, x fastest; thread (x, y, z) may write
/// element [z][y][x] only.
template <class T> class DisjointSpan3D {
  static_assert(!std::is_const_v<T>, "a DisjointSpan3D is an output; use Span<const T> for inputs");
  static_assert(std::is_trivially_copyable_v<T>, "oxide::DisjointSpan3D elements must be trivially copyable");

public:
  using element_type = T;
  using size_type = std::size_t;

  constexpr DisjointSpan3D() noexcept = default;

  [[nodiscard]] constexpr size_type width() const noexcept { return width_; }
  [[nodiscard]] constexpr size_type height() const noexcept { return height_; }
  [[nodiscard]] constexpr size_type depth() const noexcept { return depth_; }
  [[nodiscard]] constexpr size_type size() const noexcept { return width_ * height_ * depth_; }

  [[nodiscard]] T *get_mut(const thread::ThreadIndex3D &index) const noexcept {
    return static_cast<T *>(
        __oxide_disjoint_get_3d(data_, width_, height_, depth_, sizeof(T), index.x(), index.y(), index.z()));
  }

private:
  friend struct detail::SpanAccess;
  constexpr DisjointSpan3D(T *data, size_type width, size_type height, size_type depth) noexcept
      : data_(data), width_(width), height_(height), depth_(depth) {}
  T *data_ = nullptr;
  size_type width_ = 0;
  size_type height_ = 0;
  size_type depth_ = 0;
};

namespace detail {
/// The one way to make spans from raw device pointers: used by the host runtime when it binds
/// DeviceBuffers to kernel parameters. Not part of the public API.
struct SpanAccess {
  template <class T> static constexpr Span<T> make_span(T *data, std::size_t size) noexcept { return {data, size}; }
  template <class T> static constexpr DisjointSpan<T> make_disjoint(T *data, std::size_t size) noexcept {
    return {data, size};
  }
  template <class T>
  static constexpr DisjointSpan2D<T> make_disjoint_2d(T *data, std::size_t width, std::size_t height) noexcept {
    return {data, width, height};
  }
  template <class T>
  static constexpr DisjointSpan3D<T> make_disjoint_3d(T *data, std::size_t width, std::size_t height,
                                                      std::size_t depth) noexcept {
    return {data, width, height, depth};
  }
};
} // namespace detail

} // namespace oxide
