// Runs one group of blocks of a simulated launch: their threads as fibers on the calling host
// thread. A group is one block, except in launches whose threads meet at a barrier wider than a
// block: the blocks of one thread-block cluster (cluster::sync, distributed shared memory), or
// every block of a cooperative launch (grid::sync). See LaunchPlan.
//
// Threads start in order (block by block) on a fiber and run until they finish or wait (at a
// barrier or in a warp operation); the fiber then goes on with the next thread that has not
// started, so a kernel that never waits runs its whole block on one fiber, and a group needs as
// many stacks as it has threads waiting at once. A thread that waits switches straight to the
// next one that can run (resumed, or started on a new fiber); only when none can does it switch
// back to the host stack. Then, if some threads have not finished, the group is deadlocked (or
// diverged): it fails with a report instead of hanging.
//
// The implementation, by concern: block_runner.cpp (starting, switching and failing threads),
// block_runner_barriers.cpp, block_runner_warps.cpp, block_runner_shared.cpp (shared memory and
// its checks), block_runner_mbarriers.cpp (mbarrier waits, queued TMA copies) and
// block_runner_reports.cpp (what a stalled group reports).
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/fiber.hpp"
#include "sim/hopper.hpp"
#include "sim/kernel_faults.hpp"
#include "sim/launch_plan.hpp"
#include "sim/schedule.hpp"
#include "sim/shared_memory.hpp"
#include "sim/sim_thread.hpp"
#include "sim/warp_ops.hpp"
#include "sim/warp_races.hpp"

namespace oxide::detail::sim {

/// One block of the group a runner runs: what its threads share and its block barrier.
struct BlockState {
  BlockGeometry geometry;
  std::uint64_t block = 0;                    ///< linear index in the grid
  std::size_t index_1d_base = 0;              ///< blockIdx.x * blockDim.x
  std::uint32_t member = 0;                   ///< its place in the group: its rank in its cluster
  std::uint32_t first_slot = 0;               ///< the slot of its thread 0
  std::uint32_t first_warp = 0;               ///< the group-wide index of its warp 0
  std::uint32_t exited = 0;                   ///< its threads that have finished
  std::vector<std::uint32_t> barrier_waiters; ///< slots of its threads at sync_threads
  /// Named barriers 1..15 (NamedBarrier): the threads still due and the slots waiting.
  struct NamedBarrier {
    std::uint32_t expected = 0, arrived = 0;
    std::vector<std::uint32_t> waiters;
  };
  std::array<NamedBarrier, 16> named;
  /// Per warpgroup (128 threads): its threads that issued the wgmma it is in the middle of.
  std::vector<NamedBarrier> warpgroups;
  SharedMemory shared;
};

/// Where a thread calls __oxide_active_mask: the user's source location (the host compile may
/// merge or duplicate the code of branches, so return addresses would not tell them apart).
struct CallSite {
  const char *file = "";
  std::uint32_t line = 0, column = 0;
  friend bool operator==(const CallSite &a, const CallSite &b) noexcept {
    return a.line == b.line && a.column == b.column && std::strcmp(a.file, b.file) == 0;
  }
  /// Whether `a` comes first in the source: the code of a branch before the code after it.
  [[nodiscard]] static bool earlier(const CallSite &a, const CallSite &b) noexcept {
    if (const int file = std::strcmp(a.file, b.file); file != 0)
      return file < 0;
    return a.line != b.line ? a.line < b.line : a.column < b.column;
  }
};

/// The barriers wider than a block.
enum class GroupBarrier : std::uint8_t { cluster, grid };

class BlockRunner {
public:
  BlockRunner() = default;
  BlockRunner(const BlockRunner &) = delete;
  BlockRunner &operator=(const BlockRunner &) = delete;

  /// The runner of the calling host thread, reused for every group it runs.
  [[nodiscard]] static BlockRunner &for_this_thread();

  /// Runs group `group` of `plan` (a block, a cluster or the grid; see LaunchPlan) to
  /// completion; the failure that stopped it, if any.
  [[nodiscard]] std::optional<Failure> run(LaunchPlan &plan, std::uint64_t group);

