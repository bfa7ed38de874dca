#include "sim/block_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <exception>

namespace oxide::detail::sim {

constinit thread_local SimThread *current_sim_thread __attribute__((tls_model("initial-exec"))) = nullptr;

BlockRunner &BlockRunner::for_this_thread() {
  thread_local BlockRunner runner;
  return runner;
}

std::optional<Failure> BlockRunner::run(LaunchPlan &plan, std::uint64_t block) {
  plan_ = &plan;
  stacks_ = &StackPool::for_this_thread();
  const LaunchGeometry &g = plan.geometry;
  block_ = block;
  geometry_.block_idx[0] = static_cast<std::uint32_t>(block % g.grid.x);
  geometry_.block_idx[1] = static_cast<std::uint32_t>(block / g.grid.x % g.grid.y);
  geometry_.block_idx[2] = static_cast<std::uint32_t>(block / (std::uint64_t(g.grid.x) * g.grid.y));
  geometry_.block_dim[0] = g.block.x;
  geometry_.block_dim[1] = g.block.y;
  geometry_.block_dim[2] = g.block.z;
  geometry_.grid_dim[0] = g.grid.x;
  geometry_.grid_dim[1] = g.grid.y;
  geometry_.grid_dim[2] = g.grid.z;
  count_ = static_cast<std::uint32_t>(g.threads_per_block());
  index_1d_base_ = std::size_t{geometry_.block_idx[0]} * g.block.x;
  one_dimensional_ = g.block.y == 1 && g.block.z == 1;
  if (threads_.size() < count_)
    threads_.resize(count_);
  warp_pending_.assign((count_ + kWarpSize - 1) / kWarpSize, 0);
  next_unstarted_ = 0;
  exited_ = 0;
  barrier_waiters_.clear();
  ready_.clear();
  ready_head_ = 0;
  failure_.reset();
  shared_.reset(g.dynamic_shared_bytes, plan.options.check);

  // The host stack runs the first fiber, and takes over again only when no fiber can run.
  while (!failure_ && exited_ < count_) {
    if (const std::optional<SwitchTarget> target = next_target())
      switch_to(*target, {Event::from_host});
    else if (!failure_)
      diagnose_stall();
  }
  release_stacks();
  current_sim_thread = nullptr;
  return std::move(failure_);
}

std::optional<SwitchTarget> BlockRunner::next_target() {
  if (ready_head_ < ready_.size()) {
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
  if (next_unstarted_ == count_)
    return std::nullopt;
  FiberStack *stack = nullptr;
  try {
    stack = stacks_->acquire(plan_->options.stack_bytes);
  } catch (const std::exception &e) {
    if (!failure_)
      failure_ = Failure{block_, next_unstarted_, e.what()};
    return std::nullopt;
  }
  stacks_in_use_.push_back(stack);
  starting_stack_ = stack;
  return FiberSwitch::make(*stack, &BlockRunner::fiber_main);
}

void BlockRunner::switch_to(const SwitchTarget &target, Event event) {
  event_ = event;
  arrived(FiberSwitch::jump(target, this, event.kind == Event::fiber_done || event.kind == Event::failed));
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
    break; // the fiber is abandoned; its stack is released with the others
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
  while (next_unstarted_ < count_) {
    const std::uint32_t linear = next_unstarted_++;
    start_thread(linear, stack);
    ThreadState &state = threads_[linear];
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
      fail_thread(linear, std::move(thrown));
    thread_exited(state);
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

void BlockRunner::start_thread(std::uint32_t linear, FiberStack *stack) {
  ThreadState &state = threads_[linear];
  state.status = Status::running;
  state.stack = stack;
  SimThread &sim = state.sim;
  sim.linear = linear;
  if (one_dimensional_) {
    sim.thread_idx[0] = linear;
    sim.thread_idx[1] = sim.thread_idx[2] = 0;
  } else {
    sim.thread_idx[0] = linear % geometry_.block_dim[0];
    sim.thread_idx[1] = linear / geometry_.block_dim[0] % geometry_.block_dim[1];
    sim.thread_idx[2] = linear / (geometry_.block_dim[0] * geometry_.block_dim[1]);
  }
  sim.index_1d = index_1d_base_ + sim.thread_idx[0];
  sim.geometry = &geometry_;
  sim.block = this;
}

void BlockRunner::suspend(ThreadState &thread) {
  const std::optional<SwitchTarget> target = next_target();
  switch_to(target ? *target : FiberSwitch::host(host_), {Event::suspended, thread.sim.linear, nullptr});
  current_sim_thread = &thread.sim;
}

void BlockRunner::thread_exited(ThreadState &thread) {
  thread.status = Status::exited;
  ++exited_;
  // Outside the checking mode a thread that exits no longer holds up a barrier, as on GPUs
  // in practice; the checking mode reports the barrier as divergent instead (diagnose_stall).
  if (!plan_->options.check && !barrier_waiters_.empty() && barrier_complete())
    release_barrier(thread.sim.linear);
}

void BlockRunner::fail(const SimThread &thread, std::string message) {
  fail_thread(thread.linear, std::move(message));
}

void BlockRunner::fail_thread(std::uint32_t thread, std::string message) {
  failure_ = Failure{block_, thread, std::move(message)};
  leave_fiber({Event::failed, thread, nullptr});
}

// --- barriers --------------------------------------------------------------------------------

bool BlockRunner::barrier_complete() const noexcept {
  const std::size_t arrived = barrier_waiters_.size() + (plan_->options.check ? 0 : exited_);
  return arrived == count_;
}

void BlockRunner::sync_threads(SimThread &thread) {
  ThreadState &state = threads_[thread.linear];
  state.status = Status::at_barrier;
  barrier_waiters_.push_back(thread.linear);
  if (barrier_complete())
    release_barrier(thread.linear);
  else
    suspend(state);
}

void BlockRunner::release_barrier(std::uint32_t current) {
  // Like bar.sync 0, any sync_threads call completes the barrier: telling calls apart by their
  // return address fails when the optimizer duplicates one call into several branches.
  for (std::uint32_t t : barrier_waiters_) {
    ThreadState &state = threads_[t];
    if (t == current) {
      state.status = Status::running;
    } else {
      state.status = Status::ready;
      ready_.push_back(t);
    }
  }
  barrier_waiters_.clear();
}

// --- warps -----------------------------------------------------------------------------------

std::uint32_t BlockRunner::lanes_of_warp(std::uint32_t warp) const noexcept {
  const std::uint32_t lanes = std::min(kWarpSize, count_ - warp * kWarpSize);
  return lanes == kWarpSize ? ~0u : (1u << lanes) - 1;
}

std::uint32_t BlockRunner::warp_op(SimThread &thread, const WarpRequest &request) {
  const std::uint32_t lane = thread.linear % kWarpSize;
  const std::uint32_t warp = thread.linear / kWarpSize;
  const std::uint32_t bit = 1u << lane;
  if (!(request.mask & bit) && plan_->options.check)
    fail(thread, fmt::format("warp {} with mask 0x{:08x}, which does not include the calling lane {}",
                             describe_warp_op(request), request.mask, lane));
  // Lanes past the end of the block's last warp do not exist; they never arrive.
  const std::uint32_t group = (request.mask | bit) & lanes_of_warp(warp);
  ThreadState &state = threads_[thread.linear];
  state.warp = request;
  state.status = Status::in_warp_op;
  warp_pending_[warp] |= bit;
  if ((warp_pending_[warp] & group) == group)
    complete_warp_op(warp, group, thread.linear);
  else
    suspend(state);
  return state.warp_result;
}

void BlockRunner::complete_warp_op(std::uint32_t warp, std::uint32_t group, std::uint32_t current) {
  const std::uint32_t base = warp * kWarpSize;
  const WarpRequest &reference = threads_[current].warp;
  std::array<std::uint32_t, kWarpSize> values{};
  for (std::uint32_t lanes = group; lanes != 0; lanes &= lanes - 1) {
    const std::uint32_t lane = static_cast<std::uint32_t>(std::countr_zero(lanes));
    const WarpRequest &request = threads_[base + lane].warp;
    if (plan_->options.check &&
        (request.kind != reference.kind || request.mode != reference.mode || request.mask != reference.mask))
      fail_thread(current,
                  fmt::format("divergent warp operation: the thread calls warp {} with mask 0x{:08x} "
                              "while lane {} calls warp {} with mask 0x{:08x}",
                              describe_warp_op(reference), reference.mask, lane, describe_warp_op(request),
                              request.mask));
    values[lane] = request.value;
  }
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
  warp_pending_[warp] &= ~group;
}

// --- shared memory and checks ---------------------------------------------------------------

void *BlockRunner::shared_alloc(SimThread &thread, std::size_t bytes, std::size_t align, const void *site) {
  void *memory = shared_.allocate(site, bytes, align);
  if (!memory)
    fail(thread,
         fmt::format("shared memory: a {}-byte array on top of {} bytes of static and {} of dynamic "
                     "shared memory exceeds the {} bytes per block of the CPU simulator",
                     bytes, shared_.static_bytes(), shared_.dynamic_bytes(), SharedMemory::kLimitBytes));
  return memory;
}

void BlockRunner::claim_checked(SimThread &thread, const void *data, std::size_t element,
                                const std::array<std::size_t, 3> &coordinates, unsigned rank) {
  const auto other = plan_->claims->claim(data, element, {block_, thread.linear});
  if (!other)
    return;
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
  // arrive. Report the first waiting thread and what it waits for.
  for (std::uint32_t t = 0; t < count_; ++t) {
    const ThreadState &state = threads_[t];
    if (state.status != Status::in_warp_op)
      continue;
    const std::uint32_t warp = t / kWarpSize;
    const std::uint32_t group = (state.warp.mask | 1u << (t % kWarpSize)) & lanes_of_warp(warp);
    const std::uint32_t missing = group & ~warp_pending_[warp];
    const std::uint32_t lane = static_cast<std::uint32_t>(std::countr_zero(missing));
    const ThreadState &other = threads_[warp * kWarpSize + lane];
    const std::string op =
        fmt::format("warp {} (mask 0x{:08x})", describe_warp_op(state.warp), state.warp.mask);
    std::string message;
    if (other.status == Status::exited)
      message = fmt::format("{} waits for lane {}, which has exited", op, lane);
    else if (other.status == Status::at_barrier)
      message = fmt::format("deadlock: {} waits for lane {}, which waits at sync_threads", op, lane);
    else
      message = fmt::format("deadlock: {} waits for lane {}, which waits in warp {} (mask 0x{:08x})", op,
                            lane, describe_warp_op(other.warp), other.warp.mask);
    failure_ = Failure{block_, t, std::move(message)};
    return;
  }
  if (barrier_waiters_.empty()) { // unreachable: every unfinished thread waits somewhere
    failure_ = Failure{block_, 0, "internal error: the block stalled with no thread waiting"};
    return;
  }
  const std::uint32_t waiting = *std::min_element(barrier_waiters_.begin(), barrier_waiters_.end());
  std::uint32_t first_exited = 0;
  while (first_exited < count_ && threads_[first_exited].status != Status::exited)
    ++first_exited;
  failure_ = Failure{block_, waiting,
                     fmt::format("divergent barrier: {} threads of the block exited without reaching the "
                                 "sync_threads this thread waits at (first: thread {})",
                                 exited_, describe_thread(first_exited))};
}

std::string BlockRunner::describe_thread(std::uint32_t linear) const {
  const std::uint32_t x = geometry_.block_dim[0], y = geometry_.block_dim[1];
  return fmt::format("({},{},{})", linear % x, linear / x % y, linear / (x * y));
}

std::string BlockRunner::describe_warp_op(const WarpRequest &request) const {
  static constexpr const char *kShuffles[] = {"shuffle", "shuffle_up", "shuffle_down", "shuffle_xor"};
  static constexpr const char *kVotes[] = {"all", "any", "ballot"};
  switch (request.kind) {
  case WarpOpKind::shuffle:
    return request.mode < 4 ? kShuffles[request.mode] : "shuffle";
  case WarpOpKind::vote:
    return request.mode < 3 ? kVotes[request.mode] : "vote";
  case WarpOpKind::sync:
    break;
  }
  return "sync";
}

} // namespace oxide::detail::sim
