#include "sim/block_runner.hpp"

#include <signal.h>
#include <sys/mman.h>

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <exception>

#include "oxide/detail/intrinsic_abi.hpp"
#include "sim/mbarrier.hpp"
#include "sim/spin_watch.hpp"

namespace oxide::detail::sim {

constinit thread_local SimThread *current_sim_thread __attribute__((tls_model("initial-exec"))) = nullptr;

BlockRunner &BlockRunner::for_this_thread() {
  thread_local BlockRunner runner;
  return runner;
}

std::optional<Failure> BlockRunner::run(LaunchPlan &plan, std::uint64_t group) {
  prepare_kernel_fault_handling();
  plan_ = &plan;
  stacks_ = &StackPool::for_this_thread();
  const LaunchGeometry &g = plan.geometry;
  count_ = static_cast<std::uint32_t>(g.threads_per_block());
  members_ = plan.group_blocks;
  total_ = members_ * count_;
  warps_per_block_ = (count_ + kWarpSize - 1) / kWarpSize;
  one_dimensional_ = g.block.y == 1 && g.block.z == 1;
  check_ = plan.options.check;
  random_ = plan.options.random_schedule;
  if (random_) {
    schedule_ = ScheduleRandom(mix64(plan.schedule_seed ^ mix64(group)));
    start_order_ = Permutation(total_, schedule_.next());
  }
  failure_.reset();
  try {
    while (blocks_.size() < members_)
      blocks_.push_back(std::make_unique<BlockState>());
    if (threads_.size() < total_)
      threads_.resize(total_);
  } catch (const std::exception &e) {
    return Failure{plan.block_of(group, 0), 0,
                   fmt::format("simulator: cannot allocate the state of {} blocks: {}", members_, e.what())};
  }
  for (std::uint32_t member = 0; member < members_; ++member)
    start_block(*blocks_[member], plan.block_of(group, member), member);
  trace_ = plan.options.trace_warp_races;
  open_pages_ = {};
  if (trace_)
    for (std::uint32_t member = 0; member < members_; ++member)
      blocks_[member]->shared.protect(true);
  warp_pending_.assign(std::size_t{members_} * warps_per_block_, 0);
  active_pending_.assign(warp_pending_.size(), 0);
  for (std::uint32_t t = 0; t < total_; ++t)
    threads_[t].status = Status::unstarted;
  if (check_) {
    warp_epochs_.resize(warp_pending_.size());
    new_epochs(0, static_cast<std::uint32_t>(warp_epochs_.size()));
  }
  next_unstarted_ = 0;
  starting_block_ = blocks_[0].get();
  starting_block_end_ = count_;
  waiting_ = 0;
  group_waiters_.clear();
  mbarrier_waiters_.clear();
  copies_.clear();
  ready_.clear();
  ready_head_ = 0;

  // The host stack runs the first fiber, and takes over again only when no fiber can run.
  while (!failure_ && exited() < total_) {
    if (const std::optional<SwitchTarget> target = next_target())
      switch_to(*target, {Event::from_host});
    else if (!failure_ && !land_all_copies()) // the copy engine works while the threads wait
      diagnose_stall();
  }
  copies_.clear(); // copies into the group's shared memory, which ends with it
  release_stacks();
  current_sim_thread = nullptr;
  if (trace_)
    for (std::uint32_t member = 0; member < members_; ++member)
      blocks_[member]->shared.protect(false);
  return std::move(failure_);
}

void BlockRunner::start_block(BlockState &block, std::uint64_t index, std::uint32_t member) {
  const LaunchGeometry &g = plan_->geometry;
  BlockGeometry &geometry = block.geometry;
  geometry.block_idx[0] = static_cast<std::uint32_t>(index % g.grid.x);
  geometry.block_idx[1] = static_cast<std::uint32_t>(index / g.grid.x % g.grid.y);
  geometry.block_idx[2] = static_cast<std::uint32_t>(index / (std::uint64_t(g.grid.x) * g.grid.y));
  geometry.block_dim[0] = g.block.x;
  geometry.block_dim[1] = g.block.y;
  geometry.block_dim[2] = g.block.z;
  geometry.grid_dim[0] = g.grid.x;
  geometry.grid_dim[1] = g.grid.y;
  geometry.grid_dim[2] = g.grid.z;
  geometry.cluster_dim[0] = plan_->cluster.x;
  geometry.cluster_dim[1] = plan_->cluster.y;
  geometry.cluster_dim[2] = plan_->cluster.z;
  block.block = index;
  block.index_1d_base = std::size_t{geometry.block_idx[0]} * g.block.x;
  block.member = member;
  block.first_slot = member * count_;
  block.first_warp = member * warps_per_block_;
  block.exited = 0;
  block.barrier_waiters.clear();
  block.named = {};
  block.warpgroups.assign(count_ / kWarpgroupSize, {});
  block.shared.reset(g.dynamic_shared_bytes, plan_->options.check);
}

std::optional<SwitchTarget> BlockRunner::next_target() {
  // The random schedule picks among the ready threads and a new one; the ordered one resumes
  // ready threads first, in the order they became ready.
  bool resume = ready_head_ < ready_.size();
  if (random_ && resume && next_unstarted_ < total_) {
    const std::size_t ready = ready_.size() - ready_head_;
    const std::size_t pick = schedule_.below(ready + 1);
    if (pick < ready)
      std::swap(ready_[ready_head_], ready_[ready_head_ + pick]);
    else
      resume = false;
  } else if (random_ && resume) {
    const std::size_t ready = ready_.size() - ready_head_;
    std::swap(ready_[ready_head_], ready_[ready_head_ + schedule_.below(ready)]);
  }
  if (resume) {
    const std::uint32_t thread = ready_[ready_head_++];
    if (ready_head_ == ready_.size()) {
      ready_.clear();
      ready_head_ = 0;
    }
    ThreadState &state = threads_[thread];
    state.status = Status::running;
    current_sim_thread = &state.sim;
    return SwitchTarget{state.context, state.stack->bottom(), state.stack->size()};
  }
  if (next_unstarted_ == total_)
    return std::nullopt;
  FiberStack *stack = nullptr;
  try {
    stack = stacks_->acquire(plan_->options.stack_bytes);
  } catch (const std::exception &e) {
    if (!failure_)
      failure_ = failure_of(next_unstarted_, e.what());
    return std::nullopt;
  }
  stacks_in_use_.push_back(stack);
  starting_stack_ = stack;
  return FiberSwitch::make(*stack, &BlockRunner::fiber_main);
}

void BlockRunner::switch_to(const SwitchTarget &target, Event event) {
  event_ = event;
  arrived(FiberSwitch::jump(target, this,
                            event.kind == Event::fiber_done || event.kind == Event::failed ||
                                event.kind == Event::faulted || event.kind == Event::spun));
}

void BlockRunner::arrived(transfer_t transfer) {
  switch (event_.kind) {
  case Event::from_host:
    host_ = transfer.fctx;
    break;
  case Event::suspended:
    threads_[event_.thread].context = transfer.fctx;
    break;
  case Event::fiber_done:
    std::erase(stacks_in_use_, event_.stack);
    stacks_->release(event_.stack);
    break;
  case Event::failed:
    break;             // the fiber is abandoned; its stack is released with the others
  case Event::faulted: // the same, from a signal handler, which could not make the message
    failure_ = failure_of(event_.thread, describe_fault(fault_, plan_->options.stack_bytes));
    break;
  case Event::spun:
    failure_ = failure_of(event_.thread, describe_spin(spin_pc_, spin_abandoned_));
    failure_->abandoned = spin_abandoned_;
    break;
  case Event::raced:
    failure_ =
        failure_of(event_.thread, describe_warp_race(traced_race_.race, traced_race_.lane,
                                                     traced_race_.offset, traced_race_.dynamic, nullptr));
    break;
  }
}

void BlockRunner::release_stacks() noexcept {
  for (FiberStack *stack : stacks_in_use_) {
    FiberSwitch::clear(*stack);
    stacks_->release(stack);
  }
  stacks_in_use_.clear();
}

void BlockRunner::fiber_main(transfer_t transfer) {
  auto *self = static_cast<BlockRunner *>(transfer.data);
  FiberStack *stack = self->starting_stack_;
  FiberSwitch::entered();
  self->arrived(transfer);
  self->run_threads(stack);
}

void BlockRunner::run_threads(FiberStack *stack) {
  while (next_unstarted_ < total_) {
    const std::uint32_t slot =
        random_ ? static_cast<std::uint32_t>(start_order_(next_unstarted_++)) : next_unstarted_++;
    start_thread(slot, stack);
    ThreadState &state = threads_[slot];
    current_sim_thread = &state.sim;
    // Kernel code must not throw (it cannot on the GPU); a host-only exception still must not
    // unwind past the fiber. The message is copied out first: failing inside the handler would
    // leave the exception "being handled" on this host thread forever.
    std::string thrown;
    try {
      plan_->host.invoke(plan_->host.function, plan_->arguments);
    } catch (const std::exception &e) {
      thrown = fmt::format("the kernel threw an exception: {}", e.what());
    } catch (...) {
      thrown = "the kernel threw an exception";
    }
    if (!thrown.empty())
      fail_thread(slot, std::move(thrown));
    thread_exited(state);
    // The random schedule may go on with a ready thread instead of starting the next.
    if (random_ && ready_head_ < ready_.size() && schedule_.below(2) == 0)
      break;
  }
  leave_fiber({Event::fiber_done, 0, stack});
}

void BlockRunner::leave_fiber(Event event) {
  // A finished fiber hands over to the next runnable one, a failed one straight to the host.
  std::optional<SwitchTarget> target;
  if (event.kind != Event::failed)
    target = next_target();
  switch_to(target ? *target : FiberSwitch::host(host_), event);
  std::abort(); // a finished or failed fiber is never switched back to
}

void BlockRunner::start_thread(std::uint32_t slot, FiberStack *stack) {
  ThreadState &state = threads_[slot];
  state.status = Status::running;
  state.stack = stack;
  // Threads start in slot order, block after block, unless the schedule is random.
  if (random_) {
    starting_block_ = blocks_[slot / count_].get();
  } else if (slot == starting_block_end_) [[unlikely]] {
    starting_block_ = blocks_[slot / count_].get();
    starting_block_end_ = slot + count_;
  }
  BlockState &block = *starting_block_;
  const std::uint32_t linear = slot - block.first_slot;
  SimThread &sim = state.sim;
  sim.linear = linear;
  sim.slot = slot;
  if (one_dimensional_) {
    sim.thread_idx[0] = linear;
    sim.thread_idx[1] = sim.thread_idx[2] = 0;
  } else {
    const BlockGeometry &g = block.geometry;
    sim.thread_idx[0] = linear % g.block_dim[0];
    sim.thread_idx[1] = linear / g.block_dim[0] % g.block_dim[1];
    sim.thread_idx[2] = linear / (g.block_dim[0] * g.block_dim[1]);
  }
  sim.index_1d = block.index_1d_base + sim.thread_idx[0];
  sim.geometry = &block.geometry;
  sim.block = this;
  sim.home = &block;
  sim.claimed_data = nullptr;
  sim.claimed_first = sim.claimed_end = 0;
}

void BlockRunner::suspend(ThreadState &thread) {
  // A lane that stops may be the last one its warp's active-mask calls wait for.
  if (thread.status != Status::at_active_mask)
    settle_active_masks(thread.sim.home->first_warp + thread.sim.linear / kWarpSize, thread.sim.slot);
  const std::optional<SwitchTarget> target = next_target();
  switch_to(target ? *target : FiberSwitch::host(host_), {Event::suspended, thread.sim.slot, nullptr});
  current_sim_thread = &thread.sim;
}

void BlockRunner::thread_exited(ThreadState &thread) {
  thread.status = Status::exited;
  BlockState &block = *thread.sim.home;
  ++block.exited;
  settle_active_masks(block.first_warp + thread.sim.linear / kWarpSize, thread.sim.slot);
  if (waiting_ == 0) [[likely]]
    return;
  // Outside the checking mode a thread that exits no longer holds up a barrier, as on GPUs
  // in practice; the checking mode reports the barrier as divergent instead (diagnose_stall).
  if (check_)
    return;
  if (!block.barrier_waiters.empty() && barrier_complete(block))
    release_barrier(block, thread.sim.slot);
  if (!group_waiters_.empty() && group_barrier_complete())
    release_group_barrier(thread.sim.slot);
}

std::uint32_t BlockRunner::exited() const noexcept {
  std::uint32_t exited = 0;
  for (std::uint32_t member = 0; member < members_; ++member)
    exited += blocks_[member]->exited;
  return exited;
}

void BlockRunner::fail(const SimThread &thread, std::string message) {
  fail_thread(thread.slot, std::move(message));
}

void BlockRunner::fail_thread(std::uint32_t slot, std::string message) {
  failure_ = failure_of(slot, std::move(message));
  leave_fiber({Event::failed, slot, nullptr});
}

void BlockRunner::escape_fault(KernelFault fault, std::uintptr_t stack_pointer) noexcept {
  const SimThread *thread = current_sim_thread;
  if (!thread || thread->slot >= threads_.size() || !host_)
    return;
  const FiberStack *stack = threads_[thread->slot].stack;
  if (!stack)
    return;
  const auto guard = reinterpret_cast<std::uintptr_t>(stack->guard());
  const auto bottom = reinterpret_cast<std::uintptr_t>(stack->bottom());
  const std::uintptr_t top = bottom + stack->size();
  // On the fiber, in its guard page, or below it by less than a stack: a frame too large for
  // what was left (the fault then hits whatever lies below). Anything else is not the kernel's:
  // the runner's own code runs on the host stack.
  const bool in_guard = fault.address >= guard && fault.address < bottom;
  const bool on_fiber = stack_pointer >= guard && stack_pointer <= top;
  const bool below = stack_pointer < guard && guard - stack_pointer <= stack->size();
  if (!in_guard && !on_fiber && !below)
    return;
  fault.stack_overflow = in_guard || stack_pointer < bottom;
  fault_ = fault;
  escape(fault.signal, Event::faulted, thread->slot);
}

void BlockRunner::escape_spin(std::uintptr_t pc, std::uintptr_t stack_pointer, bool abandoned) noexcept {
  const SimThread *thread = current_sim_thread;
  if (!thread || thread->slot >= threads_.size() || !host_)
    return;
  // Only kernel code spinning on its fiber is abandoned; the runner's own code (on the host
  // stack) may hold state that a switch would leave half-changed.
  const FiberStack *stack = threads_[thread->slot].stack;
  const auto bottom = stack ? reinterpret_cast<std::uintptr_t>(stack->bottom()) : 0;
  if (!stack || stack_pointer < bottom || stack_pointer > bottom + stack->size())
    return;
  spin_pc_ = pc;
  spin_abandoned_ = abandoned;
  escape(kSpinSampleSignal, Event::spun, thread->slot);
}

void BlockRunner::escape(int signal, Event::Kind kind, std::uint32_t slot) noexcept {
  // The handler never returns, so the kernel never unblocks the signal it blocked for it.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, signal);
  pthread_sigmask(SIG_UNBLOCK, &signals, nullptr);
  switch_to(FiberSwitch::host(host_), {kind, slot, nullptr});
  std::abort(); // a faulted fiber is never switched back to
}

Failure BlockRunner::failure_of(std::uint32_t slot, std::string message) const {
  const BlockState &block = block_of_slot(slot);
  return Failure{block.block, slot - block.first_slot, std::move(message)};
}

} // namespace oxide::detail::sim
