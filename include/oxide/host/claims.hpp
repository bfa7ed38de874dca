// The host side of oxide::ClaimSet: one claim bit per element of an output, in device memory that
// only DisjointSpan::claim_mut sets, for scatters at indices kernels compute (oxide/device/claims.hpp).
//
//   auto claims = oxide::Claims::create(stream, out.size());   // every bit clear
//   scatter(stream, in, dest, claims, out);                     // a ClaimSet parameter
//   std::size_t written = claims.count(stream);                 // elements claimed (and written)
//   claims.reset(stream);                                       // clear before the next scatter
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "oxide/detail/host/launch_core.hpp"
#include "oxide/device/claims.hpp"
#include "oxide/host/buffer.hpp"
#include "oxide/host/stream.hpp"

namespace oxide {

namespace detail {
struct ClaimsAccess;
} // namespace detail

/// The claim bits of an output of size() elements. A launch that binds it to a ClaimSet
/// parameter gives element j to the first thread that claims it; the bits stay set afterwards,
/// so clear them with reset() before a launch that scatters into the output again (a claim of an
/// element still set from before gets nullptr: nothing is written twice either way). Move-only;
/// the memory is never handed out for writing.
class Claims {
public:
  using size_type = std::size_t;

  /// The bits of `size` elements, all clear (ordered on `stream`). The memory holds at least one
  /// 32-bit word, so device code may always address word 0.
  [[nodiscard]] static Claims create(Stream &stream, size_type size) {
    return Claims(DeviceBuffer<std::uint32_t>::zeroed(stream, words(size)), size);
  }

  /// How many elements it can hand out.
  [[nodiscard]] size_type size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }

  /// Clears every bit, ordered on `stream`: the next launch may claim each element again. Reset
  /// on the stream of the launches that claim (or after them): bits cleared while a launch runs
  /// on another stream would let it give an element to two threads, as any buffer written from
  /// two streams at once races.
  void reset(Stream &stream) { bits_.fill(stream, 0u); }

  /// Which elements were claimed since the last reset, one bool per element. Waits for the stream.
  [[nodiscard]] std::vector<bool> claimed(Stream &stream) const {
    const std::vector<std::uint32_t> words = bits_.to_host(stream);
    std::vector<bool> result(size_);
    for (size_type j = 0; j < size_; ++j)
      result[j] = (words[j / 32] >> (j % 32)) & 1u;
    return result;
  }
  /// How many elements were claimed since the last reset. Waits for the stream.
  [[nodiscard]] size_type count(Stream &stream) const {
    size_type total = 0;
    for (std::uint32_t word : bits_.to_host(stream))
      total += static_cast<size_type>(std::popcount(word));
    return total;
  }

private:
  friend struct detail::ClaimsAccess;
  static size_type words(size_type size) noexcept { return size == 0 ? 1 : (size + 31) / 32; }
  Claims(DeviceBuffer<std::uint32_t> bits, size_type size) noexcept : bits_(std::move(bits)), size_(size) {}
  DeviceBuffer<std::uint32_t> bits_;
  size_type size_ = 0;
};

namespace detail {

struct ClaimsAccess {
  static ClaimSet span(Claims &claims) noexcept {
    return ClaimSetAccess::make(span_pointer<std::uint32_t>(claims.bits_), claims.size_);
  }
  /// The bits' memory, for the launch checks (argument_memory).
  static const DeviceBuffer<std::uint32_t> &bits(const Claims &claims) noexcept { return claims.bits_; }
};

template <> struct ClaimBits<Claims> {
  static const DeviceBuffer<std::uint32_t> &of(const Claims &claims) noexcept {
    return ClaimsAccess::bits(claims);
  }
};

template <> inline constexpr bool is_claims_v<Claims> = true;

/// A ClaimSet parameter takes a non-const Claims lvalue (not a temporary, which would be freed
/// while the kernel runs).
template <> struct Binder<ClaimSet> {
  template <class Arg>
  static constexpr bool accepts =
      std::is_lvalue_reference_v<Arg> && std::same_as<std::remove_reference_t<Arg>, Claims>;
  static ClaimSet bind(Claims &claims) noexcept { return ClaimsAccess::span(claims); }
};

template <> inline constexpr std::size_t span_element_size_v<ClaimSet> = sizeof(std::uint32_t);
template <> inline constexpr bool writes_through_v<ClaimSet> = true;
template <> inline constexpr bool has_size_v<ClaimSet> = true;

} // namespace detail

} // namespace oxide
