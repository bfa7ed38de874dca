// oxide::Stream: an ordered queue of device work.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

namespace oxide {

class Context;
class Event;

namespace detail {
class ContextState;
class StreamState;
struct StreamAccess;
} // namespace detail

/// The context's default (null) stream, a stream owned by this object (Context::create_stream,
/// destroyed with it), or a CUstream made by other code (Stream::adopt, never destroyed by
/// Oxide). Move-only. On the simulator every stream is synchronous: work runs to completion
/// before the call that submits it returns.
class Stream {
public:
  enum class Kind : std::uint8_t {
    Default, ///< the context's default (null) stream
    Owned,   ///< made by Context::create_stream; destroyed with the last object that uses it
    Adopted, ///< a CUstream of other code (Stream::adopt); never destroyed by Oxide
  };

  /// UNSAFE (interop): wraps `cu_stream`, a CUstream of `context`'s CUDA context made by other
  /// code (the CUDA runtime, a library), so that Oxide's launches, copies, events and graphs can
  /// use it. Oxide never destroys it: the caller keeps it alive as long as the returned Stream,
  /// and every buffer allocated on it with allocate_async, is in use. nullptr gives the default
  /// stream. Throws oxide::Error: WrongStreamContext when the driver says that the stream belongs
  /// to another context, UnsupportedOnSimulator for a non-null stream on the simulator.
  [[nodiscard]] static Stream adopt(const Context &context, void *cu_stream);

  Stream(Stream &&other) noexcept;
  Stream &operator=(Stream &&other) noexcept;
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;
  ~Stream();

  /// Blocks until all work queued on this stream has finished; reports asynchronous errors, and
  /// the first exception a then() callback threw since the last report (HostCallbackFailed).
  /// The simulator runs work when it is submitted, so there it only checks the stream. Throws
  /// oxide::Error (GraphCapture) while the stream is being captured (Graph::capture).
  void synchronize() const;
  /// Whether all work queued on this stream has finished, without waiting (cuStreamQuery).
  /// Reports errors like synchronize(); always true on the simulator.
  [[nodiscard]] bool query() const;
  /// Enqueues `callback` to run on a host thread once the work queued before it has finished
  /// (cuLaunchHostFunc); later work on the stream waits for it. The callback must not call
  /// Oxide or the CUDA driver (the driver forbids it), and its callable is destroyed on the
  /// driver's thread, so it must not own Oxide objects. An exception it throws is caught there
  /// and reported by this Stream's next synchronize() or query() (HostCallbackFailed). On the
  /// simulator the callback runs before then() returns; inside Graph::capture it is recorded and
  /// runs at every launch of the graph.
  void then(std::function<void()> callback);
  /// Makes work enqueued on this stream after the call wait until `event` has completed
  /// (cuStreamWaitEvent); the host does not wait. The event may belong to another context
  /// (another GPU). On the simulator, whose events complete when recorded, this waits only for a
  /// GPU event (on the host).
  void wait(const Event &event);

  [[nodiscard]] Kind kind() const noexcept { return kind_; }
  [[nodiscard]] bool is_default() const noexcept { return kind_ == Kind::Default; }
  /// Whether Graph::capture is recording this stream (on a GPU, also a capture begun by other
  /// code on an adopted stream).
  [[nodiscard]] bool is_capturing() const;
  /// The CUstream (nullptr for the default stream and on the simulator), for interoperation
  /// with other CUDA code. Valid while this Stream lives.
  [[nodiscard]] void *native_handle() const noexcept { return handle_; }

private:
  /// The owning context. Throws oxide::Error on a moved-from Stream.
  [[nodiscard]] const std::shared_ptr<detail::ContextState> &context_state() const;
  friend class Context;
  friend struct detail::StreamAccess;
  Stream(std::shared_ptr<detail::ContextState> context, std::shared_ptr<detail::StreamState> state,
         void *handle, Kind kind) noexcept;
  void reset() noexcept;

  std::shared_ptr<detail::ContextState> context_;
  std::shared_ptr<detail::StreamState> state_; // null for a default stream until its first then()
  void *handle_ = nullptr;
  Kind kind_ = Kind::Default;
};

namespace detail {
/// Runtime access to a Stream's shared state (null for a default stream without one).
struct StreamAccess {
  static const std::shared_ptr<StreamState> &state(const Stream &stream) noexcept { return stream.state_; }
  /// The stream's state, made first for a default stream that has none yet.
  static const std::shared_ptr<StreamState> &ensure_state(Stream &stream);
  /// The owning context. Throws oxide::Error on a moved-from Stream.
  static const std::shared_ptr<ContextState> &context_state(const Stream &stream) {
    return stream.context_state();
  }
};
} // namespace detail

} // namespace oxide
