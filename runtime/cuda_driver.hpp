// The CUDA driver API, loaded at run time from libcuda.so.1.
//
// Executables built by oxcc must start (and run the CPU simulator) on machines without the
// NVIDIA driver, so nothing links against libcuda; every entry point is resolved here, once.
#pragma once

#include <cuda.h>

#include <string>
#include <string_view>

namespace oxide::detail {

// Every driver function the runtime calls, with the CUDA version that introduced the ABI cuda.h
// declares for it (cuMemAlloc is cuMemAlloc_v2, from 3.2). The loader asks cuGetProcAddress for
// exactly that version, not for CUDA_VERSION: newer toolkits add incompatible variants under the
// same name (CUDA 13's cuCtxSynchronize takes a context), and each pointer's type must match the
// symbol behind it. cuda_driver.cpp checks every entry against cudaTypedefs.h at compile time.
#define OXIDE_CUDA_DRIVER_FUNCTIONS(X)                                                                       \
  X(cuGetErrorName, 6000)                                                                                    \
  X(cuGetErrorString, 6000)                                                                                  \
  X(cuInit, 2000)                                                                                            \
  X(cuDriverGetVersion, 2020)                                                                                \
  X(cuDeviceGetCount, 2000)                                                                                  \
  X(cuDeviceGet, 2000)                                                                                       \
  X(cuDeviceGetName, 2000)                                                                                   \
  X(cuDeviceGetAttribute, 2000)                                                                              \
  X(cuDeviceTotalMem, 3020)                                                                                  \
  X(cuDevicePrimaryCtxRetain, 7000)                                                                          \
  X(cuDevicePrimaryCtxRelease, 11000)                                                                        \
  X(cuCtxPushCurrent, 4000)                                                                                  \
  X(cuCtxPopCurrent, 4000)                                                                                   \
  X(cuCtxGetCurrent, 4000)                                                                                   \
  X(cuCtxSynchronize, 2000)                                                                                  \
  X(cuDeviceCanAccessPeer, 4000)                                                                             \
  X(cuCtxEnablePeerAccess, 4000)                                                                             \
  X(cuStreamCreate, 2000)                                                                                    \
  X(cuStreamDestroy, 4000)                                                                                   \
  X(cuStreamSynchronize, 2000)                                                                               \
  X(cuMemAlloc, 3020)                                                                                        \
  X(cuMemFree, 3020)                                                                                         \
  X(cuMemHostAlloc, 2020)                                                                                    \
  X(cuMemFreeHost, 2000)                                                                                     \
  X(cuMemHostGetDevicePointer, 3020)                                                                         \
  X(cuMemcpyDtoDAsync, 3020)                                                                                 \
  X(cuMemcpyPeerAsync, 4000)                                                                                 \
  X(cuMemcpyHtoDAsync, 3020)                                                                                 \
  X(cuMemcpyDtoHAsync, 3020)                                                                                 \
  X(cuMemsetD8Async, 3020)                                                                                   \
  X(cuMemsetD16Async, 3020)                                                                                  \
  X(cuMemsetD32Async, 3020)                                                                                  \
  X(cuMemsetD2D8Async, 3020)                                                                                 \
  X(cuMemsetD2D16Async, 3020)                                                                                \
  X(cuMemsetD2D32Async, 3020)                                                                                \
  X(cuModuleLoadDataEx, 2010)                                                                                \
  X(cuModuleUnload, 2000)                                                                                    \
  X(cuModuleGetFunction, 2000)                                                                               \
  X(cuFuncGetAttribute, 2020)                                                                                \
  X(cuFuncSetAttribute, 9000)                                                                                \
  X(cuLaunchKernel, 4000)                                                                                    \
  X(cuLaunchKernelEx, 11060)                                                                                 \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor, 6050)                                                       \
  X(cuModuleGetGlobal, 3020)                                                                                 \
  X(cuStreamQuery, 2000)                                                                                     \
  X(cuStreamWaitEvent, 3020)                                                                                 \
  X(cuStreamGetCtx, 9020)                                                                                    \
  X(cuStreamIsCapturing, 10000)                                                                              \
  X(cuThreadExchangeStreamCaptureMode, 10010)                                                                \
  X(cuLaunchHostFunc, 10000)                                                                                 \
  X(cuEventCreate, 2000)                                                                                     \
  X(cuEventDestroy, 4000)                                                                                    \
  X(cuEventRecord, 2000)                                                                                     \
  X(cuEventQuery, 2000)                                                                                      \
  X(cuEventSynchronize, 2000)                                                                                \
  /* cuda.h 12.8+ names cuEventElapsedTime_v2 (12080), whose type is v2000's: asking for 2000 */             \
  /* keeps drivers older than 12.8 loadable, for one timing call. */                                         \
  X(cuEventElapsedTime, 2000)                                                                                \
  X(cuMemAllocAsync, 11020)                                                                                  \
  X(cuMemFreeAsync, 11020)                                                                                   \
  X(cuMemPoolCreate, 11020)                                                                                  \
  X(cuMemPoolDestroy, 11020)                                                                                 \
  X(cuMemPoolSetAttribute, 11020)                                                                            \
  X(cuMemPoolTrimTo, 11020)                                                                                  \
  X(cuMemAllocFromPoolAsync, 11020)                                                                          \
  X(cuStreamBeginCapture, 10010)                                                                             \
  X(cuStreamEndCapture, 10000)                                                                               \
  X(cuGraphInstantiateWithFlags, 11040)                                                                      \
  X(cuGraphLaunch, 10000)                                                                                    \
  X(cuGraphGetNodes, 10000)                                                                                  \
  X(cuGraphExecDestroy, 10000)                                                                               \
  X(cuGraphDestroy, 10000)

