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

namespace {

/// Where `word` lies, for a report: its offset in its array, and whether that is the dynamic area
/// (the arena's offset for memory no array holds). Only reads the array table: signal-safe.
std::pair<std::uintptr_t, bool> place_in_shared(const SharedMemory &shared, std::uintptr_t word) noexcept {
  if (const auto location = shared.locate(reinterpret_cast<const void *>(word)))
    return {location->offset, location->site == nullptr};
  return {word - reinterpret_cast<std::uintptr_t>(const_cast<SharedMemory &>(shared).dynamic_base()), false};
}

} // namespace

bool BlockRunner::trace_access(std::uintptr_t address, bool write) noexcept {
  SimThread *thread = current_sim_thread;
  if (!trace_ || !thread || !host_)
    return false;
  BlockState *owner = nullptr;
  for (std::uint32_t member = 0; member < members_ && !owner; ++member)
    if (blocks_[member]->shared.in_arena(reinterpret_cast<const void *>(address)))
      owner = blocks_[member].get();
  if (!owner)
    return false;
  // Only the thread's own block's memory has lanes of its warp; another block's (map_shared)
  // is let through.
  if (owner == thread->home) {
    const std::uint32_t lane = thread->linear % kWarpSize;
    const std::uint64_t epoch = warp_epochs_[owner->first_warp + thread->linear / kWarpSize];
    const std::uintptr_t word = address & ~std::uintptr_t{3};
    if (const auto race = warp_races_.access(word, epoch, lane, write)) {
      const auto [offset, dynamic] = place_in_shared(owner->shared, word);
      traced_race_ = {*race, lane, offset, dynamic};
      escape(SIGSEGV, Event::raced, thread->slot);
    }
  }
  const std::uintptr_t page = address & ~std::uintptr_t{4095};
  for (std::uintptr_t &open : open_pages_)
    if (open == 0 || open == page) {
      open = page;
      return mprotect(reinterpret_cast<void *>(page), 4096, PROT_READ | PROT_WRITE) == 0;
    }
  return false; // more pages than one instruction touches: not ours
}

bool BlockRunner::end_traced_step() noexcept {
  if (!trace_ || open_pages_[0] == 0)
    return false;
  for (std::uintptr_t &open : open_pages_)
    if (open != 0) {
      mprotect(reinterpret_cast<void *>(open), 4096, PROT_NONE);
      open = 0;
    }
  return true;
}

Failure BlockRunner::failure_of(std::uint32_t slot, std::string message) const {
  const BlockState &block = block_of_slot(slot);
  return Failure{block.block, slot - block.first_slot, std::move(message)};
}

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

// --- warps -----------------------------------------------------------------------------------

std::uint32_t BlockRunner::lanes_of_warp(std::uint32_t warp) const noexcept {
  const std::uint32_t lanes = std::min(kWarpSize, count_ - warp * kWarpSize);
  return lanes == kWarpSize ? ~0u : (1u << lanes) - 1;
}

std::uint32_t BlockRunner::warp_op(SimThread &thread, const WarpRequest &request) {
  const std::uint32_t lane = thread.linear % kWarpSize;
  const std::uint32_t warp = thread.linear / kWarpSize; // in the block
  const std::uint32_t bit = 1u << lane;
  const BlockState &block = *thread.home;
  if (!(request.mask & bit) && plan_->options.check)
    fail(thread, fmt::format("warp {} with mask 0x{:08x}, which does not include the calling lane {}",
                             describe_warp_op(request), request.mask, lane));
  // Lanes past the end of the block's last warp do not exist; they never arrive.
  const std::uint32_t group = (request.mask | bit) & lanes_of_warp(warp);
  ThreadState &state = threads_[thread.slot];
  state.warp = request;
  state.status = Status::in_warp_op;
  std::uint32_t &pending = warp_pending_[block.first_warp + warp];
  pending |= bit;
  if ((pending & group) == group)
    complete_warp_op(block, warp, group, thread.slot);
  else
    suspend(state);
  return state.warp_result;
}

std::uint32_t BlockRunner::active_mask(SimThread &thread, const CallSite &site) {
  ThreadState &state = threads_[thread.slot];
  const std::uint32_t warp = thread.home->first_warp + thread.linear / kWarpSize;
  state.status = Status::at_active_mask;
  state.active_site = site;
  active_pending_[warp] |= 1u << thread.linear % kWarpSize;
  settle_active_masks(warp, thread.slot);
  if (state.status == Status::at_active_mask)
    suspend(state);
  return state.warp_result;
}

