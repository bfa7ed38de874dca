// The tile order of Ownership::warpgroup_tile (oxide::detail::WarpgroupTile), which the device
// code (warpgroup_tile_origin) and the simulator compute with this C++ and the GPU lowering
// with the same arithmetic in IR: every order gives each tile to exactly one block, and the
// longest-first order gives the blocks every run's last tile first.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "oxide/detail/intrinsic_abi.hpp"

namespace {

using oxide::detail::WarpgroupTile;

/// The (row, column) of each block's tile for blocks [0, blocks), checking that none repeats
/// and that blocks past the tiles own nothing; returns how many blocks owned a tile.
std::size_t owned_tiles(const WarpgroupTile &tile, std::size_t width, std::size_t height, std::uint64_t order,
                        std::size_t blocks) {
  std::set<std::pair<std::size_t, std::size_t>> seen;
  for (std::size_t b = 0; b < blocks; ++b) {
    const auto origin = tile.origin(b, width, height, order);
    if (!origin.inside)
      continue;
    EXPECT_LT(origin.row, height);
    EXPECT_LT(origin.column, width);
    EXPECT_TRUE(seen.insert({origin.row, origin.column}).second) << "block " << b << " repeats a tile";
  }
  return seen.size();
}

TEST(WarpgroupTile, PacksEveryField) {
  const WarpgroupTile tile{256, 2, 1, 16, 1};
  const auto back = WarpgroupTile::unpack(tile.pack());
  EXPECT_EQ(back.n, 256u);
  EXPECT_EQ(back.consumers, 2u);
  EXPECT_EQ(back.first, 1u);
  EXPECT_EQ(back.group, 16u);
  EXPECT_EQ(back.longest_first, 1u);
  EXPECT_FALSE((WarpgroupTile{64, 2, 1, 1, 2}.valid()));
}

TEST(WarpgroupTile, GroupedOrdersAreBijections) {
  for (const std::uint32_t group : {1u, 3u, 16u})
    for (const auto [width, height] :
         {std::pair<std::size_t, std::size_t>{1000, 900}, {256, 128}, {300, 4100}}) {
      const WarpgroupTile tile{256, 2, 1, group};
      const std::size_t tiles = (height + 127) / 128 * ((width + 255) / 256);
      EXPECT_EQ(owned_tiles(tile, width, height, 0, tiles + 50), tiles) << "group " << group;
    }
}

TEST(WarpgroupTile, LongestFirstIsABijectionThatStartsWithEveryRunsLastTile) {
  // 6 heads of 5 q-tiles of 128 rows, D = 64: one tile column.
  const WarpgroupTile tile{64, 2, 1, 1, 1};
  const std::size_t period = 5, heads = 6, height = heads * period * 128;
  EXPECT_EQ(owned_tiles(tile, 64, height, period, heads * period + 10), heads * period);
  for (std::size_t b = 0; b < heads; ++b) // the first blocks: each head's last q-tile
    EXPECT_EQ(tile.origin(b, 64, height, period).row, (b * period + period - 1) * 128);
  EXPECT_EQ(tile.origin(heads, 64, height, period).row, (period - 2) * 128); // then head 0's next
  // A period that is 0 or does not divide the tiles gives nothing.
  EXPECT_EQ(owned_tiles(tile, 64, height, 0, heads * period), 0u);
  EXPECT_EQ(owned_tiles(tile, 64, height, 7, heads * period), 0u);
}

TEST(WarpgroupTile, LongestFirstRunsAtOnceIsABijectionGroupByGroup) {
  // 7 heads of 4 q-tiles: taken 1, 2, 3 (the last group short), 7 or 100 heads at a time.
  const WarpgroupTile tile{64, 2, 1, 1, 1};
  const std::size_t period = 4, heads = 7, tiles = heads * period, height = tiles * 128;
  auto row_of = [&](std::size_t b, std::size_t at_once) {
    return tile.origin(b, 64, height, WarpgroupTile::longest_first_order(period, at_once)).row / 128;
  };
  for (const std::size_t at_once : {1, 2, 3, 7, 100})
    EXPECT_EQ(owned_tiles(tile, 64, height, WarpgroupTile::longest_first_order(period, at_once), tiles + 5),
              tiles)
        << at_once << " at once";
  // One head at a time: each head's tiles from its last.
  for (std::size_t b = 0; b < tiles; ++b)
    EXPECT_EQ(row_of(b, 1), b / period * period + period - 1 - b % period) << "block " << b;
  // Three at a time: heads 0-2's last tiles, then their third... then heads 3-5's, then head 6's.
  EXPECT_EQ(row_of(0, 3), 3u);
  EXPECT_EQ(row_of(2, 3), 11u);
  EXPECT_EQ(row_of(3, 3), 2u);
  EXPECT_EQ(row_of(11, 3), 8u);
  EXPECT_EQ(row_of(12, 3), 15u);
  EXPECT_EQ(row_of(24, 3), 27u);
  EXPECT_EQ(row_of(27, 3), 24u);
  // All heads at once (0 or as many as there are, or more) is the order without a group.
  for (std::size_t b = 0; b < tiles; ++b) {
    EXPECT_EQ(row_of(b, 0), row_of(b, heads)) << "block " << b;
    EXPECT_EQ(row_of(b, 0), row_of(b, 100)) << "block " << b;
  }
  // Past what the order packs: a period of 2^40 divides nothing, too many runs mean all of them.
  EXPECT_EQ(WarpgroupTile::longest_first_order(std::uint64_t{1} << 40, 1) & WarpgroupTile::kMaxPeriod, 0u);
  EXPECT_EQ(WarpgroupTile::longest_first_order(4, std::uint64_t{1} << 24), 4u);
}

TEST(WarpgroupTile, SerpentineRoundsAreABijection) {
  for (const std::size_t blocks : {1, 3, 7, 132})
    for (const std::size_t tiles : {1, 5, 131, 132, 133, 1000}) {
      std::set<std::size_t> seen;
      for (std::size_t s = 0; s < tiles; ++s) {
        const std::size_t to = WarpgroupTile::serpentine(s, tiles, blocks);
        EXPECT_LT(to, tiles);
        EXPECT_EQ(to / blocks, s / blocks) << "a step stays in its round";
        seen.insert(to);
      }
      EXPECT_EQ(seen.size(), tiles) << blocks << " blocks, " << tiles << " tiles";
    }
  EXPECT_EQ(WarpgroupTile::serpentine(5, 8, 3), 3u); // round 1 is [3, 6), reversed
  EXPECT_EQ(WarpgroupTile::serpentine(7, 8, 3), 7u); // round 2, [6, 8), is kept
  EXPECT_EQ(WarpgroupTile::serpentine(7, 8, 0), 7u); // no grid: no rounds
}

TEST(WarpgroupTile, PersistentCausalBlocksShareTheWorkEvenly) {
  // Causal attention on 132 blocks, one head at a time: tile k of a head has k + 1 key steps.
  // Block b takes steps b, b + 132...; the busiest gets at most 4 % over the mean (one head at a
  // time without reversed rounds: 12.5 % at 32 q-tiles a head, 37.5 % at 8).
  const WarpgroupTile tile{128, 2, 1, 1, 1};
  const std::size_t blocks = 132;
  for (const auto [heads, period] :
       {std::pair<std::size_t, std::size_t>{128, 32}, {256, 8}, {64, 16}, {32, 64}, {256, 4}}) {
    const std::size_t tiles = heads * period, height = tiles * 128;
    std::vector<std::size_t> work(blocks, 0);
    for (std::size_t s = 0; s < tiles; ++s) {
      const auto origin = tile.origin(s, 128, height, WarpgroupTile::longest_first_order(period, 1), blocks);
      ASSERT_TRUE(origin.inside);
      work[s % blocks] += origin.row / 128 % period + 1;
    }
    std::size_t total = 0, most = 0;
    for (const std::size_t w : work) {
      total += w;
      most = std::max(most, w);
    }
    EXPECT_LE(double(most) * blocks, 1.04 * double(total)) << heads << " heads of " << period << " q-tiles";
  }
}

} // namespace
