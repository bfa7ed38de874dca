// The CUDA driver API, loaded at run time from libcuda.so.1.
//
// Executables built by oxcc must start (and run the CPU simulator) on machines without the
// NVIDIA driver, so nothing links against libcuda; every entry point is resolved here, once.
#pragma once

#include <cuda.h>

#include <string_view>

namespace oxide::detail {

// Every driver function the runtime calls. Listed by the header's name: cuda.h maps names such
// as cuMemAlloc to the ABI version it declares (cuMemAlloc_v2), and the loader resolves exactly
// that version, so each pointer's type and the symbol behind it always agree.
#define OXIDE_CUDA_DRIVER_FUNCTIONS(X)                                                                       \
  X(cuGetErrorName)                                                                                          \
  X(cuGetErrorString)                                                                                        \
  X(cuInit)                                                                                                  \
  X(cuDriverGetVersion)                                                                                      \
  X(cuDeviceGetCount)                                                                                        \
  X(cuDeviceGet)                                                                                             \
  X(cuDeviceGetName)                                                                                         \
  X(cuDeviceGetAttribute)                                                                                    \
  X(cuDeviceTotalMem)                                                                                        \
  X(cuDevicePrimaryCtxRetain)                                                                                \
  X(cuDevicePrimaryCtxRelease)                                                                               \
  X(cuCtxPushCurrent)                                                                                        \
  X(cuCtxPopCurrent)                                                                                         \
  X(cuCtxSynchronize)                                                                                        \
  X(cuStreamCreate)                                                                                          \
  X(cuStreamDestroy)                                                                                         \
  X(cuStreamSynchronize)                                                                                     \
  X(cuMemAlloc)                                                                                              \
  X(cuMemFree)                                                                                               \
  X(cuMemcpyHtoDAsync)                                                                                       \
  X(cuMemcpyDtoHAsync)                                                                                       \
  X(cuMemsetD8Async)                                                                                         \
  X(cuModuleLoadDataEx)                                                                                      \
  X(cuModuleUnload)                                                                                          \
  X(cuModuleGetFunction)                                                                                     \
  X(cuFuncGetAttribute)                                                                                      \
  X(cuFuncSetAttribute)                                                                                      \
  X(cuLaunchKernel)

struct DriverApi {
#define OXIDE_DECLARE_DRIVER_FUNCTION(name) decltype(&::name) name = nullptr;
  OXIDE_CUDA_DRIVER_FUNCTIONS(OXIDE_DECLARE_DRIVER_FUNCTION)
#undef OXIDE_DECLARE_DRIVER_FUNCTION
};

/// The loaded and initialized driver. Throws oxide::Error when libcuda.so.1 cannot be loaded,
/// lacks an entry point, or cuInit fails. Thread-safe; the work is done once per process.
[[nodiscard]] const DriverApi &driver();

/// The driver, for code that runs only after driver() succeeded (destructors): never throws.
[[nodiscard]] const DriverApi &loaded_driver_api() noexcept;

/// The driver's cuInit result, or an Error if the library itself cannot be loaded. Lets
/// Device::count() tell "no device" (CUDA_ERROR_NO_DEVICE) from other failures.
[[nodiscard]] CUresult driver_init_result();

/// Throws oxide::Error for a failed driver call; `kernel` names the kernel involved, if any.
[[noreturn]] void throw_driver_error(CUresult result, std::string_view api, std::string_view kernel = {},
                                     std::string_view details = {});

inline void check(CUresult result, std::string_view api, std::string_view kernel = {}) {
  if (result != CUDA_SUCCESS) [[unlikely]]
    throw_driver_error(result, api, kernel);
}

} // namespace oxide::detail
