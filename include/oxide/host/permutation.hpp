// The host side of oxide::PermutationSpan: an index map checked to be a permutation, in device
// memory that no kernel can write, for scatters in the safe tier (DisjointSpan::scatter_mut).
//
//   auto perm = oxide::Permutation::from_host(stream, map);   // throws unless map permutes [0, n)
//   scatter(stream, in, perm, out);                           // a PermutationSpan parameter
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "oxide/detail/host/launch_core.hpp"
#include "oxide/device/permutation.hpp"
#include "oxide/host/buffer.hpp"
#include "oxide/host/error.hpp"
#include "oxide/host/stream.hpp"

namespace oxide {

namespace detail {
struct PermutationBufferAccess;

/// Why `map` is not a permutation of [0, map.size()), naming the first bad position; empty when
/// it is one. O(n) time, n bits.
[[nodiscard]] inline std::string permutation_problem(HostElements<const std::uint32_t> map) {
  const std::size_t n = map.size();
  const std::string domain = "[0, " + std::to_string(n) + ")";
  std::vector<bool> seen(n, false);
  for (std::size_t j = 0; j < n; ++j) {
    const std::uint32_t v = map[j];
    if (v >= n)
      return "map[" + std::to_string(j) + "] = " + std::to_string(v) + " is out of range: a permutation of " +
             domain + " holds only indices below " + std::to_string(n);
    if (seen[v]) {
      std::size_t first = 0;
      while (map[first] != v)
        ++first;
      return "map[" + std::to_string(j) + "] = " + std::to_string(v) + " repeats map[" +
             std::to_string(first) + "]: a permutation of " + domain + " holds each index exactly once";
    }
    seen[v] = true;
  }
  return {};
}
} // namespace detail

/// A permutation of [0, size()) in device memory that the Permutation owns and never hands out
/// for writing: kernels see it as a read-only PermutationSpan, so a scatter through it
/// (DisjointSpan::scatter_mut) gives different threads different elements. Move-only.
class Permutation {
public:
  using size_type = std::size_t;

  /// Checks that `map` holds each of 0, 1, ... map.size() - 1 exactly once and uploads it,
  /// ordered on `stream` (`map` may be reused when this returns). Throws oxide::Error
  /// (NotAPermutation) naming the first position whose value is out of range or repeats an
  /// earlier one. The device memory holds at least one index (0 for an empty map), so device
  /// code may always load index 0.
  [[nodiscard]] static Permutation from_host(Stream &stream, detail::HostElements<const std::uint32_t> map) {
    if (std::string problem = detail::permutation_problem(map); !problem.empty())
      throw Error(ErrorKind::NotAPermutation, "Permutation::from_host: " + problem);
    if (map.empty()) {
      const std::array<std::uint32_t, 1> zero{0};
      return Permutation(DeviceBuffer<std::uint32_t>::from_host(stream, zero), 0);
    }
    return Permutation(DeviceBuffer<std::uint32_t>::from_host(stream, map), map.size());
  }

  /// The number of indices (0 for an empty permutation, whose memory still holds one index).
  [[nodiscard]] size_type size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  // The device memory is not handed out, not even as a const DeviceBuffer&: a const_cast of that
  // would let host code overwrite (or replace) the checked map, and the next scatter would give
  // one element to several threads. Kernels see it only as a PermutationSpan.
  /// The indices back on the host (size() of them). Waits for the stream.
  [[nodiscard]] std::vector<std::uint32_t> to_host(Stream &stream) const {
    std::vector<std::uint32_t> all = indices_.to_host(stream);
    all.resize(size_);
    return all;
  }

private:
  friend struct detail::PermutationBufferAccess;
  Permutation(DeviceBuffer<std::uint32_t> indices, size_type size) noexcept
      : indices_(std::move(indices)), size_(size) {}
  DeviceBuffer<std::uint32_t> indices_;
  size_type size_ = 0;
};

namespace detail {

struct PermutationBufferAccess {
  static PermutationSpan span(const Permutation &permutation) noexcept {
    return PermutationAccess::make(span_pointer<const std::uint32_t>(permutation.indices_),
                                   permutation.size_);
  }
  /// The indices' memory, for the launch checks (argument_memory): never to be written.
  static const DeviceBuffer<std::uint32_t> &indices(const Permutation &permutation) noexcept {
    return permutation.indices_;
  }
};

template <> struct PermutationIndices<Permutation> {
  static const DeviceBuffer<std::uint32_t> &of(const Permutation &permutation) noexcept {
    return PermutationBufferAccess::indices(permutation);
  }
};

template <> inline constexpr bool is_permutation_v<Permutation> = true;

/// A PermutationSpan parameter takes a Permutation lvalue (not a temporary, which would be freed
/// while the kernel runs).
template <> struct Binder<PermutationSpan> {
  template <class Arg>
  static constexpr bool accepts =
      std::is_lvalue_reference_v<Arg> && std::same_as<std::remove_cvref_t<Arg>, Permutation>;
  static PermutationSpan bind(const Permutation &permutation) noexcept {
    return PermutationBufferAccess::span(permutation);
  }
};

template <> inline constexpr std::size_t span_element_size_v<PermutationSpan> = sizeof(std::uint32_t);
template <> inline constexpr bool has_size_v<PermutationSpan> = true;

} // namespace detail

} // namespace oxide
