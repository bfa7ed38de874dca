// A kernel parameter that hands out each element of an output at most once per launch: the safe
// scatter at an index the kernel computes (a radix sort's `offset[digit] + rank`, a MoE router's
// slot), for elements of any type.
//
//   [[kernel, oxide::launch_contract("domain = 1")]]
//   void scatter(oxide::Span<const Pair> in, oxide::Span<const std::uint32_t> dest,
//                oxide::ClaimSet claims, oxide::DisjointSpan<Pair> out) {
//     const auto i = oxide::thread::index_1d();
//     if (i.get() < in.size())
//       if (Pair *o = out.claim_mut(dest[i.get()], claims))   // nullptr: taken or out of range
//         *o = in[i.get()];
//   }
//
// A ClaimSet is one bit per element, all clear when the launch starts (the host side,
// oxide::Claims in oxide/host/claims.hpp, clears them with reset()). claim_mut(j, claims) sets bit
// j atomically and gives element j only to the thread that found it clear, so no two threads
// ever write one element, whatever the indices are. A second claim of a taken element gets
// nullptr; the host counts the elements claimed.
#pragma once

#include <cstddef>
#include <cstdint>

#include "oxide/detail/intrinsic_abi.hpp"

namespace oxide {

namespace detail {
struct ClaimSetAccess;
} // namespace detail

/// The claim bits of an output of size() elements, bound only from an oxide::Claims. Device code
/// reads and sets them only through DisjointSpan::claim_mut.
class ClaimSet {
public:
  using size_type = std::size_t;

  constexpr ClaimSet() noexcept = default;

  /// How many elements it can hand out: claims of indices at or past it get nullptr.
  [[nodiscard]] constexpr size_type size() const noexcept { return size_; }
  [[nodiscard]] constexpr bool empty() const noexcept { return size_ == 0; }

private:
  friend struct detail::ClaimSetAccess;
  template <class> friend class DisjointSpan;
  constexpr ClaimSet(std::uint32_t *bits, size_type size) noexcept : bits_(bits), size_(size) {}
  // The span layout: the compiler reads the fields at the catalog's offsets (kSpanDataOffset,
  // kSpanExtentOffset), and checks that claim_mut names them.
  std::uint32_t *bits_ = nullptr;
  size_type size_ = 0;

public:
  /// Whether the layout is the one the compiler reads (checked below).
  static constexpr bool has_compiler_layout() noexcept {
    return offsetof(ClaimSet, bits_) == detail::kSpanDataOffset &&
           offsetof(ClaimSet, size_) == detail::kSpanExtentOffset;
  }
};
static_assert(ClaimSet::has_compiler_layout());

namespace detail {
/// The runtime's way to make a ClaimSet (oxide/host/claims.hpp).
struct ClaimSetAccess {
  static constexpr ClaimSet make(std::uint32_t *bits, std::size_t size) noexcept { return {bits, size}; }
};
} // namespace detail

} // namespace oxide
