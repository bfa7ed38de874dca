// The simulator's half of a launch.
#pragma once

#include <cstdint>

#include "oxide/detail/host/launch_core.hpp"
#include "oxide/detail/host/registry.hpp"

namespace oxide::detail::sim {

/// Runs every block of `kernel` with the parameter values `arguments` point at, and returns when
/// all have finished. Throws oxide::Error, naming the block and thread, when one fails.
void launch(const PreparedKernel &kernel, void *const *arguments);

/// The simulator runs a cooperative grid on one host thread, every thread of it on a fiber of its
/// own when all wait at grid::sync: it holds at most this many threads at once...
inline constexpr std::uint32_t kMaxResidentThreads = 8192;
/// ... in at most this many blocks (each with its own shared memory).
inline constexpr std::uint32_t kMaxResidentBlocks = 64;

/// What oxide::max_resident_blocks returns on the simulator, for blocks of `block_threads`
/// (1 to 1024) threads: the largest cooperative grid it runs. Independent of the host's cores,
/// so that a program sizes its cooperative grid the same everywhere.
[[nodiscard]] constexpr std::uint32_t max_resident_blocks(std::uint32_t block_threads) noexcept {
  const std::uint32_t blocks = block_threads == 0 ? kMaxResidentBlocks : kMaxResidentThreads / block_threads;
  return blocks < 1 ? 1 : blocks > kMaxResidentBlocks ? kMaxResidentBlocks : blocks;
}

} // namespace oxide::detail::sim
