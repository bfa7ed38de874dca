#include "sim/disjoint_claims.hpp"

#include <atomic>
#include <cstdlib>
#include <functional>
#include <limits>

namespace oxide::detail::sim {

std::size_t DisjointClaims::KeyHash::operator()(const Key &key) const noexcept {
  const std::size_t h = std::hash<const void *>()(key.data);
  return (h ^ (key.index + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2))) * 0xff51afd7ed558ccdull;
}

DisjointClaims::~DisjointClaims() {
  for (const Dense &d : dense_)
    std::free(d.owners);
}

bool DisjointClaims::add_span(const void *data, std::size_t elements) noexcept {
  if (elements == 0)
    return false;
  for (const Dense &d : dense_)
    if (d.data == data)
      return d.elements >= elements; // an argument passed twice: one table
  if (elements > std::numeric_limits<std::size_t>::max() / sizeof(std::uint64_t))
    return false;
  // calloc: large tables come from mmap, so untouched elements cost no memory.
  auto *owners = static_cast<std::uint64_t *>(std::calloc(elements, sizeof(std::uint64_t)));
  if (!owners)
    return false;
  try {
    dense_.push_back({data, elements, owners});
  } catch (...) {
    std::free(owners);
    return false;
  }
  return true;
}

std::optional<ThreadId> DisjointClaims::claim(const void *data, std::size_t index, ThreadId claimant) {
  if (const Dense *d = dense(data, index)) {
    const std::uint64_t mine = encode(claimant);
    std::uint64_t previous = 0;
    if (std::atomic_ref(d->owners[index])
            .compare_exchange_strong(previous, mine, std::memory_order_relaxed) ||
        previous == mine)
      return std::nullopt;
    return decode(previous);
  }
  const Key key{data, index};
  const std::size_t hash = KeyHash()(key);
  Shard &shard = shards_[(hash >> 32) % kShards];
  std::lock_guard lock(shard.mutex);
  const auto [it, inserted] = shard.owners.try_emplace(key, claimant);
  if (inserted || it->second == claimant)
    return std::nullopt;
  return it->second;
}

std::optional<ThreadId> DisjointClaims::owner(const void *data, std::size_t index) const {
  if (const Dense *d = dense(data, index)) {
    const std::uint64_t v = std::atomic_ref(d->owners[index]).load(std::memory_order_relaxed);
    if (v == 0)
      return std::nullopt;
    return decode(v);
  }
  const Key key{data, index};
  const std::size_t hash = KeyHash()(key);
  const Shard &shard = shards_[(hash >> 32) % kShards];
  std::lock_guard lock(shard.mutex);
  const auto it = shard.owners.find(key);
  if (it == shard.owners.end())
    return std::nullopt;
  return it->second;
}

} // namespace oxide::detail::sim
