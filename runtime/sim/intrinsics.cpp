// Host definitions of the device intrinsics (oxide/device/intrinsics.hpp): what kernel code
// calls when it runs on the CPU simulator.
#include <fmt/format.h>

#include <atomic>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "oxide/detail/owned_element.hpp"
#include "oxide/device/intrinsics.hpp"
#include "sim/block_runner.hpp"
#include "sim/sim_thread.hpp"

namespace {

using oxide::detail::sim::BlockGeometry;
using oxide::detail::sim::BlockRunner;
using oxide::detail::sim::current_sim_thread;
using oxide::detail::sim::GroupBarrier;
using oxide::detail::sim::SimThread;
using oxide::detail::sim::WarpOpKind;
using oxide::detail::sim::WarpRequest;
namespace intrinsic = oxide::intrinsic;

[[noreturn]] __attribute__((cold)) void outside_launch() noexcept {
  // Kernel code called as a plain function: there is no thread to answer for, and inventing
  // one would silently compute the wrong thing.
  std::fputs("oxide: kernel code called outside a launch; launch kernels through oxide::prepare or "
             "oxide::unsafe_launch\n",
             stderr);
  std::abort();
}

/// The running simulated thread; aborts outside a launch.
SimThread &thread() noexcept {
  SimThread *thread = current_sim_thread;
  if (!thread) [[unlikely]]
    outside_launch();
  return *thread;
}

/// The running thread's block; aborts outside a launch.
BlockRunner &block(SimThread &thread) noexcept {
  if (!thread.block) [[unlikely]]
    outside_launch();
  return *thread.block;
}

[[noreturn]] __attribute__((cold)) void bad_argument(const char *intrinsic, const char *what,
                                                     std::uint32_t value) noexcept {
  SimThread &t = thread();
  block(t).fail(t, fmt::format("{} called with {} {}", intrinsic, what, value));
}

/// `values` indexed by an intrinsic::Dim code.
std::uint32_t component(const std::uint32_t (&values)[3], std::uint32_t dim, const char *name) noexcept {
  if (dim > intrinsic::code(intrinsic::Dim::z)) [[unlikely]]
    bad_argument(name, "dimension", dim);
  return values[dim];
}

// Whether a code names an enumerator: a switch without a default, so that -Wswitch points here
// when the catalog (oxide/detail/intrinsic_abi.hpp) gains one.
bool known(intrinsic::Scope scope) noexcept {
  switch (scope) {
  case intrinsic::Scope::block:
  case intrinsic::Scope::device:
  case intrinsic::Scope::system:
    return true;
  }
  return false;
}
bool known(intrinsic::ShuffleMode mode) noexcept {
  switch (mode) {
  case intrinsic::ShuffleMode::idx:
  case intrinsic::ShuffleMode::up:
  case intrinsic::ShuffleMode::down:
  case intrinsic::ShuffleMode::bfly:
    return true;
  }
  return false;
}
bool known(intrinsic::VoteMode mode) noexcept {
  switch (mode) {
  case intrinsic::VoteMode::all:
  case intrinsic::VoteMode::any:
  case intrinsic::VoteMode::ballot:
    return true;
  }
  return false;
}
bool known(intrinsic::ClockKind kind) noexcept {
  switch (kind) {
  case intrinsic::ClockKind::clock64:
  case intrinsic::ClockKind::globaltimer:
    return true;
  }
  return false;
}

} // namespace

