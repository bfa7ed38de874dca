// The checking mode's record of which simulated thread got each DisjointSpan element.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

namespace oxide::detail::sim {

/// A simulated thread, unique within a launch.
struct ThreadId {
  std::uint64_t block = 0;  ///< linear block index in the grid
  std::uint32_t thread = 0; ///< linear thread index in the block
  friend bool operator==(const ThreadId &, const ThreadId &) = default;
};

/// Thread-safe: blocks claim elements from every worker at once. Spans the launch announces
/// (add_span: the DisjointSpan arguments of a kernel oxcc described) get a flat table of owners,
/// one atomic word per element; others go to a hash table, sharded so that workers rarely wait
/// for each other.
class DisjointClaims {
public:
  DisjointClaims() = default;
  DisjointClaims(const DisjointClaims &) = delete;
  DisjointClaims &operator=(const DisjointClaims &) = delete;
  ~DisjointClaims();

  /// Gives the span of `elements` elements at `data` a flat table of owners: 8 bytes per
  /// element, zero pages until claimed. Call before the launch runs (not thread-safe). Returns
  /// false, leaving the span to the hash table, when the memory cannot be had.
  bool add_span(const void *data, std::size_t elements) noexcept;

  /// Records that `claimant` gets element `index` of the span whose data starts at `data`.
  /// Returns the other thread when a different one already got it; claiming twice from one
  /// thread is fine.
  [[nodiscard]] std::optional<ThreadId> claim(const void *data, std::size_t index, ThreadId claimant);
  /// The thread that got element `index` of the span at `data`, if one has.
  [[nodiscard]] std::optional<ThreadId> owner(const void *data, std::size_t index) const;

private:
  /// A span's flat table: owners[i] is 0, or the claimant of element i encoded by encode().
  struct Dense {
    const void *data;
    std::size_t elements;
    std::uint64_t *owners;
  };
  static constexpr std::uint32_t kThreadBits = 10; // at most 1024 threads per block
  static std::uint64_t encode(ThreadId id) noexcept { return (id.block << kThreadBits | id.thread) + 1; }
  static ThreadId decode(std::uint64_t v) noexcept {
    return {(v - 1) >> kThreadBits, static_cast<std::uint32_t>((v - 1) & ((1u << kThreadBits) - 1))};
  }
  [[nodiscard]] const Dense *dense(const void *data, std::size_t index) const noexcept {
    for (const Dense &d : dense_)
      if (d.data == data)
        return index < d.elements ? &d : nullptr;
    return nullptr;
  }
  std::vector<Dense> dense_;

  struct Key {
    const void *data;
    std::size_t index;
    friend bool operator==(const Key &, const Key &) = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key &key) const noexcept;
  };
  struct Shard {
    mutable std::mutex mutex;
    std::unordered_map<Key, ThreadId, KeyHash> owners;
  };
  static constexpr std::size_t kShards = 64;
  std::array<Shard, kShards> shards_;
};

} // namespace oxide::detail::sim
