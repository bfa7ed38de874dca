// BlockRunner: what a group that cannot go on reports (which thread waits for what), and how
// reports name blocks, threads and warp operations.
#include "sim/block_runner.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "oxide/detail/intrinsic_abi.hpp"
#include "sim/mbarrier.hpp"

namespace oxide::detail::sim {

// --- deadlocks -------------------------------------------------------------------------------

void BlockRunner::diagnose_stall() {
  // Nothing can run and some threads have not finished: they wait for threads that will never
  // arrive. Report the first waiting thread and what it waits for: a warp operation, else a
  // block barrier, else the group barrier.
  const char *group_barrier = group_barrier_name();
  for (std::uint32_t t = 0; t < total_; ++t) {
    const ThreadState &state = threads_[t];
    if (state.status != Status::in_warp_op)
      continue;
    const BlockState &block = *state.sim.home;
    const std::uint32_t warp = state.sim.linear / kWarpSize;
    const std::uint32_t group =
        (state.warp.mask | 1u << (state.sim.linear % kWarpSize)) & lanes_of_warp(warp);
    const std::uint32_t missing = group & ~warp_pending_[block.first_warp + warp];
    const std::uint32_t lane = static_cast<std::uint32_t>(std::countr_zero(missing));
    const ThreadState &other = threads_[block.first_slot + warp * kWarpSize + lane];
    const std::string op =
        fmt::format("warp {} (mask 0x{:08x})", describe_warp_op(state.warp), state.warp.mask);
    std::string message;
    if (other.status == Status::exited)
      message = fmt::format("{} waits for lane {}, which has exited", op, lane);
    else if (other.status == Status::at_barrier)
      message = fmt::format("deadlock: {} waits for lane {}, which waits at sync_threads", op, lane);
    else if (other.status == Status::at_group_barrier)
      message = fmt::format("deadlock: {} waits for lane {}, which waits at {}", op, lane, group_barrier);
    else if (other.status == Status::at_named_barrier)
      message = fmt::format("deadlock: {} waits for lane {}, which waits at a named barrier", op, lane);
    else if (other.status == Status::at_warpgroup)
      message =
          fmt::format("deadlock: {} waits for lane {}, which waits in a wgmma for its warpgroup", op, lane);
    else if (other.status == Status::at_mbarrier)
      message = fmt::format("deadlock: {} waits for lane {}, which waits at an mbarrier: {}", op, lane,
                            describe_mbarrier_deadlock(other));
    else
      message = fmt::format("deadlock: {} waits for lane {}, which waits in warp {} (mask 0x{:08x})", op,
                            lane, describe_warp_op(other.warp), other.warp.mask);
    failure_ = failure_of(t, std::move(message));
    return;
  }
  if (report_partial_wgmma())
    return;
  // A thread waiting at an mbarrier whose phase cannot complete any more, before the barriers
  // it holds up.
  for (std::uint32_t t = 0; t < total_; ++t)
    if (threads_[t].status == Status::at_mbarrier) {
      failure_ = failure_of(t, "deadlock: " + describe_mbarrier_deadlock(threads_[t]));
      return;
    }
  // A named barrier that too few threads reach: the others wait elsewhere or have exited.
  for (std::uint32_t member = 0; member < members_; ++member) {
    const BlockState &block = *blocks_[member];
    for (std::size_t id = 1; id < block.named.size(); ++id) {
      const BlockState::NamedBarrier &barrier = block.named[id];
      if (barrier.waiters.empty())
        continue;
      failure_ = failure_of(
          *std::min_element(barrier.waiters.begin(), barrier.waiters.end()),
          fmt::format(
              "deadlock: named barrier {} waits for {} threads and only {} arrived ({} of the block's {} "
              "threads have exited); every warp that takes part must reach it",
              id, barrier.expected, barrier.arrived, block.exited, count_));
      return;
    }
  }
  for (std::uint32_t member = 0; member < members_; ++member) {
    const BlockState &block = *blocks_[member];
    if (block.barrier_waiters.empty())
      continue;
    const std::uint32_t waiting =
        *std::min_element(block.barrier_waiters.begin(), block.barrier_waiters.end());
    // Threads of the block that wait at the group barrier instead never come.
    for (std::uint32_t t = block.first_slot; t < block.first_slot + count_; ++t)
      if (threads_[t].status == Status::at_group_barrier) {
        failure_ =
            failure_of(waiting, fmt::format("deadlock: sync_threads waits for thread {}, which waits at {}",
                                            describe_thread(t - block.first_slot), group_barrier));
        return;
      }
    std::uint32_t first_exited = 0;
    while (first_exited < count_ && threads_[block.first_slot + first_exited].status != Status::exited)
      ++first_exited;
    failure_ = failure_of(waiting, fmt::format("divergent barrier: {} threads of the block exited without "
                                               "reaching the sync_threads this thread waits at (first: "
                                               "thread {})",
                                               block.exited, describe_thread(first_exited)));
    return;
  }
  if (group_waiters_.empty()) { // unreachable: every unfinished thread waits somewhere
    failure_ = failure_of(0, "internal error: the block stalled with no thread waiting");
    return;
  }
  // Every thread that has not finished waits at the group barrier, which the exited ones hold up
  // (in the checking mode).
  const std::uint32_t waiting = *std::min_element(group_waiters_.begin(), group_waiters_.end());
  std::uint32_t first_exited = 0;
  while (first_exited < total_ && threads_[first_exited].status != Status::exited)
    ++first_exited;
  const BlockState &exited_block = block_of_slot(first_exited);
  failure_ = failure_of(
      waiting,
      fmt::format("divergent {0}: {1} threads of the {2} exited without reaching the {0} this thread "
                  "waits at (first: thread {3} of block {4})",
                  group_barrier, exited(), plan_->cooperative ? "grid" : "cluster",
                  describe_thread(first_exited - exited_block.first_slot), describe_block(exited_block)));
}

bool BlockRunner::report_partial_wgmma() {
  for (std::uint32_t member = 0; member < members_; ++member) {
    const BlockState &block = *blocks_[member];
    for (std::size_t id = 0; id < block.warpgroups.size(); ++id) {
      const BlockState::NamedBarrier &group = block.warpgroups[id];
      if (group.waiters.empty())
        continue;
      std::uint32_t exited = 0;
      for (std::uint32_t t = 0; t < kWarpgroupSize; ++t)
        exited += threads_[block.first_slot + id * kWarpgroupSize + t].status == Status::exited;
      failure_ = failure_of(
          *std::min_element(group.waiters.begin(), group.waiters.end()),
          fmt::format("deadlock: a wgmma of warpgroup {} (threads {}..{}) was issued by {} of its {} threads "
                      "({} have exited); a wgmma is one operation of the whole warpgroup, so every thread "
                      "of it must issue the same wgmma",
                      id, id * kWarpgroupSize, (id + 1) * kWarpgroupSize - 1, group.arrived, kWarpgroupSize,
                      exited));
      return true;
    }
  }
  return false;
}

std::string BlockRunner::describe_mbarrier_deadlock(const ThreadState &waiter) {
  const BlockState *owner = owner_of(waiter.mbarrier);
  std::string where = "an mbarrier";
  if (owner) {
    const auto [offset, dynamic] =
        place_in_shared(owner->shared, reinterpret_cast<std::uintptr_t>(waiter.mbarrier));
    where = fmt::format("the mbarrier at byte {} of {}", offset,
                        dynamic ? "dynamic shared memory" : "a shared array");
    if (owner != waiter.sim.home)
      where += fmt::format(" of block {}", describe_block(*owner));
  }
  std::string state = "it is no longer initialised";
  std::uint64_t word = 0;
  {
    const OwnAccess access(*this);
    word = *waiter.mbarrier;
  }
  if (const auto m = Mbarrier::decode(word))
    state = fmt::format("{} of its {} arrivals and {} transaction bytes are still due", m->pending, m->count,
                        m->tx);
  std::uint32_t exited = 0, at_barriers = 0, at_mbarriers = 0, in_warp_ops = 0;
  for (std::uint32_t t = 0; t < total_; ++t)
    switch (threads_[t].status) {
    case Status::exited:
      ++exited;
      break;
    case Status::at_barrier:
    case Status::at_named_barrier:
    case Status::at_warpgroup:
    case Status::at_group_barrier:
      ++at_barriers;
      break;
    case Status::at_mbarrier:
      ++at_mbarriers;
      break;
    case Status::in_warp_op:
      ++in_warp_ops;
      break;
    case Status::running:
    case Status::ready:
    case Status::at_active_mask:
    case Status::unstarted:
      break;
    }
  return fmt::format("the thread waits for the phase of parity {} of {}, which can never complete: {}, "
                     "and no thread can run ({} of the {} threads wait at mbarriers, {} at sync_threads or "
                     "{}, {} in warp operations, {} have exited)",
                     waiter.mbarrier_parity, where, state, at_mbarriers, total_, at_barriers,
                     group_barrier_name(), in_warp_ops, exited);
}

const char *BlockRunner::group_barrier_name() const noexcept {
  return plan_->cooperative ? "grid::sync" : "cluster::sync";
}

std::string BlockRunner::describe_block(const BlockState &block) {
  const auto &b = block.geometry.block_idx;
  return fmt::format("({},{},{})", b[0], b[1], b[2]);
}

std::string BlockRunner::describe_thread(std::uint32_t linear) const {
  const LaunchGeometry &g = plan_->geometry;
  const std::uint32_t x = g.block.x, y = g.block.y;
  return fmt::format("({},{},{})", linear % x, linear / x % y, linear / (x * y));
}

namespace {

/// The oxide::warp function that asks for this mode.
const char *operation_name(intrinsic::ShuffleMode mode) noexcept {
  switch (mode) {
  case intrinsic::ShuffleMode::idx:
    return "shuffle";
  case intrinsic::ShuffleMode::up:
    return "shuffle_up";
  case intrinsic::ShuffleMode::down:
    return "shuffle_down";
  case intrinsic::ShuffleMode::bfly:
    return "shuffle_xor";
  }
  return "shuffle";
}
const char *operation_name(intrinsic::ReduxKind kind) noexcept {
  switch (kind) {
  case intrinsic::ReduxKind::add:
    return "reduce_add";
  case intrinsic::ReduxKind::min:
  case intrinsic::ReduxKind::umin:
    return "reduce_min";
  case intrinsic::ReduxKind::max:
  case intrinsic::ReduxKind::umax:
    return "reduce_max";
  case intrinsic::ReduxKind::and_:
    return "reduce_and";
  case intrinsic::ReduxKind::or_:
    return "reduce_or";
  case intrinsic::ReduxKind::xor_:
    return "reduce_xor";
  }
  return "reduce";
}
const char *operation_name(intrinsic::MatchKind kind) noexcept {
  switch (kind) {
  case intrinsic::MatchKind::any:
    return "match_any";
  case intrinsic::MatchKind::all:
    return "match_all";
  }
  return "match";
}
const char *operation_name(intrinsic::VoteMode mode) noexcept {
  switch (mode) {
  case intrinsic::VoteMode::all:
    return "all";
  case intrinsic::VoteMode::any:
    return "any";
  case intrinsic::VoteMode::ballot:
    return "ballot";
  }
  return "vote";
}

} // namespace

std::string BlockRunner::describe_warp_op(const WarpRequest &request) {
  switch (request.kind) {
  case WarpOpKind::shuffle:
    return operation_name(static_cast<intrinsic::ShuffleMode>(request.mode));
  case WarpOpKind::vote:
    return operation_name(static_cast<intrinsic::VoteMode>(request.mode));
  case WarpOpKind::redux:
    return operation_name(static_cast<intrinsic::ReduxKind>(request.mode));
  case WarpOpKind::match:
    return operation_name(static_cast<intrinsic::MatchKind>(request.mode));
  case WarpOpKind::sync:
    break;
  }
  return "sync";
}

} // namespace oxide::detail::sim
