// One simulated launch, as every host thread that runs its blocks sees it.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "oxide/host/launch_core.hpp"
#include "sim/disjoint_claims.hpp"
#include "sim/options.hpp"

namespace oxide::detail::sim {

/// Why a block stopped: the thread that failed and what it did.
struct Failure {
  std::uint64_t block = 0;  ///< linear block index
  std::uint32_t thread = 0; ///< linear thread index in the block
  std::string message;
};

struct LaunchPlan {
  HostKernel host;
  void *const *arguments = nullptr;
  LaunchGeometry geometry;
  std::uint64_t block_count = 0;
  Options options;
  std::string_view kernel_name;
  DisjointClaims *claims = nullptr; ///< set in checking mode only

  std::atomic<std::uint64_t> next_block{0};
  std::atomic<bool> stop{false}; ///< a block failed: start no more

  /// Keeps the failure of the lowest block, so a launch on one host thread reports the first.
  void record(Failure failure) {
    std::lock_guard lock(failure_mutex);
    if (!failure_ || failure.block < failure_->block)
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