/// Entry points used when the driver has them (null otherwise): newer drivers only.
/// cuFuncLoad (12.4): with lazy loading (the default since CUDA 12.2) a function is loaded at
/// its first launch, and that load waits for every kernel running in the context; loading it
/// when the kernel is prepared keeps launches asynchronous.
/// cuTensorMapEncodeTiled (12.0): the descriptors of DeviceTensorMap (runtime/tensor_map.cpp);
/// optional so that older drivers still run everything else.
#if CUDA_VERSION >= 12040
#define OXIDE_OPTIONAL_CUDA_DRIVER_FUNCTIONS(X) X(cuFuncLoad, 12040) X(cuTensorMapEncodeTiled, 12000)
#elif CUDA_VERSION >= 12000
#define OXIDE_OPTIONAL_CUDA_DRIVER_FUNCTIONS(X) X(cuTensorMapEncodeTiled, 12000)
#else
#define OXIDE_OPTIONAL_CUDA_DRIVER_FUNCTIONS(X)
#endif

struct DriverApi {
#define OXIDE_DECLARE_DRIVER_FUNCTION(name, version) decltype(&::name) name = nullptr;
  OXIDE_CUDA_DRIVER_FUNCTIONS(OXIDE_DECLARE_DRIVER_FUNCTION)
  OXIDE_OPTIONAL_CUDA_DRIVER_FUNCTIONS(OXIDE_DECLARE_DRIVER_FUNCTION)
#undef OXIDE_DECLARE_DRIVER_FUNCTION
};

/// The loaded and initialized driver. Throws oxide::Error when libcuda.so.1 cannot be loaded,
/// lacks an entry point, or cuInit fails. Thread-safe; the work is done once per process.
[[nodiscard]] const DriverApi &driver();

/// The driver, for code that runs only after driver() succeeded (destructors): never throws.
[[nodiscard]] const DriverApi &loaded_driver_api() noexcept;

/// Why the driver library could not be loaded, briefly (the loader's message, or the missing
/// entry point); empty when it loaded. Never throws.
[[nodiscard]] std::string_view driver_load_failure() noexcept;

/// The driver's cuInit result, or an Error if the library itself cannot be loaded. Lets
/// Device::count() tell "no device" (CUDA_ERROR_NO_DEVICE) from other failures.
[[nodiscard]] CUresult driver_init_result();

/// Records the kernel last enqueued in `context`, so that a fault the driver reports later (at a
/// synchronisation or a copy) names the kernel that most likely caused it. One relaxed store.
void note_kernel_launch(CUcontext context, const std::string *kernel) noexcept;

/// Throws oxide::Error for a failed driver call; `kernel` names the kernel involved, if any. A
/// fault of a kernel (a trap, a failed assert, an illegal address) has kind KernelFault and names
/// the kernel last launched in the current context when `kernel` is empty.
[[noreturn]] void throw_driver_error(CUresult result, std::string_view api, std::string_view kernel = {},
                                     std::string_view details = {});

inline void check(CUresult result, std::string_view api, std::string_view kernel = {}) {
  if (result != CUDA_SUCCESS) [[unlikely]]
    throw_driver_error(result, api, kernel);
}

} // namespace oxide::detail
