// oxide::Stream: an ordered queue of device work.
#pragma once

#include <memory>

namespace oxide {

class Context;

namespace detail {
class ContextState;
} // namespace detail

/// Either the context's default (null) stream, or a stream owned by this object, made with
/// Context::create_stream() and destroyed with it. Move-only. On the simulator every stream is
/// synchronous: work runs to completion before the call that submits it returns.
class Stream {
public:
  Stream(Stream &&other) noexcept;
  Stream &operator=(Stream &&other) noexcept;
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;
  ~Stream();

  /// Blocks until all work queued on this stream has finished; reports asynchronous errors.
  /// The simulator runs work when it is submitted, so there it only checks the stream.
  void synchronize() const;
  [[nodiscard]] bool is_default() const noexcept { return !owned_; }
  /// The CUstream (nullptr for the default stream and on the simulator), for interoperation
  /// with other CUDA code.
  [[nodiscard]] void *native_handle() const noexcept { return handle_; }

  /// Runtime internal: the owning context. Throws oxide::Error on a moved-from Stream.
  [[nodiscard]] const std::shared_ptr<detail::ContextState> &context_state() const;

private:
  friend class Context;
  Stream(std::shared_ptr<detail::ContextState> context, void *handle, bool owned) noexcept
      : context_(std::move(context)), handle_(handle), owned_(owned) {}
  void reset() noexcept;

  std::shared_ptr<detail::ContextState> context_;
  void *handle_ = nullptr;
  bool owned_ = false;
};

} // namespace oxide
