// Launch configurations: rounding a domain up to whole blocks, and CUDA's limits on shapes.
#include "oxide/host/launch_config.hpp"

#include <fmt/format.h>

#include "oxide/host/error.hpp"

namespace oxide {
namespace {

/// Blocks of `block` threads covering `elements`, rounded up without overflowing.
std::size_t blocks_for(std::size_t elements, std::uint32_t block) noexcept {
  return elements / block + (elements % block != 0 ? 1 : 0);
}

std::string shape(const Dim3 &d) { return fmt::format("({},{},{})", d.x, d.y, d.z); }

void check_block(const Dim3 &block) {
  const std::uint64_t threads = std::uint64_t(block.x) * block.y * block.z;
  if (block.x == 0 || block.y == 0 || block.z == 0 || block.x > LaunchLimits::kMaxBlock.x ||
      block.y > LaunchLimits::kMaxBlock.y || block.z > LaunchLimits::kMaxBlock.z ||
      threads > LaunchLimits::kMaxThreadsPerBlock)
    throw Error(
        ErrorKind::BlockInvalid,
        fmt::format("launch configuration: block {} is outside CUDA's limits (each extent at least 1, "
                    "at most {}, and at most {} threads in all)",
                    shape(block), shape(LaunchLimits::kMaxBlock), LaunchLimits::kMaxThreadsPerBlock));
}

void check_grid(const Dim3 &grid) {
  if (grid.x > LaunchLimits::kMaxGrid.x || grid.y > LaunchLimits::kMaxGrid.y ||
      grid.z > LaunchLimits::kMaxGrid.z)
    throw Error(ErrorKind::GridInvalid, fmt::format("launch configuration: grid {} exceeds CUDA's limits {}",
                                                    shape(grid), shape(LaunchLimits::kMaxGrid)));
}

void check_1d_block(std::uint32_t block) {
  if (block == 0 || block > LaunchConfig1D::kMaxBlock)
    throw Error(ErrorKind::BlockInvalid, fmt::format("launch configuration: block size {} is outside 1..{}",
                                                     block, LaunchConfig1D::kMaxBlock));
}

/// The grid extent covering `elements` in a dimension whose limit is `limit`.
std::uint32_t grid_extent(std::size_t elements, std::uint32_t block, std::uint32_t limit, char axis) {
  const std::size_t blocks = blocks_for(elements, block);
  if (blocks > limit)
    throw Error(
        ErrorKind::GridInvalid,
        fmt::format("launch configuration: {} elements along {} need {} blocks of {} threads, more than "
                    "the {} a grid allows",
                    elements, axis, blocks, block, limit));
  return static_cast<std::uint32_t>(blocks);
}

} // namespace

LaunchConfig1D LaunchConfig1D::for_elements(std::size_t elements, std::uint32_t block,
                                            std::uint32_t dynamic_shared_bytes) {
  check_1d_block(block);
  return {grid_extent(elements, block, kMaxGrid, 'x'), block, dynamic_shared_bytes};
}

void LaunchConfig1D::validate() const { detail::validate_geometry(detail::geometry_of(*this), 1); }

LaunchConfig2D LaunchConfig2D::for_elements(std::size_t width, std::size_t height, Dim3 block,
                                            std::uint32_t dynamic_shared_bytes) {
  LaunchConfig2D config{{}, block, dynamic_shared_bytes};
  config.validate(); // the block, before dividing by it
  config.grid = {grid_extent(width, block.x, LaunchLimits::kMaxGrid.x, 'x'),
                 grid_extent(height, block.y, LaunchLimits::kMaxGrid.y, 'y'), 1};
  return config;
}

void LaunchConfig2D::validate() const { detail::validate_geometry(detail::geometry_of(*this), 2); }

std::uint64_t LaunchConfig2D::total_threads() const noexcept {
  return detail::geometry_of(*this).block_count() * detail::geometry_of(*this).threads_per_block();
}

LaunchConfig3D LaunchConfig3D::for_elements(std::size_t width, std::size_t height, std::size_t depth,
                                            Dim3 block, std::uint32_t dynamic_shared_bytes) {
  LaunchConfig3D config{{}, block, dynamic_shared_bytes};
  config.validate();
  config.grid = {grid_extent(width, block.x, LaunchLimits::kMaxGrid.x, 'x'),
                 grid_extent(height, block.y, LaunchLimits::kMaxGrid.y, 'y'),
                 grid_extent(depth, block.z, LaunchLimits::kMaxGrid.z, 'z')};
  return config;
}

void LaunchConfig3D::validate() const { detail::validate_geometry(detail::geometry_of(*this), 3); }

std::uint64_t LaunchConfig3D::total_threads() const noexcept {
  return detail::geometry_of(*this).block_count() * detail::geometry_of(*this).threads_per_block();
}

void LaunchConfig::validate() const { detail::validate_geometry(detail::geometry_of(*this), 0); }

std::uint64_t LaunchConfig::total_threads() const noexcept {
  return detail::geometry_of(*this).block_count() * detail::geometry_of(*this).threads_per_block();
}

LaunchConfig1D detail::config_for(const Elements<1> &d, const Dim3 &block) {
  return LaunchConfig1D::for_elements(d.extents[0], block.x, d.dynamic_shared_bytes);
}

LaunchConfig2D detail::config_for(const Elements<2> &d, const Dim3 &block) {
  return LaunchConfig2D::for_elements(d.extents[0], d.extents[1], block, d.dynamic_shared_bytes);
}

LaunchConfig3D detail::config_for(const Elements<3> &d, const Dim3 &block) {
  return LaunchConfig3D::for_elements(d.extents[0], d.extents[1], d.extents[2], block,
                                      d.dynamic_shared_bytes);
}

void detail::validate_geometry(const LaunchGeometry &g, unsigned rank) {
  if (rank == 1) {
    check_1d_block(g.block.x);
    if (g.grid.x > LaunchConfig1D::kMaxGrid)
      throw Error(ErrorKind::GridInvalid, fmt::format("launch configuration: grid size {} exceeds {}",
                                                      g.grid.x, LaunchConfig1D::kMaxGrid));
    return; // a LaunchConfig1D has no y or z to get wrong
  }
  if (rank == 2 && (g.grid.z != 1 || g.block.z != 1))
    throw Error(
        g.grid.z != 1 ? ErrorKind::GridInvalid : ErrorKind::BlockInvalid,
        fmt::format("launch configuration: a 2-D launch has z = 1, but the grid is {} and the block {}; "
                    "use LaunchConfig3D",
                    shape(g.grid), shape(g.block)));
  check_block(g.block);
  check_grid(g.grid);
}

} // namespace oxide