void BlockRunner::settle_active_masks(std::uint32_t warp, std::uint32_t current) {
  std::uint32_t pending = active_pending_[warp];
  if (pending == 0) [[likely]]
    return;
  const BlockState &block = *blocks_[warp / warps_per_block_];
  const std::uint32_t base = block.first_slot + (warp - block.first_warp) * kWarpSize;
  for (std::uint32_t lanes = lanes_of_warp(warp - block.first_warp); lanes != 0; lanes &= lanes - 1) {
    const Status status = threads_[base + static_cast<std::uint32_t>(std::countr_zero(lanes))].status;
    if (status == Status::running || status == Status::ready || status == Status::unstarted)
      return; // a lane that may still reach the call
  }
  const CallSite *first = nullptr;
  for (std::uint32_t lanes = pending; lanes != 0; lanes &= lanes - 1) {
    const CallSite &site = threads_[base + static_cast<std::uint32_t>(std::countr_zero(lanes))].active_site;
    if (!first || CallSite::earlier(site, *first))
      first = &site;
  }
  std::uint32_t group = 0;
  for (std::uint32_t lanes = pending; lanes != 0; lanes &= lanes - 1) {
    const std::uint32_t lane = static_cast<std::uint32_t>(std::countr_zero(lanes));
    if (threads_[base + lane].active_site == *first)
      group |= 1u << lane;
  }
  for (std::uint32_t lanes = group; lanes != 0; lanes &= lanes - 1) {
    const std::uint32_t slot = base + static_cast<std::uint32_t>(std::countr_zero(lanes));
    ThreadState &state = threads_[slot];
    state.warp_result = group;
    if (slot == current) {
      state.status = Status::running;
    } else {
      state.status = Status::ready;
      ready_.push_back(slot);
    }
  }
  active_pending_[warp] = pending & ~group;
}

void BlockRunner::complete_warp_op(const BlockState &block, std::uint32_t warp, std::uint32_t group,
                                   std::uint32_t current) {
  const std::uint32_t base = block.first_slot + warp * kWarpSize;
  const WarpRequest &reference = threads_[current].warp;
  std::array<std::uint32_t, kWarpSize> values{};
  for (std::uint32_t lanes = group; lanes != 0; lanes &= lanes - 1) {
    const std::uint32_t lane = static_cast<std::uint32_t>(std::countr_zero(lanes));
    const WarpRequest &request = threads_[base + lane].warp;
    if (plan_->options.check && (request.kind != reference.kind || request.mode != reference.mode ||
                                 request.mask != reference.mask || request.width != reference.width))
      fail_thread(current,
                  fmt::format("divergent warp operation: the thread calls warp {} with mask 0x{:08x} "
                              "while lane {} calls warp {} with mask 0x{:08x}",
                              describe_warp_op(reference), reference.mask, lane, describe_warp_op(request),
                              request.mask));
    values[lane] = request.value;
  }
  if (check_ && reference.kind == WarpOpKind::shuffle)
    check_shuffle_sources(warp, group, base);
  for (std::uint32_t lanes = group; lanes != 0; lanes &= lanes - 1) {
    const std::uint32_t lane = static_cast<std::uint32_t>(std::countr_zero(lanes));
    ThreadState &state = threads_[base + lane];
    state.warp_result = warp_result(lane, state.warp, group, values);
    if (base + lane == current) {
      state.status = Status::running;
    } else {
      state.status = Status::ready;
      ready_.push_back(base + lane);
    }
  }
  warp_pending_[block.first_warp + warp] &= ~group;
  // warp::sync orders the memory accesses of its lanes (a shuffle or vote does not).
  if (check_ && reference.kind == WarpOpKind::sync)
    new_epochs(block.first_warp + warp, 1);
}

void BlockRunner::new_epochs(std::uint32_t first, std::uint32_t count) noexcept {
  for (std::uint32_t w = first; w < first + count; ++w)
    warp_epochs_[w] = ++last_epoch_;
}

void BlockRunner::check_shared_access(SimThread &thread, const void *address, std::uint64_t bytes, bool write,
                                      const char *where) {
  if (!check_ || bytes == 0)
    return;
  BlockState &block = *thread.home;
  const auto *p = static_cast<const std::byte *>(address);
  if (!block.shared.locate(address))
    return; // not shared memory (or another block's, through map_shared)
  const std::uint32_t lane = thread.linear % kWarpSize;
  const std::uint64_t epoch = warp_epochs_[block.first_warp + thread.linear / kWarpSize];
  const auto first = reinterpret_cast<std::uintptr_t>(p) & ~std::uintptr_t{3};
  const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(p) + bytes;
  for (std::uintptr_t word = first; word < end; word += 4)
    if (const auto race = warp_races_.access(word, epoch, lane, write)) {
      const auto [offset, dynamic] = place_in_shared(block.shared, word);
      fail(thread, describe_warp_race(*race, lane, offset, dynamic, where));
    }
}

