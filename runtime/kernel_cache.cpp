// Per-context caches of kernels: the registry lookup and, on a GPU, the loaded function with
// its attributes. They make oxide::prepare cheap after the first time, and oxide::unsafe_launch
// (which resolves its kernel at every call) cheap always.
#include <fmt/format.h>

#include "context_state.hpp"
#include "cuda_driver.hpp"
#include "oxide/host/error.hpp"

namespace oxide::detail {

const RegisteredKernel &ContextState::kernel(const void *host_address, std::span<const HostParam> params) {
  const RegisteredKernel *kernel = nullptr;
  {
    std::lock_guard lock(kernels_mutex_);
    auto it = kernels_.find(host_address);
    if (it == kernels_.end())
      it = kernels_
               .emplace(host_address, std::make_unique<const RegisteredKernel>(require_kernel(host_address)))
               .first;
    kernel = it->second.get();
  }
  // Not cached: one address may be cast to several signatures (each instantiation checks its own).
  check_param_layout(*kernel, params);
  return *kernel;
}

namespace {

std::uint32_t function_attribute(CUfunction function, CUfunction_attribute which, const std::string &kernel) {
  int value = 0;
  check(driver().cuFuncGetAttribute(&value, which, function), "cuFuncGetAttribute", kernel);
  return static_cast<std::uint32_t>(value);
}

} // namespace

ContextState::GpuFunction ContextState::gpu_function(const RegisteredKernel &kernel) {
  std::lock_guard lock(kernels_mutex_);
  if (auto it = functions_.find(kernel.info); it != functions_.end())
    return it->second.function;
  CUmodule module = module_for(kernel); // its own lock; never taken before kernels_mutex_ elsewhere
  ScopedCurrent current(*this);
  CUfunction function = nullptr;
  const CUresult result = driver().cuModuleGetFunction(&function, module, kernel.entry_name().c_str());
  if (result != CUDA_SUCCESS)
    throw_driver_error(result, "cuModuleGetFunction", kernel.display_name,
                       fmt::format("(the module has no entry '{}')", kernel.entry_name()));
  // Load the code now rather than at the first launch, which would wait for the whole context.
#if CUDA_VERSION >= 12040
  if (driver().cuFuncLoad)
    check(driver().cuFuncLoad(function), "cuFuncLoad", kernel.display_name);
#endif
  const GpuFunction loaded{
      function, function_attribute(function, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, kernel.display_name),
      function_attribute(function, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, kernel.display_name)};
  // By default a block may use 48 KiB of static and dynamic shared memory together.
  constexpr std::uint32_t kDefaultShared = 48 * 1024;
  const std::uint32_t default_dynamic =
      loaded.static_shared_bytes < kDefaultShared ? kDefaultShared - loaded.static_shared_bytes : 0;
  functions_.emplace(kernel.info, CachedFunction{loaded, default_dynamic});
  return loaded;
}

void ContextState::reserve_dynamic_shared(const RegisteredKernel &kernel, const GpuFunction &function,
                                          std::uint32_t dynamic_bytes) {
  std::lock_guard lock(kernels_mutex_);
  CachedFunction &cached = functions_.at(kernel.info);
  if (dynamic_bytes <= cached.max_dynamic_shared)
    return;
  ScopedCurrent current(*this);
  check(driver().cuFuncSetAttribute(function.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                    static_cast<int>(dynamic_bytes)),
        "cuFuncSetAttribute", kernel.display_name);
  cached.max_dynamic_shared = dynamic_bytes;
}

} // namespace oxide::detail
