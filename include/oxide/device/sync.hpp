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
