#include "sim/fiber.hpp"

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

#include "oxide/host/error.hpp"

// AddressSanitizer's fiber interface; null unless the program links the ASan runtime.
extern "C" {
void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom, std::size_t size)
    __attribute__((weak));
void __sanitizer_finish_switch_fiber(void *fake_stack_save, const void **bottom_old, std::size_t *size_old)
    __attribute__((weak));
void __asan_unpoison_memory_region(const volatile void *address, std::size_t size) __attribute__((weak));
}

namespace oxide::detail::sim {
namespace {

std::size_t page_size() noexcept {
  static const std::size_t size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

// The host thread's own stack, for ASan's annotation of switches back to it. Per host thread:
// fibers never move between host threads.
thread_local const void *host_stack_bottom = nullptr;
thread_local std::size_t host_stack_size = 0;

} // namespace

FiberStack::FiberStack(std::size_t size, unsigned color) {
  const std::size_t page = page_size();
  offset_ = color % 16 * 256;
  size_ = (size + offset_ + page - 1) / page * page;
  mapping_size_ = size_ + page;
  // MAP_NORESERVE: a block of 1024 threads reserves 64 MiB of stacks but touches a few pages each.
  mapping_ = mmap(nullptr, mapping_size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                  -1, 0);
  if (mapping_ == MAP_FAILED)
    throw Error(
        fmt::format("simulator: cannot allocate a {}-byte fiber stack: {}", size_, std::strerror(errno)));
  if (mprotect(mapping_, page, PROT_NONE) != 0) {
    const int error = errno;
    munmap(mapping_, mapping_size_);
    throw Error(fmt::format("simulator: cannot protect a fiber stack guard page: {}", std::strerror(error)));
  }
  usable_ = static_cast<char *>(mapping_) + page;
}

FiberStack::~FiberStack() { munmap(mapping_, mapping_size_); }

FiberStack *StackPool::acquire(std::size_t size) {
  if (size != size_) {
    // Only stacks that are free can be dropped; the pool is empty between launches anyway.
    std::erase_if(owned_, [&](const std::unique_ptr<FiberStack> &s) {
      return std::find(free_.begin(), free_.end(), s.get()) != free_.end();
    });
    free_.clear();
    size_ = size;
  }
  if (!free_.empty()) {
    FiberStack *stack = free_.back();
    free_.pop_back();
    return stack;
  }
  return owned_.emplace_back(std::make_unique<FiberStack>(size, static_cast<unsigned>(owned_.size()))).get();
}

void StackPool::release(FiberStack *stack) noexcept { free_.push_back(stack); }

StackPool &StackPool::for_this_thread() {
  thread_local StackPool pool;
  return pool;
}

SwitchTarget FiberSwitch::make(FiberStack &stack, void (*entry)(transfer_t)) {
  return {boost::context::detail::make_fcontext(stack.top(), stack.size(), entry), stack.bottom(),
          stack.size()};
}

SwitchTarget FiberSwitch::host(fcontext_t context) {
  // ASan needs the bounds of the stack it switches to; only asked for when ASan is present.
  if (__sanitizer_start_switch_fiber && !host_stack_bottom) {
    pthread_attr_t attributes;
    void *bottom = nullptr;
    std::size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attributes) == 0) {
      pthread_attr_getstack(&attributes, &bottom, &size);
      pthread_attr_destroy(&attributes);
    }
    host_stack_bottom = bottom;
    host_stack_size = size;
  }
  return {context, host_stack_bottom, host_stack_size};
}

transfer_t FiberSwitch::jump(const SwitchTarget &target, void *data, bool finishing) {
  // Read before the annotation: for a finishing fiber ASan frees the fake stack that `target`
  // (a caller's local) may live on.
  const fcontext_t context = target.context;
  void *fake_stack = nullptr;
  if (__sanitizer_start_switch_fiber)
    __sanitizer_start_switch_fiber(finishing ? nullptr : &fake_stack, target.stack_bottom, target.stack_size);
  const transfer_t back = boost::context::detail::jump_fcontext(context, data);
  if (__sanitizer_finish_switch_fiber)
    __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr);
  return back;
}

void FiberSwitch::entered() {
  if (__sanitizer_finish_switch_fiber)
    __sanitizer_finish_switch_fiber(nullptr, nullptr, nullptr);
}

void FiberSwitch::clear(const FiberStack &stack) noexcept {
  if (__asan_unpoison_memory_region)
    __asan_unpoison_memory_region(stack.bottom(), stack.size());
}

} // namespace oxide::detail::sim
