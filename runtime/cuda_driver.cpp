#include "cuda_driver.hpp"
#include "failure_report.hpp"

#include <cudaTypedefs.h>
#include <dlfcn.h>

#include <fmt/format.h>

#include <atomic>
#include <string>
#include <type_traits>

#include "oxide/host/error.hpp"

namespace oxide::detail {
namespace {

// Two-level stringification: expands cuda.h's name macro first ("cuMemAlloc" -> "cuMemAlloc_v2").
#define OXIDE_VERSIONED_NAME(name) OXIDE_STRINGIFY(name)
#define OXIDE_STRINGIFY(name) #name

// The ABI each entry is resolved with is the one cuda.h declares (see OXIDE_CUDA_DRIVER_FUNCTIONS).
#define OXIDE_CHECK_DRIVER_ABI(name, version)                                                                \
  static_assert(std::is_same_v<decltype(&::name), PFN_##name##_v##version>,                                  \
                "cuda.h declares " #name " with another ABI than version " #version);
OXIDE_CUDA_DRIVER_FUNCTIONS(OXIDE_CHECK_DRIVER_ABI)
OXIDE_OPTIONAL_CUDA_DRIVER_FUNCTIONS(OXIDE_CHECK_DRIVER_ABI)
#undef OXIDE_CHECK_DRIVER_ABI

constexpr const char *kDriverLibrary = "libcuda.so.1";

struct LoadedDriver {
  DriverApi api;
  CUresult init_result = CUDA_ERROR_NOT_INITIALIZED;
  std::string load_error;  // non-empty when the library or an entry point is missing
  std::string brief_error; // the same, in a few words
};

LoadedDriver load() noexcept {
  LoadedDriver loaded;
  // Never closed: the driver must outlive every static destructor that might still free memory.
  void *library = dlopen(kDriverLibrary, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *reason = dlerror();
    loaded.brief_error = reason ? reason : "cannot load libcuda.so.1";
    loaded.load_error =
        fmt::format("cannot load the CUDA driver ({}): {}. Install the NVIDIA driver, or run on a "
                    "machine with a GPU.",
                    kDriverLibrary, reason ? reason : "unknown error");
    return loaded;
  }

  // cuGetProcAddress_v2 (CUDA 12+) returns the variant of the requested ABI version; older
  // drivers only have the exported symbols, whose versioned names cuda.h's macros spell.
  auto get_proc_address =
      reinterpret_cast<decltype(&::cuGetProcAddress)>(dlsym(library, "cuGetProcAddress_v2"));
  auto resolve = [&](const char *base_name, int version, const char *versioned_name) -> void * {
    if (get_proc_address) {
      void *function = nullptr;
      CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
      if (get_proc_address(base_name, &function, version, CU_GET_PROC_ADDRESS_DEFAULT, &status) ==
              CUDA_SUCCESS &&
          status == CU_GET_PROC_ADDRESS_SUCCESS && function)
        return function;
    }
    return dlsym(library, versioned_name);
  };

#define OXIDE_RESOLVE_DRIVER_FUNCTION(name, version)                                                         \
  loaded.api.name =                                                                                          \
      reinterpret_cast<decltype(&::name)>(resolve(#name, version, OXIDE_VERSIONED_NAME(name)));              \
  if (!loaded.api.name) {                                                                                    \
    loaded.load_error = fmt::format("the CUDA driver ({}) has no entry point {}; update the NVIDIA driver.", \
                                    kDriverLibrary, OXIDE_VERSIONED_NAME(name));                             \
    loaded.brief_error =                                                                                     \
        fmt::format("{} has no entry point {}", kDriverLibrary, OXIDE_VERSIONED_NAME(name));                 \
    return loaded;                                                                                           \
  }
  OXIDE_CUDA_DRIVER_FUNCTIONS(OXIDE_RESOLVE_DRIVER_FUNCTION)
#undef OXIDE_RESOLVE_DRIVER_FUNCTION
#define OXIDE_RESOLVE_OPTIONAL_DRIVER_FUNCTION(name, version)                                                \
  loaded.api.name = reinterpret_cast<decltype(&::name)>(resolve(#name, version, OXIDE_VERSIONED_NAME(name)));
  OXIDE_OPTIONAL_CUDA_DRIVER_FUNCTIONS(OXIDE_RESOLVE_OPTIONAL_DRIVER_FUNCTION)
#undef OXIDE_RESOLVE_OPTIONAL_DRIVER_FUNCTION

  loaded.init_result = loaded.api.cuInit(0);
  return loaded;
}

const LoadedDriver &loaded_driver() noexcept {
  // Thread-safe one-time initialization; never destroyed, since destructors of static objects
  // (buffers, contexts) may still call the driver during exit.
  static const LoadedDriver *driver = new LoadedDriver(load());
  return *driver;
}

const LoadedDriver &loaded_driver_or_throw() {
  const LoadedDriver &loaded = loaded_driver();
  if (!loaded.load_error.empty())
    throw Error(ErrorKind::NoDevice, loaded.load_error);
  return loaded;
}

} // namespace

const DriverApi &driver() {
  const LoadedDriver &loaded = loaded_driver_or_throw();
  if (loaded.init_result != CUDA_SUCCESS) [[unlikely]]
    throw_driver_error(loaded.init_result, "cuInit");
  return loaded.api;
}

std::string_view driver_load_failure() noexcept { return loaded_driver().brief_error; }

const DriverApi &loaded_driver_api() noexcept { return loaded_driver().api; }

CUresult driver_init_result() { return loaded_driver_or_throw().init_result; }

namespace {

/// The last kernel launch: its context and name (owned by the context's kernel cache, which
/// outlives any error raised while the context is in use).
struct LastLaunch {
  std::atomic<CUcontext> context{nullptr};
  std::atomic<const std::string *> kernel{nullptr};
};
LastLaunch last_launch;

/// Errors by which the driver reports that a kernel stopped: the context is unusable after them.
bool is_kernel_fault(CUresult result) noexcept {
  switch (result) {
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_LAUNCH_FAILED:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
    return true;
  default:
    return false;
  }
}

/// The kernel last launched in the calling thread's current context, if known.
std::string last_kernel_in_current_context() {
  const DriverApi &functions = loaded_driver().api;
  CUcontext current = nullptr;
  if (!functions.cuCtxGetCurrent || functions.cuCtxGetCurrent(&current) != CUDA_SUCCESS)
    current = nullptr;
  const std::string *kernel = last_launch.kernel.load(std::memory_order_relaxed);
  if (!kernel || (current && last_launch.context.load(std::memory_order_relaxed) != current))
    return {};
  return *kernel;
}

} // namespace

void note_kernel_launch(CUcontext context, const std::string *kernel) noexcept {
  last_launch.context.store(context, std::memory_order_relaxed);
  last_launch.kernel.store(kernel, std::memory_order_relaxed);
}

void throw_driver_error(CUresult result, std::string_view api, std::string_view kernel,
                        std::string_view details) {
  const DriverApi &functions = loaded_driver().api;
  const char *name = nullptr;
  const char *description = nullptr;
  if (!functions.cuGetErrorName || functions.cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
    name = nullptr;
  if (!functions.cuGetErrorString || functions.cuGetErrorString(result, &description) != CUDA_SUCCESS ||
      !description)
    description = nullptr;
  std::string error_name = name ? std::string(name) : fmt::format("CUDA error {}", static_cast<int>(result));
  if (is_kernel_fault(result)) {
    std::string faulted = kernel.empty() ? last_kernel_in_current_context() : std::string(kernel);
    CUcontext current = nullptr;
    if (!functions.cuCtxGetCurrent || functions.cuCtxGetCurrent(&current) != CUDA_SUCCESS)
      current = nullptr;
    throw Error::kernel_fault(std::string(api), static_cast<int>(result), std::move(error_name),
                              description ? description : "unknown error", std::move(faulted),
                              current ? take_failure_report(current) : std::string());
  }
  throw Error::driver(std::string(api), static_cast<int>(result), std::move(error_name),
                      description ? description : "unknown error", std::string(kernel), details);
}

} // namespace oxide::detail
