// BlockRunner: warp operations, which complete once every lane of their mask has arrived,
// active_mask, and the checking mode's warp-race and shuffle-source checks.
#include "sim/block_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "oxide/detail/intrinsic_abi.hpp"

namespace oxide::detail::sim {

// --- warps -----------------------------------------------------------------------------------

std::uint32_t BlockRunner::lanes_of_warp(std::uint32_t warp) const noexcept {
  const std::uint32_t lanes = std::min(kWarpSize, count_ - warp * kWarpSize);
  return lanes == kWarpSize ? ~0u : (1u << lanes) - 1;
}

std::uint32_t BlockRunner::warp_op(SimThread &thread, const WarpRequest &request) {
  const std::uint32_t lane = thread.linear % kWarpSize;
  const std::uint32_t warp = thread.linear / kWarpSize; // in the block
  const std::uint32_t bit = 1u << lane;
  const BlockState &block = *thread.home;
  if (!(request.mask & bit) && plan_->options.check)
    fail(thread, fmt::format("warp {} with mask 0x{:08x}, which does not include the calling lane {}",
                             describe_warp_op(request), request.mask, lane));
  // Lanes past the end of the block's last warp do not exist; they never arrive.
  const std::uint32_t group = (request.mask | bit) & lanes_of_warp(warp);
  ThreadState &state = threads_[thread.slot];
  state.warp = request;
  state.status = Status::in_warp_op;
  std::uint32_t &pending = warp_pending_[block.first_warp + warp];
  pending |= bit;
  if ((pending & group) == group)
    complete_warp_op(block, warp, group, thread.slot);
  else
    suspend(state);
  return state.warp_result;
}

std::uint32_t BlockRunner::active_mask(SimThread &thread, const CallSite &site) {
  ThreadState &state = threads_[thread.slot];
  const std::uint32_t warp = thread.home->first_warp + thread.linear / kWarpSize;
  state.status = Status::at_active_mask;
  state.active_site = site;
  active_pending_[warp] |= 1u << thread.linear % kWarpSize;
  settle_active_masks(warp, thread.slot);
  if (state.status == Status::at_active_mask)
    suspend(state);
  return state.warp_result;
}

void BlockRunner::settle_active_masks(std::uint32_t warp, std::uint32_t current) {
  std::uint32_t pending = active_pending_[warp];
  if (pending == 0) [[likely]]
    return;
  const BlockState &block = *blocks_[warp / warps_per_block_];
  const std::uint32_t base = block.first_slot + (warp - block.first_warp) * kWarpSize;
  for (std::uint32_t lanes = lanes_of_warp(warp - block.first_warp); lanes != 0; lanes &= lanes - 1) {
    const Status status = threads_[base + static_cast<std::uint32_t>(std::countr_zero(lanes))].status;
    if (status == Status::running || status == Status::ready || status == Status::unstarted)
      return; // a lane that may still reach the call
  }
  const CallSite *first = nullptr;
  for (std::uint32_t lanes = pending; lanes != 0; lanes &= lanes - 1) {
    const CallSite &site = threads_[base + static_cast<std::uint32_t>(std::countr_zero(lanes))].active_site;
    if (!first || CallSite::earlier(site, *first))
      first = &site;
  }
  std::uint32_t group = 0;
  for (std::uint32_t lanes = pending; lanes != 0; lanes &= lanes - 1) {
    const std::uint32_t lane = static_cast<std::uint32_t>(std::countr_zero(lanes));
    if (threads_[base + lane].active_site == *first)
      group |= 1u << lane;
  }
  for (std::uint32_t lanes = group; lanes != 0; lanes &= lanes - 1) {
    const std::uint32_t slot = base + static_cast<std::uint32_t>(std::countr_zero(lanes));
    ThreadState &state = threads_[slot];
    state.warp_result = group;
    if (slot == current) {
      state.status = Status::running;
    } else {
      state.status = Status::ready;
      ready_.push_back(slot);
    }
  }
  active_pending_[warp] = pending & ~group;
}

void BlockRunner::complete_warp_op(const BlockState &block, std::uint32_t warp, std::uint32_t group,
                                   std::uint32_t current) {
  const std::uint32_t base = block.first_slot + warp * kWarpSize;
  const WarpRequest &reference = threads_[current].warp;
  std::array<std::uint32_t, kWarpSize> values{};
  for (std::uint32_t lanes = group; lanes != 0; lanes &= lanes - 1) {
    const std::uint32_t lane = static_cast<std::uint32_t>(std::countr_zero(lanes));
    const WarpRequest &request = threads_[base + lane].warp;
    if (plan_->options.check && (request.kind != reference.kind || request.mode != reference.mode ||
                                 request.mask != reference.mask || request.width != reference.width))
      fail_thread(current,
                  fmt::format("divergent warp operation: the thread calls warp {} with mask 0x{:08x} "
                              "while lane {} calls warp {} with mask 0x{:08x}",
                              describe_warp_op(reference), reference.mask, lane, describe_warp_op(request),
                              request.mask));
    values[lane] = request.value;
  }
  if (check_ && reference.kind == WarpOpKind::shuffle)
    check_shuffle_sources(warp, group, base);
  for (std::uint32_t lanes = group; lanes != 0; lanes &= lanes - 1) {
    const std::uint32_t lane = static_cast<std::uint32_t>(std::countr_zero(lanes));
    ThreadState &state = threads_[base + lane];
    state.warp_result = warp_result(lane, state.warp, group, values);
    if (base + lane == current) {
      state.status = Status::running;
    } else {
      state.status = Status::ready;
      ready_.push_back(base + lane);
    }
  }
  warp_pending_[block.first_warp + warp] &= ~group;
  // warp::sync orders the memory accesses of its lanes (a shuffle or vote does not).
  if (check_ && reference.kind == WarpOpKind::sync)
    new_epochs(block.first_warp + warp, 1);
}

void BlockRunner::new_epochs(std::uint32_t first, std::uint32_t count) noexcept {
  for (std::uint32_t w = first; w < first + count; ++w)
    warp_epochs_[w] = ++last_epoch_;
}

void BlockRunner::check_shared_access(SimThread &thread, const void *address, std::uint64_t bytes, bool write,
                                      const char *where) {
  if (!check_ || bytes == 0)
    return;
  BlockState &block = *thread.home;
  const auto *p = static_cast<const std::byte *>(address);
  if (!block.shared.locate(address))
    return; // not shared memory (or another block's, through map_shared)
  const std::uint32_t lane = thread.linear % kWarpSize;
  const std::uint64_t epoch = warp_epochs_[block.first_warp + thread.linear / kWarpSize];
  const auto first = reinterpret_cast<std::uintptr_t>(p) & ~std::uintptr_t{3};
  const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(p) + bytes;
  for (std::uintptr_t word = first; word < end; word += 4)
    if (const auto race = warp_races_.access(word, epoch, lane, write)) {
      const auto [offset, dynamic] = place_in_shared(block.shared, word);
      fail(thread, describe_warp_race(*race, lane, offset, dynamic, where));
    }
}

void BlockRunner::check_shuffle_sources(std::uint32_t warp, std::uint32_t group, std::uint32_t base) {
  // On the GPU a lane that reads a lane outside the group (not in the mask, or not there at
  // all) gets an undefined value; here it gets its own (warp_result), which hides the bug.
  const std::uint32_t existing = lanes_of_warp(warp);
  for (std::uint32_t lanes = group; lanes != 0; lanes &= lanes - 1) {
    const std::uint32_t lane = static_cast<std::uint32_t>(std::countr_zero(lanes));
    const WarpRequest &request = threads_[base + lane].warp;
    const std::uint32_t source = shuffle_source(lane, request.mode, request.arg, request.width);
    if (source >= kWarpSize || (group >> source & 1u))
      continue;
    // One string, moved into the failure: locals of an abandoned fiber are never destroyed.
    std::string message = fmt::format("warp {} (mask 0x{:08x}): lane {} reads lane {}, ",
                                      describe_warp_op(request), request.mask, lane, source);
    if (existing >> source & 1u)
      message += "which is not in the mask";
    else
      message +=
          fmt::format("which does not exist (the block's last warp has {} lanes)", std::popcount(existing));
    message += "; on the GPU the value it gets is undefined (here: its own)";
    fail_thread(base + lane, std::move(message));
  }
}

} // namespace oxide::detail::sim
