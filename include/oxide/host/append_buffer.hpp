// The host side of oxide::AppendSpan: device memory that kernels append to through reserved
// slots (oxide/device/append.hpp), and the count of what they appended.
//
//   auto kept = oxide::AppendBuffer<float>::create(stream, n);     // capacity n, counter 0
//   compact(stream, in, kept);                                     // AppendSpan<float> parameter
//   std::vector<float> result = kept.to_host(stream);              // the appended elements
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "oxide/detail/host/launch_core.hpp"
#include "oxide/device/append.hpp"
#include "oxide/host/buffer.hpp"
#include "oxide/host/stream.hpp"

namespace oxide {

namespace detail {
struct AppendBufferAccess;
} // namespace detail

/// capacity() elements of T and the counter that reservations add to. Kernels see it as an
/// AppendSpan<T>; the counter is the buffer's own memory, which no other argument can name.
template <class T> class AppendBuffer {
public:
  using size_type = std::size_t;

  /// An empty output of `capacity` elements (uninitialised) with its counter at 0.
  [[nodiscard]] static AppendBuffer create(Stream &stream, size_type capacity) {
    return AppendBuffer(DeviceBuffer<T>::uninitialized(stream, capacity),
                        DeviceBuffer<unsigned long long>::zeroed(stream, 1));
  }

  [[nodiscard]] size_type capacity() const noexcept { return elements_.size(); }
  /// How many slots the launches so far asked for (may exceed the capacity: those past it were
  /// not written). Waits for the stream.
  [[nodiscard]] size_type requested(Stream &stream) const { return counter_.to_host(stream).front(); }
  /// How many elements were appended: the requested slots that fit. Waits for the stream.
  [[nodiscard]] size_type size(Stream &stream) const {
    return std::min<size_type>(requested(stream), capacity());
  }
  /// The appended elements, in slot order (the order of the reservations, which the threads race
  /// for: sort them if the order matters). Waits for the stream.
  [[nodiscard]] std::vector<T> to_host(Stream &stream) const {
    std::vector<T> all = elements_.to_host(stream);
    all.resize(size(stream));
    return all;
  }
  /// Empties the output for the next launch (the counter back to 0), ordered on `stream`.
  void clear(Stream &stream) {
    const unsigned long long zero = 0;
    counter_.copy_from_host(stream, {&zero, 1});
  }
  /// The element memory, e.g. to pass the appended elements to another kernel as an input.
  [[nodiscard]] const DeviceBuffer<T> &elements() const noexcept { return elements_; }

private:
  friend struct detail::AppendBufferAccess;
  AppendBuffer(DeviceBuffer<T> elements, DeviceBuffer<unsigned long long> counter) noexcept
      : elements_(std::move(elements)), counter_(std::move(counter)) {}
  DeviceBuffer<T> elements_;
  DeviceBuffer<unsigned long long> counter_;
};

namespace detail {

struct AppendBufferAccess {
  template <class T> static AppendSpan<T> span(AppendBuffer<T> &buffer) noexcept {
    return AppendAccess::make(
        span_pointer<T>(buffer.elements_), buffer.elements_.size(),
        reinterpret_cast<unsigned long long *>(static_cast<std::uintptr_t>(buffer.counter_.device_ptr())));
  }
};

template <class T> inline constexpr bool is_append_buffer_v<AppendBuffer<T>> = true;

/// An AppendSpan<T> parameter takes a non-const AppendBuffer<T> lvalue.
template <class T> struct Binder<AppendSpan<T>> {
  template <class Arg>
  static constexpr bool accepts =
      std::is_lvalue_reference_v<Arg> && std::same_as<std::remove_reference_t<Arg>, AppendBuffer<T>>;
  static AppendSpan<T> bind(AppendBuffer<T> &buffer) noexcept { return AppendBufferAccess::span(buffer); }
};

template <class T> inline constexpr std::size_t span_element_size_v<AppendSpan<T>> = sizeof(T);
template <class T> inline constexpr bool writes_through_v<AppendSpan<T>> = true;
template <class T> inline constexpr bool has_size_v<AppendSpan<T>> = true;

} // namespace detail

} // namespace oxide
