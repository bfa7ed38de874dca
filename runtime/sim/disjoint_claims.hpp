// The checking mode's record of which simulated thread got each DisjointSpan element.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <unordered_map>

namespace oxide::detail::sim {

/// A simulated thread, unique within a launch.
struct ThreadId {
  std::uint64_t block = 0;  ///< linear block index in the grid
  std::uint32_t thread = 0; ///< linear thread index in the block
  friend bool operator==(const ThreadId &, const ThreadId &) = default;
};

/// Thread-safe: blocks claim elements from every worker at once. Sharded so that workers
/// rarely wait for each other.
class DisjointClaims {
public:
  /// Records that `claimant` gets element `index` of the span whose data starts at `data`.
  /// Returns the other thread when a different one already got it; claiming twice from one
  /// thread is fine.
  [[nodiscard]] std::optional<ThreadId> claim(const void *data, std::size_t index, ThreadId claimant);

private:
  struct Key {
    const void *data;
    std::size_t index;
    friend bool operator==(const Key &, const Key &) = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key &key) const noexcept;
  };
  struct Shard {
    std::mutex mutex;
    std::unordered_map<Key, ThreadId, KeyHash> owners;
  };
  static constexpr std::size_t kShards = 64;
  std::array<Shard, kShards> shards_;
};

} // namespace oxide::detail::sim
