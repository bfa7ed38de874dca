//===- Progress.h - a progress line on a terminal ---------------*- C++ -*-===//
#ifndef OXIDE_COMPILER_PROGRESS_H
#define OXIDE_COMPILER_PROGRESS_H

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace oxide {

/// "oxcc: app.cpp: 3/6 architectures" on one line of stderr, redrawn as the work advances, for
/// work that takes more than a second, and erased when it ends. Only when stderr is a terminal
/// (the real one: the object cache's capture does not take it); never in a pipe or a log.
class ProgressLine {
public:
  ProgressLine(std::string what, std::string unit, unsigned total);
  ProgressLine(const ProgressLine &) = delete;
  ProgressLine &operator=(const ProgressLine &) = delete;
  ~ProgressLine();
  /// One more unit done (thread-safe).
  void advance() { done.fetch_add(1); }

private:
  void run();
  std::string what, unit;
  unsigned total;
  std::atomic<unsigned> done{0};
  std::mutex mutex;
  std::condition_variable wake;
  bool finished = false;
  std::thread thread;
};

} // namespace oxide

#endif
