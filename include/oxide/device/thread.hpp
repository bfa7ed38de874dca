// Thread-index witnesses: proof that a value is the calling thread's own index.
//
// A witness can only be obtained from oxide::thread::index_1d(); it cannot be constructed,
// copied, moved or stored, so a DisjointSpan indexed by it is written by exactly one thread.
#pragma once

#include <cstddef>

#include "oxide/device/intrinsics.hpp"

namespace oxide::thread {

class ThreadIndex1D;
class GridStride1D;
class ThreadIndex2D;
class ThreadIndex3D;
ThreadIndex1D index_1d() noexcept;
ThreadIndex2D index_2d() noexcept;
ThreadIndex3D index_3d() noexcept;

namespace detail {
/// Witnesses can be neither copied nor moved: a thread cannot hand its index to another.
struct PinnedWitness {
  PinnedWitness() = default;
  PinnedWitness(const PinnedWitness &) = delete;
  PinnedWitness(PinnedWitness &&) = delete;
  PinnedWitness &operator=(const PinnedWitness &) = delete;
  PinnedWitness &operator=(PinnedWitness &&) = delete;
  ~PinnedWitness() = default;
};
} // namespace detail

/// The calling thread's global linear index in a 1-D launch.
class ThreadIndex1D : detail::PinnedWitness {
public:
  /// The linear index, usable for reading inputs.
  [[nodiscard]] std::size_t get() const noexcept { return value_; }

private:
  friend ThreadIndex1D index_1d() noexcept;
  friend class GridStride1D;
  explicit ThreadIndex1D(std::size_t value) noexcept : value_(value) {}
  std::size_t value_;
};

/// The calling thread's global (x, y) coordinates in a 2-D launch.
class ThreadIndex2D : detail::PinnedWitness {
public:
  [[nodiscard]] std::size_t x() const noexcept { return x_; }
  [[nodiscard]] std::size_t y() const noexcept { return y_; }

private:
  friend ThreadIndex2D index_2d() noexcept;
  ThreadIndex2D(std::size_t x, std::size_t y) noexcept : x_(x), y_(y) {}
  std::size_t x_, y_;
};

/// The calling thread's global (x, y, z) coordinates in a 3-D launch.
class ThreadIndex3D : detail::PinnedWitness {
public:
  [[nodiscard]] std::size_t x() const noexcept { return x_; }
  [[nodiscard]] std::size_t y() const noexcept { return y_; }
  [[nodiscard]] std::size_t z() const noexcept { return z_; }

private:
  friend ThreadIndex3D index_3d() noexcept;
  ThreadIndex3D(std::size_t x, std::size_t y, std::size_t z) noexcept : x_(x), y_(y), z_(z) {}
  std::size_t x_, y_, z_;
};

/// The calling thread's indices of a grid-stride loop over [0, count): its own index, then
/// every (gridDim.x * blockDim.x)-th after it. Each step is a witness, so outputs can be written
/// through it; no two threads ever see the same index.
///
///   for (const auto &i : oxide::thread::grid_stride(out.size()))
///     if (float *o = out.get_mut(i)) *o = in[i.get()] * 2;
class GridStride1D {
public:
  class iterator {
  public:
    const ThreadIndex1D &operator*() const noexcept { return index_; }
    iterator &operator++() noexcept {
      index_.value_ = __oxide_grid_stride_next(index_.value_, 1, 0);
      return *this;
    }
    /// The loop runs while the index is below the count (the only comparison range-for makes).
    bool operator!=(std::size_t count) const noexcept { return index_.value_ < count; }

  private:
    friend class GridStride1D;
    explicit iterator(std::size_t first) noexcept : index_(first) {}
    ThreadIndex1D index_;
  };

  iterator begin() const noexcept { return iterator(__oxide_index_1d()); }
  std::size_t end() const noexcept { return count_; }

private:
  friend GridStride1D grid_stride(std::size_t count) noexcept;
  explicit GridStride1D(std::size_t count) noexcept : count_(count) {}
  std::size_t count_;
};

/// See GridStride1D.
inline GridStride1D grid_stride(std::size_t count) noexcept { return GridStride1D(count); }

/// Returns the witness of the calling thread (blockIdx.x * blockDim.x + threadIdx.x).
inline ThreadIndex1D index_1d() noexcept { return ThreadIndex1D(__oxide_index_1d()); }
/// Returns the 2-D witness of the calling thread; only valid in a kernel whose contract says
/// `domain = 2`.
inline ThreadIndex2D index_2d() noexcept { return {__oxide_thread_index(2, 0), __oxide_thread_index(2, 1)}; }
/// Returns the 3-D witness of the calling thread (`domain = 3`).
inline ThreadIndex3D index_3d() noexcept {
  return {__oxide_thread_index(3, 0), __oxide_thread_index(3, 1), __oxide_thread_index(3, 2)};
}

} // namespace oxide::thread
