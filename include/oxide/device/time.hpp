// Time sources inside kernels: for measuring the cost of a piece of device code.
#pragma once

#include <cstdint>

#include "oxide/device/intrinsics.hpp"

namespace oxide {

/// The SM's 64-bit cycle counter (clock64). Differences on one thread measure cycles; values
/// from different SMs are not comparable. On the CPU simulator: nanoseconds.
[[nodiscard]] inline std::uint64_t clock64() noexcept { return __oxide_clock(0); }

/// The device-wide timer in nanoseconds (%globaltimer), comparable across SMs. Its resolution
/// is about a microsecond on current GPUs. On the CPU simulator: the host's steady clock.
[[nodiscard]] inline std::uint64_t global_timer_ns() noexcept { return __oxide_clock(1); }

// The codes written as literals above are the catalog's (oxide/detail/intrinsic_abi.hpp).
static_assert(intrinsic::code(intrinsic::ClockKind::clock64) == 0 &&
              intrinsic::code(intrinsic::ClockKind::globaltimer) == 1);

} // namespace oxide
