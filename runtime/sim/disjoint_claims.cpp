#include "sim/disjoint_claims.hpp"

#include <functional>

namespace oxide::detail::sim {

std::size_t DisjointClaims::KeyHash::operator()(const Key &key) const noexcept {
  const std::size_t h = std::hash<const void *>()(key.data);
  return (h ^ (key.index + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2))) * 0xff51afd7ed558ccdull;
}

std::optional<ThreadId> DisjointClaims::claim(const void *data, std::size_t index, ThreadId claimant) {
  const Key key{data, index};
  const std::size_t hash = KeyHash()(key);
  Shard &shard = shards_[(hash >> 32) % kShards];
  std::lock_guard lock(shard.mutex);
  const auto [it, inserted] = shard.owners.try_emplace(key, claimant);
  if (inserted || it->second == claimant)
    return std::nullopt;
  return it->second;
}

} // namespace oxide::detail::sim
