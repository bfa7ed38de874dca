// Host definitions of the device intrinsics, used when kernel code runs on the CPU.
#include <cstdio>
#include <cstdlib>

#include "oxide/device/intrinsics.hpp"
#include "sim_thread.hpp"

namespace oxide::detail {
constinit thread_local SimThread *current_sim_thread = nullptr;
} // namespace oxide::detail

extern "C" std::size_t __oxide_index_1d() noexcept {
  const oxide::detail::SimThread *thread = oxide::detail::current_sim_thread;
  if (!thread) {
    // A kernel called as a plain function: there is no thread index to give, and inventing one
    // would silently compute the wrong thing.
    std::fputs("oxide: kernel code called outside a launch; launch kernels through oxide::prepare\n", stderr);
    std::abort();
  }
  return thread->index_1d;
}

extern "C" void __oxide_bounds_fail(std::size_t index, std::size_t size) noexcept {
  std::fprintf(stderr, "oxide: index %zu out of bounds for span of size %zu\n", index, size);
  std::abort();
}
