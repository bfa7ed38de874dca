#include "sim/spin_watch.hpp"

#include <dlfcn.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <new>
#include <string_view>
#include <system_error>

#include "sim/block_runner.hpp"
#include "sim/launch_plan.hpp"
#include "sim/schedule.hpp"
#include "sim/sim_thread.hpp"

namespace oxide::detail::sim {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr auto kTick = 10ms;
/// No group finished for this long: start sampling.
constexpr auto kStallBefore = 50ms;
/// A window of samples with at most this many states is a spin: a polling loop has a few
/// instructions and nothing in its registers changes; a loop that computes has a counter.
constexpr std::size_t kSpinStates = 6;
/// Ticks every running thread must have spun, with no group finishing, to be a deadlock.
constexpr std::uint32_t kDeadlockTicks = 100;
/// At most this many host threads per launch (the spares included).
constexpr std::size_t kMaxThreads = 512;

constinit thread_local WatchedWorker *watched_worker __attribute__((tls_model("initial-exec"))) = nullptr;
struct sigaction previous_action{};

std::uint64_t mix(std::uint64_t hash, std::uint64_t value) noexcept {
  return mix64(hash ^ value) + 0x9e3779b97f4a7c15ull;
}

/// The interrupted registers: their hash, the instruction and the stack pointer.
struct Registers {
  std::uint64_t hash = 0;
  std::uintptr_t pc = 0, sp = 0;
};

Registers read_registers(const void *context) noexcept {
  Registers r;
  const auto *uc = static_cast<const ucontext_t *>(context);
#if defined(__x86_64__)
  // R8 ... RIP: the general-purpose registers, the stack pointer and the instruction.
  for (int reg = REG_R8; reg <= REG_RIP; ++reg)
    r.hash = mix(r.hash, static_cast<std::uint64_t>(uc->uc_mcontext.gregs[reg]));
  // A loop may count in vector registers only.
  if (const auto *fp = uc->uc_mcontext.fpregs)
    for (const auto &xmm : fp->_xmm)
      for (const std::uint32_t part : xmm.element)
        r.hash = mix(r.hash, part);
  r.pc = static_cast<std::uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
  r.sp = static_cast<std::uintptr_t>(uc->uc_mcontext.gregs[REG_RSP]);
#elif defined(__aarch64__)
  for (const auto reg : uc->uc_mcontext.regs)
    r.hash = mix(r.hash, reg);
  r.pc = static_cast<std::uintptr_t>(uc->uc_mcontext.pc);
  r.sp = static_cast<std::uintptr_t>(uc->uc_mcontext.sp);
  r.hash = mix(mix(r.hash, r.pc), r.sp);
#else
  (void)uc;
#endif
  return r;
}

void on_sample(int signal, siginfo_t *info, void *context) {
  WatchedWorker *worker = watched_worker;
  const bool ours = info->si_code == SI_TKILL && info->si_pid == getpid();
  if (!worker) {
    if (ours)
      return; // sent before the thread stopped running blocks
    if ((previous_action.sa_flags & SA_SIGINFO) != 0 && previous_action.sa_sigaction)
      previous_action.sa_sigaction(signal, info, context);
    else if (previous_action.sa_handler != SIG_DFL && previous_action.sa_handler != SIG_IGN)
      previous_action.sa_handler(signal);
    return;
  }
  Registers registers = read_registers(context);
  SimThread *thread = current_sim_thread;
  // Which simulated thread runs is part of the state (null: the runner's own code).
  registers.hash = mix(registers.hash, reinterpret_cast<std::uintptr_t>(thread));
  if (const auto stop = worker->stop.load(std::memory_order_acquire);
      stop != WatchedWorker::none && thread && thread->block)
    // Does not return when the thread spins on its fiber.
    thread->block->escape_spin(registers.pc, registers.sp, stop == WatchedWorker::abandoned);
  worker->pc.store(registers.pc, std::memory_order_relaxed);
  worker->state.store(registers.hash, std::memory_order_relaxed);
  worker->samples.fetch_add(1, std::memory_order_release);
}

void install_handler() noexcept {
  struct sigaction action{};
  action.sa_sigaction = &on_sample;
  action.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  sigaction(kSpinSampleSignal, &action, &previous_action);
}

/// The loaded object (executable or library) that holds `address`; null when none does.
const void *module_of(std::uintptr_t address) noexcept {
  Dl_info info{};
  return dladdr(reinterpret_cast<const void *>(address), &info) != 0 ? info.dli_fbase : nullptr;
}

std::size_t distinct_states(const WatchedWorker &worker) noexcept {
  std::size_t distinct = 0;
  for (std::size_t i = 0; i < worker.filled; ++i)
    if (std::find(worker.window.begin(), worker.window.begin() + i, worker.window[i]) ==
        worker.window.begin() + i)
      ++distinct;
  return distinct;
}

/// The process's one watchdog thread: ticks the watched launches while there are any, and
/// sleeps once there have been none for a second.
class Watchdog {
public:
  static Watchdog &instance() {
    static auto *watchdog = [] {
      auto *created = new Watchdog; // never destroyed: its thread may outlive main
      // A forked child has no watchdog thread and no launch of its parent: it starts afresh, with
      // the lock not held by a thread that did not fork.
      pthread_atfork([] { instance().mutex_.lock(); }, [] { instance().mutex_.unlock(); },
                     [] {
                       Watchdog &child = instance();
                       child.launches_.clear();
                       child.started_ = child.sleeping_ = false;
                       new (&child.wake_) std::condition_variable; // its waiter did not fork
                       child.mutex_.unlock();
                     });
      return created;
    }();
    return *watchdog;
  }

