// Thread-index witnesses: proof that a value is the calling thread's own index.
//
// A witness can only be obtained from oxide::thread::index_1d(); it cannot be constructed,
// copied, moved or stored, so a DisjointSpan indexed by it is written by exactly one thread.
#pragma once

#include <cstddef>

#include "oxide/device/intrinsics.hpp"

namespace oxide::thread {

class ThreadIndex1D;
ThreadIndex1D index_1d() noexcept;

/// The calling thread's global linear index in a 1-D launch.
class ThreadIndex1D {
public:
  ThreadIndex1D(const ThreadIndex1D &) = delete;
  ThreadIndex1D(ThreadIndex1D &&) = delete;
  ThreadIndex1D &operator=(const ThreadIndex1D &) = delete;
  ThreadIndex1D &operator=(ThreadIndex1D &&) = delete;
  ~ThreadIndex1D() = default;

  /// The linear index, usable for reading inputs.
  [[nodiscard]] std::size_t get() const noexcept { return value_; }

private:
  friend ThreadIndex1D index_1d() noexcept;
  explicit ThreadIndex1D(std::size_t value) noexcept : value_(value) {}
  std::size_t value_;
};

/// Returns the witness of the calling thread (blockIdx.x * blockDim.x + threadIdx.x).
inline ThreadIndex1D index_1d() noexcept { return ThreadIndex1D(__oxide_index_1d()); }

} // namespace oxide::thread
