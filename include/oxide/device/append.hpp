// Appending to an output from many threads: slots reserved from an atomic counter.
//
// Stream compaction, work queues and sparse outputs write each result at the next free place of
// an output. An AppendSpan<T> is such an output: reserve(n) adds n to its counter atomically and
// gives the calling thread a Reservation of the n slots it got, which no other reservation
// shares. The compiler checks that every write to an AppendSpan goes through a reservation made
// by the same thread (not one handed over through memory), so two threads never write one slot.
// The host side is oxide::AppendBuffer<T> (oxide/host/append_buffer.hpp), which also reads back
// how many elements were appended.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "oxide/device/intrinsics.hpp"
#include "oxide/device/span.hpp"
#include "oxide/device/thread.hpp"

namespace oxide {

namespace detail {
struct AppendAccess;
} // namespace detail

/// The `size()` slots [offset(), offset() + size()) of an AppendSpan that one reserve() gave the
/// calling thread, cut short at the span's capacity. A witness: it can be neither copied nor moved.
template <class T> class Reservation : thread::detail::PinnedWitness {
public:
  using size_type = std::size_t;

  /// The index of the first slot in the output.
  [[nodiscard]] size_type offset() const noexcept { return start_; }
  /// How many of the requested slots fit below the capacity.
  [[nodiscard]] size_type size() const noexcept {
    return start_ < capacity_ ? (capacity_ - start_ < count_ ? capacity_ - start_ : count_) : 0;
  }
  /// Whether every requested slot fit.
  [[nodiscard]] bool complete() const noexcept { return size() == count_; }
  /// Slot `j` of the reservation, or nullptr when `j >= size()`.
  [[nodiscard, gnu::always_inline]] T *get_mut(size_type j) const noexcept {
    return static_cast<T *>(__oxide_reserved_elem(data_, capacity_, sizeof(T), start_, count_, j));
  }

private:
  template <class> friend class AppendSpan;
  Reservation(T *data, size_type capacity, size_type start, size_type count) noexcept
      : data_(data), capacity_(capacity), start_(start), count_(count) {}
  T *data_;
  size_type capacity_, start_, count_;
};

/// An output of capacity() elements that threads append to: each write lands in a slot that a
/// reserve() of the writing thread returned.
template <class T> class AppendSpan {
  static_assert(!std::is_const_v<T>, "an AppendSpan is an output");
  static_assert(std::is_trivially_copyable_v<T>, "oxide::AppendSpan elements must be trivially copyable");

public:
  using element_type = T;
  using size_type = std::size_t;

  constexpr AppendSpan() noexcept = default;

  /// The number of slots; reservations past it are cut short (the host sees how many were asked).
  [[nodiscard]] constexpr size_type size() const noexcept { return size_; }

  /// Reserves `count` consecutive slots (one atomic add on the counter).
  [[nodiscard, gnu::always_inline]] Reservation<T> reserve(size_type count) const noexcept {
    return {data_, size_, __oxide_reserve(counter_, count), count};
  }
  /// Appends one element; false when the output is full.
  [[gnu::always_inline]] bool push(const T &value) const noexcept {
    const Reservation<T> slot = reserve(1);
    T *element = slot.get_mut(0);
    if (!element)
      return false;
    *element = value;
    return true;
  }

private:
  friend struct detail::AppendAccess;
  constexpr AppendSpan(T *data, size_type size, unsigned long long *counter) noexcept
      : data_(data), size_(size), counter_(counter) {}
  // The span layout (data, size), then the counter: the compiler reads the fields at the
  // catalog's offsets (kSpanDataOffset, kSpanExtentOffset, kAppendCounterOffset).
  T *data_ = nullptr;
  size_type size_ = 0;
  unsigned long long *counter_ = nullptr;

public:
  /// Whether the layout is the one the compiler reads (checked below).
  static constexpr bool has_compiler_layout() noexcept {
    return offsetof(AppendSpan, data_) == detail::kSpanDataOffset &&
           offsetof(AppendSpan, size_) == detail::kSpanExtentOffset &&
           offsetof(AppendSpan, counter_) == detail::kAppendCounterOffset;
  }
};
static_assert(AppendSpan<char>::has_compiler_layout());

namespace detail {
/// The runtime's way to make an AppendSpan (oxide/host/append_buffer.hpp).
struct AppendAccess {
  template <class T>
  static constexpr AppendSpan<T> make(T *data, std::size_t size, unsigned long long *counter) noexcept {
    return {data, size, counter};
  }
};
} // namespace detail

} // namespace oxide
