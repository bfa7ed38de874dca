#include "sim/worker_pool.hpp"

namespace oxide::detail::sim {

WorkerPool &WorkerPool::instance() {
  static WorkerPool *pool = new WorkerPool;
  return *pool;
}

void WorkerPool::ensure_workers(unsigned count) {
  while (workers_.size() < count) {
    workers_.emplace_back([this] { work(); });
    // Never joined: the pool lives until the process exits.
    workers_.back().detach();
  }
}

void WorkerPool::run(unsigned participants, void (*job)(void *), void *context) {
  if (participants <= 1) {
    job(context);
    return;
  }
  std::lock_guard launch(launch_mutex_);
  {
    std::lock_guard lock(mutex_);
    ensure_workers(participants - 1);
    job_ = job;
    context_ = context;
    open_slots_ = participants - 1;
    running_ = participants - 1;
    ++generation_;
  }
  wake_.notify_all();
  job(context);
  std::unique_lock lock(mutex_);
  done_.wait(lock, [this] { return running_ == 0; });
  job_ = nullptr;
  context_ = nullptr;
}

void WorkerPool::work() {
  std::uint64_t seen = 0;
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return generation_ != seen && open_slots_ > 0; });
    seen = generation_;
    --open_slots_;
    void (*job)(void *) = job_;
    void *context = context_;
    lock.unlock();
    job(context);
    lock.lock();
    if (--running_ == 0)
      done_.notify_one();
  }
}

} // namespace oxide::detail::sim
