// The shared state behind oxide::Context, and the scoped "make this context current" guard.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <mutex>
#include <unordered_map>

#include "oxide/host/device.hpp"
#include "oxide/host/registry.hpp"

namespace oxide::detail {

/// Owns one retain of a device's primary context and the modules loaded into it.
class ContextState {
public:
  ContextState(Device device, CUdevice cu_device, CUcontext handle) noexcept
      : device_(std::move(device)), cu_device_(cu_device), handle_(handle) {}
  ContextState(const ContextState &) = delete;
  ContextState &operator=(const ContextState &) = delete;
  /// Unloads the modules and releases the primary context; never throws.
  ~ContextState();

  [[nodiscard]] const Device &device() const noexcept { return device_; }
  [[nodiscard]] CUcontext handle() const noexcept { return handle_; }

  /// The module of the kernel's image in this context, loaded on first use. Thread-safe.
  [[nodiscard]] CUmodule module_for(const RegisteredKernel &kernel);

private:
  Device device_;
  CUdevice cu_device_;
  CUcontext handle_;
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
