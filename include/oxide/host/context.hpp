// oxide::Context: the primary CUDA context of one device, or the CPU simulator.
//
// Every object made from a Context (streams, buffers, prepared launches) shares ownership of the
// underlying context state, so the primary context and the modules loaded into it stay alive
// until the last of them is gone, whatever order they are destroyed in.
#pragma once

#include <memory>

#include "oxide/host/device.hpp"

namespace oxide {

class Stream;

namespace detail {
class ContextState; // defined in the runtime; holds driver handles
struct ContextAccess;
} // namespace detail

class Context {
public:
  /// The primary context of CUDA device 0; when there is no driver or no device, the CPU
  /// simulator, after a one-line notice on stderr (once per process). The environment variable
  /// OXIDE_DEVICE forces the choice: `cpu` (the simulator), `cuda` (device 0) or `cuda:N`.
  /// Throws oxide::Error when the forced device is unavailable or OXIDE_DEVICE is malformed.
  [[nodiscard]] static Context create();
  /// The primary context of the CUDA device with this ordinal, 0 <= ordinal < Device::count()
  /// (never the simulator; OXIDE_DEVICE does not apply). Contexts of several devices may live in
  /// one process and one thread: every runtime call makes its own context current for the call
  /// only (push/pop), so no call depends on which context was used last. Throws oxide::Error
  /// (NoDevice) for an ordinal without a device.
  [[nodiscard]] static Context create(int ordinal);
  /// The CPU simulator, whatever GPUs the machine has. Reads the OXIDE_SIM_* settings (see
  /// docs/simulator.md) and throws oxide::Error when one is malformed.
  [[nodiscard]] static Context cpu();

  Context(Context &&) noexcept = default;
  Context &operator=(Context &&) noexcept = default;
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;
  ~Context() = default;

  [[nodiscard]] const Device &device() const;
  /// Whether kernels launched in this context run on the CPU simulator.
  [[nodiscard]] bool is_simulator() const;
  /// The context's default (null) stream; it synchronizes with all other blocking streams.
  [[nodiscard]] Stream default_stream() const;
  /// A new stream, destroyed with the returned object.
  [[nodiscard]] Stream create_stream() const;
  /// Waits for all work submitted to this context.
  void synchronize() const;
  /// Whether this context's device can reach `other`'s device memory directly (NVLink or PCIe
  /// peer-to-peer), once enable_peer_access(other) has been called. True for two contexts of the
  /// same device; false when either is the simulator (its memory is host memory: copies between
  /// the simulator and a GPU go through the host, see docs/multi-gpu.md). Throws oxide::Error
  /// for a failed driver query.
  [[nodiscard]] bool can_access_peer(const Context &other) const;
  /// Lets this context's kernels and copies reach `other`'s device memory directly
  /// (cuCtxEnablePeerAccess; one direction only: call it on both contexts for both). Idempotent;
  /// a no-op for two contexts of the same device. Throws oxide::Error (PeerAccessUnavailable)
  /// when can_access_peer(other) is false, or the driver refuses (too many peers).
  void enable_peer_access(const Context &other) const;
  /// The CUcontext, for interoperation with other CUDA code; nullptr on the simulator.
  [[nodiscard]] void *native_handle() const;

private:
  friend struct detail::ContextAccess;
  /// The shared state. Throws oxide::Error on a moved-from Context.
  [[nodiscard]] const std::shared_ptr<detail::ContextState> &state() const;
  explicit Context(std::shared_ptr<detail::ContextState> state) noexcept : state_(std::move(state)) {}
  std::shared_ptr<detail::ContextState> state_;
};

namespace detail {
/// Runtime access to a Context's shared state.
struct ContextAccess {
  static const std::shared_ptr<ContextState> &state(const Context &context) { return context.state(); }
};
} // namespace detail

} // namespace oxide
