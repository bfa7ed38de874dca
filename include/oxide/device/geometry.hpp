// Raw launch geometry: the CUDA threadIdx/blockIdx/blockDim/gridDim values.
//
// Prefer the witnesses of oxide/device/thread.hpp for indexing outputs; these are for tiling
// arithmetic (a thread's position within its block, the number of blocks...).
#pragma once

#include <cstdint>

#include "oxide/device/intrinsics.hpp"

namespace oxide {

struct Dim3 {
  std::uint32_t x = 1, y = 1, z = 1;
  friend constexpr bool operator==(const Dim3 &, const Dim3 &) = default;
};

/// The calling thread's index within its block (threadIdx).
inline Dim3 thread_idx() noexcept {
  return {__oxide_thread_idx(0), __oxide_thread_idx(1), __oxide_thread_idx(2)};
}
/// The calling block's index within the grid (blockIdx).
inline Dim3 block_idx() noexcept {
  return {__oxide_block_idx(0), __oxide_block_idx(1), __oxide_block_idx(2)};
}
/// Threads per block (blockDim).
inline Dim3 block_dim() noexcept {
  return {__oxide_block_dim(0), __oxide_block_dim(1), __oxide_block_dim(2)};
}
/// Blocks per grid (gridDim).
inline Dim3 grid_dim() noexcept { return {__oxide_grid_dim(0), __oxide_grid_dim(1), __oxide_grid_dim(2)}; }

// The dimension operands above (and in thread.hpp and cluster.hpp) are the catalog's codes of
// intrinsic::Dim (oxide/detail/intrinsic_abi.hpp), which are the indices of x, y and z.
static_assert(intrinsic::code(intrinsic::Dim::x) == 0 && intrinsic::code(intrinsic::Dim::y) == 1 &&
              intrinsic::code(intrinsic::Dim::z) == 2);

} // namespace oxide