  // What the intrinsics do, called on the fiber of the running thread `thread`.
  void sync_threads(SimThread &thread);
  /// Named barrier `id` for `threads` threads: waits until that many have arrived (arrive:
  /// counts the caller and returns).
  void named_barrier(SimThread &thread, std::uint32_t id, std::uint32_t threads, bool arrive);
  /// A wgmma: waits until every thread of the caller's warpgroup has issued it. On the GPU a
  /// wgmma is one operation of the whole warpgroup, so once any thread sees it complete, every
  /// warp has read its operands (a pipeline may then release their stage).
  void warpgroup_rendezvous(SimThread &thread);
  /// cluster::sync() or grid::sync(): waits for every thread of the group.
  void group_sync(SimThread &thread, GroupBarrier barrier);
  [[nodiscard]] std::uint32_t warp_op(SimThread &thread, const WarpRequest &request);
  /// __oxide_active_mask called from `site`: the lanes of the warp that wait at the same site
  /// once no lane of the warp can run on without the others (each has blocked, at a warp
  /// operation, a barrier or this, or exited). Those are the lanes the GPU would run together:
  /// in divergent code, the ones that took the caller's branch. When lanes wait at several sites,
  /// the earliest in the code goes first (the others may still be on their way to the later ones,
  /// as after a nested branch).
  [[nodiscard]] std::uint32_t active_mask(SimThread &thread, const CallSite &site);
  [[nodiscard]] void *shared_alloc(SimThread &thread, std::size_t bytes, std::size_t align, const void *site);
  [[nodiscard]] void *dynamic_shared(SimThread &thread) const noexcept {
    return thread.home->shared.dynamic_base();
  }
  [[nodiscard]] std::uint32_t dynamic_shared_size(SimThread &thread) const noexcept {
    return static_cast<std::uint32_t>(thread.home->shared.dynamic_bytes());
  }
  /// `address` (in the calling block's shared memory) in the block of rank `rank` of the
  /// cluster; fails the block when `rank` is outside the cluster or `address` is not shared.
  [[nodiscard]] void *map_shared(SimThread &thread, void *address, std::uint32_t rank);
  /// The checking mode's record of DisjointSpan writes: `thread` takes element `element` (at
  /// `coordinates`, of a span of rank `rank`) of the span whose data starts at `data`; a second
  /// thread taking it fails the block. Does nothing outside the checking mode.
  void claim(SimThread &thread, const void *data, std::size_t element,
             const std::array<std::size_t, 3> &coordinates, unsigned rank) {
    if (plan_->claims) [[unlikely]]
      claim_checked(thread, data, element, coordinates, rank);
  }
  /// The checking mode's record of shared-memory accesses (sim/warp_races.hpp): fails the block
  /// when the access of `thread` races with one by another lane of its warp. Does nothing
  /// outside the checking mode or outside the block's shared memory.
  void check_shared_access(SimThread &thread, const void *address, std::uint64_t bytes, bool write,
                           const char *where);
  /// The launch whose group runs.
  [[nodiscard]] const LaunchPlan &plan() const noexcept { return *plan_; }
  /// Whether the checking mode is on.
  [[nodiscard]] bool checking() const noexcept { return check_; }

  // Hopper (sim/hopper.cpp): mbarrier waits and TMA copies.
  /// Suspends `thread`, whose try_wait found the phase of parity `parity` of `bar` incomplete,
  /// until that phase completes (mbarrier_completed). A phase that never completes is a
  /// deadlock, reported when no thread can run.
  void mbarrier_wait(SimThread &thread, const std::uint64_t *bar, std::uint32_t parity);
  /// `thread` has seen a phase of an mbarrier complete: in the checking mode, its warp's accesses
  /// before are ordered before those after (as at a barrier), for the warp-race checks.
  void mbarrier_acquired(SimThread &thread) noexcept {
    if (check_)
      new_epochs(thread.home->first_warp + thread.linear / kWarpSize, 1);
  }
  /// The current phase of `bar` has completed: the threads waiting for it can run.
  void mbarrier_completed(const std::uint64_t *bar);
  /// Whether a thread waits at `bar` or a queued copy completes it.
  [[nodiscard]] bool mbarrier_in_use(const std::uint64_t *bar) const noexcept;
  /// Queues a TMA copy; it lands when a thread waits at its barrier or no thread can run.
  void defer_copy(const TmaCopy &copy);
  /// Lands the queued copies of `bar`, for `thread`, which is about to wait at it.
  void land_copies(SimThread &thread, const std::uint64_t *bar);
  /// The block of the group whose shared memory holds `address`; null when none does.
  [[nodiscard]] BlockState *owner_of(const void *address) const noexcept;
  /// While tracing (OXIDE_SIM_WARP_RACES) protects shared memory, the simulator's own accesses
  /// to it (mbarrier words, TMA boxes, wgmma operands) happen inside this scope.
  class OwnAccess {
  public:
    explicit OwnAccess(BlockRunner &runner) noexcept;
    OwnAccess(const OwnAccess &) = delete;
    OwnAccess &operator=(const OwnAccess &) = delete;
    ~OwnAccess();

