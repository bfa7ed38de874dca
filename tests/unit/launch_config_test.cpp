// Launch configurations: rounding up to whole blocks, and the limits CUDA puts on launches.
#include <gtest/gtest.h>

#include <string>

#include "oxide/host/error.hpp"
#include "oxide/host/launch.hpp"

namespace {

using oxide::Dim3;
using oxide::LaunchConfig1D;
using oxide::LaunchConfig2D;
using oxide::LaunchConfig3D;

std::string error_of(void (*body)()) {
  try {
    body();
  } catch (const oxide::Error &e) {
    return e.what();
  }
  return "no error";
}

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

TEST(LaunchConfig2D, ForElementsCoversBothExtents) {
  EXPECT_EQ(LaunchConfig2D::for_elements(1000, 500), (LaunchConfig2D{{63, 32, 1}, {16, 16, 1}, 0}));
  EXPECT_EQ(LaunchConfig2D::for_elements(64, 64, {32, 8, 1}, 4096),
            (LaunchConfig2D{{2, 8, 1}, {32, 8, 1}, 4096}));
  EXPECT_EQ(LaunchConfig2D::for_elements(0, 10).grid, (Dim3{0, 1, 1}));
  EXPECT_EQ(LaunchConfig2D::for_elements(100, 100, {32, 32, 1}).total_threads(), 16u * 1024u);
  EXPECT_EQ(LaunchConfig2D{}.total_threads(), 1u);
}

TEST(LaunchConfig2D, RejectsShapesOutsideCudaLimits) {
  EXPECT_EQ(error_of([] { (void)LaunchConfig2D::for_elements(10, 10, {64, 32, 1}); }),
            "oxide: launch configuration: block (64,32,1) is outside CUDA's limits (each extent at least 1, "
            "at most "
            "(1024,1024,64), and at most 1024 threads in all)");
  EXPECT_THROW((void)LaunchConfig2D::for_elements(10, 10, {0, 4, 1}), oxide::Error);
  EXPECT_EQ(error_of([] { (void)LaunchConfig2D::for_elements(10, 10, {8, 8, 2}); }),
            "oxide: launch configuration: a 2-D launch has z = 1, but the grid is (1,1,1) and the block "
            "(8,8,2); use "
            "LaunchConfig3D");
  EXPECT_EQ(
      error_of([] { (void)LaunchConfig2D::for_elements(10, 65536u * 16 + 1); }),
      "oxide: launch configuration: 1048577 elements along y need 65537 blocks of 16 threads, more than the "
      "65535 a grid allows");
  EXPECT_EQ(error_of([] { LaunchConfig2D{{1, 70000, 1}, {1, 1, 1}, 0}.validate(); }),
            "oxide: launch configuration: grid (1,70000,1) exceeds CUDA's limits (2147483647,65535,65535)");
  EXPECT_THROW((LaunchConfig2D{{1, 1, 2}, {1, 1, 1}, 0}.validate()), oxide::Error);
}

TEST(LaunchConfig3D, ForElementsCoversAllExtents) {
  EXPECT_EQ(LaunchConfig3D::for_elements(17, 8, 5), (LaunchConfig3D{{3, 1, 2}, {8, 8, 4}, 0}));
  EXPECT_EQ(LaunchConfig3D::for_elements(4, 4, 4, {2, 2, 2}).total_threads(), 64u);
  EXPECT_NO_THROW((LaunchConfig3D{{1, 1, 65535}, {1, 1, 64}, 0}.validate()));
  EXPECT_THROW((LaunchConfig3D{{1, 1, 1}, {1, 1, 65}, 0}.validate()), oxide::Error);
  EXPECT_THROW((LaunchConfig3D{{1, 1, 65536}, {1, 1, 1}, 0}.validate()), oxide::Error);
  EXPECT_EQ(
      error_of([] { (void)LaunchConfig3D::for_elements(1, 1, 65536u * 4 + 1); }),
      "oxide: launch configuration: 262145 elements along z need 65537 blocks of 4 threads, more than the "
      "65535 a grid allows");
}

} // namespace
