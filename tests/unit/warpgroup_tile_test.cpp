// The tile order of Ownership::warpgroup_tile (oxide::detail::WarpgroupTile), which the device
// code (warpgroup_tile_origin) and the simulator compute with this C++ and the GPU lowering
// with the same arithmetic in IR: every order gives each tile to exactly one block, and the
// longest-first order gives the blocks every run's last tile first.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <set>
#include <utility>

#include "oxide/detail/intrinsic_abi.hpp"

namespace {

using oxide::detail::WarpgroupTile;

/// The (row, column) of each block's tile for blocks [0, blocks), checking that none repeats
/// and that blocks past the tiles own nothing; returns how many blocks owned a tile.
std::size_t owned_tiles(const WarpgroupTile &tile, std::size_t width, std::size_t height, std::size_t period,
                        std::size_t blocks) {
  std::set<std::pair<std::size_t, std::size_t>> seen;
  for (std::size_t b = 0; b < blocks; ++b) {
    const auto origin = tile.origin(b, width, height, period);
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

} // namespace
