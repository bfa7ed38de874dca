// oxide::prepare's runtime half, the checks made at every launch, and the launch itself: on the
// GPU here, on the CPU simulator in sim/launch.cpp.
#include "oxide/host/launch.hpp"

#include <fmt/format.h>

#include "context_state.hpp"
#include "cuda_driver.hpp"
#include "oxide/host/error.hpp"
#include "sim/launch.hpp"

namespace oxide {

namespace detail {
namespace {

int function_attribute(CUfunction function, CUfunction_attribute which, const std::string &kernel) {
  int value = 0;
  check(driver().cuFuncGetAttribute(&value, which, function), "cuFuncGetAttribute", kernel);
  return value;
}

/// Checks `config` against what the device and the compiled function allow, and raises the
/// dynamic shared memory limit when the configuration needs more than the default 48 KiB.
void fit_config(CUfunction function, const LaunchGeometry &config, const Device &device,
                const std::string &kernel) {
  const std::uint64_t block = config.threads_per_block();
  if (block > static_cast<std::uint64_t>(device.max_threads_per_block()))
    throw Error(fmt::format("kernel '{}': block size {} exceeds the {} threads per block of {}", kernel,
                            block, device.max_threads_per_block(), device.name()),
                kernel);
  if (config.grid.x > static_cast<std::uint32_t>(device.max_grid_dim_x()))
    throw Error(fmt::format("kernel '{}': grid size {} exceeds the {} blocks of {}", kernel, config.grid.x,
                            device.max_grid_dim_x(), device.name()),
                kernel);
  const int max_threads = function_attribute(function, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, kernel);
  if (block > static_cast<std::uint64_t>(max_threads))
    throw Error(
        fmt::format("kernel '{}' can run at most {} threads per block (its register use or launch bounds), "
                    "but the launch configuration asks for {}",
                    kernel, max_threads, block),
        kernel);
  constexpr std::uint32_t kDefaultSharedLimit = 48 * 1024;
  const auto static_shared =
      static_cast<std::uint32_t>(function_attribute(function, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, kernel));
  const auto optin = static_cast<std::uint32_t>(device.max_shared_memory_per_block_optin());
  if (std::uint64_t(static_shared) + config.dynamic_shared_bytes > optin)
    throw Error(
        fmt::format("kernel '{}' uses {} bytes of static shared memory; with {} dynamic bytes that exceeds "
                    "the {} bytes per block of {}",
                    kernel, static_shared, config.dynamic_shared_bytes, optin, device.name()),
        kernel);
  if (static_shared + config.dynamic_shared_bytes > kDefaultSharedLimit)
    check(driver().cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                      static_cast<int>(config.dynamic_shared_bytes)),
          "cuFuncSetAttribute", kernel);
}

} // namespace

PreparedKernel prepare_kernel(const Context &context, HostKernel host, std::span<const HostParam> params,
                              const LaunchGeometry &geometry) {
  const RegisteredKernel kernel = require_kernel(reinterpret_cast<const void *>(host.function));
  check_param_layout(kernel, params);
  const std::shared_ptr<ContextState> &state = context.state();
  if (state->is_simulator()) {
    sim::check_geometry(geometry, kernel.display_name);
    return PreparedKernel{state, nullptr, kernel.entry_name(), kernel.display_name, geometry, host, true};
  }
  CUmodule module = state->module_for(kernel);

  ScopedCurrent current(*state);
  CUfunction function = nullptr;
  const CUresult result = driver().cuModuleGetFunction(&function, module, kernel.entry_name().c_str());
  if (result != CUDA_SUCCESS)
    throw_driver_error(result, "cuModuleGetFunction", kernel.display_name,
                       fmt::format("(the module has no entry '{}')", kernel.entry_name()));
  fit_config(function, geometry, state->device(), kernel.display_name);
  return PreparedKernel{state, function, kernel.entry_name(), kernel.display_name, geometry, host, false};
}

void check_arguments(const PreparedKernel &kernel, std::span<const ArgumentMemory> arguments) {
  const CUcontext handle = kernel.context->handle();
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const ArgumentMemory &a = arguments[i];
    if (a.owner && a.owner->handle() != handle)
      throw Error(
          fmt::format("kernel '{}': argument {} is a buffer of {}, but the kernel was prepared for {}",
                      kernel.display_name, i + 1, a.owner->label(), kernel.context->label()),
          kernel.display_name);
    if (!a.present || a.bytes == 0)
      continue;
    for (std::size_t j = 0; j < i; ++j) {
      const ArgumentMemory &b = arguments[j];
      if (!b.present || b.bytes == 0 || !(a.writable || b.writable))
        continue;
      if (a.begin < b.begin + b.bytes && b.begin < a.begin + a.bytes)
        throw Error(
            fmt::format("kernel '{}': arguments {} and {} refer to overlapping device memory and the kernel "
                        "may write argument {}; pass distinct buffers",
                        kernel.display_name, j + 1, i + 1, a.writable ? i + 1 : j + 1),
            kernel.display_name);
    }
  }
}

void launch_kernel(const PreparedKernel &kernel, Stream &stream, void **arguments) {
  const ContextState &stream_context = *stream.context_state();
  if (stream_context.handle() != kernel.context->handle())
    throw Error(fmt::format("kernel '{}' was prepared for {} but launched on a stream of {}",
                            kernel.display_name, kernel.context->label(), stream_context.label()),
                kernel.display_name);
  if (kernel.simulated)
    return sim::launch(kernel, arguments);
  const LaunchGeometry &g = kernel.geometry;
  if (g.block_count() == 0)
    return; // an empty launch: nothing to enqueue
  ScopedCurrent current(stream_context);
  check(driver().cuLaunchKernel(static_cast<CUfunction>(kernel.function), g.grid.x, g.grid.y, g.grid.z,
                                g.block.x, g.block.y, g.block.z, g.dynamic_shared_bytes,
                                static_cast<CUstream>(stream.native_handle()), arguments, nullptr),
        "cuLaunchKernel", kernel.display_name);
}

} // namespace detail
} // namespace oxide