void BlockRunner::check_shuffle_sources(std::uint32_t warp, std::uint32_t group, std::uint32_t base) {
  // On the GPU a lane that reads a lane outside the group (not in the mask, or not there at
  // all) gets an undefined value; here it gets its own (warp_result), which hides the bug.
  const std::uint32_t existing = lanes_of_warp(warp);
  for (std::uint32_t lanes = group; lanes != 0; lanes &= lanes - 1) {
    const std::uint32_t lane = static_cast<std::uint32_t>(std::countr_zero(lanes));
    const WarpRequest &request = threads_[base + lane].warp;
    const std::uint32_t source = shuffle_source(lane, request.mode, request.arg, request.width);
    if (source >= kWarpSize || (group >> source & 1u))
      continue;
    // One string, moved into the failure: locals of an abandoned fiber are never destroyed.
    std::string message = fmt::format("warp {} (mask 0x{:08x}): lane {} reads lane {}, ",
                                      describe_warp_op(request), request.mask, lane, source);
    if (existing >> source & 1u)
      message += "which is not in the mask";
    else
      message +=
          fmt::format("which does not exist (the block's last warp has {} lanes)", std::popcount(existing));
    message += "; on the GPU the value it gets is undefined (here: its own)";
    fail_thread(base + lane, std::move(message));
  }
}

// --- shared memory and checks ---------------------------------------------------------------

void *BlockRunner::shared_alloc(SimThread &thread, std::size_t bytes, std::size_t align, const void *site) {
  SharedMemory &shared = thread.home->shared;
  void *memory = shared.allocate(site, bytes, align);
  if (!memory)
    fail(thread,
         fmt::format("shared memory: a {}-byte array on top of {} bytes of static and {} of dynamic "
                     "shared memory exceeds the {} bytes per block of the CPU simulator",
                     bytes, shared.static_bytes(), shared.dynamic_bytes(), SharedMemory::kLimitBytes));
  return memory;
}

void *BlockRunner::map_shared(SimThread &thread, void *address, std::uint32_t rank) {
  // A cooperative launch (or one without clusters) has clusters of one block.
  const std::uint32_t cluster_blocks = plan_->cooperative ? 1 : members_;
  if (rank >= cluster_blocks)
    fail(thread, fmt::format("cluster::map_shared: block rank {} is outside the cluster of {} block{}", rank,
                             cluster_blocks, cluster_blocks == 1 ? "" : "s"));
  BlockState &home = *thread.home;
  const std::optional<SharedMemory::Location> location = home.shared.locate(address);
  if (!location)
    fail(thread, fmt::format("cluster::map_shared: address {} is not in the block's shared memory (a "
                             "shared_array or dynamic_shared)",
                             fmt::ptr(address)));
  BlockState &target = cluster_blocks == 1 ? home : *blocks_[rank];
  if (plan_->options.check && target.exited == count_ && &target != &home)
    fail(thread, fmt::format("cluster::map_shared: block {} (rank {} of the cluster) has exited, so its "
                             "shared memory is gone; call cluster::sync() before a block exits while "
                             "others may still use its shared memory",
                             describe_block(target), rank));
  if (!location->site)
    return static_cast<std::byte *>(target.shared.dynamic_base()) + location->offset;
  // Static shared memory exists from the start of a block on the GPU: allocate the array in
  // the other block if none of its threads has reached the declaration yet.
  void *array = target.shared.allocate(location->site, location->bytes, location->align);
  if (!array)
    fail(thread,
         fmt::format("shared memory: a {}-byte array on top of {} bytes of static and {} of dynamic shared "
                     "memory of block {} exceeds the {} bytes per block of the CPU simulator",
                     location->bytes, target.shared.static_bytes(), target.shared.dynamic_bytes(),
                     describe_block(target), SharedMemory::kLimitBytes));
  return static_cast<std::byte *>(array) + location->offset;
}

