// oxide::Context: the primary CUDA context of one device.
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
} // namespace detail

class Context {
public:
  /// The primary context of device 0. Throws oxide::Error ("no CUDA device found", or why the
  /// driver could not be loaded) when there is no usable GPU.
  [[nodiscard]] static Context create();
  /// The primary context of the device with this ordinal.
  [[nodiscard]] static Context create(int ordinal);

  Context(Context &&) noexcept = default;
  Context &operator=(Context &&) noexcept = default;
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;
  ~Context() = default;

  [[nodiscard]] const Device &device() const;
  /// The context's default (null) stream; it synchronizes with all other blocking streams.
  [[nodiscard]] Stream default_stream() const;
  /// A new stream, destroyed with the returned object.
  [[nodiscard]] Stream create_stream() const;
  /// Waits for all work submitted to this context.
  void synchronize() const;
  /// The CUcontext, for interoperation with other CUDA code.
  [[nodiscard]] void *native_handle() const;

  /// Runtime internal: the shared state. Throws oxide::Error on a moved-from Context.
  [[nodiscard]] const std::shared_ptr<detail::ContextState> &state() const;

private:
  explicit Context(std::shared_ptr<detail::ContextState> state) noexcept : state_(std::move(state)) {}
  std::shared_ptr<detail::ContextState> state_;
};

} // namespace oxide
