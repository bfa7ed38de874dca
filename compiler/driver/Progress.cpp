//===- Progress.cpp - a progress line on a terminal -----------------------===//

#include "oxide/compiler/Progress.h"
#include "oxide/compiler/VerboseLog.h"

#include "llvm/Support/Process.h"

#include <chrono>
#include <unistd.h>

using namespace oxide;

ProgressLine::ProgressLine(std::string what, std::string unit, unsigned total)
    : what(std::move(what)), unit(std::move(unit)), total(total) {
  const char *term = ::getenv("TERM");
  if (total < 2 || !::isatty(verboseLogDescriptor()) || (term && llvm::StringRef(term) == "dumb"))
    return;
  thread = std::thread([this] { run(); });
}

ProgressLine::~ProgressLine() {
  if (!thread.joinable())
    return;
  {
    std::lock_guard lock(mutex);
    finished = true;
  }
  wake.notify_all();
  thread.join();
}

void ProgressLine::run() {
  using namespace std::chrono_literals;
  std::unique_lock lock(mutex);
  // Quiet for the first second: most builds are over by then.
  if (wake.wait_for(lock, 1s, [this] { return finished; }))
    return;
  const int fd = verboseLogDescriptor();
  auto draw = [&](const std::string &text) { (void)!::write(fd, text.data(), text.size()); };
  unsigned drawn = ~0u;
  while (true) {
    if (const unsigned now = done.load(); now != drawn) {
      draw("\r\x1b[K" + what + ": " + std::to_string(now) + "/" + std::to_string(total) + " " + unit);
      drawn = now;
    }
    if (wake.wait_for(lock, 100ms, [this] { return finished; }))
      break;
  }
  draw("\r\x1b[K"); // the line goes; what follows is printed where it began
}
