// Without the NVIDIA driver a program still starts: Device::count() is 0 and creating a
// context fails with an error that says what is missing.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>

#include "oxide/host/context.hpp"
#include "oxide/host/device.hpp"
#include "oxide/host/error.hpp"

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

TEST(NoDriver, ContextCreationExplainsTheMissingDriver) {
  if (driver_loads())
    GTEST_SKIP() << "skipped: CUDA driver present";
  for (int attempt = 0; attempt < 2; ++attempt) { // the failure is remembered, not half-initialized
    try {
      (void)oxide::Context::create();
      FAIL() << "expected oxide::Error";
    } catch (const oxide::Error &e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind("oxide: cannot load the CUDA driver (libcuda.so.1): ", 0), 0u) << what;
      EXPECT_NE(what.find("Install the NVIDIA driver, or run on a machine with a GPU."), std::string::npos)
          << what;
      EXPECT_TRUE(e.api().empty());
    }
  }
  EXPECT_THROW((void)oxide::Context::create(0), oxide::Error);
  EXPECT_THROW((void)oxide::Device::get(0), oxide::Error);
}

} // namespace
