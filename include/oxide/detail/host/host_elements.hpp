// oxide::detail::HostElements<T>: the contiguous host elements a copy or a launch takes.
#pragma once

#include <cstddef>
#include <iterator>
#include <ranges>
#include <type_traits>

namespace oxide::detail {

/// A pointer and a count of elements in host memory: what std::data and std::size give of a
/// std::vector, std::array, std::span, std::string, PinnedBuffer, C array or initializer list,
/// or a braced {pointer, count}. It stands where std::span would, because std::span's
/// converting constructors are constrained by the ranges concepts, which clang checks anew for
/// every element type: about 0.1 s of every compile that passes a std::vector to a copy. As
/// with std::span, only qualification conversions of the element type are accepted
/// (std::vector<float> for HostElements<const float>, never a derived class for its base), and
/// mutable elements only of an lvalue or a borrowed range (a span): a copy into a temporary
/// container would be lost.
template <class T> class HostElements {
public:
  constexpr HostElements() noexcept = default; ///< no elements, as `{}`
  constexpr HostElements(T *data, std::size_t size) noexcept : data_(data), size_(size) {}
  template <class R>
    requires(std::is_const_v<T> || std::is_lvalue_reference_v<R> ||
             std::ranges::enable_borrowed_range<std::remove_cvref_t<R>>) &&
                requires(R &r) {
                  std::size(r);
                  requires std::is_convertible_v<std::remove_pointer_t<decltype(std::data(r))>(*)[], T(*)[]>;
                }
  constexpr HostElements(R &&range) noexcept : data_(std::data(range)), size_(std::size(range)) {}

  [[nodiscard]] constexpr T *data() const noexcept { return data_; }
  [[nodiscard]] constexpr std::size_t size() const noexcept { return size_; }
  [[nodiscard]] constexpr bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] constexpr T *begin() const noexcept { return data_; }
  [[nodiscard]] constexpr T *end() const noexcept { return data_ + size_; }
  [[nodiscard]] constexpr T &operator[](std::size_t i) const noexcept { return data_[i]; }

private:
  T *data_ = nullptr;
  std::size_t size_ = 0;
};

} // namespace oxide::detail
