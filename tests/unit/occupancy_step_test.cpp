// The occupancy step (compiler/driver/OccupancyStep.cpp): which kernels of a PTX module are
// assembled again for one more resident block per multiprocessor, with what register budget, and
// how the directive goes into the PTX. The occupancy arithmetic is CUDA's calculator; these
// figures are the CUDA programming guide's (64K registers, 2048 threads per sm_90 SM).
#include "DeviceBuild.h"

#include <gtest/gtest.h>

namespace {

using oxide::driver::findOccupancySteps;
using oxide::driver::KernelResources;
using oxide::driver::residentBlocks;
using oxide::driver::withOccupancySteps;

/// A kernel entry of NVPTX's form with `directives` between its parameters and its body.
std::string entry(const std::string &name, const std::string &directives) {
  return ".visible .entry " + name + "(\n\t.param .u32 " + name + "_param_0\n)\n" + directives +
         "{\n\tret;\n}\n";
}

KernelResources usage(const std::string &name, unsigned registers, unsigned shared = 0) {
  KernelResources k;
  k.name = name;
  k.arch = "sm_90";
  k.registers = registers;
  k.shared = shared;
  return k;
}

TEST(OccupancyStep, ResidentBlocksFollowTheRegisterSteps) {
  EXPECT_EQ(residentBlocks(90, 256, 128, 0), 2u);
  EXPECT_EQ(residentBlocks(90, 256, 139, 0), 1u);
  EXPECT_EQ(residentBlocks(90, 1024, 32, 0), 2u);
  EXPECT_EQ(residentBlocks(90, 1024, 33, 0), 1u);
  // Warps, not registers, limit small kernels: 2048 threads on sm_90, 1536 on sm_89.
  EXPECT_EQ(residentBlocks(90, 512, 16, 0), 4u);
  EXPECT_EQ(residentBlocks(89, 512, 16, 0), 3u);
  // Static shared memory (at most 48 KiB a block): 40 KiB and the 1 KiB reserved five times.
  EXPECT_EQ(residentBlocks(90, 256, 32, 40 * 1024), 5u);
  EXPECT_EQ(residentBlocks(90, 256, 32, 0), 8u);
  EXPECT_EQ(residentBlocks(75, 256, 64, 0), std::nullopt) << "an architecture whose limits are not known";
}

TEST(OccupancyStep, AKernelAFewRegistersPastAStepIsChosen) {
  const std::string ptx = ".version 8.8\n.target sm_90\n" + entry("past", ".reqntid 16, 16, 1\n");
  const auto steps = findOccupancySteps(ptx, {usage("past", 139)}, 90);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].kernel, "past");
  EXPECT_EQ(steps[0].blocks, 1u);
  EXPECT_EQ(steps[0].registers, 139u);
  EXPECT_EQ(steps[0].targetBlocks, 2u);
  EXPECT_EQ(steps[0].targetRegisters, 128u);
}

TEST(OccupancyStep, OtherKernelsAreLeftAlone) {
  const std::string ptx = entry("far", ".reqntid 256, 1, 1\n") +                    // 128 is 15% below 150
                          entry("bounded", ".maxntid 256, 1, 1\n") +                // the block size may vary
                          entry("users", ".reqntid 256, 1, 1\n.minnctapersm 1\n") + // the user's bounds
                          entry("capped", ".reqntid 256, 1, 1\n.maxnreg 160\n") +
                          entry("cluster", ".reqntid 256, 1, 1\n.reqnctapercluster 2, 1, 1\n") +
                          entry("warps", ".reqntid 1024, 1, 1\n") +  // sm_89 holds 1536 threads: 1 block
                          entry("on_step", ".reqntid 256, 1, 1\n") + // already at 2 blocks
                          entry("unreported", ".reqntid 256, 1, 1\n");
  const std::vector<KernelResources> reported = {
      usage("far", 150),     usage("bounded", 139), usage("users", 139),   usage("capped", 139),
      usage("cluster", 139), usage("warps", 33),    usage("on_step", 128),
  };
  EXPECT_TRUE(findOccupancySteps(ptx, reported, 89).empty());
  // On sm_90 (2048 threads) the 1024-thread block at 33 registers is 1 register past 2 blocks.
  const auto steps = findOccupancySteps(ptx, reported, 90);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].kernel, "warps");
  EXPECT_EQ(steps[0].targetRegisters, 32u);
  // The same kernel as the chosen one, for an architecture whose limits are not known here.
  EXPECT_TRUE(findOccupancySteps(entry("past", ".reqntid 256, 1, 1\n"), {usage("past", 139)}, 75).empty());
}

TEST(OccupancyStep, TheDirectiveGoesAfterTheParametersOfItsKernelOnly) {
  const std::string ptx = ".version 8.8\n" + entry("a", ".reqntid 16, 16, 1\n") +
                          ".visible .entry b()\n.reqntid 256, 1, 1\n{\n\tret;\n}\n" +
                          entry("c", ".reqntid 64, 1, 1\n");
  const std::vector<KernelResources> reported = {usage("a", 139), usage("b", 136), usage("c", 40)};
  const auto steps = findOccupancySteps(ptx, reported, 90);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[1].kernel, "b");
  EXPECT_EQ(withOccupancySteps(ptx, steps),
            ".version 8.8\n" + entry("a", ".minnctapersm 2\n.reqntid 16, 16, 1\n") +
                ".visible .entry b()\n.minnctapersm 2\n.reqntid 256, 1, 1\n{\n\tret;\n}\n" +
                entry("c", ".reqntid 64, 1, 1\n"));
}

} // namespace