  private:
    BlockRunner &runner_;
  };
  /// Stops the group: records the failure of `thread` and abandons every fiber.
  [[noreturn]] void fail(const SimThread &thread, std::string message);
  /// Called by the signal handler of a fault (sim/kernel_faults.hpp) whose stack pointer was
  /// `stack_pointer`: when the fault is on the running thread's fiber (or its stack overflowed),
  /// fails that thread and switches straight to the host stack, never returning; else returns.
  /// Async-signal-safe: the failure's message is made on the host stack.
  void escape_fault(KernelFault fault, std::uintptr_t stack_pointer) noexcept;
  /// Called by the watchdog's signal handler (sim/spin_watch.hpp) on a thread that spins
  /// forever at `pc`: when the handler interrupted the running thread's fiber, fails that thread
  /// (as `abandoned`: after another block failed) and switches to the host stack; else returns.
  void escape_spin(std::uintptr_t pc, std::uintptr_t stack_pointer, bool abandoned) noexcept;
  /// OXIDE_SIM_WARP_RACES: called by the SIGSEGV handler for a fault at `address`. When it is an
  /// access of the group's (protected) shared memory, records it as check_shared_access does and
  /// opens its page, so that the handler lets the instruction run one step; false otherwise. A
  /// race fails the thread and switches to the host stack, never returning.
  [[nodiscard]] bool trace_access(std::uintptr_t address, bool write) noexcept;
  /// SIGTRAP after that step: closes the pages again; false when none was open.
  [[nodiscard]] bool end_traced_step() noexcept;

private:
  enum class Status : std::uint8_t {
    running,
    ready,
    at_barrier,
    at_named_barrier,
    at_warpgroup,
    at_group_barrier,
    in_warp_op,
    at_mbarrier,
    at_active_mask,
    exited,
    unstarted
  };

  struct ThreadState {
    SimThread sim;
    Status status = Status::running;
    FiberStack *stack = nullptr;  ///< the fiber the thread runs on
    fcontext_t context = nullptr; ///< where it resumes, while it waits
    WarpRequest warp;
    std::uint32_t warp_result = 0;
    const std::uint64_t *mbarrier = nullptr; ///< at_mbarrier: the barrier...
    std::uint32_t mbarrier_parity = 0;       ///< ... and the parity of the phase it waits for
    CallSite active_site;                    ///< at_active_mask: the call site
  };

  /// What the side that switched away was doing, for the side that is switched to.
  struct Event {
    enum Kind : std::uint8_t {
      from_host,
      suspended,
      fiber_done,
      failed,
      faulted,
      raced,
      spun
    } kind = from_host;
    std::uint32_t thread = 0;    ///< suspended: the thread's slot, to resume later
    FiberStack *stack = nullptr; ///< fiber_done: the stack, free again
  };

  static void fiber_main(transfer_t transfer);
  void start_block(BlockState &block, std::uint64_t index, std::uint32_t member);
  [[noreturn]] void run_threads(FiberStack *stack);
  void start_thread(std::uint32_t slot, FiberStack *stack);
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
  [[noreturn]] void fail_thread(std::uint32_t slot, std::string message);

  [[nodiscard]] bool barrier_complete(const BlockState &block) const noexcept;
  /// Makes the threads of `waiters` go on (`current`, the caller, runs; the others are ready)
  /// and empties it.
  void wake(std::vector<std::uint32_t> &waiters, std::uint32_t current);
  void release_barrier(BlockState &block, std::uint32_t current);
  void release_named_barrier(BlockState &block, BlockState::NamedBarrier &barrier, std::uint32_t current);
  [[nodiscard]] bool group_barrier_complete() const noexcept;
  /// Threads of the group that have finished.
  [[nodiscard]] std::uint32_t exited() const noexcept;
  void release_group_barrier(std::uint32_t current);
  [[nodiscard]] std::uint32_t lanes_of_warp(std::uint32_t warp) const noexcept;
  void complete_warp_op(const BlockState &block, std::uint32_t warp, std::uint32_t group,
                        std::uint32_t current);
  /// Answers the active-mask calls at the earliest site of warp `warp` (of the group) once none of
  /// its lanes can run; `current` (a slot) goes on running, the others become ready.
  void settle_active_masks(std::uint32_t warp, std::uint32_t current);
  /// Checking mode: fails the first lane of `group` (warp `warp`, whose lane 0 is slot `base`)
  /// whose shuffle reads a lane outside the group.
  void check_shuffle_sources(std::uint32_t warp, std::uint32_t group, std::uint32_t base);
  void claim_checked(SimThread &thread, const void *data, std::size_t element,
                     const std::array<std::size_t, 3> &coordinates, unsigned rank);
  /// Checking mode: ends the epoch of `count` warps of the group from `first` (a barrier).
  void new_epochs(std::uint32_t first, std::uint32_t count) noexcept;
  void diagnose_stall();
  /// A wgmma that part of a warpgroup issued, the rest waiting elsewhere or exited: records the
  /// failure and returns true; false when there is none.
  [[nodiscard]] bool report_partial_wgmma();
  /// Lands every queued copy (no thread could run); true when there was any.
  [[nodiscard]] bool land_all_copies();
  /// Lands the queued copies for which `which` holds; a failure is the issuer's.
  template <class Which> void land_queued(Which which);
  [[nodiscard]] std::string describe_mbarrier_deadlock(const ThreadState &waiter);
  void release_stacks() noexcept;

