// oxide::Stream: creation and adoption, synchronization, host callbacks and waits on events.
#include "oxide/host/stream.hpp"

#include <fmt/format.h>

#include <exception>
#include <utility>

#include "context_state.hpp"
#include "cuda_driver.hpp"
#include "event_state.hpp"
#include "oxide/host/context.hpp"
#include "oxide/host/error.hpp"
#include "oxide/host/event.hpp"
#include "stream_state.hpp"

namespace oxide {

namespace detail {

void CallbackErrors::record(std::string message) noexcept {
  std::lock_guard lock(mutex_);
  if (count_++ == 0)
    first_ = std::move(message);
}

void CallbackErrors::report() {
  std::string first;
  std::size_t count = 0;
  {
    std::lock_guard lock(mutex_);
    if (count_ == 0) [[likely]]
      return;
    first = std::move(first_);
    count = std::exchange(count_, 0);
  }
  throw Error(ErrorKind::HostCallbackFailed,
              count == 1
                  ? fmt::format("a host callback (Stream::then) threw: {}", first)
                  : fmt::format("{} host callbacks (Stream::then) threw; the first: {}", count, first));
}

StreamState::StreamState(std::shared_ptr<ContextState> context_state, CUstream cu_stream,
                         Stream::Kind stream_kind)
    : context(std::move(context_state)), handle(cu_stream), kind(stream_kind),
      errors(std::make_shared<CallbackErrors>()) {}

StreamState::~StreamState() {
  // Work still queued completes first: the driver defers the release until then.
  if (kind == Stream::Kind::Owned && handle)
    (void)loaded_driver_api().cuStreamDestroy(handle);
}

const std::shared_ptr<StreamState> &StreamAccess::ensure_state(Stream &stream) {
  if (!stream.state_) {
    const auto &context = detail::StreamAccess::context_state(stream);
    stream.state_ =
        std::make_shared<StreamState>(context, static_cast<CUstream>(stream.handle_), Stream::Kind::Default);
  }
  return stream.state_;
}

namespace {

/// What Stream::then enqueues: the callable, and where its exception goes.
struct HostCallback {
  std::function<void()> function;
  std::shared_ptr<CallbackErrors> errors;

