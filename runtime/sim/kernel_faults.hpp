// Kernel faults on the CPU simulator: a wild or null pointer, a stack overflow of a simulated
// thread, an integer division by zero. On the GPU such a kernel stops with a named error
// (CUDA_ERROR_ILLEGAL_ADDRESS...); here the same fault is a host signal (SIGSEGV, SIGBUS,
// SIGFPE) on the fiber of the simulated thread, which would kill the process.
//
// The simulator installs handlers for those signals, running on an alternate signal stack (a
// thread whose fiber stack overflowed has no stack left). A handler that finds the fault on the
// fiber of the thread its host thread simulates switches from the signal frame straight to the
// block runner's host stack, abandoning the fiber as a failed thread does (BlockRunner::
// escape_fault); the launch then throws oxide::Error of kind KernelFault naming the kernel,
// block and thread. Any other fault goes to the handler that was installed before (or the
// default action: the process dies as it would have), so host bugs still crash normally.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace oxide::detail::sim {

/// What the signal handler saw; plain data, since a handler may not allocate.
struct KernelFault {
  enum class Access : std::uint8_t { unknown, read, write };
  int signal = 0;             ///< SIGSEGV, SIGBUS or SIGFPE
  int code = 0;               ///< siginfo's si_code
  std::uintptr_t address = 0; ///< siginfo's si_addr: the faulting address, or the instruction
  Access access = Access::unknown;
  bool stack_overflow = false; ///< the fiber's guard page, or a stack pointer below its stack
};

/// Installs the signal handlers (once per process) and an alternate signal stack for the calling
/// host thread (once per thread, unless it has one already, e.g. from a sanitizer). Called by
/// every host thread before it runs simulated blocks.
void prepare_kernel_fault_handling();

/// What a fault means, for the launch's error: "illegal address: ...". `stack_bytes` is the
/// simulated thread's stack size (OXIDE_SIM_STACK).
[[nodiscard]] std::string describe_fault(const KernelFault &fault, std::size_t stack_bytes);

} // namespace oxide::detail::sim