  /// The block of `slot`, also for a thread that has not started.
  [[nodiscard]] const BlockState &block_of_slot(std::uint32_t slot) const noexcept {
    return *blocks_[members_ == 1 ? 0 : slot / count_];
  }
  [[nodiscard]] Failure failure_of(std::uint32_t slot, std::string message) const;
  [[nodiscard]] std::string describe_thread(std::uint32_t linear) const;
  [[nodiscard]] static std::string describe_block(const BlockState &block);
  [[nodiscard]] static std::string describe_warp_op(const WarpRequest &request);
  [[nodiscard]] const char *group_barrier_name() const noexcept;

  LaunchPlan *plan_ = nullptr;
  StackPool *stacks_ = nullptr;
  std::uint32_t count_ = 0;   ///< threads per block
  std::uint32_t members_ = 1; ///< blocks in the group
  std::uint32_t total_ = 0;   ///< threads in the group: members_ * count_
  std::uint32_t warps_per_block_ = 0;
  bool one_dimensional_ = true;                     ///< blockDim.y == blockDim.z == 1
  bool check_ = false;                              ///< the checking mode
  bool random_ = false;                             ///< OXIDE_SIM_SCHEDULE=random
  ScheduleRandom schedule_;                         ///< its draws, for this group
  Permutation start_order_;                         ///< its order of starting threads (slots)
  std::vector<std::unique_ptr<BlockState>> blocks_; ///< the group's, and spares for later groups
  std::vector<ThreadState> threads_;                ///< by slot: block after block
  std::uint32_t next_unstarted_ = 0;                ///< a slot
  BlockState *starting_block_ = nullptr;            ///< the block of next_unstarted_...
  std::uint32_t starting_block_end_ = 0;            ///< ... which ends at this slot
  std::uint32_t waiting_ = 0;                       ///< threads at sync_threads or the group barrier
  std::vector<std::uint32_t> group_waiters_;        ///< slots of threads at cluster::sync / grid::sync
  std::vector<std::uint32_t> mbarrier_waiters_;     ///< slots of threads waiting at an mbarrier
  std::vector<TmaCopy> copies_;                     ///< TMA copies that have not landed
  std::vector<std::uint32_t> warp_pending_;   ///< per warp of the group: lanes waiting in a warp operation
  std::vector<std::uint32_t> active_pending_; ///< per warp of the group: lanes waiting in active_mask
  std::vector<std::uint32_t> ready_;
  std::size_t ready_head_ = 0;
  std::vector<FiberStack *> stacks_in_use_;
  FiberStack *starting_stack_ = nullptr; ///< for the fiber being started
  fcontext_t host_ = nullptr;            ///< the host stack, where fibers switch back to
  Event event_;
  KernelFault fault_; ///< of the thread of a `faulted` event
  /// Of a `spun` event: where the thread spins, and whether another block failed first.
  std::uintptr_t spin_pc_ = 0;
  bool spin_abandoned_ = false;
  /// Of a `raced` event: the race, the lane and the word's offset in shared memory.
  struct TracedRace {
    WarpRaceLog::Race race;
    std::uint32_t lane = 0;
    std::uintptr_t offset = 0;
    bool dynamic = false;
  } traced_race_;
  bool trace_ = false;                         ///< OXIDE_SIM_WARP_RACES
  std::array<std::uintptr_t, 4> open_pages_{}; ///< opened for the traced step; 0: none
  /// From a signal handler: unblocks `signal` and switches to the host stack with `kind`.
  [[noreturn]] void escape(int signal, Event::Kind kind, std::uint32_t slot) noexcept;
  std::optional<Failure> failure_;
  // The checking mode's warp races: each warp's epoch, drawn from a counter of this runner.
  std::vector<std::uint64_t> warp_epochs_;
  std::uint64_t last_epoch_ = 0;
  WarpRaceLog warp_races_;
};

} // namespace oxide::detail::sim
