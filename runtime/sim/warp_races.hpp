// The checking mode's record of shared-memory accesses between the lanes of a warp: the legacy
// warp-synchronous code that lets the lanes of a warp communicate through (volatile) shared
// memory without warp::sync() relied on lockstep execution, which GPUs since Volta no longer
// give (and the simulator never did: it runs the lanes one after the other between waits).
//
// A race is a read of a word that another lane of the same warp wrote, or a write of a word that
// another lane of the same warp read, with no barrier between them: no sync_threads, warp::sync
// or group barrier that both took part in. Each warp has an epoch that every such barrier ends
// (BlockRunner draws a new one, never reused); a word remembers its last writer and the lanes
// that read it, with the epoch they did it in. Two writes by different lanes are not reported
// (code that lets several lanes store the same flag is common and harmless).
//
// The accesses come through __oxide_sim_check_shared_access, which code instrumented for the
// checking mode calls for each load and store of shared memory.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

namespace oxide::detail::sim {

class WarpRaceLog {
public:
  /// What was wrong with an access: the other lane and what it did.
  struct Race {
    std::uint32_t other_lane = 0;
    bool other_wrote = false; ///< the other lane wrote (this one reads), else it read
  };

  /// Records that `lane` of the warp whose current epoch is `epoch` read or wrote the 4-byte
  /// word at `word`; the race it makes with an earlier access, if any.
  [[nodiscard]] std::optional<Race> access(std::uintptr_t word, std::uint64_t epoch, std::uint32_t lane,
                                           bool write);

private:
  struct Word {
    std::uint64_t write_epoch = 0; ///< 0: never written
    std::uint64_t read_epoch = 0;  ///< 0: never read
    std::uint32_t writer = 0;      ///< a lane
    std::uint32_t readers = 0;     ///< a bit per lane
  };
  std::unordered_map<std::uintptr_t, Word> words_;
};

/// The report of `race` for `lane`'s access of the word at byte `offset` of a shared array (of
/// the dynamic shared memory when `dynamic`), e.g. "warp-synchronous shared memory without a
/// barrier: lane 0 reads the word at byte 64 of a shared array, which lane 16 of its warp wrote
/// since their last sync_threads ...".
[[nodiscard]] std::string describe_warp_race(const WarpRaceLog::Race &race, std::uint32_t lane,
                                             std::uintptr_t offset, bool dynamic, const char *where);

} // namespace oxide::detail::sim

extern "C" {
/// Checking mode: the running simulated thread reads (`write` 0) or writes the `bytes` bytes at
/// `address`; `where` ("file:line:col", or null) names the access. Does nothing unless the
/// address is in the thread's block's shared memory and the launch is checked.
void __oxide_sim_check_shared_access(const void *address, std::uint64_t bytes, std::uint32_t write,
                                     const char *where) noexcept;
}
