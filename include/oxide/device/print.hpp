// Device printf and trap.
#pragma once

#include <cstdio>

#include "oxide/device/intrinsics.hpp"

namespace oxide {

/// printf from a kernel. On the GPU the output is buffered by the driver and appears when the
/// host synchronises; in the simulator it is printed immediately.
template <class... Args> inline int printf(const char *format, Args... args) noexcept {
  return ::printf(format, args...);
}

/// Stops the kernel with `message`; the launch fails on the host with an error.
[[noreturn]] inline void trap(const char *message) noexcept { __oxide_trap(message); }

} // namespace oxide
