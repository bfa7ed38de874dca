// Group witnesses: proof that a value is the calling thread's warp, block or cluster index.
//
// A group owns outputs together: a warp owns a row (its lanes write the row's elements strided by
// 32, or lane 0 writes the row's one result), a block owns its partial sum (thread 0 writes it),
// a cluster owns its result. Like the thread witnesses (oxide/device/thread.hpp), a group witness
// comes only from index() or a group-stride loop, and cannot be copied, moved or stored; the
// spans' get_mut and row_mut take them (oxide/device/span.hpp). None depends on gridDim.y: a
// launch of 2^31 - 1 blocks along x has as many block witnesses, and 32 times as many warps.
#pragma once

#include <cstddef>
#include <cstdint>

#include "oxide/device/intrinsics.hpp"
#include "oxide/device/thread.hpp"

namespace oxide {

/// The index of the calling thread's group of kind `G`, pinned like every witness: use the
/// aliases warp::WarpIndex, block::BlockIndex and cluster::ClusterIndex.
template <intrinsic::Group G> class GroupWitness : thread::detail::PinnedWitness {
public:
  /// The group's index in the launch, usable for reading inputs.
  [[nodiscard]] std::size_t get() const noexcept { return value_; }

  /// The calling thread's group (what warp::index(), block::index() and cluster::index() return).
  [[nodiscard]] static GroupWitness current() noexcept {
    return GroupWitness(__oxide_group_index(intrinsic::code(G)));
  }

private:
  template <intrinsic::Group> friend class GroupStride;
  explicit GroupWitness(std::size_t value) noexcept : value_(value) {}
  std::size_t value_;
};

/// The indices of a group-stride loop over [0, count): the group's own index, then every
/// (number of such groups in the launch)-th after it. Each step is a witness.
template <intrinsic::Group G> class GroupStride {
public:
  class iterator {
  public:
    const GroupWitness<G> &operator*() const noexcept { return index_; }
    iterator &operator++() noexcept {
      index_.value_ = __oxide_group_stride_next(index_.value_, intrinsic::code(G));
      return *this;
    }
    /// The loop runs while the index is below the count (the only comparison range-for makes).
    bool operator!=(std::size_t count) const noexcept { return index_.value_ < count; }

  private:
    friend class GroupStride;
    explicit iterator(std::size_t first) noexcept : index_(first) {}
    GroupWitness<G> index_;
  };

  explicit GroupStride(std::size_t count) noexcept : count_(count) {}
  iterator begin() const noexcept { return iterator(__oxide_group_index(intrinsic::code(G))); }
  std::size_t end() const noexcept { return count_; }

private:
  std::size_t count_;
};

namespace warp {

/// The calling thread's warp: blockLinear * ceil(blockThreads / 32) + linearThread / 32, the
/// hardware's warps (a warp never spans two blocks).
using WarpIndex = GroupWitness<intrinsic::Group::warp>;

/// Returns the witness of the calling thread's warp.
[[nodiscard]] inline WarpIndex index() noexcept { return WarpIndex::current(); }

/// A warp-stride loop over [0, count): warp w handles w, w + warps, w + 2 warps...
///
///   for (const auto &w : oxide::warp::warp_stride(rows))
///     if (float *o = out.get_mut(w)) *o = row_sum(w.get());
[[nodiscard]] inline GroupStride<intrinsic::Group::warp> warp_stride(std::size_t count) noexcept {
  return GroupStride<intrinsic::Group::warp>(count);
}

} // namespace warp

namespace block {

/// The calling thread's block: blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z).
using BlockIndex = GroupWitness<intrinsic::Group::block>;

/// Returns the witness of the calling thread's block.
[[nodiscard]] inline BlockIndex index() noexcept { return BlockIndex::current(); }

/// A block-stride loop over [0, count): block b handles b, b + blocks, b + 2 blocks...
[[nodiscard]] inline GroupStride<intrinsic::Group::block> block_stride(std::size_t count) noexcept {
  return GroupStride<intrinsic::Group::block>(count);
}

} // namespace block

namespace cluster {

/// The calling thread's thread-block cluster, by its linear index in the grid (sm_90; the kernel's
/// contract must say `cluster = (x, y, z)`).
using ClusterIndex = GroupWitness<intrinsic::Group::cluster>;

/// Returns the witness of the calling thread's cluster.
[[nodiscard]] inline ClusterIndex index() noexcept { return ClusterIndex::current(); }

} // namespace cluster

} // namespace oxide