extern "C" {

std::uint32_t __oxide_thread_idx(std::uint32_t dim) noexcept {
  return component(thread().thread_idx, dim, "__oxide_thread_idx");
}

std::uint32_t __oxide_block_idx(std::uint32_t dim) noexcept {
  const SimThread &t = thread();
  return component(t.geometry->block_idx, dim, "__oxide_block_idx");
}

std::uint32_t __oxide_block_dim(std::uint32_t dim) noexcept {
  const SimThread &t = thread();
  return component(t.geometry->block_dim, dim, "__oxide_block_dim");
}

std::uint32_t __oxide_grid_dim(std::uint32_t dim) noexcept {
  const SimThread &t = thread();
  return component(t.geometry->grid_dim, dim, "__oxide_grid_dim");
}

std::size_t __oxide_index_1d() noexcept { return thread().index_1d; }

std::size_t __oxide_thread_index(std::uint32_t rank, std::uint32_t dim) noexcept {
  const SimThread &t = thread();
  if (rank < 1 || rank > 3) [[unlikely]]
    bad_argument("__oxide_thread_index", "rank", rank);
  if (dim >= rank) [[unlikely]]
    bad_argument("__oxide_thread_index", "dimension", dim);
  return std::size_t{t.geometry->block_idx[dim]} * t.geometry->block_dim[dim] + t.thread_idx[dim];
}

std::size_t __oxide_grid_stride_next(std::size_t index, std::uint32_t rank, std::uint32_t dim) noexcept {
  const SimThread &t = thread();
  if (rank < 1 || rank > 3) [[unlikely]]
    bad_argument("__oxide_grid_stride_next", "rank", rank);
  if (dim >= rank) [[unlikely]]
    bad_argument("__oxide_grid_stride_next", "dimension", dim);
  return index + std::size_t{t.geometry->grid_dim[dim]} * t.geometry->block_dim[dim];
}

void *__oxide_disjoint_tile(void *data, std::size_t size, std::size_t elem_size, std::size_t tile,
                            std::size_t x, std::size_t j) noexcept {
  SimThread &t = thread();
  if (tile == 0) [[unlikely]]
    bad_argument("__oxide_disjoint_tile", "tile size", 0);
  // Element x * tile + j, computed without overflow: inside when j < tile and x * tile < size - j.
  if (j >= tile || j >= size || x >= (size - j - 1) / tile + 1)
    return nullptr;
  const std::size_t element = x * tile + j;
  block(t).claim(t, data, element, {element, 0, 0}, 1);
  return static_cast<char *>(data) + element * elem_size;
}

void *__oxide_disjoint_get(void *data, std::size_t width, std::size_t elem_size, std::size_t x) noexcept {
  SimThread &t = thread();
  if (x >= width)
    return nullptr;
  block(t).claim(t, data, x, {x, 0, 0}, 1);
  return static_cast<char *>(data) + x * elem_size;
}

void *__oxide_disjoint_tile_2d(void *data, std::size_t width, std::size_t height, std::size_t elem_size,
                               std::size_t tile_cols, std::size_t tile_rows, std::size_t x, std::size_t y,
                               std::size_t c, std::size_t r) noexcept {
  SimThread &t = thread();
  if (tile_cols == 0 || tile_rows == 0) [[unlikely]]
    bad_argument("__oxide_disjoint_tile_2d", "tile extent", 0);
  // As __oxide_disjoint_tile along each dimension, without overflow.
  if (c >= tile_cols || c >= width || x >= (width - c - 1) / tile_cols + 1 || r >= tile_rows || r >= height ||
      y >= (height - r - 1) / tile_rows + 1)
    return nullptr;
  const std::size_t col = x * tile_cols + c, row = y * tile_rows + r;
  block(t).claim(t, data, row * width + col, {col, row, 0}, 2);
  return static_cast<char *>(data) + (row * width + col) * elem_size;
}

void *__oxide_span_elem(void *data, std::size_t size, std::size_t elem_size, std::size_t i) noexcept {
  (void)thread();
  return i < size ? static_cast<char *>(data) + i * elem_size : nullptr;
}

void *__oxide_disjoint_get_2d(void *data, std::size_t width, std::size_t height, std::size_t elem_size,
                              std::size_t x, std::size_t y) noexcept {
  SimThread &t = thread();
  if (x >= width || y >= height)
    return nullptr;
  const std::size_t element = y * width + x;
  block(t).claim(t, data, element, {x, y, 0}, 2);
  return static_cast<char *>(data) + element * elem_size;
}

void *__oxide_disjoint_get_3d(void *data, std::size_t width, std::size_t height, std::size_t depth,
                              std::size_t elem_size, std::size_t x, std::size_t y, std::size_t z) noexcept {
  SimThread &t = thread();
  if (x >= width || y >= height || z >= depth)
    return nullptr;
  const std::size_t element = (z * height + y) * width + x;
  block(t).claim(t, data, element, {x, y, z}, 3);
  return static_cast<char *>(data) + element * elem_size;
}

namespace {

/// The linear block index (x fastest) and the grid's block count.
std::size_t block_in_grid(const BlockGeometry &g) noexcept {
  return (std::size_t{g.block_idx[2]} * g.grid_dim[1] + g.block_idx[1]) * g.grid_dim[0] + g.block_idx[0];
}
std::size_t grid_blocks(const BlockGeometry &g) noexcept {
  return std::size_t{g.grid_dim[0]} * g.grid_dim[1] * g.grid_dim[2];
}
std::size_t block_threads(const BlockGeometry &g) noexcept {
  return std::size_t{g.block_dim[0]} * g.block_dim[1] * g.block_dim[2];
}
std::size_t warps_per_block(const BlockGeometry &g) noexcept {
  return (block_threads(g) + oxide::detail::kWarpSize - 1) / oxide::detail::kWarpSize;
}
/// The cluster's linear index in the grid and the grid's cluster count (every block is a
/// cluster of one without clusters, as on the GPU).
std::size_t cluster_in_grid(const BlockGeometry &g) noexcept {
  const std::uint32_t (&c)[3] = g.cluster_dim;
  const std::size_t x = g.block_idx[0] / c[0], y = g.block_idx[1] / c[1], z = g.block_idx[2] / c[2];
  return (z * (g.grid_dim[1] / c[1]) + y) * (g.grid_dim[0] / c[0]) + x;
}
std::size_t grid_clusters(const BlockGeometry &g) noexcept {
  const std::uint32_t (&c)[3] = g.cluster_dim;
  return std::size_t{g.grid_dim[0] / c[0]} * (g.grid_dim[1] / c[1]) * (g.grid_dim[2] / c[2]);
}
std::uint32_t rank_in_cluster(const BlockGeometry &g) noexcept {
  const std::uint32_t (&c)[3] = g.cluster_dim;
  return ((g.block_idx[2] % c[2]) * c[1] + g.block_idx[1] % c[1]) * c[0] + g.block_idx[0] % c[0];
}

intrinsic::Group group_operand(std::uint32_t code, const char *name) noexcept {
  const auto group = static_cast<intrinsic::Group>(code);
  switch (group) {
  case intrinsic::Group::warp:
  case intrinsic::Group::block:
  case intrinsic::Group::cluster:
    return group;
  }
  bad_argument(name, "group", code);
}

/// Claims element `element` of the output (checking mode) and returns its address.
void *owned(SimThread &t, void *data, std::size_t element, std::size_t elem_size, std::size_t x,
            std::size_t y, std::size_t z, unsigned rank) noexcept {
  block(t).claim(t, data, element, {x, y, z}, rank);
  return static_cast<char *>(data) + element * elem_size;
}

} // namespace

std::size_t __oxide_group_index(std::uint32_t group) noexcept {
  const SimThread &t = thread();
  const BlockGeometry &g = *t.geometry;
  switch (group_operand(group, "__oxide_group_index")) {
  case intrinsic::Group::warp:
    return block_in_grid(g) * warps_per_block(g) + t.linear / oxide::detail::kWarpSize;
  case intrinsic::Group::block:
    return block_in_grid(g);
  case intrinsic::Group::cluster:
    return cluster_in_grid(g);
  }
  return 0;
}

std::size_t __oxide_group_stride_next(std::size_t index, std::uint32_t group) noexcept {
  const BlockGeometry &g = *thread().geometry;
  switch (group_operand(group, "__oxide_group_stride_next")) {
  case intrinsic::Group::warp:
    return index + grid_blocks(g) * warps_per_block(g);
  case intrinsic::Group::block:
    return index + grid_blocks(g);
  case intrinsic::Group::cluster:
    return index + grid_clusters(g);
  }
  return index;
}

namespace {

/// oxide::detail::owned_element's arithmetic on the simulator: the thread's integers, conditions
/// as 0 or 1, and the launch quantities of its block.
struct SimArithmetic : oxide::detail::IntegerArithmetic {
  const SimThread &t;
  const BlockGeometry &g;

  SimArithmetic(const SimThread &t, const BlockGeometry &g) : t(t), g(g) {}
  Value lane() const { return t.linear % oxide::detail::kWarpSize; }
  Value thread_in_block() const { return t.linear; }
  Value block_threads() const { return ::block_threads(g); }
  Value cluster_rank() const { return rank_in_cluster(g); }
  Value read(intrinsic::GeometryKind kind, intrinsic::Dim dim) const {
    const auto d = static_cast<std::size_t>(dim);
    switch (kind) {
    case intrinsic::GeometryKind::thread_idx:
      return t.thread_idx[d];
    case intrinsic::GeometryKind::block_idx:
      return g.block_idx[d];
    case intrinsic::GeometryKind::block_dim:
      return g.block_dim[d];
    case intrinsic::GeometryKind::grid_dim:
      return g.grid_dim[d];
    }
    return 0;
  }
};

} // namespace

// The sets of intrinsic::Ownership by the one formula the GPU's lowering uses too
// (oxide/detail/owned_element.hpp).
void *__oxide_owned_elem(void *data, std::size_t width, std::size_t height, std::size_t depth,
                         std::size_t elem_size, std::uint32_t shape, std::size_t param, std::size_t owner_x,
                         std::size_t owner_y, std::size_t j) noexcept {
  SimThread &t = thread();
  using intrinsic::Ownership;
  if (shape > static_cast<std::uint32_t>(Ownership::warpgroup_tile))
    bad_argument("__oxide_owned_elem", "shape", shape);
  const auto ownership = static_cast<Ownership>(shape);
  const intrinsic::OwnershipShape &info = intrinsic::ownership_shape(ownership);
  oxide::detail::OwnedElementOperands<std::uint64_t> in{owner_x, owner_y, j, width, height, depth, 0};
  switch (info.param) {
  case intrinsic::OwnedParam::none:
    break;
  case intrinsic::OwnedParam::count:
    in.count = param;
    break;
  case intrinsic::OwnedParam::distance:
    in.uniform = param;
    break;
  case intrinsic::OwnedParam::tile:
    in.tile = oxide::detail::WarpgroupTile::unpack(param);
    if (!in.tile.valid())
      bad_argument("__oxide_owned_elem", "warpgroup tile", static_cast<std::uint32_t>(param));
    in.uniform = owner_y; // a longest-first tile's period
    break;
  }
  SimArithmetic arithmetic{t, *t.geometry};
  const auto [element, ok] = oxide::detail::owned_element(arithmetic, ownership, in);
  if (!ok)
    return nullptr;
  // The element's coordinates, for the checking mode's reports.
  const std::size_t x = info.output_rank == 1 ? element : element % width;
  const std::size_t y = info.output_rank == 1 ? 0 : element / width % height;
  const std::size_t z = info.output_rank == 3 ? element / width / height : 0;
  return owned(t, data, element, elem_size, x, y, z, info.output_rank);
}

// As OwnershipToNVVM.cpp's lanes 2: both elements the caller's, adjacent, the pair aligned.
void *__oxide_owned_pair(void *data, std::size_t width, std::size_t height, std::size_t depth,
                         std::size_t elem_size, std::uint32_t shape, std::size_t param, std::size_t owner_x,
                         std::size_t owner_y, std::size_t j) noexcept {
  if (static_cast<intrinsic::Ownership>(shape) != intrinsic::Ownership::warpgroup_tile)
    bad_argument("__oxide_owned_pair", "shape", shape);
  if (j % 2 != 0)
    return nullptr;
  auto *first = static_cast<char *>(
      __oxide_owned_elem(data, width, height, depth, elem_size, shape, param, owner_x, owner_y, j));
  auto *second = static_cast<char *>(
      __oxide_owned_elem(data, width, height, depth, elem_size, shape, param, owner_x, owner_y, j + 1));
  if (!first || second != first + elem_size || reinterpret_cast<std::uintptr_t>(first) % (2 * elem_size) != 0)
    return nullptr;
  return first;
}

std::size_t __oxide_reserve(void *counter, std::size_t count) noexcept {
  (void)thread();
  std::atomic_ref<unsigned long long> value(*static_cast<unsigned long long *>(counter));
  // As the GPU's lowering: the counter cannot wrap (oxide::detail::reserve_increment).
  const std::uint64_t add =
      count <= oxide::detail::kSmallReserve
          ? count
          : oxide::detail::reserve_increment(value.load(std::memory_order_relaxed), count);
  return value.fetch_add(add, std::memory_order_relaxed);
}

void *__oxide_reserved_elem(void *data, std::size_t size, std::size_t elem_size, std::size_t start,
                            std::size_t count, std::size_t j) noexcept {
  SimThread &t = thread();
  if (j >= count || start >= size || j >= size - start || size > oxide::detail::kMaxAppendSlots)
    return nullptr;
  return owned(t, data, start + j, elem_size, start + j, 0, 0, 1);
}

void *__oxide_permuted_elem(void *data, std::size_t size, std::size_t elem_size, const void *perm,
                            std::size_t perm_size, std::size_t i) noexcept {
  SimThread &t = thread();
  // As on the GPU: index 0 is read when i is past the end (the runtime allocates one at least).
  const std::uint32_t p = static_cast<const std::uint32_t *>(perm)[i < perm_size ? i : 0];
  if (i >= perm_size || p >= size)
    return nullptr;
  // Claimed like a DisjointSpan element: the checking mode reports two threads that get one.
  return owned(t, data, p, elem_size, i, 0, 0, 1);
}

void *__oxide_claimed_elem(void *data, std::size_t size, std::size_t elem_size, std::uint32_t *claims,
                           std::size_t claims_size, std::size_t j) noexcept {
  SimThread &t = thread();
  // As on the GPU: word 0 (which always exists) takes an empty claim when j is out of range.
  const bool in_range = j < size && j < claims_size;
  const std::uint32_t bit = in_range ? std::uint32_t{1} << (j % 32) : 0;
  const std::uint32_t before =
      std::atomic_ref<std::uint32_t>(claims[in_range ? j / 32 : 0]).fetch_or(bit, std::memory_order_relaxed);
  if (!in_range || (before & bit) != 0)
    return nullptr;
  return owned(t, data, j, elem_size, j, 0, 0, 1);
}

void __oxide_sync_threads() noexcept {
  SimThread &t = thread();
  block(t).sync_threads(t);
}

void __oxide_named_barrier(std::uint32_t id, std::uint32_t threads, std::uint32_t arrive) noexcept {
  SimThread &t = thread();
  block(t).named_barrier(t, id, threads, arrive != 0);
}

void __oxide_fence(std::uint32_t scope) noexcept {
  (void)thread();
  if (!known(static_cast<intrinsic::Scope>(scope))) [[unlikely]]
    bad_argument("__oxide_fence", "scope", scope);
  // A block's threads share one host thread, but other blocks run on other host threads.
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

void *__oxide_shared_alloc(std::size_t bytes, std::size_t align, const void *site) noexcept {
  SimThread &t = thread();
  return block(t).shared_alloc(t, bytes, align, site);
}

void *__oxide_dynamic_shared() noexcept {
  SimThread &t = thread();
  return block(t).dynamic_shared(t);
}

std::uint32_t __oxide_dynamic_shared_size() noexcept {
  SimThread &t = thread();
  return block(t).dynamic_shared_size(t);
}

std::uint32_t __oxide_lane_id() noexcept { return thread().linear % oxide::detail::sim::kWarpSize; }

std::uint32_t __oxide_warp_shuffle(std::uint32_t mask, std::uint32_t value, std::uint32_t arg,
                                   std::uint32_t mode, std::uint32_t width) noexcept {
  SimThread &t = thread();
  if (!known(static_cast<intrinsic::ShuffleMode>(mode))) [[unlikely]]
    bad_argument("__oxide_warp_shuffle", "mode", mode);
  if (width == 0 || width > oxide::detail::sim::kWarpSize || !std::has_single_bit(width)) [[unlikely]]
    bad_argument("__oxide_warp_shuffle", "width", width);
  return block(t).warp_op(t, WarpRequest{WarpOpKind::shuffle, mode, mask, value, arg, width});
}

std::uint32_t __oxide_active_mask(const char *file, std::uint32_t line, std::uint32_t column) noexcept {
  SimThread &t = thread();
  return block(t).active_mask(t, oxide::detail::sim::CallSite{file, line, column});
}

std::uint32_t __oxide_lane_mask(std::uint32_t kind) noexcept {
  const std::uint32_t lane = thread().linear % oxide::detail::sim::kWarpSize, eq = 1u << lane;
  switch (static_cast<intrinsic::LaneMaskKind>(kind)) {
  case intrinsic::LaneMaskKind::lt:
    return eq - 1;
  case intrinsic::LaneMaskKind::le:
    return eq | (eq - 1);
  case intrinsic::LaneMaskKind::eq:
    return eq;
  case intrinsic::LaneMaskKind::ge:
    return ~(eq - 1);
  case intrinsic::LaneMaskKind::gt:
    return ~(eq | (eq - 1));
  }
  bad_argument("__oxide_lane_mask", "kind", kind);
}

std::uint32_t __oxide_warp_vote(std::uint32_t mask, std::uint32_t predicate, std::uint32_t mode) noexcept {
  SimThread &t = thread();
  if (!known(static_cast<intrinsic::VoteMode>(mode))) [[unlikely]]
    bad_argument("__oxide_warp_vote", "mode", mode);
  return block(t).warp_op(t, WarpRequest{WarpOpKind::vote, mode, mask, predicate != 0 ? 1u : 0u, 0});
}

void __oxide_warp_sync(std::uint32_t mask) noexcept {
  SimThread &t = thread();
  (void)block(t).warp_op(t, WarpRequest{WarpOpKind::sync, 0, mask, 0, 0});
}

std::uint64_t __oxide_clock(std::uint32_t kind) noexcept {
  (void)thread();
  if (!known(static_cast<intrinsic::ClockKind>(kind))) [[unlikely]]
    bad_argument("__oxide_clock", "kind", kind);
  // Both run at one tick per nanosecond here: the simulator has no cycle counter to offer.
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

// Computed from the block's coordinates and the cluster's shape, which is {1, 1, 1} without
// clusters (also in a cooperative launch): every block is then a cluster of one, as on the GPU.
std::uint32_t __oxide_cluster_geometry(std::uint32_t kind, std::uint32_t dim) noexcept {
  const SimThread &t = thread();
  const BlockGeometry &g = *t.geometry;
  const std::uint32_t (&c)[3] = g.cluster_dim;
  using Kind = intrinsic::ClusterGeometryKind;
  switch (static_cast<Kind>(kind)) {
  case Kind::block_rank: // x fastest
    return g.block_idx[0] % c[0] + c[0] * (g.block_idx[1] % c[1] + c[1] * (g.block_idx[2] % c[2]));
  case Kind::block_count:
    return c[0] * c[1] * c[2];
  case Kind::block_idx:
    return component(g.block_idx, dim, "__oxide_cluster_geometry") % c[dim];
  case Kind::cluster_dim:
    return component(c, dim, "__oxide_cluster_geometry");
  case Kind::cluster_idx:
    return component(g.block_idx, dim, "__oxide_cluster_geometry") / c[dim];
  case Kind::grid_clusters:
    return component(g.grid_dim, dim, "__oxide_cluster_geometry") / c[dim];
  }
  bad_argument("__oxide_cluster_geometry", "kind", kind);
}

void __oxide_cluster_sync() noexcept {
  SimThread &t = thread();
  block(t).group_sync(t, GroupBarrier::cluster);
}

void *__oxide_cluster_map_shared(void *shared, std::uint32_t rank) noexcept {
  SimThread &t = thread();
  return block(t).map_shared(t, shared, rank);
}

void __oxide_grid_sync() noexcept {
  SimThread &t = thread();
  block(t).group_sync(t, GroupBarrier::grid);
}

void __oxide_bounds_fail(std::size_t index, std::size_t size) noexcept {
  SimThread *t = current_sim_thread;
  if (!t || !t->block) {
    std::fprintf(stderr, "oxide: index %zu out of bounds for span of size %zu\n", index, size);
    std::abort();
  }
  t->block->fail(*t, fmt::format("index {} out of bounds for span of size {}", index, size));
}

void __oxide_trap(const char *message) noexcept {
  SimThread &t = thread();
  block(t).fail(t, message ? message : "trap");
}

// A failed `assert` in kernel code stops the simulated thread's block like a trap, so the launch
// fails with a KernelFault naming the kernel, as on the GPU. This definition in the executable
// takes precedence over the C library's for the program's own calls; outside a launch it
// behaves like the C library's.
[[noreturn]] void __assert_fail(const char *assertion, const char *file, unsigned int line,
                                const char *function) noexcept {
  if (SimThread *t = current_sim_thread; t && t->block)
    t->block->fail(*t, fmt::format("{}:{}: {}: Assertion `{}' failed.", file, line, function, assertion));
  std::fprintf(stderr, "%s: %s:%u: %s: Assertion `%s' failed.\n", program_invocation_short_name, file, line,
               function, assertion);
  std::abort();
}

} // extern "C"
