// The shared state behind oxide::Context, and the scoped "make this context current" guard.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "failure_report.hpp"
#include "oxide/detail/host/registry.hpp"
#include "oxide/host/device.hpp"
#include "sim/options.hpp"

namespace oxide::detail {

/// Either one retain of a device's primary context and the modules loaded into it, or the CPU
/// simulator with the settings it was created with. The backend is fixed at construction, so
/// every operation branches on is_simulator() instead of dispatching virtually.
class ContextState {
public:
  ContextState(Device device, CUdevice cu_device, CUcontext handle) noexcept
      : device_(std::move(device)), cu_device_(cu_device), handle_(handle) {}
  ContextState(Device device, sim::Options options) noexcept
      : device_(std::move(device)), simulator_(true), sim_options_(options) {}
  ContextState(const ContextState &) = delete;
  ContextState &operator=(const ContextState &) = delete;
  /// Unloads the modules and releases the primary context; never throws.
  ~ContextState();

  [[nodiscard]] const Device &device() const noexcept { return device_; }
  /// The CUcontext; nullptr for the simulator (so all simulator contexts compare equal, like
  /// two contexts of one GPU).
  [[nodiscard]] CUcontext handle() const noexcept { return handle_; }
  /// The CUdevice (0 for the simulator).
  [[nodiscard]] CUdevice cu_device() const noexcept { return cu_device_; }
  /// Whether enable_peer_access(peer) succeeded through this state: kernels and copies of this
  /// context may then reach `peer`'s memory directly. Thread-safe.
  [[nodiscard]] bool peer_access_enabled(CUcontext peer) const;
  /// Records a successful cuCtxEnablePeerAccess(peer) made with this context current.
  void record_peer_access(CUcontext peer);
  [[nodiscard]] bool is_simulator() const noexcept { return simulator_; }
  [[nodiscard]] const sim::Options &sim_options() const noexcept { return sim_options_; }
  /// "device 0" or "the CPU simulator", for messages.
  [[nodiscard]] std::string label() const;

  /// The module of the kernel's image in this context, loaded on first use. Thread-safe.
  [[nodiscard]] CUmodule module_for(const RegisteredKernel &kernel);
  /// The module of image `image_index` in this context, loaded on first use for `user`
  /// ("kernel 'vecadd'", "constant 'taps'", for errors; `kernel` names the kernel, if any).
  /// Thread-safe.
  [[nodiscard]] CUmodule module_for_image(const DeviceImage &image, std::size_t image_index,
                                          const std::string &user, const std::string &kernel = {});

  /// The kernel registered for `host_address`, looked up once per context (the reference stays
  /// valid as long as this state); its parameter layout is checked against `params` on every
  /// call. Throws oxide::Error (NotAKernel, LayoutMismatch). Thread-safe.
  [[nodiscard]] const RegisteredKernel &kernel(const void *host_address, std::span<const HostParam> params);

  /// A kernel's device function and what the compiled code allows.
  struct GpuFunction {
    CUfunction function = nullptr;
    std::uint32_t max_threads = 0;         ///< per block: register use, launch bounds
    std::uint32_t static_shared_bytes = 0; ///< shared memory the code declares
  };
  /// The kernel's function in this context (GPU only), loaded once. Thread-safe.
  [[nodiscard]] GpuFunction gpu_function(const RegisteredKernel &kernel);
  /// Lets `kernel` use `dynamic_bytes` of dynamic shared memory: raises the function's limit
  /// when needed, never lowers it (launches prepared earlier may need more). Thread-safe.
  void reserve_dynamic_shared(const RegisteredKernel &kernel, const GpuFunction &function,
                              std::uint32_t dynamic_bytes);

  /// The context's pool for stream-ordered allocations (DeviceBuffer::allocate_async, oxide::cub's
  /// temporary storage), made on first use; nullptr where the device has no memory pools (the
  /// default pool's cuMemAllocAsync is then used). It keeps what is freed for the next
  /// allocation (release threshold: unlimited): the device's default pool gives its free memory
  /// back at every synchronisation and maps it again at the next allocation, which costs a
  /// gigabyte-sized sort's temporary storage milliseconds a call. Thread-safe.
  [[nodiscard]] CUmemoryPool memory_pool() const;
  /// Gives the pool's unused memory back to the device: before retrying an allocation that ran
  /// out of memory.
  void trim_memory_pool() const noexcept;

private:
  Device device_;
  CUdevice cu_device_ = 0;
  CUcontext handle_ = nullptr;
  bool simulator_ = false;
  sim::Options sim_options_;
  mutable std::mutex peers_mutex_;
  std::vector<CUcontext> peers_; // contexts this one has enabled peer access to
  std::mutex modules_mutex_;
  std::unordered_map<std::size_t, CUmodule> modules_; // image index -> module
  std::unique_ptr<FailureReports> failure_reports_;   // made with the first module; may stay null

  struct CachedFunction {
    GpuFunction function;
    std::uint32_t max_dynamic_shared = 0; // what launches may use now, without raising the limit
  };
  std::mutex kernels_mutex_;
  std::unordered_map<const void *, std::unique_ptr<const RegisteredKernel>> kernels_; // host address ->
  std::unordered_map<const KernelInfo *, CachedFunction> functions_;
  mutable std::mutex pool_mutex_;
  mutable CUmemoryPool pool_ = nullptr;
  mutable bool pool_made_ = false;
};

/// Makes a context current on this thread for the guard's lifetime (push/pop, so code that
/// manages its own current context is left undisturbed).
class ScopedCurrent {
public:
  explicit ScopedCurrent(const ContextState &context);
  ScopedCurrent(const ScopedCurrent &) = delete;
  ScopedCurrent &operator=(const ScopedCurrent &) = delete;
  ~ScopedCurrent();
};

} // namespace oxide::detail
