// The simulated GPU thread that is running on the current host thread, if any.
//
// Kernels are ordinary host functions; when the CPU simulator runs one, it points
// current_sim_thread at the state of the GPU thread being simulated, so that the host
// definitions of the __oxide_* intrinsics can answer. Null outside a simulated launch.
#pragma once

#include <cstddef>
#include <cstdint>

namespace oxide::detail::sim {

class BlockRunner;
struct BlockState;

/// What a block's threads share: their position in the grid and the grid's shape.
struct BlockGeometry {
  std::uint32_t block_idx[3] = {0, 0, 0};
  std::uint32_t block_dim[3] = {1, 1, 1};
  std::uint32_t grid_dim[3] = {1, 1, 1};
  /// Blocks per thread-block cluster: {1, 1, 1} unless the launch is in clusters (then every
  /// grid extent is a multiple of it). The other cluster values derive from it.
  std::uint32_t cluster_dim[3] = {1, 1, 1};
};

struct SimThread {
  std::uint32_t thread_idx[3] = {0, 0, 0};
  std::uint32_t linear = 0; ///< index within the block, x fastest: its warp is linear / 32
  std::uint32_t slot = 0;   ///< index among the threads of the blocks the runner runs together
  std::size_t index_1d = 0; ///< blockIdx.x * blockDim.x + threadIdx.x
  const BlockGeometry *geometry = nullptr;
  BlockRunner *block = nullptr; ///< barriers, warps and shared memory; null in unit tests
  BlockState *home = nullptr;   ///< the runner's state of the thread's block
  /// Checking mode: the run of consecutive elements [claimed_first, claimed_end) of the
  /// DisjointSpan at claimed_data that the thread's latest claims got it (a get_mut, or the
  /// elements of a tile), so that the write checks find them without a lookup.
  const void *claimed_data = nullptr;
  std::size_t claimed_first = 0, claimed_end = 0;
};

// Initial-exec: the runtime is linked into executables, and every intrinsic reads this, so it
// must not go through __tls_get_addr.
extern constinit thread_local SimThread *current_sim_thread __attribute__((tls_model("initial-exec")));

} // namespace oxide::detail::sim
