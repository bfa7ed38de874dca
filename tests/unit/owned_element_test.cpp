// The one element formula of the ownership shapes (oxide/detail/owned_element.hpp), which the
// GPU lowering and the simulator both instantiate: over every thread of small launches, the
// owners' sets never meet and stay inside the output, and the warpgroup tile's blocks start where
// WarpgroupTile::origin (the device API's warpgroup_tile_origin) says.
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include "oxide/detail/owned_element.hpp"

namespace {

using oxide::detail::OwnedElementOperands;
using oxide::detail::WarpgroupTile;
using oxide::intrinsic::Dim;
using oxide::intrinsic::GeometryKind;
using oxide::intrinsic::Ownership;

/// One thread of a launch.
struct Thread {
  std::array<std::uint64_t, 3> thread_idx{}, block_idx{}, block_dim{1, 1, 1}, grid_dim{1, 1, 1};

  [[nodiscard]] std::uint64_t linear() const {
    return (thread_idx[2] * block_dim[1] + thread_idx[1]) * block_dim[0] + thread_idx[0];
  }
  [[nodiscard]] std::uint64_t block() const {
    return (block_idx[2] * grid_dim[1] + block_idx[1]) * grid_dim[0] + block_idx[0];
  }
  [[nodiscard]] std::uint64_t threads() const { return block_dim[0] * block_dim[1] * block_dim[2]; }
  [[nodiscard]] std::uint64_t global(unsigned d) const { return block_idx[d] * block_dim[d] + thread_idx[d]; }
};

/// The formula's arithmetic on integers, for one thread.
struct Integers : oxide::detail::IntegerArithmetic {
  const Thread &t;

