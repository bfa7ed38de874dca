// Spin waits between blocks on the CPU simulator (issue 39).
//
// Kernel code spins on plain (atomic) loads: block k of a decoupled look-back scan loops until
// block k-1 publishes its flag. Such a loop never calls the simulator, so the simulator cannot
// switch away from it; a host thread that runs a spinning block is lost to the launch until the
// flag is set. On a GPU the wait ends because earlier blocks were dispatched first and stay
// resident; here, under OXIDE_SIM_SCHEDULE=random (blocks start in a shuffled order) or with
// fewer host threads than waiting blocks, the block that would set the flag may never start.
//
// A watchdog thread looks at the launches that run: once no group of blocks has finished for a
// while, it samples the registers of each host thread that runs blocks (a signal; the handler
// hashes the interrupted registers). A thread whose samples keep showing the same few states
// goes round a loop that changes nothing but memory it reads: it spins. Then
//  - while some groups have not started, the watchdog starts another host thread for the launch
//    (doubling with the spinning threads), so the blocks that will end the waits get to run, as
//    they would on a GPU's other SMs;
//  - when every running host thread has spun for a second and no block is left to start, the
//    wait can never end: each spinning thread is failed from its signal handler (as a fault is,
//    sim/kernel_faults.hpp), and the launch reports the kernel, block, thread and where it spins.
// The normal path pays a registration per launch and per host thread (a lock each); the watchdog
// ticks only while launches run.
#pragma once

#include <pthread.h>

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace oxide::detail::sim {

struct LaunchPlan;

/// The watchdog's sampling signal: ignored by default, so a stray one harms no program.
inline constexpr int kSpinSampleSignal = SIGURG;

/// One host thread that runs blocks of a watched launch. The signal handler writes the sample
/// fields; the watchdog (under the launch's lock) the rest.
struct WatchedWorker {
  pthread_t thread{};
  std::atomic<std::uint64_t> state{0};   ///< hash of the registers at the last sample
  std::atomic<std::uintptr_t> pc{0};     ///< the instruction at the last sample
  std::atomic<std::uint32_t> samples{0}; ///< samples taken
  /// What the next signal does to the spinning thread: nothing, fail it (a deadlock), or fail it
  /// as abandoned (another block failed first, so what it waits for will never come).
  enum Stop : std::uint8_t { none, deadlock, abandoned };
  std::atomic<Stop> stop{none};
  // The watchdog's view.
  static constexpr std::size_t kWindow = 12;
  std::array<std::uint64_t, kWindow> window{};
  std::uint32_t seen = 0;     ///< samples already in the window
  std::uint32_t filled = 0;   ///< window entries in use
  std::uint32_t spinning = 0; ///< consecutive ticks the window showed a spin
};

/// A launch while its blocks run: its host threads, and the spare ones the watchdog added.
class WatchedLaunch {
public:
  /// `job(&plan)` is what each host thread of the launch runs, a spare one included.
  WatchedLaunch(LaunchPlan &plan, void (*job)(void *));
  WatchedLaunch(const WatchedLaunch &) = delete;
  WatchedLaunch &operator=(const WatchedLaunch &) = delete;
  /// Waits for the spare host threads, then stops watching.
  ~WatchedLaunch();

  /// The calling host thread runs blocks of the launch from now until the guard ends.
  class Worker {
  public:
    explicit Worker(WatchedLaunch &launch);
    Worker(const Worker &) = delete;
    Worker &operator=(const Worker &) = delete;
    ~Worker();

  private:
    WatchedLaunch &launch_;
    std::unique_ptr<WatchedWorker> worker_;
  };

  /// One watchdog tick: samples, and starts spare threads or fails a deadlock.
  void tick(std::chrono::steady_clock::time_point now);

private:
  void start_spare();

  LaunchPlan &plan_;
  void (*job_)(void *);
  std::mutex mutex_;
  std::condition_variable spares_done_;
  std::vector<WatchedWorker *> workers_;
  std::vector<std::thread> spares_;
  unsigned spares_running_ = 0;
  bool closing_ = false;
  std::uint64_t last_done_ = 0;
  std::chrono::steady_clock::time_point progress_at_;
  const void *kernel_module_ = nullptr; ///< the object that holds the kernel's code
};

/// Why a spinning thread was failed, and where it spun, for the launch's report.
[[nodiscard]] std::string describe_spin(std::uintptr_t pc, bool abandoned);

} // namespace oxide::detail::sim
