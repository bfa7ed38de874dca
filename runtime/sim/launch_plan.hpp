// One simulated launch, as every host thread that runs its blocks sees it.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "oxide/detail/host/launch_core.hpp"
#include "sim/disjoint_claims.hpp"
#include "sim/options.hpp"
#include "sim/schedule.hpp"

namespace oxide::detail::sim {

class WriteChecks;   // sim/write_checks.hpp
class WatchedLaunch; // sim/spin_watch.hpp

/// Why a block stopped: the thread that failed and what it did.
struct Failure {
  std::uint64_t block = 0;  ///< linear block index
  std::uint32_t thread = 0; ///< linear thread index in the block
  std::string message;
  /// A thread that waited for the failed block (sim/spin_watch.hpp): reported only without
  /// another failure.
  bool abandoned = false;
};

/// The work of a launch comes in groups of blocks, each run wholly on one host thread so that
/// its threads can meet at a barrier wider than a block: the blocks of one cluster in a launch
/// in clusters, the whole grid in a cooperative launch, else each block alone.
struct LaunchPlan {
  HostKernel host;
  void *const *arguments = nullptr;
  LaunchGeometry geometry;
  std::uint64_t block_count = 0;
  Options options;
  std::string_view kernel_name;
  DisjointClaims *claims = nullptr; ///< set in checking mode only
  Dim3 cluster{1, 1, 1};            ///< blocks per cluster; {1, 1, 1} without clusters
  bool cooperative = false;         ///< the grid is one group, and may meet at grid::sync
  std::uint32_t group_blocks = 1;   ///< blocks per group: 1, the cluster's, or the grid's
  std::uint64_t group_count = 0;    ///< block_count / group_blocks
  /// Groups run to their end, for the progress line of a long launch (launch.cpp).
  std::atomic<std::uint64_t> groups_done{0};
  /// Checking mode, for kernels whose parameters oxcc described: what threads may write.
  const WriteChecks *writes = nullptr;
  /// OXIDE_SIM_SCHEDULE=random: this launch's seed, and the order its groups run in.
  std::uint64_t schedule_seed = 0;
  Permutation group_order;

  std::atomic<std::uint64_t> next_group{0};
  std::atomic<bool> stop{false}; ///< a block failed: start no more
  /// The watchdog's record of the launch, which every host thread that runs blocks joins.
  WatchedLaunch *watch = nullptr;

  /// The linear grid index of block `member` of group `group`: for a cluster, the block of rank
  /// `member` (x fastest) of cluster `group` (clusters numbered x fastest across the grid).
  [[nodiscard]] std::uint64_t block_of(std::uint64_t group, std::uint32_t member) const noexcept {
    if (group_blocks == 1)
      return group;
    if (cooperative)
      return member;
    const Dim3 &g = geometry.grid;
    const std::uint64_t clusters_x = g.x / cluster.x, clusters_y = g.y / cluster.y;
    const std::uint64_t x = group % clusters_x * cluster.x + member % cluster.x;
    const std::uint64_t y = group / clusters_x % clusters_y * cluster.y + member / cluster.x % cluster.y;
    const std::uint64_t z = group / (clusters_x * clusters_y) * cluster.z + member / (cluster.x * cluster.y);
    return x + g.x * (y + std::uint64_t(g.y) * z);
  }

  /// Keeps the failure of the lowest block, so a launch on one host thread reports the first;
  /// an abandoned block only when nothing else failed.
  void record(Failure failure) {
    std::lock_guard lock(failure_mutex);
    if (!failure_ ||
        std::pair(failure.abandoned, failure.block) < std::pair(failure_->abandoned, failure_->block))
      failure_ = std::move(failure);
    stop.store(true, std::memory_order_relaxed);
  }
  [[nodiscard]] std::optional<Failure> take_failure() {
    std::lock_guard lock(failure_mutex);
    return std::move(failure_);
  }

private:
  std::mutex failure_mutex;
  std::optional<Failure> failure_;
};

} // namespace oxide::detail::sim