  /// Runs the callable; nothing escapes into the driver's thread.
  void run() noexcept {
    try {
      function();
    } catch (const std::exception &e) {
      errors->record(e.what());
    } catch (...) {
      errors->record("an exception not derived from std::exception");
    }
  }
};

/// A callback enqueued once: freed after it has run.
void CUDA_CB run_once(void *data) {
  std::unique_ptr<HostCallback> callback(static_cast<HostCallback *>(data));
  callback->run();
}

/// A callback of a graph: runs at every launch, freed with the graph.
void CUDA_CB run_kept(void *data) { static_cast<HostCallback *>(data)->run(); }

} // namespace

} // namespace detail

Stream::Stream(std::shared_ptr<detail::ContextState> context, std::shared_ptr<detail::StreamState> state,
               void *handle, Kind kind) noexcept
    : context_(std::move(context)), state_(std::move(state)), handle_(handle), kind_(kind) {}

Stream::Stream(Stream &&other) noexcept
    : context_(std::move(other.context_)), state_(std::move(other.state_)),
      handle_(std::exchange(other.handle_, nullptr)), kind_(std::exchange(other.kind_, Kind::Default)) {}

Stream &Stream::operator=(Stream &&other) noexcept {
  if (this != &other) {
    reset();
    context_ = std::move(other.context_);
    state_ = std::move(other.state_);
    handle_ = std::exchange(other.handle_, nullptr);
    kind_ = std::exchange(other.kind_, Kind::Default);
  }
  return *this;
}

Stream::~Stream() { reset(); }

void Stream::reset() noexcept {
  state_.reset(); // destroys an owned CUstream, unless a stream-ordered buffer still needs it
  context_.reset();
  handle_ = nullptr;
  kind_ = Kind::Default;
}

Stream Stream::adopt(const Context &context, void *cu_stream) {
  const auto &state = detail::ContextAccess::state(context);
  if (!cu_stream)
    return context.default_stream();
  if (state->is_simulator())
    throw Error(ErrorKind::UnsupportedOnSimulator,
                "Stream::adopt: the CPU simulator has no CUstreams; adopt a stream into a CUDA context");
  CUcontext owner = nullptr;
  detail::check(detail::driver().cuStreamGetCtx(static_cast<CUstream>(cu_stream), &owner), "cuStreamGetCtx");
  if (owner != state->handle())
    throw Error(
        ErrorKind::WrongStreamContext,
        fmt::format("Stream::adopt: the CUstream belongs to another CUDA context than {}", state->label()));
  return Stream(state,
                std::make_shared<detail::StreamState>(state, static_cast<CUstream>(cu_stream), Kind::Adopted),
                cu_stream, Kind::Adopted);
}

const std::shared_ptr<detail::ContextState> &Stream::context_state() const {
  if (!context_) [[unlikely]]
    throw Error("use of a moved-from oxide::Stream");
  return context_;
}

void Stream::synchronize() const {
  const auto &context = context_state();
  detail::check_not_capturing(*this, "Stream::synchronize",
                              "synchronize after Graph::capture returns, or record an Event");
  if (!context->is_simulator()) {
    detail::ScopedCurrent current(*context);
    detail::check(detail::driver().cuStreamSynchronize(static_cast<CUstream>(handle_)),
                  "cuStreamSynchronize");
  }
  if (state_)
    state_->errors->report();
}

bool Stream::query() const {
  const auto &context = context_state();
  detail::check_not_capturing(*this, "Stream::query");
  if (!context->is_simulator()) {
    detail::ScopedCurrent current(*context);
    const CUresult result = detail::driver().cuStreamQuery(static_cast<CUstream>(handle_));
    if (result == CUDA_ERROR_NOT_READY)
      return false;
    detail::check(result, "cuStreamQuery");
  }
  if (state_)
    state_->errors->report();
  return true;
}

bool Stream::is_capturing() const {
  const auto &context = context_state();
  if (detail::stream_capture(*this))
    return true;
  if (context->is_simulator() || !handle_)
    return false; // the default stream cannot be captured
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  detail::ScopedCurrent current(*context);
  detail::check(detail::driver().cuStreamIsCapturing(static_cast<CUstream>(handle_), &status),
                "cuStreamIsCapturing");
  return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

void Stream::then(std::function<void()> callback) {
  const auto &context = context_state();
  if (!callback)
    throw Error("Stream::then: an empty std::function");
  const detail::StreamState &state = *detail::StreamAccess::ensure_state(*this);
  auto host_callback = std::make_unique<detail::HostCallback>(std::move(callback), state.errors);
  detail::CaptureScope *capture = state.capture.load(std::memory_order_acquire);
  if (context->is_simulator()) {
    if (capture) {
      std::shared_ptr<detail::HostCallback> kept(std::move(host_callback));
      capture->operations.emplace_back([kept] { kept->run(); });
    } else {
      host_callback->run(); // the stream's earlier work has finished: simulator streams are synchronous
    }
    return;
  }
  detail::ScopedCurrent current(*context);
  const detail::DriverApi &api = detail::driver();
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  if (!capture)
    detail::check(api.cuStreamIsCapturing(state.handle, &status), "cuStreamIsCapturing");
  if (!capture && status == CU_STREAM_CAPTURE_STATUS_NONE) {
    detail::check(api.cuLaunchHostFunc(state.handle, &detail::run_once, host_callback.get()),
                  "cuLaunchHostFunc");
    (void)host_callback.release(); // run_once frees it
    return;
  }
  // Captured into a graph, the callback runs at every launch: the graph keeps it (a capture begun
  // by other code cannot, so the callable is then kept for the life of the process).
  detail::check(api.cuLaunchHostFunc(state.handle, &detail::run_kept, host_callback.get()),
                "cuLaunchHostFunc");
  if (capture)
    capture->keep_alive.emplace_back(std::shared_ptr<detail::HostCallback>(std::move(host_callback)));
  else
    (void)host_callback.release();
}

void Stream::wait(const Event &event) {
  const auto &context = context_state();
  const detail::EventState &waited = detail::EventAccess::state(event);
  if (waited.context->is_simulator())
    return; // a simulator event has completed when it was recorded
  if (context->is_simulator()) {
    // The simulator's work runs when it is submitted: the host waits for the GPU event.
    detail::ScopedCurrent current(*waited.context);
    detail::check(detail::driver().cuEventSynchronize(waited.handle), "cuEventSynchronize");
    return;
  }
  detail::ScopedCurrent current(*context);
  detail::check(detail::driver().cuStreamWaitEvent(static_cast<CUstream>(handle_), waited.handle, 0),
                "cuStreamWaitEvent");
}

} // namespace oxide
