#include "sim/launch.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>

#include "context_state.hpp"
#include "oxide/detail/param_kind.hpp"
#include "oxide/host/error.hpp"
#include "sim/block_runner.hpp"
#include "sim/launch_plan.hpp"
#include "sim/shared_memory.hpp"
#include "sim/sim_thread.hpp"
#include "sim/spin_watch.hpp"
#include "sim/worker_pool.hpp"
#include "sim/write_checks.hpp"

namespace oxide::detail::sim {
namespace {

/// What each participating host thread does: take groups of blocks (usually single blocks)
/// until none are left or one failed.
void run_blocks(void *context) {
  auto &plan = *static_cast<LaunchPlan *>(context);
  const WatchedLaunch::Worker watched(*plan.watch);
  BlockRunner &runner = BlockRunner::for_this_thread();
  while (!plan.stop.load(std::memory_order_relaxed)) {
    const std::uint64_t group = plan.next_group.fetch_add(1, std::memory_order_relaxed);
    if (group >= plan.group_count)
      break;
    if (auto failure = runner.run(plan, plan.options.random_schedule ? plan.group_order(group) : group))
      plan.record(std::move(*failure));
    plan.groups_done.fetch_add(1, std::memory_order_relaxed);
  }
}

/// On a terminal, a launch that runs for more than two seconds shows how many of its blocks are
/// done ("oxide: kernel 'sgemm' on the CPU simulator: 812/4096 blocks"), redrawn on one line of
/// stderr and erased when the launch ends. Never when stderr is not a terminal.
class ProgressLine {
public:
  explicit ProgressLine(const LaunchPlan &plan) : plan(plan) {
    const char *term = std::getenv("TERM");
    if (plan.group_count < 2 || !::isatty(STDERR_FILENO) || (term && std::string_view(term) == "dumb"))
      return;
    thread = std::thread([this] { run(); });
  }
  ProgressLine(const ProgressLine &) = delete;
  ProgressLine &operator=(const ProgressLine &) = delete;
  ~ProgressLine() {
    if (!thread.joinable())
      return;
    {
      std::lock_guard lock(mutex);
      finished = true;
    }
    wake.notify_all();
    thread.join();
  }

private:
  void run() {
    using namespace std::chrono_literals;
    std::unique_lock lock(mutex);
    if (wake.wait_for(lock, 2s, [this] { return finished; }))
      return;
    auto draw = [](const std::string &text) { (void)!::write(STDERR_FILENO, text.data(), text.size()); };
    std::uint64_t drawn = ~std::uint64_t{0};
    while (true) {
      const std::uint64_t done = plan.groups_done.load(std::memory_order_relaxed) * plan.group_blocks;
      if (done != drawn)
        draw(fmt::format("\r\x1b[Koxide: kernel '{}' on the CPU simulator: {}/{} blocks", plan.kernel_name,
                         done, plan.block_count));
      drawn = done;
      if (wake.wait_for(lock, 200ms, [this] { return finished; }))
        break;
    }
    draw("\r\x1b[K");
  }
  const LaunchPlan &plan;
  std::mutex mutex;
  std::condition_variable wake;
  bool finished = false;
  std::thread thread;
};

std::string describe(const LaunchGeometry &g, const Failure &failure) {
  const std::uint64_t b = failure.block;
  const std::uint32_t t = failure.thread;
  return fmt::format("block ({},{},{}) thread ({},{},{})", b % g.grid.x, b / g.grid.x % g.grid.y,
                     b / (std::uint64_t(g.grid.x) * g.grid.y), t % g.block.x, t / g.block.x % g.block.y,
                     t / (g.block.x * g.block.y));
}

} // namespace

void launch(const PreparedKernel &kernel, void *const *arguments) {
  if (current_sim_thread)
    throw Error(ErrorKind::LaunchFromKernel,
                fmt::format("kernel '{}' launched from kernel code; launch kernels from the host",
                            kernel.display_name()),
                kernel.display_name());
  LaunchPlan plan;
  plan.host = kernel.host;
  plan.arguments = arguments;
  plan.geometry = kernel.geometry;
  plan.block_count = kernel.geometry.block_count();
  plan.options = kernel.context->sim_options();
  plan.kernel_name = kernel.display_name();
  if (plan.block_count == 0)
    return; // an empty launch
  // Blocks whose threads meet at a wider barrier run together on one host thread.
  plan.cluster = kernel.cluster;
  plan.cooperative = kernel.cooperative;
  const Dim3 &grid = kernel.geometry.grid, &cluster = kernel.cluster;
  if (kernel.cooperative) {
    // finish() keeps the grid within max_resident_blocks, so it fits in 32 bits.
    plan.group_blocks = static_cast<std::uint32_t>(plan.block_count);
  } else if (!(cluster == Dim3{1, 1, 1})) {
    // prepare checks this against the contract; an unsafe launch reaches it here, as it would
    // fail on the GPU.
    if (grid.x % cluster.x != 0 || grid.y % cluster.y != 0 || grid.z % cluster.z != 0)
      throw Error(
          ErrorKind::ClusterMismatch,
          fmt::format("kernel '{}' runs in clusters of ({}, {}, {}) blocks, but the grid ({}, {}, {}) is "
                      "not a whole number of clusters",
                      kernel.display_name(), cluster.x, cluster.y, cluster.z, grid.x, grid.y, grid.z),
          kernel.display_name());
    plan.group_blocks = cluster.x * cluster.y * cluster.z;
  }
  plan.group_count = plan.block_count / plan.group_blocks;
  if (plan.options.random_schedule) {
    plan.schedule_seed = mix64(plan.options.seed ^ mix64(plan.options.launches->fetch_add(1)));
    plan.group_order = Permutation(plan.group_count, plan.schedule_seed);
  }
  std::unique_ptr<DisjointClaims> claims;
  std::unique_ptr<WriteChecks> writes;
  if (plan.options.check) {
    claims = std::make_unique<DisjointClaims>();
    plan.claims = claims.get();
    writes = WriteChecks::for_launch(reinterpret_cast<const void *>(kernel.host.function),
                                     kernel.kernel->info->params.size(), arguments);
    plan.writes = writes.get();
    // The DisjointSpan arguments the compiler described get flat tables of owners (a claim
    // encodes the block index in 54 bits).
    if (writes && plan.block_count < (std::uint64_t{1} << 53))
      for (const WriteRange &range : writes->ranges())
        if (const auto kind = oxide::detail::param_kind(range.kind);
            kind && oxide::detail::is_disjoint(*kind))
          (void)claims->add_span(reinterpret_cast<const void *>(range.begin),
                                 (range.end - range.begin) / range.element_size);
  }
  // Instrumented kernel code checks its writes only while a checking launch runs.
  const CheckingLaunchScope checking(plan.writes != nullptr);
  const auto participants =
      static_cast<unsigned>(std::min<std::uint64_t>(plan.options.threads, plan.group_count));
  {
    const ProgressLine progress(plan);
    // Blocks that spin on each other get more host threads, or a report (sim/spin_watch.hpp).
    WatchedLaunch watch(plan, &run_blocks);
    plan.watch = &watch;
    WorkerPool::instance().run(participants, &run_blocks, &plan);
  }
  // Kernel printf output goes to stdout's buffer; flush it as the GPU does at a synchronisation,
  // so it is not lost if the program then crashes, and precedes what the host prints to stderr.
  std::fflush(stdout);
  if (auto failure = plan.take_failure())
    throw Error(ErrorKind::KernelFault,
                fmt::format("kernel '{}' {}: {}", kernel.display_name(), describe(plan.geometry, *failure),
                            failure->message),
                kernel.display_name());
}

} // namespace oxide::detail::sim
