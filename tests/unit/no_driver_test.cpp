// Without the NVIDIA driver a program still starts: Device::count() is 0, Context::create()
// falls back to the CPU simulator, and asking for a GPU fails with an error that says what is
// missing.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>

#include "oxide/host/context.hpp"
#include "oxide/host/device.hpp"
#include "oxide/host/error.hpp"
#include "sim_test_support.hpp"

namespace {

bool driver_loads() {
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library)
    dlclose(library);
  return library != nullptr;
}

TEST(NoDriver, DeviceCountIsZero) {
  if (driver_loads())
    GTEST_SKIP() << "skipped: CUDA driver present";
  EXPECT_EQ(oxide::Device::count(), 0);
}

TEST(NoDriver, CreateFallsBackToTheSimulator) {
  if (driver_loads())
    GTEST_SKIP() << "skipped: CUDA driver present";
  oxide_test::ScopedEnv device("OXIDE_DEVICE", std::nullopt);
  for (int attempt = 0; attempt < 2; ++attempt) {
    const auto ctx = oxide::Context::create();
    EXPECT_TRUE(ctx.is_simulator());
    EXPECT_EQ(ctx.device().name(), "Oxide CPU simulator");
  }
}

TEST(NoDriver, ForcedCudaExplainsTheMissingDriver) {
  if (driver_loads())
    GTEST_SKIP() << "skipped: CUDA driver present";
  oxide_test::ScopedEnv device("OXIDE_DEVICE", "cuda:1");
  const std::string what = oxide_test::error_of([] { (void)oxide::Context::create(); });
  EXPECT_EQ(what.rfind("oxide: OXIDE_DEVICE=cuda:1 asks for a CUDA device, but cannot load the CUDA driver "
                       "(libcuda.so.1): ",
                       0),
            0u)
      << what;
}

TEST(NoDriver, ContextCreationExplainsTheMissingDriver) {
  if (driver_loads())
    GTEST_SKIP() << "skipped: CUDA driver present";
  for (int attempt = 0; attempt < 2; ++attempt) { // the failure is remembered, not half-initialized
    try {
      (void)oxide::Context::create(0);
      FAIL() << "expected oxide::Error";
    } catch (const oxide::Error &e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind("oxide: cannot load the CUDA driver (libcuda.so.1): ", 0), 0u) << what;
      EXPECT_NE(what.find("Install the NVIDIA driver, or run on a machine with a GPU."), std::string::npos)
          << what;
      EXPECT_TRUE(e.api().empty());
    }
  }
  EXPECT_THROW((void)oxide::Device::get(0), oxide::Error);
}

} // namespace
