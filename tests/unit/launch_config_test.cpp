// LaunchConfig1D: rounding up to whole blocks, and the limits CUDA puts on 1-D launches.
#include <gtest/gtest.h>

#include "oxide/host/error.hpp"
#include "oxide/host/launch.hpp"

namespace {

using oxide::LaunchConfig1D;

TEST(LaunchConfig1D, ForElementsRoundsUpToWholeBlocks) {
  EXPECT_EQ(LaunchConfig1D::for_elements(1), (LaunchConfig1D{1, 256, 0}));
  EXPECT_EQ(LaunchConfig1D::for_elements(256), (LaunchConfig1D{1, 256, 0}));
  EXPECT_EQ(LaunchConfig1D::for_elements(257), (LaunchConfig1D{2, 256, 0}));
  EXPECT_EQ(LaunchConfig1D::for_elements(1 << 20), (LaunchConfig1D{4096, 256, 0}));
  EXPECT_EQ(LaunchConfig1D::for_elements(1000, 128), (LaunchConfig1D{8, 128, 0}));
  EXPECT_EQ(LaunchConfig1D::for_elements(1000, 128, 512), (LaunchConfig1D{8, 128, 512}));
  EXPECT_EQ(LaunchConfig1D::for_elements(1000, 128).total_threads(), 1024u);
}

TEST(LaunchConfig1D, ZeroElementsIsAnEmptyGrid) {
  const LaunchConfig1D config = LaunchConfig1D::for_elements(0);
  EXPECT_EQ(config.grid, 0u);
  EXPECT_NO_THROW(config.validate());
}

TEST(LaunchConfig1D, RejectsBlockSizesOutsideCudaLimits) {
  EXPECT_THROW((void)LaunchConfig1D::for_elements(100, 0), oxide::Error);
  EXPECT_THROW((void)LaunchConfig1D::for_elements(100, 1025), oxide::Error);
  EXPECT_EQ(LaunchConfig1D::for_elements(100, 1024).grid, 1u);
  try {
    (void)LaunchConfig1D::for_elements(100, 2048);
    FAIL() << "expected oxide::Error";
  } catch (const oxide::Error &e) {
    EXPECT_STREQ(e.what(), "oxide: launch configuration: block size 2048 is outside 1..1024");
  }
}

TEST(LaunchConfig1D, RejectsGridsBeyondTheOneDimensionalLimit) {
  const std::size_t largest = std::size_t{LaunchConfig1D::kMaxGrid} * 256;
  EXPECT_EQ(LaunchConfig1D::for_elements(largest).grid, LaunchConfig1D::kMaxGrid);
  EXPECT_THROW((void)LaunchConfig1D::for_elements(largest + 1), oxide::Error);
  EXPECT_THROW((void)LaunchConfig1D::for_elements(SIZE_MAX, 1), oxide::Error); // no overflow in rounding
}

TEST(LaunchConfig1D, ValidateChecksHandWrittenConfigs) {
  EXPECT_NO_THROW((LaunchConfig1D{10, 32, 0}.validate()));
  EXPECT_THROW((LaunchConfig1D{10, 0, 0}.validate()), oxide::Error);
  EXPECT_THROW((LaunchConfig1D{10, 1025, 0}.validate()), oxide::Error);
  EXPECT_THROW((LaunchConfig1D{LaunchConfig1D::kMaxGrid + 1, 32, 0}.validate()), oxide::Error);
}

} // namespace
