// What the simulator's Hopper intrinsics (sim/hopper.cpp) hand to the block runner: TMA copies,
// which land later, as on the GPU (when a thread waits at their mbarrier, or when no thread of
// the group can run), so that a kernel that reads the box before waiting sees stale data here too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/tensor_map_format.hpp"

namespace oxide::detail::sim {

/// One box on its way to one block's shared memory.
struct TmaCopy {
  TensorMapImage map;           ///< as it was when the copy started
  std::int32_t coords[5] = {};  ///< of the box's first element, innermost first
  std::byte *dst = nullptr;     ///< in the target block's shared memory, 128-byte aligned
  std::uint64_t *bar = nullptr; ///< the target block's mbarrier
  std::uint32_t issuer = 0;     ///< the slot of the thread that started it, for reports
};

/// Writes the box of `copy` (zeros outside the tensor, swizzled as the map says) and completes
/// its bytes on its barrier. Empty on success, else why the barrier could not take them.
/// `completed` tells whether the barrier's phase completed.
[[nodiscard]] std::string land(const TmaCopy &copy, bool &completed) noexcept;

} // namespace oxide::detail::sim
