//===- VerboseLog.cpp - where -v's lines go -------------------------------===//

#include "oxide/compiler/VerboseLog.h"

#include <atomic>
#include <cerrno>
#include <unistd.h>

using namespace oxide;

namespace {

std::atomic<int> gDescriptor{-1};

/// An unbuffered stream to gDescriptor (stderr when it is -1).
class VerboseStream final : public llvm::raw_ostream {
public:
  VerboseStream() : llvm::raw_ostream(/*unbuffered=*/true) {}

private:
  void write_impl(const char *ptr, size_t size) override {
    llvm::errs().flush(); // what was printed before stays before
    const int fd = gDescriptor.load() >= 0 ? gDescriptor.load() : STDERR_FILENO;
    while (size > 0) {
      const ssize_t n = ::write(fd, ptr, size);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return;
      ptr += n;
      size -= static_cast<size_t>(n);
      written += static_cast<uint64_t>(n);
    }
  }
  uint64_t current_pos() const override { return written; }
  uint64_t written = 0;
};

} // namespace

llvm::raw_ostream &oxide::verboseLog() {
  static VerboseStream stream;
  return stream;
}

void oxide::setVerboseLogDescriptor(int fd) { gDescriptor = fd; }

int oxide::verboseLogDescriptor() { return gDescriptor.load() >= 0 ? gDescriptor.load() : STDERR_FILENO; }
