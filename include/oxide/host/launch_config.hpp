// Launch configurations: how many blocks of how many threads, in one, two or three dimensions.
//
// Every configuration is checked against CUDA's limits when it is made (for_elements) and again
// by oxide::prepare (validate), so a bad shape is reported before anything is launched.
#pragma once

#include <cstddef>
#include <cstdint>

#include "oxide/device/geometry.hpp"

namespace oxide {

/// A 1-D grid of `grid` blocks of `block` threads, with `dynamic_shared_bytes` of dynamic shared
/// memory per block. A grid of 0 blocks is an empty launch: nothing is enqueued.
struct LaunchConfig1D {
  static constexpr std::uint32_t kMaxBlock = 1024;       // CUDA's limit on threads per block
  static constexpr std::uint32_t kMaxGrid = 0x7fffffffu; // CUDA's limit on gridDim.x

  std::uint32_t grid = 1;
  std::uint32_t block = 1;
  std::uint32_t dynamic_shared_bytes = 0;

  /// Enough blocks of `block` threads to cover `elements` (rounded up). Throws oxide::Error
  /// when `block` is out of range or the grid would exceed kMaxGrid blocks.
  [[nodiscard]] static LaunchConfig1D for_elements(std::size_t elements, std::uint32_t block = 256,
                                                   std::uint32_t dynamic_shared_bytes = 0);
  /// Throws oxide::Error unless 1 <= block <= kMaxBlock and grid <= kMaxGrid.
  void validate() const;
  [[nodiscard]] std::uint64_t total_threads() const noexcept { return std::uint64_t(grid) * block; }

  friend bool operator==(const LaunchConfig1D &, const LaunchConfig1D &) = default;
};

/// CUDA's limits on 2-D and 3-D shapes.
struct LaunchLimits {
  static constexpr std::uint32_t kMaxThreadsPerBlock = 1024;
  static constexpr Dim3 kMaxBlock{1024, 1024, 64};
  static constexpr Dim3 kMaxGrid{0x7fffffffu, 65535, 65535};
};

/// A 2-D grid of `grid` blocks of `block` threads (z is 1 in both). A grid with a zero extent
/// is an empty launch.
///
///   auto config = oxide::LaunchConfig2D::for_elements(width, height, {32, 8});
struct LaunchConfig2D {
  Dim3 grid;
  Dim3 block;
  std::uint32_t dynamic_shared_bytes = 0;

  /// Enough blocks of `block` threads to cover width (x) by height (y) elements. Throws
  /// oxide::Error when `block` or the resulting grid is outside CUDA's limits.
  [[nodiscard]] static LaunchConfig2D for_elements(std::size_t width, std::size_t height,
                                                   Dim3 block = {16, 16, 1},
                                                   std::uint32_t dynamic_shared_bytes = 0);
  /// Throws oxide::Error unless the shape is within CUDA's limits and z is 1.
  void validate() const;
  [[nodiscard]] std::uint64_t total_threads() const noexcept;

  friend bool operator==(const LaunchConfig2D &, const LaunchConfig2D &) = default;
};

/// A 3-D grid of `grid` blocks of `block` threads. A grid with a zero extent is an empty launch.
struct LaunchConfig3D {
  Dim3 grid;
  Dim3 block;
  std::uint32_t dynamic_shared_bytes = 0;

  /// Enough blocks of `block` threads to cover width (x) by height (y) by depth (z) elements.
  [[nodiscard]] static LaunchConfig3D for_elements(std::size_t width, std::size_t height, std::size_t depth,
                                                   Dim3 block = {8, 8, 4},
                                                   std::uint32_t dynamic_shared_bytes = 0);
  /// Throws oxide::Error unless the shape is within CUDA's limits.
  void validate() const;
  [[nodiscard]] std::uint64_t total_threads() const noexcept;

