// The object cache's key is made from the compiles' own clang command lines (Frontend's
// hostCompileArgs/deviceCompileArgs through oxide::compileCommands), not from a copy of them:
// a flag changed in the shared list alone gives a new key.
#include "ObjectCache.h"

#include "oxide/compiler/Build.h"
#include "oxide/compiler/Frontend.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace {

oxide::Toolchain fakeToolchain() {
  oxide::Toolchain tc;
  tc.cudaPath = "/opt/cuda";
  tc.clangDriver = "/opt/llvm/bin/clang++";
  tc.clangResourceDir = "/opt/llvm/lib/clang/22";
  tc.oxideIncludeDir = "/opt/oxide/include";
  return tc;
}

oxide::CompileOptions sampleOptions() {
  oxide::CompileOptions opts;
  opts.archs = {oxide::GpuArch{80}, oxide::GpuArch{90}};
  return opts;
}

constexpr const char *kInput = "/src/vecadd.cpp";

bool contains(const std::vector<std::string> &args, const std::string &arg) {
  return std::find(args.begin(), args.end(), arg) != args.end();
}

TEST(CacheKey, CommandLinesAreTheFrontends) {
  const oxide::Toolchain tc = fakeToolchain();
  const oxide::CompileOptions opts = sampleOptions();
  const oxide::TranslationUnit tu{opts, kInput};
  const oxide::CompileCommands commands = oxide::compileCommands(tu, tc);
  EXPECT_EQ(commands.host, oxide::hostCompileArgs(tu, tc));
  ASSERT_EQ(commands.device.size(), 2u);
  EXPECT_EQ(commands.device[0], oxide::deviceCompileArgs(tu, tc, oxide::GpuArch{80}));
  EXPECT_EQ(commands.device[1], oxide::deviceCompileArgs(tu, tc, oxide::GpuArch{90}));
  // What the dependency scan's old copy lacked: the wrapper and the device-only flags.
  EXPECT_EQ(commands.device[1].back(), oxide::deviceWrapperPath(kInput));
  EXPECT_TRUE(contains(commands.device[1], "-fcuda-short-ptr"));
  EXPECT_TRUE(contains(commands.device[1], "-O3"));
  oxide::CompileOptions deviceDebug = opts;
  deviceDebug.deviceDebug = true;
  EXPECT_TRUE(
      contains(oxide::compileCommands({deviceDebug, kInput}, tc).device[0], "--cuda-noopt-device-debug"));
}

TEST(CacheKey, OneChangedFlagChangesTheKey) {
  const oxide::Toolchain tc = fakeToolchain();
  const oxide::CompileOptions opts = sampleOptions();
  const oxide::TranslationUnit tu{opts, kInput};
  const oxide::CompileCommands commands = oxide::compileCommands(tu, tc);
  const std::string key = oxcc::cacheKeyMaterial(tu, tc, commands);
  EXPECT_EQ(key, oxcc::cacheKeyMaterial(tu, tc, oxide::compileCommands(tu, tc)));

  // The same options, one flag of a device command line gone: only the command lines differ.
  oxide::CompileCommands withoutShortPtr = commands;
  std::erase(withoutShortPtr.device[1], "-fcuda-short-ptr");
  ASSERT_NE(withoutShortPtr.device[1], commands.device[1]);
  EXPECT_NE(key, oxcc::cacheKeyMaterial(tu, tc, withoutShortPtr));

  // One flag of the host command line changed.
  oxide::CompileCommands hostChanged = commands;
  std::replace(hostChanged.host.begin(), hostChanged.host.end(), std::string("-gline-tables-only"),
               std::string("-g"));
  ASSERT_NE(hostChanged.host, commands.host);
  EXPECT_NE(key, oxcc::cacheKeyMaterial(tu, tc, hostChanged));

  // And every argument of every compile is in the key.
  for (const auto &args : {commands.host, commands.device[0], commands.device[1]})
    for (const std::string &arg : args)
      EXPECT_NE(key.find(arg), std::string::npos) << arg;
}

} // namespace
