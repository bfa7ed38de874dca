#include "sim/warp_races.hpp"

#include <fmt/format.h>

#include <bit>

#include "sim/block_runner.hpp"
#include "sim/sim_thread.hpp"

namespace oxide::detail::sim {

std::optional<WarpRaceLog::Race> WarpRaceLog::access(std::uintptr_t word, std::uint64_t epoch,
                                                     std::uint32_t lane, bool write) {
  Word &w = words_[word];
  const std::uint32_t bit = 1u << lane;
  if (write) {
    const std::uint32_t others = w.read_epoch == epoch ? w.readers & ~bit : 0;
    w.write_epoch = epoch;
    w.writer = lane;
    if (others != 0)
      return Race{static_cast<std::uint32_t>(std::countr_zero(others)), false};
    return std::nullopt;
  }
  if (w.read_epoch != epoch) {
    w.read_epoch = epoch;
    w.readers = 0;
  }
  w.readers |= bit;
  if (w.write_epoch == epoch && w.writer != lane)
    return Race{w.writer, true};
  return std::nullopt;
}

std::string describe_warp_race(const WarpRaceLog::Race &race, std::uint32_t lane, std::uintptr_t offset,
                               bool dynamic, const char *where) {
  const char *memory = dynamic ? "dynamic shared memory" : "a shared array";
  std::string message =
      race.other_wrote
          ? fmt::format(
                "warp-synchronous shared memory without a barrier: lane {} reads the word at byte {} of "
                "{}, which lane {} of its warp wrote since their last sync_threads or "
                "warp::sync",
                lane, offset, memory, race.other_lane)
          : fmt::format(
                "warp-synchronous shared memory without a barrier: lane {} writes the word at byte {} of "
                "{}, which lane {} of its warp read since their last sync_threads or "
                "warp::sync",
                lane, offset, memory, race.other_lane);
  message += "; the lanes of a warp do not run in lockstep (not on GPUs since Volta either): put a "
             "warp::sync() between the write and the read";
  if (where && *where)
    message += fmt::format(" (at {})", where);
  return message;
}

} // namespace oxide::detail::sim

extern "C" void __oxide_sim_check_shared_access(const void *address, std::uint64_t bytes, std::uint32_t write,
                                                const char *where) noexcept {
  oxide::detail::sim::SimThread *thread = oxide::detail::sim::current_sim_thread;
  if (!thread || !thread->block)
    return; // host code
  thread->block->check_shared_access(*thread, address, bytes, write != 0, where);
}