void BlockRunner::claim_checked(SimThread &thread, const void *data, std::size_t element,
                                const std::array<std::size_t, 3> &coordinates, unsigned rank) {
  const auto other = plan_->claims->claim(data, element, {thread.home->block, thread.linear});
  if (!other) {
    // Extend the thread's run of claimed elements, or start a new one.
    if (thread.claimed_data != data || element != thread.claimed_end) {
      thread.claimed_data = data;
      thread.claimed_first = element;
    }
    thread.claimed_end = element + 1;
    return;
  }
  // Row-major, as the span indexes it: [y][x] for a 2-D span.
  std::string where = fmt::format("{}", coordinates[0]);
  if (rank >= 2)
    where = fmt::format("[{}][{}]", coordinates[1], coordinates[0]);
  if (rank == 3)
    where = fmt::format("[{}]{}", coordinates[2], where);
  // The other thread's coordinates, from its linear indices and the launch's shape.
  const LaunchGeometry &g = plan_->geometry;
  const std::uint64_t b = other->block;
  const std::uint32_t t = other->thread;
  fail(thread,
       fmt::format("two threads write element {} of a DisjointSpan: this thread and thread ({},{},{}) of "
                   "block ({},{},{})",
                   where, t % g.block.x, t / g.block.x % g.block.y, t / (g.block.x * g.block.y), b % g.grid.x,
                   b / g.grid.x % g.grid.y, b / (std::uint64_t(g.grid.x) * g.grid.y)));
}

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
    else if (other.status == Status::at_mbarrier)
      message = fmt::format("deadlock: {} waits for lane {}, which waits at an mbarrier: {}", op, lane,
                            describe_mbarrier_deadlock(other));
    else
      message = fmt::format("deadlock: {} waits for lane {}, which waits in warp {} (mask 0x{:08x})", op,
                            lane, describe_warp_op(other.warp), other.warp.mask);
    failure_ = failure_of(t, std::move(message));
    return;
  }
  // A thread waiting at an mbarrier whose phase cannot complete any more, before the barriers
  // it holds up.
  for (std::uint32_t t = 0; t < total_; ++t)
    if (threads_[t].status == Status::at_mbarrier) {
      failure_ = failure_of(t, "deadlock: " + describe_mbarrier_deadlock(threads_[t]));
      return;
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

// --- mbarriers and TMA copies (sim/hopper.cpp) -----------------------------------------------

void BlockRunner::mbarrier_wait(SimThread &thread, const std::uint64_t *bar, std::uint32_t parity) {
  ThreadState &state = threads_[thread.slot];
  state.status = Status::at_mbarrier;
  state.mbarrier = bar;
  state.mbarrier_parity = parity;
  mbarrier_waiters_.push_back(thread.slot);
  suspend(state);
}

void BlockRunner::mbarrier_completed(const std::uint64_t *bar) {
  std::erase_if(mbarrier_waiters_, [&](std::uint32_t t) {
    ThreadState &state = threads_[t];
    if (state.mbarrier != bar)
      return false;
    state.status = Status::ready;
    state.mbarrier = nullptr;
    ready_.push_back(t);
    return true;
  });
}

bool BlockRunner::mbarrier_in_use(const std::uint64_t *bar) const noexcept {
  for (std::uint32_t t : mbarrier_waiters_)
    if (threads_[t].mbarrier == bar)
      return true;
  return std::any_of(copies_.begin(), copies_.end(), [&](const TmaCopy &copy) { return copy.bar == bar; });
}

void BlockRunner::defer_copy(const TmaCopy &copy) { copies_.push_back(copy); }

template <class Which> void BlockRunner::land_queued(Which which) {
  // Taken out first: landing wakes threads but queues nothing.
  std::vector<TmaCopy> landing;
  std::erase_if(copies_, [&](const TmaCopy &copy) {
    if (!which(copy))
      return false;
    landing.push_back(copy);
    return true;
  });
  const OwnAccess access(*this);
  for (const TmaCopy &copy : landing) {
    bool completed = false;
    if (std::string error = land(copy, completed); !error.empty()) {
      if (!failure_)
        failure_ = failure_of(copy.issuer, std::move(error));
      return;
    }
    if (completed)
      mbarrier_completed(copy.bar);
  }
}

void BlockRunner::land_copies(SimThread &thread, const std::uint64_t *bar) {
  if (copies_.empty())
    return;
  land_queued([bar](const TmaCopy &copy) { return copy.bar == bar; });
  if (failure_) // the issuer's, reported from the waiter's fiber
    leave_fiber({Event::failed, thread.slot, nullptr});
}

bool BlockRunner::land_all_copies() {
  if (copies_.empty())
    return false;
  land_queued([](const TmaCopy &) { return true; });
  return true;
}

BlockState *BlockRunner::owner_of(const void *address) const noexcept {
  for (std::uint32_t member = 0; member < members_; ++member)
    if (blocks_[member]->shared.in_arena(address))
      return blocks_[member].get();
  return nullptr;
}

BlockRunner::OwnAccess::OwnAccess(BlockRunner &runner) noexcept : runner_(runner) {
  if (runner_.trace_)
    for (std::uint32_t member = 0; member < runner_.members_; ++member)
      runner_.blocks_[member]->shared.protect(false);
}

BlockRunner::OwnAccess::~OwnAccess() {
  if (runner_.trace_)
    for (std::uint32_t member = 0; member < runner_.members_; ++member)
      runner_.blocks_[member]->shared.protect(true);
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
