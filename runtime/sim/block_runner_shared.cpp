// BlockRunner: the group's shared memory: allocation, distributed shared memory across a
// cluster, the checking mode's DisjointSpan claims, and the tracing of OXIDE_SIM_WARP_RACES.
#include "sim/block_runner.hpp"

#include <signal.h>
#include <sys/mman.h>

#include <fmt/format.h>

#include <algorithm>

namespace oxide::detail::sim {

// --- shared memory and checks ---------------------------------------------------------------

void *BlockRunner::shared_alloc(SimThread &thread, std::size_t bytes, std::size_t align, const void *site) {
  SharedMemory &shared = thread.home->shared;
  void *memory = shared.allocate(site, bytes, align);
  if (!memory)
    fail(thread,
         fmt::format("shared memory: a {}-byte array on top of {} bytes of static and {} of dynamic "
                     "shared memory exceeds the {} bytes per block of the CPU simulator",
                     bytes, shared.static_bytes(), shared.dynamic_bytes(), SharedMemory::kLimitBytes));
  return memory;
}

void *BlockRunner::map_shared(SimThread &thread, void *address, std::uint32_t rank) {
  // A cooperative launch (or one without clusters) has clusters of one block.
  const std::uint32_t cluster_blocks = plan_->cooperative ? 1 : members_;
  if (rank >= cluster_blocks)
    fail(thread, fmt::format("cluster::map_shared: block rank {} is outside the cluster of {} block{}", rank,
                             cluster_blocks, cluster_blocks == 1 ? "" : "s"));
  BlockState &home = *thread.home;
  const std::optional<SharedMemory::Location> location = home.shared.locate(address);
  if (!location)
    fail(thread, fmt::format("cluster::map_shared: address {} is not in the block's shared memory (a "
                             "shared_array or dynamic_shared)",
                             fmt::ptr(address)));
  BlockState &target = cluster_blocks == 1 ? home : *blocks_[rank];
  if (plan_->options.check && target.exited == count_ && &target != &home)
    fail(thread, fmt::format("cluster::map_shared: block {} (rank {} of the cluster) has exited, so its "
                             "shared memory is gone; call cluster::sync() before a block exits while "
                             "others may still use its shared memory",
                             describe_block(target), rank));
  if (!location->site)
    return static_cast<std::byte *>(target.shared.dynamic_base()) + location->offset;
  // Static shared memory exists from the start of a block on the GPU: allocate the array in
  // the other block if none of its threads has reached the declaration yet.
  void *array = target.shared.allocate(location->site, location->bytes, location->align);
  if (!array)
    fail(thread,
         fmt::format("shared memory: a {}-byte array on top of {} bytes of static and {} of dynamic shared "
                     "memory of block {} exceeds the {} bytes per block of the CPU simulator",
                     location->bytes, target.shared.static_bytes(), target.shared.dynamic_bytes(),
                     describe_block(target), SharedMemory::kLimitBytes));
  return static_cast<std::byte *>(array) + location->offset;
}

void BlockRunner::claim_checked(SimThread &thread, const void *data, std::size_t element,
                                const std::array<std::size_t, 3> &coordinates, unsigned rank) {
  const auto other = plan_->claims->claim(data, element, {thread.home->block, thread.linear});
  if (!other) {
    // Extend the thread's run of claimed elements, or start a new one.
    if (thread.claimed_data != data || element != thread.claimed_end) {
      thread.claimed_data = data;
      thread.claimed_first = element;
    }
    thread.claimed_end = element + 1;
    return;
  }
  // Row-major, as the span indexes it: [y][x] for a 2-D span.
  std::string where = fmt::format("{}", coordinates[0]);
  if (rank >= 2)
    where = fmt::format("[{}][{}]", coordinates[1], coordinates[0]);
  if (rank == 3)
    where = fmt::format("[{}]{}", coordinates[2], where);
  // The other thread's coordinates, from its linear indices and the launch's shape.
  const LaunchGeometry &g = plan_->geometry;
  const std::uint64_t b = other->block;
  const std::uint32_t t = other->thread;
  fail(thread,
       fmt::format("two threads write element {} of a DisjointSpan: this thread and thread ({},{},{}) of "
                   "block ({},{},{})",
                   where, t % g.block.x, t / g.block.x % g.block.y, t / (g.block.x * g.block.y), b % g.grid.x,
                   b / g.grid.x % g.grid.y, b / (std::uint64_t(g.grid.x) * g.grid.y)));
}

bool BlockRunner::trace_access(std::uintptr_t address, bool write) noexcept {
  SimThread *thread = current_sim_thread;
  if (!trace_ || !thread || !host_)
    return false;
  BlockState *owner = nullptr;
  for (std::uint32_t member = 0; member < members_ && !owner; ++member)
    if (blocks_[member]->shared.in_arena(reinterpret_cast<const void *>(address)))
      owner = blocks_[member].get();
  if (!owner)
    return false;
  // Only the thread's own block's memory has lanes of its warp; another block's (map_shared)
  // is let through.
  if (owner == thread->home) {
    const std::uint32_t lane = thread->linear % kWarpSize;
    const std::uint64_t epoch = warp_epochs_[owner->first_warp + thread->linear / kWarpSize];
    const std::uintptr_t word = address & ~std::uintptr_t{3};
    if (const auto race = warp_races_.access(word, epoch, lane, write)) {
      const auto [offset, dynamic] = place_in_shared(owner->shared, word);
      traced_race_ = {*race, lane, offset, dynamic};
      escape(SIGSEGV, Event::raced, thread->slot);
    }
  }
  const std::uintptr_t page = address & ~std::uintptr_t{4095};
  for (std::uintptr_t &open : open_pages_)
    if (open == 0 || open == page) {
      open = page;
      return mprotect(reinterpret_cast<void *>(page), 4096, PROT_READ | PROT_WRITE) == 0;
    }
  return false; // more pages than one instruction touches: not ours
}

bool BlockRunner::end_traced_step() noexcept {
  if (!trace_ || open_pages_[0] == 0)
    return false;
  for (std::uintptr_t &open : open_pages_)
    if (open != 0) {
      mprotect(reinterpret_cast<void *>(open), 4096, PROT_NONE);
      open = 0;
    }
  return true;
}

BlockState *BlockRunner::owner_of(const void *address) const noexcept {
  for (std::uint32_t member = 0; member < members_; ++member)
    if (blocks_[member]->shared.in_arena(address))
      return blocks_[member].get();
  return nullptr;
}

BlockRunner::OwnAccess::OwnAccess(BlockRunner &runner) noexcept : runner_(runner) {
  if (runner_.trace_)
    for (std::uint32_t member = 0; member < runner_.members_; ++member)
      runner_.blocks_[member]->shared.protect(false);
}

BlockRunner::OwnAccess::~OwnAccess() {
  if (runner_.trace_)
    for (std::uint32_t member = 0; member < runner_.members_; ++member)
      runner_.blocks_[member]->shared.protect(true);
}

} // namespace oxide::detail::sim