  void add(WatchedLaunch &launch) {
    std::lock_guard lock(mutex_);
    launches_.push_back(&launch);
    if (!started_) {
      started_ = true;
      std::thread([this] { run(); }).detach();
    } else if (sleeping_) {
      wake_.notify_one();
    }
  }
  void remove(WatchedLaunch &launch) {
    std::lock_guard lock(mutex_);
    std::erase(launches_, &launch);
  }

private:
  void run() {
    std::unique_lock lock(mutex_);
    unsigned idle = 0;
    for (;;) {
      if (launches_.empty() && ++idle > 100) {
        sleeping_ = true;
        wake_.wait(lock, [this] { return !launches_.empty(); });
        sleeping_ = false;
      }
      if (!launches_.empty()) {
        idle = 0;
        const auto now = Clock::now();
        for (WatchedLaunch *launch : launches_)
          launch->tick(now);
      }
      lock.unlock();
      std::this_thread::sleep_for(kTick);
      lock.lock();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<WatchedLaunch *> launches_;
  bool started_ = false, sleeping_ = false;
};

} // namespace

WatchedLaunch::WatchedLaunch(LaunchPlan &plan, void (*job)(void *))
    : plan_(plan), job_(job), progress_at_(Clock::now()) {
  static std::once_flag installed;
  std::call_once(installed, install_handler);
  Watchdog::instance().add(*this);
}

WatchedLaunch::~WatchedLaunch() {
  {
    std::unique_lock lock(mutex_);
    spares_done_.wait(lock, [this] { return spares_running_ == 0; });
    closing_ = true;
  }
  Watchdog::instance().remove(*this);
  for (std::thread &spare : spares_)
    spare.join();
}

WatchedLaunch::Worker::Worker(WatchedLaunch &launch)
    : launch_(launch), worker_(std::make_unique<WatchedWorker>()) {
  worker_->thread = pthread_self();
  {
    std::lock_guard lock(launch_.mutex_);
    launch_.workers_.push_back(worker_.get());
  }
  watched_worker = worker_.get();
}

WatchedLaunch::Worker::~Worker() {
  watched_worker = nullptr; // first: a signal still on its way then finds no worker
  std::lock_guard lock(launch_.mutex_);
  std::erase(launch_.workers_, worker_.get());
}

void WatchedLaunch::start_spare() {
  try {
    spares_.emplace_back([this] {
      job_(&plan_);
      std::lock_guard lock(mutex_);
      if (--spares_running_ == 0)
        spares_done_.notify_all();
    });
    ++spares_running_;
  } catch (const std::system_error &) {
    // No thread to be had: the launch goes on with those it has (and may be reported).
  }
}

void WatchedLaunch::tick(Clock::time_point now) {
  std::lock_guard lock(mutex_);
  if (closing_ || workers_.empty())
    return;
  if (const std::uint64_t done = plan_.groups_done.load(std::memory_order_relaxed); done != last_done_) {
    last_done_ = done;
    progress_at_ = now;
    for (WatchedWorker *worker : workers_)
      worker->spinning = 0;
  }
  if (now - progress_at_ < kStallBefore)
    return;
  std::size_t spinning = 0, unsure = 0, stuck = 0;
  for (WatchedWorker *worker : workers_) {
    if (const std::uint32_t samples = worker->samples.load(std::memory_order_acquire);
        samples != worker->seen) {
      worker->seen = samples;
      worker->window[samples % WatchedWorker::kWindow] = worker->state.load(std::memory_order_relaxed);
      worker->filled = std::min<std::uint32_t>(worker->filled + 1, WatchedWorker::kWindow);
    }
    const bool spins = worker->filled == WatchedWorker::kWindow && distinct_states(*worker) <= kSpinStates;
    worker->spinning = spins ? worker->spinning + 1 : 0;
    spinning += spins;
    unsure += worker->filled < WatchedWorker::kWindow;
    // Kernel code spins; a thread that seems to, elsewhere, is blocked in a call (a write to a
    // full pipe) and goes on once the call returns.
    if (worker->spinning >= kDeadlockTicks) {
      if (!kernel_module_)
        kernel_module_ = module_of(reinterpret_cast<std::uintptr_t>(plan_.host.function));
      stuck += module_of(worker->pc.load(std::memory_order_relaxed)) == kernel_module_;
    }
  }
  const bool stopped = plan_.stop.load(std::memory_order_relaxed);
  const std::uint64_t next = plan_.next_group.load(std::memory_order_relaxed);
  const bool unstarted = !stopped && next < plan_.group_count;
  const std::size_t threads = workers_.size() + spares_running_;
  // Spinning threads wait for blocks that may not have started: start as many threads again,
  // once the last ones added have been seen to spin too (or to compute).
  if (unstarted && spinning > 0 && unsure == 0) {
    const std::size_t room = kMaxThreads > threads ? kMaxThreads - threads : 0;
    const std::size_t add = std::min<std::uint64_t>({spinning, room, plan_.group_count - next});
    for (std::size_t i = 0; i < add; ++i)
      start_spare();
  }
  // Every running thread spins, no group finished meanwhile, and no block that could end the wait
  // is left to start.
  if (stuck == workers_.size() && (!unstarted || threads >= kMaxThreads))
    for (WatchedWorker *worker : workers_) {
      auto expected = WatchedWorker::none;
      worker->stop.compare_exchange_strong(
          expected, stopped ? WatchedWorker::abandoned : WatchedWorker::deadlock, std::memory_order_release);
    }
  for (WatchedWorker *worker : workers_)
    pthread_kill(worker->thread, kSpinSampleSignal);
}

namespace {

/// `addr2line`'s function and line of `offset` in `module`, when the tool is on PATH and the
/// program has debug information (oxcc -g); empty otherwise. Only on the way to a report.
std::string source_line(const char *module, std::uintptr_t offset) {
  std::string quoted = "'";
  for (const char *c = module; *c; ++c)
    quoted += *c == '\'' ? std::string("'\\''") : std::string(1, *c);
  quoted += "'";
  const std::string command = fmt::format("addr2line -Cfe {} 0x{:x} 2>/dev/null", quoted, offset);
  FILE *pipe = popen(command.c_str(), "r");
  if (!pipe)
    return {};
  char function[512] = {}, line[1024] = {};
  const bool read = std::fgets(function, sizeof function, pipe) && std::fgets(line, sizeof line, pipe);
  pclose(pipe);
  std::string_view text(line);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
    text.remove_suffix(1);
  if (!read || text.empty() || text.starts_with("??"))
    return {};
  return std::string(text);
}

} // namespace

std::string describe_spin(std::uintptr_t pc, bool abandoned) {
  std::string where = fmt::format("at 0x{:x}", pc);
  if (Dl_info info{}; dladdr(reinterpret_cast<void *>(pc), &info) != 0 && info.dli_fname) {
    const auto offset = pc - reinterpret_cast<std::uintptr_t>(info.dli_fbase);
    if (std::string line = source_line(info.dli_fname, offset); !line.empty())
      where = fmt::format("at {}", line);
    else
      where = fmt::format("at {}+0x{:x} (build with -g for the line)", info.dli_fname, offset);
  }
  if (abandoned)
    return fmt::format("abandoned: it spins on memory that no running thread changes, after another block "
                       "of the launch failed; it spins {}",
                       where);
  return fmt::format("waits forever: it spins on memory that no running thread changes (the same few "
                     "instructions with the same registers for a second), every other running block "
                     "spins too, and no block is left to start: a flag that no thread sets, or a wait for "
                     "a thread that the simulator runs only after this one (a later thread of the same "
                     "block); on a GPU the launch would hang. It spins {}",
                     where);
}

} // namespace oxide::detail::sim