  friend bool operator==(const LaunchConfig3D &, const LaunchConfig3D &) = default;
};

/// A domain of `Rank` extents of elements, for oxide::prepare of a kernel whose launch contract
/// fixes the block: the block comes from the contract and the grid is enough blocks to cover
/// each extent (rounded up), so the block is written once, in the contract.
///
///   auto launch = oxide::prepare(ctx, scale, oxide::elements(n));            // domain = 1
///   auto blur = oxide::prepare(ctx, blur2d, oxide::elements(width, height)); // domain = 2
///   auto tiled = oxide::prepare(ctx, reduce, oxide::elements(n).with_dynamic_shared(1024));
template <unsigned Rank> struct Elements {
  static_assert(Rank >= 1 && Rank <= 3, "a launch domain has 1, 2 or 3 dimensions");
  std::size_t extents[Rank] = {};
  std::uint32_t dynamic_shared_bytes = 0;

  /// The same domain, launched with `bytes` of dynamic shared memory per block.
  [[nodiscard]] constexpr Elements with_dynamic_shared(std::uint32_t bytes) const noexcept {
    Elements copy = *this;
    copy.dynamic_shared_bytes = bytes;
    return copy;
  }
  friend bool operator==(const Elements &, const Elements &) = default;
};

/// `n` elements along x: a 1-D domain (a contract with domain = 1).
[[nodiscard]] constexpr Elements<1> elements(std::size_t n) noexcept { return {{n}}; }
/// `width` (x) by `height` (y) elements: a 2-D domain.
[[nodiscard]] constexpr Elements<2> elements(std::size_t width, std::size_t height) noexcept {
  return {{width, height}};
}
/// `width` (x) by `height` (y) by `depth` (z) elements: a 3-D domain.
[[nodiscard]] constexpr Elements<3> elements(std::size_t width, std::size_t height,
                                             std::size_t depth) noexcept {
  return {{width, height, depth}};
}

/// Any shape, for oxide::unsafe_launch: `grid` blocks of `block` threads with
/// `dynamic_shared_bytes` of dynamic shared memory per block.
///
///   oxide::unsafe_launch(stream, kernel, oxide::LaunchConfig{{blocks}, {256}}, args...);
struct LaunchConfig {
  Dim3 grid;
  Dim3 block;
  std::uint32_t dynamic_shared_bytes = 0;

  /// Throws oxide::Error unless the shape is within CUDA's limits.
  void validate() const;
  [[nodiscard]] std::uint64_t total_threads() const noexcept;

  friend bool operator==(const LaunchConfig &, const LaunchConfig &) = default;
};

namespace detail {

/// The shape every configuration reduces to: what cuLaunchKernel and the simulator take.
struct LaunchGeometry {
  Dim3 grid;
  Dim3 block;
  std::uint32_t dynamic_shared_bytes = 0;

  [[nodiscard]] std::uint64_t threads_per_block() const noexcept {
    return std::uint64_t(block.x) * block.y * block.z;
  }
  [[nodiscard]] std::uint64_t block_count() const noexcept { return std::uint64_t(grid.x) * grid.y * grid.z; }
  friend bool operator==(const LaunchGeometry &, const LaunchGeometry &) = default;
};

[[nodiscard]] inline LaunchGeometry geometry_of(const LaunchConfig1D &c) noexcept {
  return {{c.grid, 1, 1}, {c.block, 1, 1}, c.dynamic_shared_bytes};
}
[[nodiscard]] inline LaunchGeometry geometry_of(const LaunchConfig2D &c) noexcept {
  return {c.grid, c.block, c.dynamic_shared_bytes};
}
[[nodiscard]] inline LaunchGeometry geometry_of(const LaunchConfig3D &c) noexcept {
  return {c.grid, c.block, c.dynamic_shared_bytes};
}

[[nodiscard]] inline LaunchGeometry geometry_of(const LaunchConfig &c) noexcept {
  return {c.grid, c.block, c.dynamic_shared_bytes};
}

/// The rank a configuration type launches: what a launch contract's `domain` must be. A plain
/// LaunchConfig has none (0): it is for unsafe launches only.
template <class T> inline constexpr unsigned launch_rank_v = 0;
template <> inline constexpr unsigned launch_rank_v<LaunchConfig1D> = 1;
template <> inline constexpr unsigned launch_rank_v<LaunchConfig2D> = 2;
template <> inline constexpr unsigned launch_rank_v<LaunchConfig3D> = 3;

/// The configuration type of a launch of `Rank` dimensions.
template <unsigned Rank> struct launch_config_for_rank;
template <> struct launch_config_for_rank<1> {
  using type = LaunchConfig1D;
};
template <> struct launch_config_for_rank<2> {
  using type = LaunchConfig2D;
};
template <> struct launch_config_for_rank<3> {
  using type = LaunchConfig3D;
};
template <unsigned Rank> using launch_config_for_rank_t = typename launch_config_for_rank<Rank>::type;

/// The configuration covering `domain` with blocks of `block` threads (as for_elements makes it).
[[nodiscard]] LaunchConfig1D config_for(const Elements<1> &domain, const Dim3 &block);
[[nodiscard]] LaunchConfig2D config_for(const Elements<2> &domain, const Dim3 &block);
[[nodiscard]] LaunchConfig3D config_for(const Elements<3> &domain, const Dim3 &block);

template <class T> inline constexpr bool is_launch_config_v = false;
template <> inline constexpr bool is_launch_config_v<LaunchConfig1D> = true;
template <> inline constexpr bool is_launch_config_v<LaunchConfig2D> = true;
template <> inline constexpr bool is_launch_config_v<LaunchConfig3D> = true;
template <> inline constexpr bool is_launch_config_v<LaunchConfig> = true;

/// Throws oxide::Error (GridInvalid or BlockInvalid) unless `geometry` is within CUDA's limits
/// for a launch of `rank` (0: any shape); the messages use that rank's configuration type.
void validate_geometry(const LaunchGeometry &geometry, unsigned rank);

} // namespace detail

} // namespace oxide
