// Fibers for simulated GPU threads: pooled stacks and Boost.Context's fcontext switch.
//
// fcontext is used directly rather than boost::context::fiber because a failed launch abandons
// its suspended fibers: a boost fiber would unwind them with an exception on destruction, which
// cannot pass through the noexcept intrinsics that kernel code suspends in.
#pragma once

#include <boost/context/detail/fcontext.hpp>

#include <cstddef>
#include <memory>
#include <vector>

namespace oxide::detail::sim {

using boost::context::detail::fcontext_t;
using boost::context::detail::transfer_t;

/// One fiber stack: `size` usable bytes above a guard page, so an overflow faults instead of
/// corrupting the next stack.
class FiberStack {
public:
  /// `color` staggers where the stack starts within its page: fibers that run one after the
  /// other then use different cache sets (page-aligned stacks would all compete for one).
  FiberStack(std::size_t size, unsigned color);
  FiberStack(const FiberStack &) = delete;
  FiberStack &operator=(const FiberStack &) = delete;
  ~FiberStack();

  [[nodiscard]] void *bottom() const noexcept { return usable_; }
  [[nodiscard]] void *top() const noexcept { return static_cast<char *>(usable_) + size_ - offset_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_ - offset_; }
  /// The guard page's first byte: [guard(), bottom()) faults on any access.
  [[nodiscard]] const void *guard() const noexcept { return mapping_; }

private:
  void *mapping_ = nullptr;
  std::size_t mapping_size_ = 0;
  void *usable_ = nullptr;
  std::size_t size_ = 0;
  std::size_t offset_ = 0;
};

/// The stacks of one host thread, reused across blocks and launches: a launch allocates only
/// when a block has more threads suspended at once than any block before it on this thread.
class StackPool {
public:
  /// A stack of at least `size` bytes. Stacks of another size (OXIDE_SIM_STACK changed between
  /// contexts) are dropped.
  [[nodiscard]] FiberStack *acquire(std::size_t size);
  void release(FiberStack *stack) noexcept;

  /// The pool of the calling host thread.
  [[nodiscard]] static StackPool &for_this_thread();

private:
  std::size_t size_ = 0;
  std::vector<std::unique_ptr<FiberStack>> owned_;
  std::vector<FiberStack *> free_;
};

/// Where a switch goes: a fiber's context and the stack it runs on (for ASan).
struct SwitchTarget {
  fcontext_t context = nullptr;
  const void *stack_bottom = nullptr;
  std::size_t stack_size = 0;
};

/// Context switches between the host thread's own stack and fibers, or between fibers, with the
/// AddressSanitizer fiber annotations when the program is built with ASan (weak symbols: without
/// ASan the calls are skipped).
class FiberSwitch {
public:
  /// A new fiber on `stack` that runs `entry(transfer)` when first switched to; `entry` must
  /// never return.
  [[nodiscard]] static SwitchTarget make(FiberStack &stack, void (*entry)(transfer_t));
  /// The calling host thread's own stack; its context is learnt from the switch that leaves it.
  [[nodiscard]] static SwitchTarget host(fcontext_t context);
  /// Switches to `target`, passing `data`; returns when something switches back, with that
  /// side's context. A `finishing` caller is never switched back to.
  static transfer_t jump(const SwitchTarget &target, void *data, bool finishing);
  /// First thing a new fiber does: completes the annotation of the switch that started it.
  static void entered();
  /// Forgets sanitizer state left on a stack by a fiber that was abandoned.
  static void clear(const FiberStack &stack) noexcept;
};

} // namespace oxide::detail::sim
