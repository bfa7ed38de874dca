// mbarriers (sm_90): split arrive/wait barriers in shared memory that count both arrivals and the
// bytes of asynchronous copies (TMA), the synchronisation of producer/consumer pipelines.
//
// An Mbarrier lives in the block's shared memory (a member of its shared struct) and goes through
// phases: each phase completes when its expected arrivals have arrived and the transaction bytes
// announced with arrive_expect_tx have landed; then the next phase begins. Threads wait for a
// phase by its parity (0, 1, 0, ...). Its life:
//
//   if (t == 0) { full.init(1); oxide::Mbarrier::fence_init(); }  // one thread, then
//   oxide::sync_threads();                                         // everyone sees it
//   full.arrive_expect_tx(bytes); oxide::tma::load(..., full);     // producer
//   full.wait(phase);                                              // consumers
//
// The simulator's checking mode (OXIDE_SIM_CHECK=1) reports a wait on a barrier never
// initialised and a wait that can never complete.
#pragma once

#include <cstdint>

#include "oxide/device/intrinsics.hpp"

namespace oxide {

class Mbarrier {
public:
  /// Starts the barrier's life expecting `count` (1 .. 2^20 - 1) arrivals per phase: one
  /// thread, before any other use, followed by fence_init() and a block barrier.
  void init(std::uint32_t count) noexcept { __oxide_mbarrier_init(&state_, count); }
  /// Makes the calling thread's init()s visible to the copy engine and the cluster.
  static void fence_init() noexcept { __oxide_mbarrier_init_fence(); }

  /// One arrival on the current phase.
  void arrive() noexcept { __oxide_mbarrier_arrive(&state_); }
  /// One arrival that also announces `bytes` of asynchronous copies completing on this phase.
  void arrive_expect_tx(std::uint32_t bytes) noexcept { __oxide_mbarrier_arrive_expect_tx(&state_, bytes); }
  /// One arrival on this barrier's twin in the block of rank `rank` of the cluster.
  void arrive_cluster(std::uint32_t rank) noexcept { __oxide_mbarrier_arrive_cluster(&state_, rank); }

  /// Whether the phase of parity `parity` has completed (after a short hardware wait).
  [[nodiscard]] bool try_wait(std::uint32_t parity) noexcept {
    return __oxide_mbarrier_try_wait_parity(&state_, parity) != 0;
  }
  /// Waits until the phase of parity `parity` has completed.
  void wait(std::uint32_t parity) noexcept {
    while (!try_wait(parity)) {
    }
  }

  /// Ends the barrier's life (one thread, after every use), so that its memory can be reused.
  void inval() noexcept { __oxide_mbarrier_inval(&state_); }

private:
  std::uint64_t state_;
};

/// A position in a ring of `Stages` buffers, each guarded by barriers: the stage and the parity
/// of the phase that guards its current use. advance() moves to the next stage, flipping the
/// parity each time the ring wraps.
template <std::uint32_t Stages> struct PipelineState {
  static_assert(Stages > 0, "a pipeline has at least one stage");
  std::uint32_t stage = 0, phase = 0;

  constexpr void advance() noexcept {
    if (++stage == Stages) {
      stage = 0;
      phase ^= 1;
    }
  }
};

/// Orders the calling thread's ordinary shared-memory stores before later reads by the copy
/// engine or the warpgroup tensor cores (after a barrier): fence.proxy.async.shared::cta.
inline void fence_async_shared() noexcept { __oxide_fence_proxy_async_shared(); }

} // namespace oxide
