// Thread-block clusters (Hopper, compute capability 9.0+) and grid-wide synchronisation.
//
// A kernel whose contract says `cluster = (x, y, z)` is launched in clusters of that many
// blocks, which the GPU schedules together: their threads can meet at cluster::sync() and read
// and write each other's shared memory (distributed shared memory). A kernel whose contract
// says `cooperative = true` is launched with all its blocks resident at once, so that
// grid::sync() can wait for every thread of the grid. The compiler rejects these operations in
// kernels whose contract does not ask for the matching launch.
#pragma once

#include <cstdint>

#include "oxide/device/geometry.hpp"
#include "oxide/device/intrinsics.hpp"
#include "oxide/device/span.hpp"

namespace oxide {

namespace cluster {

/// The calling block's rank in its cluster, 0 .. block_count() - 1.
[[nodiscard]] inline std::uint32_t block_rank() noexcept { return __oxide_cluster_geometry(0, 0); }
/// Blocks per cluster.
[[nodiscard]] inline std::uint32_t block_count() noexcept { return __oxide_cluster_geometry(1, 0); }
/// The calling block's coordinates within its cluster.
[[nodiscard]] inline Dim3 block_idx() noexcept {
  return {__oxide_cluster_geometry(2, 0), __oxide_cluster_geometry(2, 1), __oxide_cluster_geometry(2, 2)};
}
/// The cluster's shape in blocks (the contract's `cluster`).
[[nodiscard]] inline Dim3 dim() noexcept {
  return {__oxide_cluster_geometry(3, 0), __oxide_cluster_geometry(3, 1), __oxide_cluster_geometry(3, 2)};
}
/// The calling block's cluster within the grid.
[[nodiscard]] inline Dim3 cluster_idx() noexcept {
  return {__oxide_cluster_geometry(4, 0), __oxide_cluster_geometry(4, 1), __oxide_cluster_geometry(4, 2)};
}
/// Clusters per grid.
[[nodiscard]] inline Dim3 grid_dim() noexcept {
  return {__oxide_cluster_geometry(5, 0), __oxide_cluster_geometry(5, 1), __oxide_cluster_geometry(5, 2)};
}

/// Waits until every thread of every block of the cluster has arrived; shared memory writes
/// before it are visible to the whole cluster after it. Call it from all threads, and before a
/// block exits while others may still read its shared memory.
inline void sync() noexcept { __oxide_cluster_sync(); }

/// The same shared array in the block of rank `rank` of the cluster (distributed shared
/// memory): `local` must come from oxide::shared_array or oxide::dynamic_shared. Indexing the
/// result is bounds-checked like any Span; a rank outside the cluster stops the kernel.
///
///   auto part = oxide::shared_array<float, 256>();
///   oxide::cluster::sync();                                  // every block has written its part
///   float x = oxide::cluster::map_shared(part, 0)[tid];      // read block 0's
template <class T> [[nodiscard]] inline Span<T> map_shared(Span<T> local, std::uint32_t rank) noexcept {
  if (rank >= block_count()) [[unlikely]]
    __oxide_trap("oxide::cluster::map_shared: block rank outside the cluster");
  return detail::SpanAccess::make_span(
      static_cast<T *>(
          __oxide_cluster_map_shared(const_cast<void *>(static_cast<const void *>(local.data())), rank)),
      local.size());
}

} // namespace cluster

namespace grid {

/// Waits until every thread of the grid has arrived; global memory writes before it are visible
/// to the whole grid after it. Only in kernels whose contract says `cooperative = true`; size the
/// grid with oxide::max_resident_blocks on the host.
inline void sync() noexcept { __oxide_grid_sync(); }

} // namespace grid

// The codes written as literals above are the catalog's (oxide/detail/intrinsic_abi.hpp): the
// register kinds, and the dimensions 0, 1, 2 (see geometry.hpp).
static_assert(intrinsic::code(intrinsic::ClusterGeometryKind::block_rank) == 0 &&
              intrinsic::code(intrinsic::ClusterGeometryKind::block_count) == 1 &&
              intrinsic::code(intrinsic::ClusterGeometryKind::block_idx) == 2 &&
              intrinsic::code(intrinsic::ClusterGeometryKind::cluster_dim) == 3 &&
              intrinsic::code(intrinsic::ClusterGeometryKind::cluster_idx) == 4 &&
              intrinsic::code(intrinsic::ClusterGeometryKind::grid_clusters) == 5);

} // namespace oxide
