#include "sim/kernel_faults.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <mutex>

#include "sim/block_runner.hpp"
#include "sim/sim_thread.hpp"

namespace oxide::detail::sim {
namespace {

// SIGTRAP: the end of a traced shared-memory access (OXIDE_SIM_WARP_RACES).
constexpr std::array kSignals{SIGSEGV, SIGBUS, SIGFPE, SIGTRAP};
// What each signal did before the simulator's handler: where faults outside kernels go.
std::array<struct sigaction, kSignals.size()> previous_actions{};

std::size_t signal_slot(int signal) noexcept {
  return static_cast<std::size_t>(std::find(kSignals.begin(), kSignals.end(), signal) - kSignals.begin());
}

/// Hands a fault that is not a kernel's to what handled it before; for the default action the
/// process dies as it would have without the simulator.
void chain(int signal, siginfo_t *info, void *context) noexcept {
  const struct sigaction &old = previous_actions[signal_slot(signal)];
  if ((old.sa_flags & SA_SIGINFO) != 0 && old.sa_sigaction) {
    old.sa_sigaction(signal, info, context);
    return;
  }
  if ((old.sa_flags & SA_SIGINFO) == 0 && old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN) {
    old.sa_handler(signal);
    return;
  }
  struct sigaction fallback{};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  sigaction(signal, &fallback, nullptr);
  // A fault repeats when its instruction runs again after the return; a sent signal does not.
  if (info->si_code <= 0)
    raise(signal);
}

void on_fault(int signal, siginfo_t *info, void *context) {
  SimThread *thread = current_sim_thread;
#if defined(__x86_64__)
  // Tracing: a protected shared-memory page runs one instruction with the trap flag (EFLAGS.TF),
  // then SIGTRAP closes it again.
  constexpr greg_t kTrapFlag = 0x100;
  auto *traced = static_cast<ucontext_t *>(context);
  if (thread && thread->block && info->si_code > 0) {
    if (signal == SIGTRAP && thread->block->end_traced_step()) {
      traced->uc_mcontext.gregs[REG_EFL] &= ~kTrapFlag;
      return;
    }
    if (signal == SIGSEGV && traced->uc_mcontext.gregs[REG_TRAPNO] == 14 &&
        thread->block->trace_access(reinterpret_cast<std::uintptr_t>(info->si_addr),
                                    (traced->uc_mcontext.gregs[REG_ERR] & 2) != 0)) {
      traced->uc_mcontext.gregs[REG_EFL] |= kTrapFlag;
      return;
    }
  }
#endif
  // si_code > 0: the kernel raised it for an instruction, not kill() or raise().
  if (thread && thread->block && info->si_code > 0 && signal != SIGTRAP) {
    KernelFault fault;
    fault.signal = signal;
    fault.code = info->si_code;
    fault.address = reinterpret_cast<std::uintptr_t>(info->si_addr);
    std::uintptr_t stack_pointer = 0;
    const auto *uc = static_cast<const ucontext_t *>(context);
#if defined(__x86_64__)
    stack_pointer = static_cast<std::uintptr_t>(uc->uc_mcontext.gregs[REG_RSP]);
    // A page fault (trap 14) says in bit 1 of its error code whether it was a write.
    if (signal == SIGSEGV && uc->uc_mcontext.gregs[REG_TRAPNO] == 14)
      fault.access =
          (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0 ? KernelFault::Access::write : KernelFault::Access::read;
#elif defined(__aarch64__)
    stack_pointer = static_cast<std::uintptr_t>(uc->uc_mcontext.sp);
#else
    (void)uc;
#endif
    // Does not return when the fault is on the running thread's fiber.
    thread->block->escape_fault(fault, stack_pointer);
  }
  chain(signal, info, context);
}

void install_handlers() noexcept {
  struct sigaction action{};
  action.sa_sigaction = &on_fault;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  for (std::size_t i = 0; i < kSignals.size(); ++i)
    sigaction(kSignals[i], &action, &previous_actions[i]);
}

/// The calling host thread's alternate signal stack: a handler must run somewhere when the
/// fiber's stack is exhausted.
class AlternateStack {
public:
  AlternateStack() noexcept {
    stack_t current{};
    if (sigaltstack(nullptr, &current) == 0 && (current.ss_flags & SS_DISABLE) == 0)
      return; // the thread has one (a sanitizer's): it serves as well
    const long minimum = sysconf(_SC_MINSIGSTKSZ);
    bytes_ = std::max<std::size_t>(kBytes, minimum > 0 ? 4 * static_cast<std::size_t>(minimum) : 0);
    void *memory = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED)
      return; // faults still work, except a stack overflow, which then kills the process
    stack_t stack{};
    stack.ss_sp = memory;
    stack.ss_size = bytes_;
    if (sigaltstack(&stack, nullptr) != 0) {
      munmap(memory, bytes_);
      return;
    }
    memory_ = memory;
  }
  AlternateStack(const AlternateStack &) = delete;
  AlternateStack &operator=(const AlternateStack &) = delete;
  ~AlternateStack() {
    if (!memory_)
      return;
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, nullptr);
    munmap(memory_, bytes_);
  }

private:
  static constexpr std::size_t kBytes = 64 * 1024;
  void *memory_ = nullptr;
  std::size_t bytes_ = 0;
};

const char *access_name(KernelFault::Access access) noexcept {
  switch (access) {
  case KernelFault::Access::read:
    return "a read of";
  case KernelFault::Access::write:
    return "a write to";
  case KernelFault::Access::unknown:
    break;
  }
  return "an access to";
}

} // namespace

void prepare_kernel_fault_handling() {
  static std::once_flag installed;
  std::call_once(installed, install_handlers);
  thread_local AlternateStack stack;
}

std::string describe_fault(const KernelFault &fault, std::size_t stack_bytes) {
  if (fault.stack_overflow)
    return fmt::format("stack overflow: the simulated thread needs more than its {} KiB of stack (deep "
                       "recursion or large local arrays); set OXIDE_SIM_STACK to give it more",
                       stack_bytes / 1024);
  switch (fault.signal) {
  case SIGSEGV:
    if (fault.code == SI_KERNEL) // x86-64: a general-protection fault, which has no address
      return "illegal address: a general-protection fault (a non-canonical pointer, or a misaligned "
             "vector access); on a GPU the launch fails with CUDA_ERROR_ILLEGAL_ADDRESS";
    return fmt::format("illegal address: {} address 0x{:x}{}; on a GPU the launch fails with "
                       "CUDA_ERROR_ILLEGAL_ADDRESS",
                       access_name(fault.access), fault.address,
                       fault.address < 65536 ? " (a null pointer, or an offset from one)" : "");
  case SIGBUS:
    if (fault.code == BUS_ADRALN)
      return fmt::format("misaligned address 0x{:x}; on a GPU the launch fails with "
                         "CUDA_ERROR_MISALIGNED_ADDRESS",
                         fault.address);
    return fmt::format("bus error at address 0x{:x} (mapped memory that cannot be accessed, e.g. past the "
                       "end of a mapped file)",
                       fault.address);
  case SIGFPE:
    if (fault.code == FPE_INTDIV || fault.code == FPE_INTOVF)
      return "integer division by zero (or of the most negative value by -1): the host traps where a GPU "
             "gives an undefined result";
    return fmt::format("arithmetic exception (SIGFPE, code {})", fault.code);
  default:
    break;
  }
  return fmt::format("signal {} at address 0x{:x}", fault.signal, fault.address);
}

} // namespace oxide::detail::sim
