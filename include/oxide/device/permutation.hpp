// A kernel parameter that holds a permutation of [0, size()): the index map of a safe scatter.
//
//   [[kernel, oxide::launch_contract("domain = 1")]]
//   void scatter(oxide::Span<const float> in, oxide::PermutationSpan perm, oxide::DisjointSpan<float> out) {
//     const auto &i = oxide::thread::index_1d();
//     if (float *o = out.scatter_mut(i, perm))   // element perm[i] of out, or nullptr
//       *o = in[i.get()];
//   }
//
// The host side is oxide::Permutation (oxide/host/permutation.hpp), which checks on the host that
// the map is a permutation before it uploads it, into memory that no kernel can write: so
// different threads (different witnesses i) get different elements perm[i].
#pragma once

#include <cstddef>
#include <cstdint>

#include "oxide/detail/intrinsic_abi.hpp"
#include "oxide/device/intrinsics.hpp"

namespace oxide {

namespace detail {
struct PermutationAccess;
} // namespace detail

/// A read-only view of a permutation of [0, size()), bound only from an oxide::Permutation.
class PermutationSpan {
public:
  using size_type = std::size_t;

  constexpr PermutationSpan() noexcept = default;

  /// The number of indices: the permutation is of [0, size()).
  [[nodiscard]] constexpr size_type size() const noexcept { return size_; }
  [[nodiscard]] constexpr bool empty() const noexcept { return size_ == 0; }
  /// Index `i` of the permutation (a value below size()); an out-of-bounds `i` stops the kernel
  /// with a message.
  [[nodiscard]] constexpr std::uint32_t operator[](size_type i) const noexcept {
    if (i >= size_) [[unlikely]]
      __oxide_bounds_fail(i, size_);
    return data_[i];
  }

private:
  friend struct detail::PermutationAccess;
  template <class> friend class DisjointSpan;
  constexpr PermutationSpan(const std::uint32_t *data, size_type size) noexcept : data_(data), size_(size) {}
  // The span layout: the compiler reads the fields at the catalog's offsets (kSpanDataOffset,
  // kSpanExtentOffset), and checks that scatter_mut names them.
  const std::uint32_t *data_ = nullptr;
  size_type size_ = 0;

public:
  /// Whether the layout is the one the compiler reads (checked below).
  static constexpr bool has_compiler_layout() noexcept {
    return offsetof(PermutationSpan, data_) == detail::kSpanDataOffset &&
           offsetof(PermutationSpan, size_) == detail::kSpanExtentOffset;
  }
};
static_assert(PermutationSpan::has_compiler_layout());

namespace detail {
/// The runtime's way to make a PermutationSpan (oxide/host/permutation.hpp).
struct PermutationAccess {
  static constexpr PermutationSpan make(const std::uint32_t *data, std::size_t size) noexcept {
    return {data, size};
  }
};
} // namespace detail

} // namespace oxide
