// Scoped atomics on global or shared memory, in the style of std::atomic_ref.
//
// Built on clang's __scoped_atomic_* builtins. In the device compile the scope travels through
// __oxide_atomic_scope (clang drops it for NVPTX), so accesses become .cta, .gpu or .sys; the
// compiler gives acquire, release and seq_cst read-modify-writes the fences NVPTX leaves out. On
// the host (CPU simulator) they are ordinary atomics.
//
// 16-bit floats (`half`, `bfloat16`) have the float operations: fetch_add is one
// atom.add.noftz.f16/.bf16 on sm_90 (sm_70 for half); fetch_sub/min/max, exchange and
// compare_exchange are compare-and-swap loops on the aligned 32-bit word, as are all of them on
// the CPU simulator. The packed pairs (`halfx2`, `bfloat16x2`) have no atomics: LLVM 22's NVPTX
// back end selects no atom.add.f16x2, so a pair would be a compare-and-swap loop too; add the
// two lanes through two AtomicRef<half> instead.
#pragma once

#include <cstdint>
#include <type_traits>

#include "oxide/device/half.hpp"
#include "oxide/device/span.hpp"
#include "oxide/device/sync.hpp"

namespace oxide {

enum class MemoryOrder : int {
  relaxed = __ATOMIC_RELAXED,
  acquire = __ATOMIC_ACQUIRE,
  release = __ATOMIC_RELEASE,
  acq_rel = __ATOMIC_ACQ_REL,
  seq_cst = __ATOMIC_SEQ_CST,
};

namespace detail {
template <Scope S>
inline constexpr int memory_scope_v = S == Scope::block    ? __MEMORY_SCOPE_WRKGRP
                                      : S == Scope::device ? __MEMORY_SCOPE_DEVICE
                                                           : __MEMORY_SCOPE_SYSTEM;
template <class T> inline constexpr bool is_16bit_float_pair_v = false;
template <> inline constexpr bool is_16bit_float_pair_v<halfx2> = true;
template <> inline constexpr bool is_16bit_float_pair_v<bfloat16x2> = true;
template <class T>
inline constexpr bool is_atomic_scalar_v =
    std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::int64_t> ||
    std::is_same_v<T, std::uint64_t> || std::is_same_v<T, unsigned long long> ||
    std::is_same_v<T, long long> || std::is_same_v<T, float> || std::is_same_v<T, double> ||
    std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;
// A failed constraint prints its line: each line says what to do instead.
// clang-format off
template <class T>
concept AtomicValue =
    !is_16bit_float_pair_v<T> && // halfx2/bfloat16x2 have no atomics: add each lane through AtomicRef<half> or AtomicRef<bfloat16>
    is_atomic_scalar_v<T>; // atomics take 32/64-bit integers, float, double, half or bfloat16 (AtomicRef<unsigned> for a counter)
// clang-format on
} // namespace detail

/// Atomic access to an object that other threads of `S` may access concurrently.
///
///   oxide::AtomicRef<unsigned, oxide::Scope::block>(bins[v]).fetch_add(1);
template <detail::AtomicValue T, Scope S = Scope::device> class AtomicRef {
  static constexpr int kScope = detail::memory_scope_v<S>;

public:
  explicit AtomicRef(T &object) noexcept : ptr_(&object) {}

  // The generic (non-_n) builtins: the _n forms take integers and pointers only, not floats.
  [[nodiscard]] T load(MemoryOrder order = MemoryOrder::relaxed) const noexcept {
    T value;
    __scoped_atomic_load(scoped(), &value, static_cast<int>(order), kScope);
    return value;
  }
  void store(T value, MemoryOrder order = MemoryOrder::relaxed) const noexcept {
    __scoped_atomic_store(scoped(), &value, static_cast<int>(order), kScope);
  }
  T exchange(T value, MemoryOrder order = MemoryOrder::relaxed) const noexcept {
    T previous;
    __scoped_atomic_exchange(scoped(), &value, &previous, static_cast<int>(order), kScope);
    return previous;
  }
  /// Replaces `expected` with `desired` if equal; otherwise loads the current value into
  /// `expected`. Returns whether the exchange happened.
  bool compare_exchange(T &expected, T desired, MemoryOrder order = MemoryOrder::relaxed) const noexcept {
    return __scoped_atomic_compare_exchange(scoped(), &expected, &desired, false, static_cast<int>(order),
                                            static_cast<int>(MemoryOrder::relaxed), kScope);
  }
  T fetch_add(T value, MemoryOrder order = MemoryOrder::relaxed) const noexcept {
    return __scoped_atomic_fetch_add(scoped(), value, static_cast<int>(order), kScope);
  }
  T fetch_sub(T value, MemoryOrder order = MemoryOrder::relaxed) const noexcept {
    return __scoped_atomic_fetch_sub(scoped(), value, static_cast<int>(order), kScope);
  }
  T fetch_min(T value, MemoryOrder order = MemoryOrder::relaxed) const noexcept {
    return __scoped_atomic_fetch_min(scoped(), value, static_cast<int>(order), kScope);
  }
  T fetch_max(T value, MemoryOrder order = MemoryOrder::relaxed) const noexcept {
    return __scoped_atomic_fetch_max(scoped(), value, static_cast<int>(order), kScope);
  }
  T fetch_and(T value, MemoryOrder order = MemoryOrder::relaxed) const noexcept
    requires std::is_integral_v<T>
  {
    return __scoped_atomic_fetch_and(scoped(), value, static_cast<int>(order), kScope);
  }
  T fetch_or(T value, MemoryOrder order = MemoryOrder::relaxed) const noexcept
    requires std::is_integral_v<T>
  {
    return __scoped_atomic_fetch_or(scoped(), value, static_cast<int>(order), kScope);
  }
  T fetch_xor(T value, MemoryOrder order = MemoryOrder::relaxed) const noexcept
    requires std::is_integral_v<T>
  {
    return __scoped_atomic_fetch_xor(scoped(), value, static_cast<int>(order), kScope);
  }

private:
  /// The object, marked with S for the device compile's atomic accesses.
  [[nodiscard, gnu::always_inline]] T *scoped() const noexcept {
#ifdef __CUDA_ARCH__
    return static_cast<T *>(__oxide_atomic_scope(ptr_, static_cast<std::uint32_t>(S)));
#else
    return ptr_;
#endif
  }

  T *ptr_;
};

/// A kernel output that every thread may update, through atomic operations only: counters,
/// histograms, accumulators. Safe under a launch contract because no access can race: there is
/// no way to get a plain reference to an element. Bind a non-const DeviceBuffer<T> to it.
///
///   [[kernel, oxide::launch_contract("domain = 1")]] void count(Span<const int> v, AtomicSpan<unsigned>
///   bins) {
///     if (const int *x = v.get(oxide::thread::index_1d().value())) bins.fetch_add(*x % bins.size(), 1);
///   }
template <detail::AtomicValue T, Scope S = Scope::device> class AtomicSpan {
public:
  using value_type = T;
  using size_type = std::size_t;

  constexpr AtomicSpan() noexcept = default;
  [[nodiscard]] constexpr size_type size() const noexcept { return size_; }
  [[nodiscard]] constexpr bool empty() const noexcept { return size_ == 0; }

  /// Atomic access to element `i`; an out-of-bounds index stops the kernel.
  [[nodiscard]] AtomicRef<T, S> operator[](size_type i) const noexcept {
    T *element = static_cast<T *>(__oxide_span_elem(data_, size_, sizeof(T), i));
    if (!element) [[unlikely]]
      __oxide_bounds_fail(i, size_);
    return AtomicRef<T, S>(*element);
  }
  T fetch_add(size_type i, T value, MemoryOrder order = MemoryOrder::relaxed) const noexcept {
    return (*this)[i].fetch_add(value, order);
  }
  T fetch_min(size_type i, T value, MemoryOrder order = MemoryOrder::relaxed) const noexcept {
    return (*this)[i].fetch_min(value, order);
  }
  T fetch_max(size_type i, T value, MemoryOrder order = MemoryOrder::relaxed) const noexcept {
    return (*this)[i].fetch_max(value, order);
  }
  [[nodiscard]] T load(size_type i, MemoryOrder order = MemoryOrder::relaxed) const noexcept {
    return (*this)[i].load(order);
  }
  void store(size_type i, T value, MemoryOrder order = MemoryOrder::relaxed) const noexcept {
    (*this)[i].store(value, order);
  }

private:
  friend struct detail::SpanAccess;
  constexpr AtomicSpan(T *data, size_type size) noexcept : data_(data), size_(size) {}
  T *data_ = nullptr;
  size_type size_ = 0;
};

static_assert(detail::SpanAccess::has_compiler_layout<AtomicSpan<unsigned>>());

} // namespace oxide
