// Scoped atomics on global or shared memory, in the style of std::atomic_ref.
//
// Built on clang's __scoped_atomic_* builtins: NVPTX turns the scope into atom.cta/.gpu/.sys,
// and on the host (CPU simulator) they are ordinary atomics.
#pragma once

#include <cstdint>
#include <type_traits>

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
template <class T>
concept AtomicValue =
    std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::int64_t> ||
    std::is_same_v<T, std::uint64_t> || std::is_same_v<T, unsigned long long> ||
    std::is_same_v<T, long long> || std::is_same_v<T, float> || std::is_same_v<T, double>;
} // namespace detail

/// Atomic access to an object that other threads of `S` may access concurrently.
///
///   oxide::AtomicRef<unsigned, oxide::Scope::block>(bins[v]).fetch_add(1);
template <detail::AtomicValue T, Scope S = Scope::device> class AtomicRef {
  static constexpr int kScope = detail::memory_scope_v<S>;

public:
  explicit AtomicRef(T &object) noexcept : ptr_(&object) {}

  [[nodiscard]] T load(MemoryOrder order = MemoryOrder::relaxed) const noexcept {
    return __scoped_atomic_load_n(ptr_, static_cast<int>(order), kScope);
  }
  void store(T value, MemoryOrder order = MemoryOrder::relaxed) const noexcept {
    __scoped_atomic_store_n(ptr_, value, static_cast<int>(order), kScope);
  }
  T exchange(T value, MemoryOrder order = MemoryOrder::relaxed) const noexcept {
    return __scoped_atomic_exchange_n(ptr_, value, static_cast<int>(order), kScope);
  }
  /// Replaces `expected` with `desired` if equal; otherwise loads the current value into
  /// `expected`. Returns whether the exchange happened.
  bool compare_exchange(T &expected, T desired, MemoryOrder order = MemoryOrder::relaxed) const noexcept {
    return __scoped_atomic_compare_exchange_n(ptr_, &expected, desired, false, static_cast<int>(order),
                                              static_cast<int>(MemoryOrder::relaxed), kScope);
  }
  T fetch_add(T value, MemoryOrder order = MemoryOrder::relaxed) const noexcept {
    return __scoped_atomic_fetch_add(ptr_, value, static_cast<int>(order), kScope);
  }
  T fetch_sub(T value, MemoryOrder order = MemoryOrder::relaxed) const noexcept {
    return __scoped_atomic_fetch_sub(ptr_, value, static_cast<int>(order), kScope);
  }
  T fetch_min(T value, MemoryOrder order = MemoryOrder::relaxed) const noexcept {
    return __scoped_atomic_fetch_min(ptr_, value, static_cast<int>(order), kScope);
  }
  T fetch_max(T value, MemoryOrder order = MemoryOrder::relaxed) const noexcept {
    return __scoped_atomic_fetch_max(ptr_, value, static_cast<int>(order), kScope);
  }
  T fetch_and(T value,
              MemoryOrder order = MemoryOrder::relaxed) const noexcept requires std::is_integral_v<T> {
    return __scoped_atomic_fetch_and(ptr_, value, static_cast<int>(order), kScope);
  }
  T fetch_or(T value,
             MemoryOrder order = MemoryOrder::relaxed) const noexcept requires std::is_integral_v<T> {
    return __scoped_atomic_fetch_or(ptr_, value, static_cast<int>(order), kScope);
  }
  T fetch_xor(T value,
              MemoryOrder order = MemoryOrder::relaxed) const noexcept requires std::is_integral_v<T> {
    return __scoped_atomic_fetch_xor(ptr_, value, static_cast<int>(order), kScope);
  }

private:
  T *ptr_;
};

} // namespace oxide
