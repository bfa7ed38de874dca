// Shared by cub_block_oxide.cpp and cub_block_cuda.cu: the inputs, sizes and checks of the CUB
// block-collective pair, host code only, so both compilers see the same.
#pragma once

#include "bench_common.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

namespace bench {

constexpr unsigned kCollectiveBlock = 256;
constexpr unsigned kSortItems = 8;       // a sorted tile: 2048 (key, value) pairs
constexpr unsigned kScanItems = 4;       // a scanned tile: 1024 ints
constexpr unsigned kHistogramItems = 16; // a counted tile: 4096 bytes

inline std::vector<std::uint32_t> block_sort_keys(std::size_t n) {
  std::vector<std::uint32_t> keys(n);
  for (std::size_t i = 0; i < n; ++i)
    keys[i] = static_cast<std::uint32_t>(mix(0xb50 + i));
  return keys;
}

/// Each tile of `tile` (key, position) pairs sorted by key, stably: the keys and the positions.
inline bool tiles_sorted_right(const char *name, const std::vector<std::uint32_t> &keys, std::size_t tile,
                               const std::vector<std::uint32_t> &got_keys,
                               const std::vector<std::uint32_t> &got_values) {
  std::vector<std::uint32_t> order(tile);
  for (std::size_t first = 0; first < keys.size(); first += tile) {
    std::iota(order.begin(), order.end(), static_cast<std::uint32_t>(first));
    // Stable: equal keys by position (std::stable_sort warns under clang 22 with libstdc++ 12).
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return keys[a] < keys[b] || (keys[a] == keys[b] && a < b);
    });
    for (std::size_t j = 0; j < tile; ++j)
      if (got_values[first + j] != order[j] || got_keys[first + j] != keys[order[j]]) {
        mismatch(name, first + j, got_values[first + j], order[j]);
        return false;
      }
  }
  return true;
}

inline std::vector<std::int32_t> block_scan_input(std::size_t n) {
  std::vector<std::int32_t> x(n);
  for (std::size_t i = 0; i < n; ++i)
    x[i] = static_cast<std::int32_t>(mix(0x5ca + i) % 1999) - 999;
  return x;
}

/// Each tile's exclusive sum, and each tile's total.
inline bool tiles_scanned_right(const char *name, const std::vector<std::int32_t> &x, std::size_t tile,
                                const std::vector<std::int32_t> &got,
                                const std::vector<std::int32_t> &totals) {
  for (std::size_t first = 0; first < x.size(); first += tile) {
    std::int32_t running = 0;
    for (std::size_t j = first; j < first + tile; ++j) {
      if (got[j] != running) {
        mismatch(name, j, got[j], running);
        return false;
      }
      running += x[j];
    }
    if (totals[first / tile] != running) {
      mismatch(name, first / tile, totals[first / tile], running);
      return false;
    }
  }
  return true;
}

inline std::vector<std::uint8_t> histogram_bytes(std::size_t n) {
  std::vector<std::uint8_t> x(n);
  for (std::size_t i = 0; i < n; ++i) // skewed: every 8th byte the same bin, as real data has
    x[i] = static_cast<std::uint8_t>(i % 8 == 0 ? 7 : mix(0x415 + i) >> 56);
  return x;
}

/// The blocks' histograms (rows of 256) add up to the bytes' histogram.
inline bool histograms_right(const char *name, const std::vector<std::uint8_t> &x,
                             const std::vector<std::uint32_t> &rows) {
  std::vector<std::uint64_t> want(256, 0), got(256, 0);
  for (std::uint8_t b : x)
    ++want[b];
  for (std::size_t i = 0; i < rows.size(); ++i)
    got[i % 256] += rows[i];
  for (std::size_t b = 0; b < 256; ++b)
    if (got[b] != want[b]) {
      mismatch(name, b, double(got[b]), double(want[b]));
      return false;
    }
  return true;
}

} // namespace bench