  explicit Integers(const Thread &t) : t(t) {}
  [[nodiscard]] Value lane() const { return t.linear() % 32; }
  [[nodiscard]] Value thread_in_block() const { return t.linear(); }
  [[nodiscard]] Value block_threads() const { return t.threads(); }
  static Value cluster_rank() { return 0; }
  [[nodiscard]] Value read(GeometryKind kind, Dim dim) const {
    const auto d = static_cast<std::size_t>(dim);
    switch (kind) {
    case GeometryKind::thread_idx:
      return t.thread_idx[d];
    case GeometryKind::block_idx:
      return t.block_idx[d];
    case GeometryKind::block_dim:
      return t.block_dim[d];
    case GeometryKind::grid_dim:
      return t.grid_dim[d];
    }
    return 0;
  }
};

/// Runs `operands(t, j)` for every thread of a grid x block launch and j < js, and returns how
/// many elements were owned; fails if two (thread, j) own one element or one is past `size`.
std::size_t
claimed(Ownership shape, std::array<std::uint64_t, 3> grid, std::array<std::uint64_t, 3> block,
        std::uint64_t js, std::uint64_t size,
        const std::function<OwnedElementOperands<std::uint64_t>(const Thread &, std::uint64_t)> &operands) {
  std::map<std::uint64_t, std::pair<std::uint64_t, std::uint64_t>> owner; // element -> (block, thread)
  Thread t;
  t.grid_dim = grid;
  t.block_dim = block;
  for (t.block_idx[2] = 0; t.block_idx[2] < grid[2]; ++t.block_idx[2])
    for (t.block_idx[1] = 0; t.block_idx[1] < grid[1]; ++t.block_idx[1])
      for (t.block_idx[0] = 0; t.block_idx[0] < grid[0]; ++t.block_idx[0])
        for (t.thread_idx[2] = 0; t.thread_idx[2] < block[2]; ++t.thread_idx[2])
          for (t.thread_idx[1] = 0; t.thread_idx[1] < block[1]; ++t.thread_idx[1])
            for (t.thread_idx[0] = 0; t.thread_idx[0] < block[0]; ++t.thread_idx[0])
              for (std::uint64_t j = 0; j < js; ++j) {
                Integers arithmetic{t};
                const auto [element, ok] = oxide::detail::owned_element(arithmetic, shape, operands(t, j));
                if (!ok)
                  continue;
                EXPECT_LT(element, size) << "block " << t.block() << " thread " << t.linear() << " j " << j;
                const auto [it, fresh] = owner.insert({element, {t.block(), t.linear()}});
                EXPECT_TRUE(fresh || it->second == std::pair(t.block(), t.linear()))
                    << "element " << element << " owned by block " << it->second.first << " thread "
                    << it->second.second << " and by block " << t.block() << " thread " << t.linear();
                if (!fresh && it->second == std::pair(t.block(), t.linear()))
                  ADD_FAILURE() << "one thread names element " << element << " twice";
              }
  return owner.size();
}

TEST(OwnedElement, GroupShapesAreDisjoint) {
  const std::array<std::uint64_t, 3> grid{3, 2, 1}, block{48, 2, 1}; // 3 warps per block, the last partial
  const std::uint64_t warps = 6 * 3, width = 100, height = 20;
  auto warp_index = [](const Thread &t) { return t.block() * 3 + t.linear() / 32; };
  EXPECT_EQ(claimed(Ownership::warp_leader, grid, block, 1, width,
                    [&](const Thread &t, std::uint64_t j) {
                      return OwnedElementOperands<std::uint64_t>{warp_index(t), 0, j, width, 1, 1, 0};
                    }),
            warps);
  EXPECT_EQ(claimed(Ownership::warp_lanes, grid, block, 4, width * height,
                    [&](const Thread &t, std::uint64_t j) {
                      return OwnedElementOperands<std::uint64_t>{warp_index(t), 0, j, width, height, 1, 0};
                    }),
            warps * width);
  EXPECT_EQ(claimed(Ownership::block_threads, grid, block, 2, width * height,
                    [&](const Thread &t, std::uint64_t j) {
                      return OwnedElementOperands<std::uint64_t>{t.block(), 0, j, width, height, 1, 0};
                    }),
            6 * width);
}

TEST(OwnedElement, ThreadShapesAreDisjoint) {
  const std::array<std::uint64_t, 3> grid{4, 1, 1}, block{32, 1, 1};
  const std::uint64_t width = 1000;
  auto i = [](const Thread &t) { return t.global(0); };
  EXPECT_EQ(claimed(Ownership::launch_strided, grid, block, 10, width,
                    [&](const Thread &t, std::uint64_t j) {
                      return OwnedElementOperands<std::uint64_t>{i(t), 0, j, width, 1, 1, 0};
                    }),
            width);
  EXPECT_EQ(claimed(Ownership::block_strided, grid, block, 9, width,
                    [&](const Thread &t, std::uint64_t j) {
                      return OwnedElementOperands<std::uint64_t>{i(t), 0, j, width, 1, 1, 0, 7};
                    }),
            4 * 32 * 7);
  // Thread i's pair is elements (i / h) 2h + i % h and that plus h, as the Ownership enum says.
  auto pair_elements = [](std::uint64_t threads, std::uint64_t h, std::uint64_t width) {
    std::uint64_t count = 0;
    for (std::uint64_t i = 0; i < threads; ++i)
      for (std::uint64_t j = 0; j < 2; ++j)
        count += i / h * 2 * h + i % h + h * j < width;
    return count;
  };
  for (const std::uint64_t h : {1u, 3u, 16u, 64u, 100u})
    EXPECT_EQ(claimed(Ownership::pair, grid, block, 3, 200,
                      [&](const Thread &t, std::uint64_t j) {
                        return OwnedElementOperands<std::uint64_t>{i(t), 0, j, 200, 1, 1, h};
                      }),
              pair_elements(4 * 32, h, 200))
        << "distance " << h;
  // Distances the formula refuses: no element at all.
  for (const std::uint64_t h : {0u, 200u})
    EXPECT_EQ(claimed(Ownership::pair, grid, block, 3, 200,
                      [&](const Thread &t, std::uint64_t j) {
                        return OwnedElementOperands<std::uint64_t>{i(t), 0, j, 200, 1, 1, h};
                      }),
              0u);
}

TEST(OwnedElement, TwoDimensionalShapesAreDisjoint) {
  const std::array<std::uint64_t, 3> grid{2, 3, 1}, block{8, 4, 1};
  const std::uint64_t width = 16, height = 40, depth = 5;
  EXPECT_EQ(claimed(Ownership::strided_rows, grid, block, 4, width * height,
                    [&](const Thread &t, std::uint64_t j) {
                      return OwnedElementOperands<std::uint64_t>{t.global(0), t.global(1), j, width,
                                                                 height,      1,           0, 3};
                    }),
            width * 36);
  EXPECT_EQ(claimed(Ownership::z_column, grid, block, depth + 2, width * 12 * depth,
                    [&](const Thread &t, std::uint64_t j) {
                      return OwnedElementOperands<std::uint64_t>{t.global(0), t.global(1), j, width,
                                                                 12,          depth,       0};
                    }),
            width * 12 * depth);
}

TEST(OwnedElement, WarpgroupTilesAreDisjointAndStartAtTheirOrigin) {
  // Blocks of three warpgroups: a producer and two consumers, tiles of 128 x 64; longest-first
  // orders of runs of 3 tiles, all the runs at once (0) or 1, 2 or 3 of the 4 (the last group
  // short), packed as the kernel packs them.
  const std::array<std::uint64_t, 3> block{384, 1, 1};
  const std::uint64_t width = 128, height = 6 * 128, tiles = 2 * 6;
  const std::array<std::uint64_t, 3> grid{tiles + 2, 1, 1};
  for (const std::uint64_t order :
       {std::uint64_t{3}, WarpgroupTile::longest_first_order(3, 1), WarpgroupTile::longest_first_order(3, 2),
        WarpgroupTile::longest_first_order(3, 3)})
    for (const std::uint32_t longest_first : {0u, 1u}) {
      const WarpgroupTile tile{64, 2, 1, 1, longest_first};
      auto operands = [&](const Thread &t, std::uint64_t j) {
        OwnedElementOperands<std::uint64_t> in{t.block(), 0, j, width, height, 1, order};
        in.tile = tile;
        return in;
      };
      EXPECT_EQ(claimed(Ownership::warpgroup_tile, grid, block, 32, width * height, operands), width * height)
          << "longest_first " << longest_first << ", order " << order;
      // The first consumer thread's element 0 is its block's tile origin.
      for (std::uint64_t b = 0; b < grid[0]; ++b) {
        Thread t;
        t.grid_dim = grid;
        t.block_dim = block;
        t.block_idx[0] = b;
        t.thread_idx[0] = 128;
        Integers arithmetic{t};
        const auto [element, ok] =
            oxide::detail::owned_element(arithmetic, Ownership::warpgroup_tile, operands(t, 0));
        const auto origin = tile.origin(b, width, height, order, grid[0]);
        EXPECT_EQ(static_cast<bool>(ok), origin.inside) << "block " << b << ", order " << order;
        if (ok && origin.inside)
          EXPECT_EQ(element, origin.row * width + origin.column) << "block " << b << ", order " << order;
      }
    }
}

TEST(OwnedElement, PersistentLongestFirstStepsAgreeWithTheirOrigin) {
  // A persistent grid of 5 blocks taking the 12 tiles' steps (b, b + 5, b + 10): the formula reads
  // the grid for the reversed rounds, the origin is told it; both name each tile once.
  const std::array<std::uint64_t, 3> block{384, 1, 1};
  const std::uint64_t width = 64, height = 12 * 128, tiles = 12, blocks = 5;
  const WarpgroupTile tile{64, 2, 1, 1, 1};
  for (const std::uint64_t order :
       {WarpgroupTile::longest_first_order(4, 0), WarpgroupTile::longest_first_order(4, 1),
        WarpgroupTile::longest_first_order(3, 2)}) {
    std::set<std::uint64_t> starts;
    for (std::uint64_t step = 0; step < tiles + blocks; ++step) {
      Thread t;
      t.grid_dim = {blocks, 1, 1};
      t.block_dim = block;
      t.block_idx[0] = step % blocks;
      t.thread_idx[0] = 128;
      Integers arithmetic{t};
      OwnedElementOperands<std::uint64_t> in{step, 0, 0, width, height, 1, order};
      in.tile = tile;
      const auto [element, ok] = oxide::detail::owned_element(arithmetic, Ownership::warpgroup_tile, in);
      const auto origin = tile.origin(step, width, height, order, blocks);
      ASSERT_EQ(static_cast<bool>(ok), origin.inside) << "step " << step << ", order " << order;
      if (!ok)
        continue;
      EXPECT_EQ(element, origin.row * width + origin.column) << "step " << step << ", order " << order;
      EXPECT_TRUE(starts.insert(element).second) << "step " << step << " repeats a tile, order " << order;
    }
    EXPECT_EQ(starts.size(), tiles) << "order " << order;
  }
}

} // namespace
