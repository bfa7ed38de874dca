// Host definitions of the warp reductions and matches (redux.sync, match.sync) for the CPU
// simulator: one warp operation each, like a shuffle or a vote, so that every lane of the group
// meets the others once and the result sees exactly the lanes of the group (warp_result). Built
// from shuffles instead, a full mask in a partial warp would read lanes that do not exist.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "oxide/device/intrinsics.hpp"
#include "sim/block_runner.hpp"
#include "sim/sim_thread.hpp"

namespace {

using oxide::detail::sim::WarpOpKind;
using oxide::detail::sim::WarpRequest;

std::uint32_t collective(WarpRequest request) noexcept {
  // __oxide_lane_id aborts, with the simulator's message, when kernel code runs outside a launch.
  (void)__oxide_lane_id();
  oxide::detail::sim::SimThread &thread = *oxide::detail::sim::current_sim_thread;
  if (!thread.block) [[unlikely]] {
    std::fputs("oxide: a warp operation outside a simulated block\n", stderr);
    std::abort();
  }
  return thread.block->warp_op(thread, request);
}

} // namespace

extern "C" {

std::uint32_t __oxide_warp_redux(std::uint32_t mask, std::uint32_t value, std::uint32_t kind) noexcept {
  return collective(WarpRequest{WarpOpKind::redux, kind, mask, value, 0});
}

std::uint32_t __oxide_warp_match(std::uint32_t mask, std::uint32_t value, std::uint32_t kind) noexcept {
  return collective(WarpRequest{WarpOpKind::match, kind, mask, value, 0});
}

std::uint32_t __oxide_warp_match_b64(std::uint32_t mask, std::uint64_t value, std::uint32_t kind) noexcept {
  // Two 32-bit matches: the lanes equal in both halves (any), or the group when both halves
  // agree everywhere (all: each half gives the group or 0).
  return __oxide_warp_match(mask, static_cast<std::uint32_t>(value), kind) &
         __oxide_warp_match(mask, static_cast<std::uint32_t>(value >> 32), kind);
}

} // extern "C"
