// The shared state behind oxide::Context, and the scoped "make this context current" guard.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_map>

#include "oxide/host/device.hpp"
#include "oxide/host/registry.hpp"
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
  [[nodiscard]] bool is_simulator() const noexcept { return simulator_; }
  [[nodiscard]] const sim::Options &sim_options() const noexcept { return sim_options_; }
  /// "device 0" or "the CPU simulator", for messages.
  [[nodiscard]] std::string label() const;

  /// The module of the kernel's image in this context, loaded on first use. Thread-safe.
  [[nodiscard]] CUmodule module_for(const RegisteredKernel &kernel);

private:
  Device device_;
  CUdevice cu_device_ = 0;
  CUcontext handle_ = nullptr;
  bool simulator_ = false;
  sim::Options sim_options_;
  std::mutex modules_mutex_;
  std::unordered_map<std::size_t, CUmodule> modules_; // image index -> module
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
