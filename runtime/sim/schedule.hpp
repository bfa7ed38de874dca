// Schedule fuzzing (OXIDE_SIM_SCHEDULE=random): the simulator runs blocks, and the threads of a
// block between their waits, in an order drawn from a seed, so that a result which depends on
// the order (a race in shared memory, or between blocks) differs from seed to seed. Everything
// is a function of the seed: launch n of a context draws from (seed, n), each group of blocks
// from (that, its index), so a run replays with the same OXIDE_SIM_SEED (and, for races between
// blocks, OXIDE_SIM_THREADS=1: which host thread runs a block is not part of the schedule).
#pragma once

#include <bit>
#include <cstdint>

namespace oxide::detail::sim {

/// SplitMix64's finaliser: a bijection of 64-bit words that mixes every bit into every other.
[[nodiscard]] constexpr std::uint64_t mix64(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// The draws of one schedule: SplitMix64, small and fast (one per context switch).
class ScheduleRandom {
public:
  constexpr explicit ScheduleRandom(std::uint64_t seed = 0) noexcept : state_(seed) {}
  constexpr std::uint64_t next() noexcept {
    state_ += 0x9e3779b97f4a7c15ull;
    return mix64(state_);
  }
  /// A number in [0, n), n > 0 (the modulo's bias is irrelevant here).
  constexpr std::uint64_t below(std::uint64_t n) noexcept { return next() % n; }

private:
  std::uint64_t state_;
};

/// A permutation of [0, n) drawn from `seed`, in O(1) memory: an invertible mix of the bits of
/// the smallest power of two that holds n, walked until it lands below n (on average less than
/// twice).
class Permutation {
public:
  constexpr Permutation() noexcept = default;
  constexpr Permutation(std::uint64_t n, std::uint64_t seed) noexcept
      : n_(n), bits_(n <= 1 ? 1 : static_cast<unsigned>(std::bit_width(n - 1))),
        mask_(bits_ >= 64 ? ~0ull : (1ull << bits_) - 1), key_a_(mix64(seed) | 1),
        key_b_(mix64(seed ^ 0x5bd1e995)) {}

  /// The i-th element, i < n.
  [[nodiscard]] constexpr std::uint64_t operator()(std::uint64_t i) const noexcept {
    if (n_ <= 1)
      return i;
    do
      i = step(i);
    while (i >= n_);
    return i;
  }

private:
  // Each part is a bijection of [0, 2^bits): an odd multiplier, an added key, an xor with the
  // value's own high bits.
  [[nodiscard]] constexpr std::uint64_t step(std::uint64_t x) const noexcept {
    for (int round = 0; round < 3; ++round) {
      x = (x * key_a_ + key_b_) & mask_;
      x ^= x >> (bits_ / 2 + 1);
    }
    return x;
  }

  std::uint64_t n_ = 0;
  unsigned bits_ = 1;
  std::uint64_t mask_ = 1;
  std::uint64_t key_a_ = 1, key_b_ = 0;
};

} // namespace oxide::detail::sim
