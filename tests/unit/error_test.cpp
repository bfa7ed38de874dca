// oxide::Error: the messages users see, and the fields programs can inspect.
#include <gtest/gtest.h>

#include <string>

#include "oxide/host/error.hpp"

namespace {

TEST(Error, DriverErrorNamesCallKernelAndDriverError) {
  const oxide::Error e =
      oxide::Error::driver("cuLaunchKernel", 1, "CUDA_ERROR_INVALID_VALUE", "invalid argument", "vecadd");
  EXPECT_STREQ(e.what(),
               "oxide: cuLaunchKernel failed for kernel 'vecadd': CUDA_ERROR_INVALID_VALUE (invalid "
               "argument)");
  EXPECT_EQ(e.api(), "cuLaunchKernel");
  EXPECT_EQ(e.driver_error_name(), "CUDA_ERROR_INVALID_VALUE");
  EXPECT_EQ(e.driver_error_code(), 1);
  EXPECT_EQ(e.kernel(), "vecadd");
}

TEST(Error, DriverErrorWithoutKernelAndWithDetails) {
  const oxide::Error e = oxide::Error::driver("cuMemAlloc", 2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory",
                                              {}, "(allocating 8 bytes on NVIDIA H200)");
  EXPECT_STREQ(e.what(), "oxide: cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)\n(allocating 8 "
                         "bytes on NVIDIA H200)");
  EXPECT_TRUE(e.kernel().empty());
}

TEST(Error, OxideErrorIsPrefixedAndHasNoDriverFields) {
  const oxide::Error e("no CUDA device found");
  EXPECT_STREQ(e.what(), "oxide: no CUDA device found");
  EXPECT_TRUE(e.api().empty());
  EXPECT_TRUE(e.driver_error_name().empty());
  EXPECT_EQ(e.driver_error_code(), 0);
  EXPECT_TRUE(e.kernel().empty());
  EXPECT_EQ(oxide::Error("bad layout", "saxpy").kernel(), "saxpy");
}

TEST(Error, CarriesAKindWithAName) {
  const oxide::Error e(oxide::ErrorKind::RequiresViolated, "launch of 'k' violates its contract", "k");
  EXPECT_EQ(e.kind(), oxide::ErrorKind::RequiresViolated);
  EXPECT_EQ(e.kind_name(), "RequiresViolated");
  EXPECT_STREQ(e.what(), "oxide: launch of 'k' violates its contract");
  EXPECT_EQ(oxide::Error("plain").kind(), oxide::ErrorKind::Other);
  EXPECT_EQ(oxide::Error::driver("cuInit", 100, "CUDA_ERROR_NO_DEVICE", "none").kind(),
            oxide::ErrorKind::Driver);
  EXPECT_EQ(oxide::to_string(oxide::ErrorKind::DynamicSharedOverDeviceLimit), "DynamicSharedOverDeviceLimit");
  EXPECT_EQ(oxide::to_string(oxide::ErrorKind::KernelFault), "KernelFault");
  const oxide::Error copy = e;
  EXPECT_EQ(copy.kind(), oxide::ErrorKind::RequiresViolated);
}

TEST(Error, IsARuntimeErrorAndCopiesKeepFields) {
  try {
    throw oxide::Error::driver("cuInit", 100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected");
  } catch (const std::runtime_error &base) {
    const auto *e = dynamic_cast<const oxide::Error *>(&base);
    ASSERT_NE(e, nullptr);
    const oxide::Error copy = *e;
    EXPECT_STREQ(copy.what(), base.what());
    EXPECT_EQ(copy.driver_error_name(), "CUDA_ERROR_NO_DEVICE");
  }
}

} // namespace
