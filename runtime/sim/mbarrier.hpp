// The simulator's mbarriers: the whole state of one lives in its 64-bit word in shared memory, as
// on the GPU (where the layout is opaque), so that a barrier needs no table, moves with its block
// and is reached through map_shared from the other blocks of a cluster. sim/hopper.cpp runs the
// intrinsics on it; the block runner keeps the threads that wait (BlockRunner::mbarrier_wait).
#pragma once

#include <cstdint>
#include <optional>

namespace oxide::detail::sim {

/// One mbarrier's state. Bits 0-19 the arrivals per phase, 20-39 those still due in the current
/// phase, 40-60 the transaction bytes still due (two's complement: a copy may complete before
/// the arrival that expects it), 61 the parity of the current phase, 62-63 the tag 0b01 that
/// marks an initialised barrier (zeroed memory, and the checking mode's 0xff poison, are not).
struct Mbarrier {
  static constexpr std::uint32_t kMaxCount = (1u << 20) - 1;
  static constexpr std::int32_t kMaxTx = (1 << 20) - 1;
  static constexpr std::int32_t kMinTx = -(1 << 20);

  std::uint32_t count = 0;   ///< arrivals per phase, 1..kMaxCount
  std::uint32_t pending = 0; ///< arrivals still due in the current phase
  std::int32_t tx = 0;       ///< transaction bytes still due in the current phase
  std::uint32_t parity = 0;  ///< of the current phase: 0 or 1

  [[nodiscard]] static constexpr Mbarrier initial(std::uint32_t count) noexcept {
    return {count, count, 0, 0};
  }

  /// The state a word holds; nullopt when it holds no initialised barrier.
  [[nodiscard]] static constexpr std::optional<Mbarrier> decode(std::uint64_t word) noexcept {
    if (word >> 62 != 1)
      return std::nullopt;
    Mbarrier m;
    m.count = static_cast<std::uint32_t>(word & 0xfffff);
    m.pending = static_cast<std::uint32_t>(word >> 20 & 0xfffff);
    const auto tx = static_cast<std::uint32_t>(word >> 40 & 0x1fffff);
    m.tx = static_cast<std::int32_t>(tx & 0x100000 ? tx | 0xffe00000u : tx);
    m.parity = static_cast<std::uint32_t>(word >> 61 & 1);
    return m;
  }
  [[nodiscard]] constexpr std::uint64_t encode() const noexcept {
    return std::uint64_t{1} << 62 | std::uint64_t{parity & 1} << 61 |
           std::uint64_t{static_cast<std::uint32_t>(tx) & 0x1fffff} << 40 |
           std::uint64_t{pending & 0xfffff} << 20 | (count & 0xfffff);
  }

  /// Whether the phase of parity `p` has completed: the one before the current phase.
  [[nodiscard]] constexpr bool phase_complete(std::uint32_t p) const noexcept { return (p & 1) != parity; }

  /// Ends the current phase when nothing is due any more; true when it did.
  constexpr bool try_complete() noexcept {
    if (pending != 0 || tx != 0)
      return false;
    parity ^= 1;
    pending = count;
    return true;
  }
};

} // namespace oxide::detail::sim
