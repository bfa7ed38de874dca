// Shared by cub_oxide.cpp and cub_cuda.cu: the inputs and the checks of the CUB pair, host code
// only, so both compilers see the same. A sort is checked by order and by two multiset hashes
// of the keys (a full host sort of 2^28 keys would take longer than the benchmark).
#pragma once

#include "bench_common.hpp"

#include <cstdint>
#include <vector>

namespace bench {

inline std::vector<std::uint32_t> cub_keys(std::size_t n) {
  std::vector<std::uint32_t> keys(n);
  for (std::size_t i = 0; i < n; ++i)
    keys[i] = static_cast<std::uint32_t>(mix(0xc0b + i));
  return keys;
}

struct KeyHashes {
  std::uint64_t sum = 0, mixed = 0;
  bool operator==(const KeyHashes &o) const { return sum == o.sum && mixed == o.mixed; }
};

inline KeyHashes hashes(const std::vector<std::uint32_t> &keys) {
  KeyHashes h;
  for (std::uint32_t k : keys) {
    h.sum += k;
    h.mixed += mix(k);
  }
  return h;
}

/// `sorted` is non-decreasing and holds the keys of `input`; with `values` (the input positions,
/// permuted), each value names a position that held its key.
inline bool sorted_right(const char *name, const std::vector<std::uint32_t> &input,
                         const std::vector<std::uint32_t> &sorted, const std::vector<std::uint32_t> *values) {
  for (std::size_t i = 1; i < sorted.size(); ++i)
    if (sorted[i - 1] > sorted[i]) {
      mismatch(name, i, sorted[i], sorted[i - 1]);
      return false;
    }
  if (!(hashes(input) == hashes(sorted))) {
    std::fprintf(stderr, "%s: the sorted keys are not the input's\n", name);
    return false;
  }
  if (values)
    for (std::size_t i = 0; i < sorted.size(); i += 97)
      if ((*values)[i] >= input.size() || input[(*values)[i]] != sorted[i]) {
        mismatch(name, i, (*values)[i], double(i));
        return false;
      }
  return true;
}

/// Every 997th element and the last of an inclusive sum (uint32, wrapping) of `input`.
inline bool scan_right(const char *name, const std::vector<std::uint32_t> &input,
                       const std::vector<std::uint32_t> &got) {
  std::uint32_t running = 0;
  for (std::size_t i = 0; i < input.size(); ++i) {
    running += input[i];
    if ((i % 997 == 0 || i + 1 == input.size()) && got[i] != running) {
      mismatch(name, i, got[i], running);
      return false;
    }
  }
  return true;
}

} // namespace bench
