// Runs one block of a simulated launch: its threads as fibers on the calling host thread.
//
// Threads start in order on a fiber and run until they finish or wait (at a barrier or in a
// warp operation); the fiber then goes on with the next thread that has not started, so a
// kernel that never waits runs its whole block on one fiber, and a block needs as many stacks
// as it has threads waiting at once. A thread that waits switches straight to the next one that
// can run (resumed, or started on a new fiber); only when none can does it switch back to the
// host stack. Then, if some threads have not finished, the block is deadlocked (or diverged):
// it fails with a report instead of hanging.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/fiber.hpp"
#include "sim/launch_plan.hpp"
#include "sim/shared_memory.hpp"
#include "sim/sim_thread.hpp"
#include "sim/warp_ops.hpp"

namespace oxide::detail::sim {

class BlockRunner {
public:
  BlockRunner() = default;
  BlockRunner(const BlockRunner &) = delete;
  BlockRunner &operator=(const BlockRunner &) = delete;

  /// The runner of the calling host thread, reused for every block it runs.
  [[nodiscard]] static BlockRunner &for_this_thread();

  /// Runs block `block` (linear index) of `plan` to completion; the failure that stopped it, if any.
  [[nodiscard]] std::optional<Failure> run(LaunchPlan &plan, std::uint64_t block);

  // What the intrinsics do, called on the fiber of the running thread `thread`.
  void sync_threads(SimThread &thread);
  [[nodiscard]] std::uint32_t warp_op(SimThread &thread, const WarpRequest &request);
  [[nodiscard]] void *shared_alloc(SimThread &thread, std::size_t bytes, std::size_t align, const void *site);
  [[nodiscard]] void *dynamic_shared() noexcept { return shared_.dynamic_base(); }
  [[nodiscard]] std::uint32_t dynamic_shared_size() const noexcept {
    return static_cast<std::uint32_t>(shared_.dynamic_bytes());
  }
  /// The checking mode's record of DisjointSpan writes: `thread` takes element `element` (at
  /// `coordinates`, of a span of rank `rank`) of the span whose data starts at `data`; a second
  /// thread taking it fails the block. Does nothing outside the checking mode.
  void claim(SimThread &thread, const void *data, std::size_t element,
             const std::array<std::size_t, 3> &coordinates, unsigned rank) {
    if (plan_->claims) [[unlikely]]
      claim_checked(thread, data, element, coordinates, rank);
  }
  /// Stops the block: records the failure of `thread` and abandons every fiber.
  [[noreturn]] void fail(const SimThread &thread, std::string message);

private:
  enum class Status : std::uint8_t { running, ready, at_barrier, in_warp_op, exited };

  struct ThreadState {
    SimThread sim;
    Status status = Status::running;
    FiberStack *stack = nullptr;  ///< the fiber the thread runs on
    fcontext_t context = nullptr; ///< where it resumes, while it waits
    WarpRequest warp;
    std::uint32_t warp_result = 0;
  };

  /// What the side that switched away was doing, for the side that is switched to.
  struct Event {
    enum Kind : std::uint8_t { from_host, suspended, fiber_done, failed } kind = from_host;
    std::uint32_t thread = 0;    ///< suspended: the thread, to resume later
    FiberStack *stack = nullptr; ///< fiber_done: the stack, free again
  };

  static void fiber_main(transfer_t transfer);
  [[noreturn]] void run_threads(FiberStack *stack);
  void start_thread(std::uint32_t linear, FiberStack *stack);
  /// The next fiber to run: a ready thread, else a new fiber for the next unstarted thread, else
  /// nothing (nullopt) when neither exists or a new stack cannot be had.
  [[nodiscard]] std::optional<SwitchTarget> next_target();
  /// Switches from the current stack to `target` after `event`; records what the side that
  /// switches back was doing.
  void switch_to(const SwitchTarget &target, Event event);
  void arrived(transfer_t transfer);
  void suspend(ThreadState &thread);
  [[noreturn]] void leave_fiber(Event event);
  void thread_exited(ThreadState &thread);
  [[noreturn]] void fail_thread(std::uint32_t thread, std::string message);

  [[nodiscard]] bool barrier_complete() const noexcept;
  void release_barrier(std::uint32_t current);
  [[nodiscard]] std::uint32_t lanes_of_warp(std::uint32_t warp) const noexcept;
  void complete_warp_op(std::uint32_t warp, std::uint32_t group, std::uint32_t current);
  void claim_checked(SimThread &thread, const void *data, std::size_t element,
                     const std::array<std::size_t, 3> &coordinates, unsigned rank);
  void diagnose_stall();
  void release_stacks() noexcept;

  [[nodiscard]] std::string describe_thread(std::uint32_t linear) const;
  [[nodiscard]] std::string describe_warp_op(const WarpRequest &request) const;

  LaunchPlan *plan_ = nullptr;
  StackPool *stacks_ = nullptr;
  BlockGeometry geometry_;
  std::uint64_t block_ = 0;
  std::uint32_t count_ = 0;       ///< threads in the block
  std::size_t index_1d_base_ = 0; ///< blockIdx.x * blockDim.x
  bool one_dimensional_ = true;   ///< blockDim.y == blockDim.z == 1
  std::vector<ThreadState> threads_;
  std::uint32_t next_unstarted_ = 0;
  std::uint32_t exited_ = 0;
  std::vector<std::uint32_t> barrier_waiters_;
  std::vector<std::uint32_t> warp_pending_; ///< per warp: lanes waiting in a warp operation
  std::vector<std::uint32_t> ready_;
  std::size_t ready_head_ = 0;
  std::vector<FiberStack *> stacks_in_use_;
  FiberStack *starting_stack_ = nullptr; ///< for the fiber being started
  fcontext_t host_ = nullptr;            ///< the host stack, where fibers switch back to
  Event event_;
  std::optional<Failure> failure_;
  SharedMemory shared_;
};

} // namespace oxide::detail::sim
