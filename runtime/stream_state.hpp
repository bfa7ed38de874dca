// The shared state behind oxide::Stream and oxide::Event, and the bookkeeping of graph captures
// that every stream operation consults. Runtime internal.
#pragma once

#include <cuda.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "oxide/host/stream.hpp"

namespace oxide::detail {

class ContextState;
struct CaptureScope;

/// The first failure of a host callback (Stream::then), kept until the stream's next
/// synchronize() or query() reports it. Callbacks refer to this, never to the StreamState: the
/// last reference to a stream must not be dropped on the driver's callback thread, where no
/// driver call (cuStreamDestroy) is allowed.
class CallbackErrors {
public:
  void record(std::string message) noexcept;
  /// Throws oxide::Error (HostCallbackFailed) for a recorded failure, once.
  void report();

private:
  std::mutex mutex_;
  std::string first_;
  std::size_t count_ = 0;
};

/// What a Stream object refers to: the CUstream (owned or adopted), where its callbacks' failures
/// go and, while Graph::capture records it, the capture. Streams made by Context::create_stream
/// and Stream::adopt have one; a default stream gets one on its first then(). Buffers allocated
/// with allocate_async share it, so an owned CUstream is destroyed only after the last of them
/// has enqueued its free on it.
class StreamState {
public:
  StreamState(std::shared_ptr<ContextState> context, CUstream handle, Stream::Kind kind);
  StreamState(const StreamState &) = delete;
  StreamState &operator=(const StreamState &) = delete;
  /// Destroys an owned CUstream (queued work completes first); never throws.
  ~StreamState();

  const std::shared_ptr<ContextState> context;
  const CUstream handle; ///< nullptr for the default stream and on the simulator
  const Stream::Kind kind;
  const std::shared_ptr<CallbackErrors> errors;
  /// The Graph::capture recording this stream, or nullptr.
  std::atomic<CaptureScope *> capture{nullptr};
};

/// The CUstream of `state` (nullptr for the default stream or no state).
inline CUstream cu_stream_of(const StreamState *state) noexcept { return state ? state->handle : nullptr; }

/// One Graph::capture in progress. Created and ended by the capturing thread; the recorded
/// operations are only appended by whoever enqueues work on the captured stream.
struct CaptureScope {
  std::shared_ptr<StreamState> stream;
  bool simulated = false;
  /// Simulator: the stream's operations in order, replayed by Graph::launch.
  std::vector<std::function<void()>> operations;
  /// What the graph must keep alive: host callbacks' callables, graphs launched inside it.
  std::vector<std::shared_ptr<void>> keep_alive;

  std::mutex deferred_mutex;
  /// Memory released during the capture, freed once the capture has ended (freeing it inside
  /// would invalidate a GPU capture; the capture then fails: the graph may refer to it).
  std::vector<std::function<void()>> deferred_frees;
  /// What was freed, for the error message.
  std::string freed_what;
  /// The buffers the captured launches use (DeviceBuffer allocation ids) and, for each, which
  /// launch and argument: Graph::launch checks that they are still live.
  std::vector<std::uint64_t> allocations;
  std::vector<std::string> allocation_users;
};

/// The capture that the calling thread runs (inside Graph::capture's body), or nullptr.
[[nodiscard]] CaptureScope *thread_capture() noexcept;
/// The capture recording `stream`, or nullptr.
[[nodiscard]] inline CaptureScope *stream_capture(const Stream &stream) noexcept {
  const auto &state = StreamAccess::state(stream);
  return state ? state->capture.load(std::memory_order_acquire) : nullptr;
}

/// Throws oxide::Error (GraphCapture) if `stream` is being captured: `operation` waits for the
/// stream or is otherwise not capturable. `advice` says what to do instead.
void check_not_capturing(const Stream &stream, std::string_view operation, std::string_view advice = {});
/// Throws oxide::Error (GraphCapture) if the calling thread is capturing a stream: `operation`
/// (an allocation, a context-wide synchronization) is not allowed during a capture.
void check_thread_not_capturing(std::string_view operation, std::string_view advice = {});

/// Simulator: records `operation` into the capture of `stream` and returns true, or returns false
/// when the stream is not being captured (the caller then runs it now).
template <class Operation> bool record_if_capturing(const Stream &stream, Operation &&operation) {
  CaptureScope *capture = stream_capture(stream);
  if (!capture) [[likely]]
    return false;
  capture->operations.emplace_back(std::forward<Operation>(operation));
  return true;
}

/// The capture that memory released now must wait for: the calling thread's, or the one
/// recording `order` (the stream a stream-ordered free is enqueued on); nullptr when none. Cheap.
[[nodiscard]] CaptureScope *capture_in_progress(const StreamState *order) noexcept;
/// Queues `free` to run once `capture` has ended, and makes the capture fail (the graph may
/// refer to the memory): `what` names it. Runs `free` now if it cannot be queued. Never throws.
void defer_free(CaptureScope &capture, const std::function<void()> &free, const char *what) noexcept;

} // namespace oxide::detail
