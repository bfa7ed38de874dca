// The host threads that run simulated blocks: started once, reused by every launch.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace oxide::detail::sim {

class WorkerPool {
public:
  /// The process-wide pool. Never destroyed: its threads sleep until the process exits.
  [[nodiscard]] static WorkerPool &instance();

  /// Runs `job(context)` on `participants` host threads, the caller being one of them, and
  /// returns when all have returned. `job` must not throw. One call runs at a time; others wait.
  void run(unsigned participants, void (*job)(void *), void *context);

private:
  WorkerPool() = default;
  void ensure_workers(unsigned count); // with mutex_ held
  void work();

  std::mutex launch_mutex_; // serializes run()
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  std::vector<std::thread> workers_;
  std::uint64_t generation_ = 0;
  unsigned open_slots_ = 0; // helpers still to join the current job
  unsigned running_ = 0;    // helpers that joined and have not finished
  void (*job_)(void *) = nullptr;
  void *context_ = nullptr;
};

} // namespace oxide::detail::sim
