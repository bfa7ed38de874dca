// BlockRunner: the block barrier (sync_threads) and the group barriers (cluster::sync,
// grid::sync), whose last arriving thread releases the others.
#include "sim/block_runner.hpp"

#include <algorithm>

namespace oxide::detail::sim {

// --- barriers --------------------------------------------------------------------------------

bool BlockRunner::barrier_complete(const BlockState &block) const noexcept {
  const std::size_t arrived = block.barrier_waiters.size() + (check_ ? 0 : block.exited);
  return arrived == count_;
}

void BlockRunner::sync_threads(SimThread &thread) {
  ThreadState &state = threads_[thread.slot];
  BlockState &block = *thread.home;
  state.status = Status::at_barrier;
  block.barrier_waiters.push_back(thread.slot);
  ++waiting_;
  if (barrier_complete(block))
    release_barrier(block, thread.slot);
  else
    suspend(state);
}

void BlockRunner::release_barrier(BlockState &block, std::uint32_t current) {
  // Like bar.sync 0, any sync_threads call completes the barrier: telling calls apart by their
  // return address fails when the optimizer duplicates one call into several branches.
  for (std::uint32_t t : block.barrier_waiters) {
    ThreadState &state = threads_[t];
    if (t == current) {
      state.status = Status::running;
    } else {
      state.status = Status::ready;
      ready_.push_back(t);
    }
  }
  waiting_ -= static_cast<std::uint32_t>(block.barrier_waiters.size());
  block.barrier_waiters.clear();
  if (check_)
    new_epochs(block.first_warp, warps_per_block_);
}

bool BlockRunner::group_barrier_complete() const noexcept {
  const std::size_t arrived = group_waiters_.size() + (check_ ? 0 : exited());
  return arrived == total_;
}

void BlockRunner::group_sync(SimThread &thread, GroupBarrier barrier) {
  // The compiler rejects both in kernels whose contract does not ask for the launch.
  if (barrier == GroupBarrier::grid && !plan_->cooperative) [[unlikely]]
    fail(thread, "grid::sync() in a launch that is not cooperative: only a kernel whose launch contract "
                 "says cooperative = true may sync the grid");
  if (barrier == GroupBarrier::cluster && plan_->cooperative) [[unlikely]]
    fail(thread, "cluster::sync() in a cooperative launch, which has no thread-block clusters");
  // Without clusters, the group is the block alone: a cluster of one.
  ThreadState &state = threads_[thread.slot];
  state.status = Status::at_group_barrier;
  group_waiters_.push_back(thread.slot);
  ++waiting_;
  if (group_barrier_complete())
    release_group_barrier(thread.slot);
  else
    suspend(state);
}

void BlockRunner::release_group_barrier(std::uint32_t current) {
  for (std::uint32_t t : group_waiters_) {
    ThreadState &state = threads_[t];
    if (t == current) {
      state.status = Status::running;
    } else {
      state.status = Status::ready;
      ready_.push_back(t);
    }
  }
  waiting_ -= static_cast<std::uint32_t>(group_waiters_.size());
  group_waiters_.clear();
  if (check_)
    new_epochs(0, static_cast<std::uint32_t>(warp_epochs_.size()));
}

} // namespace oxide::detail::sim
