#include "sim/worker_pool.hpp"

#include <pthread.h>

#include <new>

namespace oxide::detail::sim {

WorkerPool &WorkerPool::instance() {
  static WorkerPool *pool = [] {
    auto *created = new WorkerPool;
    // A forked child has none of the pool's threads (a launch there waited for them forever):
    // it starts an empty pool, whose locks no thread of the parent holds.
    pthread_atfork(nullptr, nullptr, [] {
      WorkerPool &child = instance();
      new (&child.launch_mutex_) std::mutex;
      new (&child.mutex_) std::mutex;
      new (&child.wake_) std::condition_variable;
      new (&child.done_) std::condition_variable;
      child.workers_.clear(); // detached: nothing to join
      child.generation_ = 0;
      child.open_slots_ = child.running_ = 0;
      child.job_ = nullptr;
      child.context_ = nullptr;
    });
    return created;
  }();
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
