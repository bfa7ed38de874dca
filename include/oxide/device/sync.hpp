// Block barriers and memory fences.
#pragma once

#include <cstdint>

#include "oxide/device/intrinsics.hpp"

namespace oxide {

/// Which threads a fence or an atomic operation orders against.
enum class Scope : std::uint32_t { block = 0, device = 1, system = 2 };

/// Waits until every thread of the block has arrived, and makes their shared and global memory
/// writes visible to each other (__syncthreads). All threads of the block must call it: a
/// barrier inside divergent control flow deadlocks on the GPU (the simulator's checking mode
/// reports it).
inline void sync_threads() noexcept { __oxide_sync_threads(); }

// diagnose_if (a clang extension, which -Wpedantic names) makes constant misuse an error at the
// caller's line.
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wgcc-compat"
/// A named barrier: `threads` threads of the block (whole warps, a multiple of 32) meet at barrier
/// `id` (1 to 15; sync_threads is barrier 0) while the block's other warps go on, as in
/// warp-specialised kernels (a producer warpgroup and its consumers, two consumer warpgroups
/// taking turns). sync() waits until `threads` threads have arrived, and then sees the memory
/// writes those threads made before arriving; arrive() counts the caller and goes on. Every lane
/// of a warp calls it together. A constant id or count out of range is a compile error at its
/// line; a runtime one stops the kernel (the check folds away where the values are known).
///
///   const oxide::NamedBarrier turn(1 + consumer, 256);   // two consumer warpgroups' turns
///   turn.sync();
class NamedBarrier {
public:
  constexpr NamedBarrier(std::uint32_t id, std::uint32_t threads) noexcept
      __attribute__((diagnose_if(id == 0 || id > 15, "a named barrier's id is 1..15 (0 is sync_threads')",
                                 "error")))
      __attribute__((diagnose_if(threads == 0 || threads > 1024 || threads % 32 != 0,
                                 "a named barrier's thread count is whole warps: a multiple of 32 up to 1024",
                                 "error")))
      : id_(id), threads_(threads) {}
  void sync() const noexcept {
    check();
    __oxide_named_barrier(id_, threads_, 0);
  }
  void arrive() const noexcept {
    check();
    __oxide_named_barrier(id_, threads_, 1);
  }
  [[nodiscard]] constexpr std::uint32_t id() const noexcept { return id_; }
  [[nodiscard]] constexpr std::uint32_t threads() const noexcept { return threads_; }

private:
  void check() const noexcept {
    if (id_ == 0 || id_ > 15 || threads_ == 0 || threads_ > 1024 || threads_ % 32 != 0) [[unlikely]]
      __oxide_trap(
          "oxide::NamedBarrier: the id must be 1..15 and the thread count a multiple of 32 up to 1024");
  }
  std::uint32_t id_, threads_;
};
#pragma clang diagnostic pop

/// Orders this thread's memory accesses before and after the fence, as seen by `scope`.
template <Scope S = Scope::device> inline void thread_fence() noexcept {
  __oxide_fence(static_cast<std::uint32_t>(S));
}

// Scope is a type of its own because kernels' mangled names spell it (AtomicSpan<T, Scope::device>);
// its values are the codes of intrinsic::Scope (oxide/detail/intrinsic_abi.hpp), which the fence
// above passes on.
static_assert(static_cast<std::uint32_t>(Scope::block) == intrinsic::code(intrinsic::Scope::block) &&
              static_cast<std::uint32_t>(Scope::device) == intrinsic::code(intrinsic::Scope::device) &&
              static_cast<std::uint32_t>(Scope::system) == intrinsic::code(intrinsic::Scope::system));

} // namespace oxide
