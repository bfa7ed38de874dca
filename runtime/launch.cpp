// The runtime half of oxide::prepare and oxide::unsafe_launch, the checks made at every launch,
// and the launch itself: on the GPU here, on the CPU simulator in sim/launch.cpp.
#include "oxide/detail/host/launch_core.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "context_state.hpp"
#include "contract_checks.hpp"
#include "cuda_driver.hpp"
#include "graph_capture.hpp"
#include "launch_contract.hpp"
#include "oxide/host/error.hpp"
#include "sim/launch.hpp"
#include "sim/shared_memory.hpp"

namespace oxide::detail {
namespace {

/// What a block may use on the context's device, for this compiled kernel.
struct BlockLimits {
  std::uint32_t max_threads = 0;         ///< the device's, or fewer for this kernel's code
  bool kernel_limits_threads = false;    ///< max_threads comes from the compiled kernel
  std::uint32_t shared_bytes = 0;        ///< static + dynamic shared memory per block
  std::uint32_t static_shared_bytes = 0; ///< what the code declares (0 on the simulator: unknown)
  std::string where;                     ///< "the CPU simulator", "NVIDIA H200"
};

void check_block_limits(const std::string &kernel, const LaunchGeometry &g, const BlockLimits &limits) {
  const std::uint64_t threads = g.threads_per_block();
  if (threads > limits.max_threads)
    throw Error(
        ErrorKind::BlockOverDeviceLimit,
        limits.kernel_limits_threads
            ? fmt::format("kernel '{}' can run at most {} threads per block (its register use or launch "
                          "bounds), but the launch configuration asks for {}",
                          kernel, limits.max_threads, threads)
            : fmt::format("kernel '{}': block size {} exceeds the {} threads per block of {}", kernel,
                          threads, limits.max_threads, limits.where),
        kernel);
  const std::uint64_t shared = std::uint64_t(limits.static_shared_bytes) + g.dynamic_shared_bytes;
  if (shared <= limits.shared_bytes)
    return;
  throw Error(
      ErrorKind::DynamicSharedOverDeviceLimit,
      limits.static_shared_bytes == 0
          ? fmt::format("kernel '{}' asks for {} bytes of dynamic shared memory, more than the {} bytes "
                        "per block of {}",
                        kernel, g.dynamic_shared_bytes, limits.shared_bytes, limits.where)
          : fmt::format("kernel '{}' uses {} bytes of static shared memory; with {} dynamic bytes that "
                        "exceeds the {} bytes per block of {}",
                        kernel, limits.static_shared_bytes, g.dynamic_shared_bytes, limits.shared_bytes,
                        limits.where),
      kernel);
}

/// A cooperative launch deadlocks unless every block is resident at once: the grid must fit the
/// device's SMs at the kernel's occupancy (what cuLaunchKernelEx would refuse, said clearly).
void check_cooperative_residency(const ContextState &state, const std::string &kernel, CUfunction function,
                                 const LaunchGeometry &g) {
  ScopedCurrent current(state);
  int per_sm = 0;
  check(driver().cuOccupancyMaxActiveBlocksPerMultiprocessor(
            &per_sm, function, static_cast<int>(g.threads_per_block()), g.dynamic_shared_bytes),
        "cuOccupancyMaxActiveBlocksPerMultiprocessor", kernel);
  const std::uint64_t resident =
      std::uint64_t(per_sm) * static_cast<std::uint64_t>(state.device().sm_count());
  if (g.block_count() > resident)
    throw Error(
        ErrorKind::CooperativeGridTooLarge,
        fmt::format("kernel '{}' is cooperative, so all its blocks must be resident at once, but {} holds "
                    "{} blocks of {} threads ({} per SM x {} SMs) and the grid has {}; size the grid "
                    "with oxide::max_resident_blocks",
                    kernel, state.device().name(), resident, g.threads_per_block(), per_sm,
                    state.device().sm_count(), g.block_count()),
        kernel);
}

/// The last step of both preparations: the device's limits, and on a GPU the function.
PreparedKernel finish(const std::shared_ptr<ContextState> &state, const RegisteredKernel &kernel,
                      const KernelContract *contract, const LaunchGeometry &geometry, HostKernel host) {
  PreparedKernel prepared{
      state,   &kernel,  contract, contract && contract->has_requires(), state->is_simulator(),
      nullptr, geometry, host};
  // An unsafe launch skips the contract's checks but keeps the launch it asks for.
  if (const KernelContract *shape = contract ? contract : launch_contract(kernel)) {
    const auto &cluster = shape->contract().cluster;
    prepared.cluster = {cluster[0], cluster[1], cluster[2]};
    prepared.cooperative = shape->contract().cooperative;
  }
  const Device &device = state->device();
  if (prepared.simulated) {
    check_block_limits(kernel.display_name, geometry,
                       {static_cast<std::uint32_t>(device.max_threads_per_block()), false,
                        static_cast<std::uint32_t>(sim::SharedMemory::kLimitBytes), 0, "the CPU simulator"});
    // The simulator runs clusters and cooperative grids (sim/launch.cpp); a cooperative grid is
    // limited as on a GPU, by what max_resident_blocks returns there.
    const auto resident = sim::max_resident_blocks(static_cast<std::uint32_t>(geometry.threads_per_block()));
    if (prepared.cooperative && geometry.block_count() > resident)
      throw Error(
          ErrorKind::CooperativeGridTooLarge,
          fmt::format("kernel '{}' is cooperative, so all its blocks must be resident at once, but the "
                      "CPU simulator holds {} blocks of {} threads and the grid has {}; size the grid "
                      "with oxide::max_resident_blocks",
                      kernel.display_name, resident, geometry.threads_per_block(), geometry.block_count()),
          kernel.display_name);
    return prepared;
  }
  const ContextState::GpuFunction function = state->gpu_function(kernel);
  const auto device_threads = static_cast<std::uint32_t>(device.max_threads_per_block());
  check_block_limits(kernel.display_name, geometry,
                     {std::min(device_threads, function.max_threads), function.max_threads < device_threads,
                      static_cast<std::uint32_t>(device.max_shared_memory_per_block_optin()),
                      function.static_shared_bytes, device.name()});
  if (geometry.grid.x > static_cast<std::uint32_t>(device.max_grid_dim_x()))
    throw Error(ErrorKind::GridInvalid,
                fmt::format("kernel '{}': grid size {} exceeds the {} blocks of {}", kernel.display_name,
                            geometry.grid.x, device.max_grid_dim_x(), device.name()),
                kernel.display_name);
  state->reserve_dynamic_shared(kernel, function, geometry.dynamic_shared_bytes);
  prepared.function = function.function;
  if (prepared.cooperative)
    check_cooperative_residency(*state, kernel.display_name, function.function, geometry);
  return prepared;
}

} // namespace

PreparedKernel prepare_kernel(const Context &context, HostKernel host, HostElements<const HostParam> params,
                              const LaunchGeometry &geometry, unsigned rank) {
  const std::shared_ptr<ContextState> &state = detail::ContextAccess::state(context);
  const RegisteredKernel &kernel = state->kernel(reinterpret_cast<const void *>(host.function), params);
  const KernelContract *contract = launch_contract(kernel);
  if (!contract)
    throw Error(
        ErrorKind::NoContract,
        fmt::format("kernel '{}' has no launch contract, so oxide::prepare cannot check its launches; add "
                    "[[oxide::launch_contract(\"domain = ...\")]] to it, or launch it with "
                    "oxide::unsafe_launch",
                    kernel.display_name),
        kernel.display_name);
  check_domain(*contract, kernel.display_name, rank);
  validate_geometry(geometry, rank);
  check_configuration(*contract, kernel.display_name, geometry, state->device());
  check_launch_bounds(kernel, geometry);
  return finish(state, kernel, contract, geometry, host);
}

Dim3 contract_block(const Context &context, HostKernel host, HostElements<const HostParam> params,
                    unsigned rank) {
  const std::shared_ptr<ContextState> &state = detail::ContextAccess::state(context);
  const RegisteredKernel &kernel = state->kernel(reinterpret_cast<const void *>(host.function), params);
  const KernelContract *contract = launch_contract(kernel);
  const std::string &name = kernel.display_name;
  static constexpr const char *kDomains[] = {"", "oxide::elements(n)", "oxide::elements(width, height)",
                                             "oxide::elements(width, height, depth)"};
  if (!contract)
    throw Error(
        ErrorKind::NoContract,
        fmt::format("kernel '{}' has no launch contract, so oxide::prepare cannot take its block from "
                    "it; add [[oxide::launch_contract(\"domain = {}, block = ...\")]] to it, or "
                    "launch it with oxide::unsafe_launch",
                    name, rank),
        name);
  const Contract &c = contract->contract();
  if (c.domain != rank)
    throw Error(ErrorKind::DomainMismatch,
                fmt::format("kernel '{}' has domain = {} in its launch contract, but is prepared with {}; "
                            "give {} extents: {}",
                            name, c.domain, kDomains[rank], c.domain, kDomains[c.domain]),
                name);
  if (!c.block) {
    const std::string config = rank == 1   ? "LaunchConfig1D::for_elements(n, 256)"
                               : rank == 2 ? "LaunchConfig2D::for_elements(width, height, {16, 16, 1})"
                                           : "LaunchConfig3D::for_elements(width, height, depth, {8, 8, 4})";
    const std::string block = rank == 1 ? "256" : rank == 2 ? "(16, 16)" : "(8, 8, 4)";
    throw Error(
        ErrorKind::BlockMismatch,
        fmt::format("kernel '{}' is prepared with {}, which takes the block from the launch contract, "
                    "but its contract fixes no block; add one to the contract (e.g. block = {}) or "
                    "prepare it with a configuration that states the block, e.g. oxide::{}",
                    name, kDomains[rank], block, config),
        name);
  }
  return {(*c.block)[0], (*c.block)[1], (*c.block)[2]};
}

PreparedKernel prepare_unsafe_kernel(const Stream &stream, HostKernel host,
                                     HostElements<const HostParam> params, const LaunchGeometry &geometry,
                                     unsigned rank) {
  const std::shared_ptr<ContextState> &state = detail::StreamAccess::context_state(stream);
  const RegisteredKernel &kernel = state->kernel(reinterpret_cast<const void *>(host.function), params);
  validate_geometry(geometry, rank);
  check_launch_bounds(kernel, geometry);
  return finish(state, kernel, nullptr, geometry, host);
}

std::uint32_t max_resident_blocks(const Context &context, HostKernel host,
                                  HostElements<const HostParam> params, std::uint32_t block_threads,
                                  std::uint32_t dynamic_shared_bytes) {
  const std::shared_ptr<ContextState> &state = detail::ContextAccess::state(context);
  const RegisteredKernel &kernel = state->kernel(reinterpret_cast<const void *>(host.function), params);
  const Device &device = state->device();
  if (block_threads == 0 || block_threads > static_cast<std::uint32_t>(device.max_threads_per_block()))
    throw Error(ErrorKind::BlockInvalid,
                fmt::format("kernel '{}': block size {} is not between 1 and the {} threads per block of {}",
                            kernel.display_name, block_threads, device.max_threads_per_block(),
                            device.name()),
                kernel.display_name);
  if (state->is_simulator())
    return sim::max_resident_blocks(block_threads); // fixed: not the host's cores (sim/launch.hpp)
  const ContextState::GpuFunction function = state->gpu_function(kernel);
  state->reserve_dynamic_shared(kernel, function, dynamic_shared_bytes);
  ScopedCurrent current(*state);
  int per_sm = 0;
  check(driver().cuOccupancyMaxActiveBlocksPerMultiprocessor(
            &per_sm, function.function, static_cast<int>(block_threads), dynamic_shared_bytes),
        "cuOccupancyMaxActiveBlocksPerMultiprocessor", kernel.display_name);
  return static_cast<std::uint32_t>(per_sm) * static_cast<std::uint32_t>(device.sm_count());
}

namespace {

/// "argument 3 (c)" when the contract names the parameters, else "argument 3".
std::string argument_label(const KernelContract *contract, std::size_t index) {
  if (contract)
    return fmt::format("argument {} ({})", index + 1, contract->names()[index]);
  return fmt::format("argument {}", index + 1);
}

[[noreturn]] void throw_overlap(const PreparedKernel &kernel, std::size_t first, std::size_t second,
                                std::size_t written) {
  throw Error(
      ErrorKind::OverlappingArguments,
      fmt::format("kernel '{}': {} and {} refer to overlapping device memory and the kernel may write {}; "
                  "pass distinct buffers",
                  kernel.display_name(), argument_label(kernel.contract, first),
                  argument_label(kernel.contract, second), argument_label(kernel.contract, written)),
      kernel.display_name());
}

} // namespace

void check_launch(const PreparedKernel &kernel, const Stream &stream,
                  HostElements<const ArgumentMemory> arguments,
                  HostElements<const ContractOperand> contract_values) {
  const ContextState &stream_context = *detail::StreamAccess::context_state(stream);
  const CUcontext handle = kernel.context->handle();
  if (stream_context.handle() != handle) [[unlikely]]
    throw Error(ErrorKind::WrongStreamContext,
                fmt::format("kernel '{}' was prepared for {} but launched on a stream of {}",
                            kernel.display_name(), kernel.context->label(), stream_context.label()),
                kernel.display_name());
  for (std::size_t i = 0; i < arguments.size(); ++i)
    if (arguments[i].owner && arguments[i].owner->handle() != handle) [[unlikely]]
      throw Error(ErrorKind::WrongContext,
                  fmt::format("kernel '{}': {} is a buffer of {}, but the kernel was prepared for {}",
                              kernel.display_name(), argument_label(kernel.contract, i),
                              arguments[i].owner->label(), kernel.context->label()),
                  kernel.display_name());
  // An unsafe launch checks no contract: aliasing is the caller's responsibility (in-place kernels
  // are common).
  if (kernel.contract) {
    if (kernel.has_requires) {
      check_requires(*kernel.contract, kernel.display_name(), contract_values);
      check_dynamic_shared(*kernel.contract, kernel.display_name(), contract_values,
                           kernel.geometry.dynamic_shared_bytes);
    }
    for (std::size_t i = 0; i < arguments.size(); ++i) {
      const ArgumentMemory &a = arguments[i];
      if (!a.present || a.bytes == 0)
        continue;
      for (std::size_t j = 0; j < i; ++j) {
        const ArgumentMemory &b = arguments[j];
        if (!b.present || b.bytes == 0 || !(a.writable || b.writable))
          continue;
        if (a.begin < b.begin + b.bytes && b.begin < a.begin + a.bytes)
          throw_overlap(kernel, j, i, a.writable ? i : j);
      }
    }
  }
  // Inside Graph::capture: the graph will reuse these buffers' addresses at every replay.
  capture_launch_allocations(kernel, stream, arguments.data(), arguments.size());
}

void launch_kernel(const PreparedKernel &kernel, Stream &stream, void **arguments) {
  if (kernel.simulated) {
    // Inside Graph::capture the launch is recorded for the graph instead of run now.
    if (!capture_simulated_launch(kernel, stream, arguments))
      sim::launch(kernel, arguments);
    return;
  }
  const LaunchGeometry &g = kernel.geometry;
  if (g.block_count() == 0)
    return; // an empty launch: nothing to enqueue
  ScopedCurrent current(*kernel.context);
  note_kernel_launch(kernel.context->handle(), &kernel.kernel->display_name);
  if (!kernel.cooperative && kernel.cluster == Dim3{1, 1, 1}) [[likely]] {
    check(driver().cuLaunchKernel(static_cast<CUfunction>(kernel.function), g.grid.x, g.grid.y, g.grid.z,
                                  g.block.x, g.block.y, g.block.z, g.dynamic_shared_bytes,
                                  static_cast<CUstream>(stream.native_handle()), arguments, nullptr),
          "cuLaunchKernel", kernel.display_name());
    return;
  }
  CUlaunchAttribute attribute{};
  if (kernel.cooperative) {
    attribute.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    attribute.value.cooperative = 1;
  } else {
    attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attribute.value.clusterDim.x = kernel.cluster.x;
    attribute.value.clusterDim.y = kernel.cluster.y;
    attribute.value.clusterDim.z = kernel.cluster.z;
  }
  CUlaunchConfig config{};
  config.gridDimX = g.grid.x;
  config.gridDimY = g.grid.y;
  config.gridDimZ = g.grid.z;
  config.blockDimX = g.block.x;
  config.blockDimY = g.block.y;
  config.blockDimZ = g.block.z;
  config.sharedMemBytes = g.dynamic_shared_bytes;
  config.hStream = static_cast<CUstream>(stream.native_handle());
  config.attrs = &attribute;
  config.numAttrs = 1;
  check(driver().cuLaunchKernelEx(&config, static_cast<CUfunction>(kernel.function), arguments, nullptr),
        "cuLaunchKernelEx", kernel.display_name());
}

} // namespace oxide::detail
