// BlockRunner: the block barrier (sync_threads) and the group barriers (cluster::sync,
// grid::sync), whose last arriving thread releases the others.
#include "sim/block_runner.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace oxide::detail::sim {

namespace {
/// No thread: a named barrier completed by an arrive releases every waiter.
constexpr std::uint32_t kNoSlot = ~std::uint32_t{0};
} // namespace

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

void BlockRunner::wake(std::vector<std::uint32_t> &waiters, std::uint32_t current) {
  for (std::uint32_t t : waiters) {
    ThreadState &state = threads_[t];
    if (t == current) {
      state.status = Status::running;
    } else {
      state.status = Status::ready;
      ready_.push_back(t);
    }
  }
  waiting_ -= static_cast<std::uint32_t>(waiters.size());
  waiters.clear();
}

void BlockRunner::release_barrier(BlockState &block, std::uint32_t current) {
  // Like bar.sync 0, any sync_threads call completes the barrier: telling calls apart by their
  // return address fails when the optimizer duplicates one call into several branches.
  wake(block.barrier_waiters, current);
  if (check_)
    new_epochs(block.first_warp, warps_per_block_);
}

void BlockRunner::named_barrier(SimThread &thread, std::uint32_t id, std::uint32_t threads, bool arrive) {
  BlockState &block = *thread.home;
  if (id == 0 || id >= block.named.size() || threads == 0 || threads % kWarpSize != 0 || threads > count_)
      [[unlikely]]
    fail(thread, fmt::format("named barrier {} for {} threads: the id must be 1..15 and the count a multiple "
                             "of 32 no larger than the block ({} threads)",
                             id, threads, count_));
  BlockState::NamedBarrier &barrier = block.named[id];
  if (barrier.arrived == 0)
    barrier.expected = threads;
  else if (barrier.expected != threads) [[unlikely]]
    fail(thread, fmt::format("named barrier {} is waited for by {} threads here and {} elsewhere in the same "
                             "phase: every thread at one barrier must give the same count",
                             id, threads, barrier.expected));
  ++barrier.arrived;
  ThreadState &state = threads_[thread.slot];
  if (!arrive) {
    state.status = Status::at_named_barrier;
    barrier.waiters.push_back(thread.slot);
    ++waiting_;
  }
  if (barrier.arrived == barrier.expected)
    release_named_barrier(block, barrier, arrive ? kNoSlot : thread.slot);
  else if (!arrive)
    suspend(state);
}

void BlockRunner::release_named_barrier(BlockState &block, BlockState::NamedBarrier &barrier,
                                        std::uint32_t current) {
  // The warps that met see each other's accesses from before: their epochs end.
  if (check_)
    for (std::uint32_t t : barrier.waiters)
      new_epochs(block.first_warp + threads_[t].sim.linear / kWarpSize, 1);
  wake(barrier.waiters, current);
  barrier.arrived = 0;
}

void BlockRunner::warpgroup_rendezvous(SimThread &thread) {
  BlockState::NamedBarrier &group = thread.home->warpgroups.at(thread.linear / kWarpgroupSize);
  ThreadState &state = threads_[thread.slot];
  state.status = Status::at_warpgroup;
  group.waiters.push_back(thread.slot);
  ++waiting_;
  if (++group.arrived < kWarpgroupSize) {
    suspend(state);
    return;
  }
  // Not a memory barrier for the kernel's own accesses: no epoch ends.
  wake(group.waiters, thread.slot);
  group.arrived = 0;
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
  wake(group_waiters_, current);
  if (check_)
    new_epochs(0, static_cast<std::uint32_t>(warp_epochs_.size()));
}

} // namespace oxide::detail::sim
