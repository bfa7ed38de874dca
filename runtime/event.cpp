// oxide::Event: cuEvent* on a GPU, host timestamps on the simulator.
#include "oxide/host/event.hpp"

#include <fmt/format.h>

#include <utility>

#include "context_state.hpp"
#include "cuda_driver.hpp"
#include "event_state.hpp"
#include "oxide/host/context.hpp"
#include "oxide/host/error.hpp"
#include "oxide/host/stream.hpp"
#include "stream_state.hpp"

namespace oxide {

namespace detail {

EventState::~EventState() {
  if (handle)
    (void)loaded_driver_api().cuEventDestroy(handle); // a GPU event exists, so the driver is loaded
}

} // namespace detail

Event::Event(std::shared_ptr<detail::EventState> state) noexcept : state_(std::move(state)) {}
Event::Event(Event &&) noexcept = default;
Event &Event::operator=(Event &&) noexcept = default;
Event::~Event() = default;

Event Event::create(const Context &context, Timing timing) {
  const auto &state = detail::ContextAccess::state(context);
  const bool timed = timing == Timing::Enabled;
  if (state->is_simulator())
    return Event(std::make_shared<detail::EventState>(state, nullptr, timed));
  detail::ScopedCurrent current(*state);
  CUevent event = nullptr;
  detail::check(detail::driver().cuEventCreate(&event, timed ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING),
                "cuEventCreate");
  try {
    return Event(std::make_shared<detail::EventState>(state, event, timed));
  } catch (...) {
    (void)detail::driver().cuEventDestroy(event);
    throw;
  }
}

detail::EventState &Event::state() const {
  if (!state_) [[unlikely]]
    throw Error("use of a moved-from oxide::Event");
  return *state_;
}

bool Event::timing_enabled() const { return state().timing; }

void *Event::native_handle() const noexcept { return state_ ? state_->handle : nullptr; }

void Event::record(Stream &stream) {
  detail::EventState &event = state();
  const detail::ContextState &context = *detail::StreamAccess::context_state(stream);
  if (context.handle() != event.context->handle())
    throw Error(ErrorKind::WrongStreamContext,
                fmt::format("Event::record: the event belongs to {} but the stream to {}",
                            event.context->label(), context.label()));
  const bool capturing = detail::stream_capture(stream) != nullptr;
  if (event.context->is_simulator()) {
    if (capturing)
      return; // as in CUDA, a record inside a capture is not replayed: nothing to do on the simulator
    std::lock_guard lock(event.mutex);
    event.recorded = true;
    event.time = std::chrono::steady_clock::now();
    return;
  }
  {
    detail::ScopedCurrent current(context);
    detail::check(detail::driver().cuEventRecord(event.handle, static_cast<CUstream>(stream.native_handle())),
                  "cuEventRecord");
  }
  if (!capturing) {
    std::lock_guard lock(event.mutex);
    event.recorded = true;
  }
}

void Event::synchronize() const {
  const detail::EventState &event = state();
  if (event.context->is_simulator())
    return; // recorded work has finished when record() returned
  detail::ScopedCurrent current(*event.context);
  detail::check(detail::driver().cuEventSynchronize(event.handle), "cuEventSynchronize");
}

bool Event::query() const {
  const detail::EventState &event = state();
  if (event.context->is_simulator())
    return true;
  detail::ScopedCurrent current(*event.context);
  const CUresult result = detail::driver().cuEventQuery(event.handle);
  if (result == CUDA_ERROR_NOT_READY)
    return false;
  detail::check(result, "cuEventQuery");
  return true;
}

namespace {

/// Throws InvalidEvent unless `event` can be an end of elapsed_ms.
void check_timed(const detail::EventState &event, const char *which) {
  if (!event.timing)
    throw Error(
        ErrorKind::InvalidEvent,
        fmt::format("Event::elapsed_ms: the {} event was created with Event::Timing::Disabled", which));
  std::lock_guard lock(event.mutex);
  if (!event.recorded)
    throw Error(
        ErrorKind::InvalidEvent,
        fmt::format("Event::elapsed_ms: the {} event was never recorded (outside a graph capture)", which));
}

} // namespace

float Event::elapsed_ms(const Event &start, const Event &end) {
  const detail::EventState &first = start.state(), &last = end.state();
  if (first.context->handle() != last.context->handle())
    throw Error(ErrorKind::WrongContext,
                fmt::format("Event::elapsed_ms: the start event belongs to {}, the end "
                            "event to {}",
                            first.context->label(), last.context->label()));
  check_timed(first, "start");
  check_timed(last, "end");
  if (first.context->is_simulator()) {
    std::chrono::steady_clock::time_point from, to;
    {
      std::lock_guard lock(first.mutex);
      from = first.time;
    }
    {
      std::lock_guard lock(last.mutex);
      to = last.time;
    }
    return std::chrono::duration<float, std::milli>(to - from).count();
  }
  detail::ScopedCurrent current(*first.context);
  const detail::DriverApi &api = detail::driver();
  detail::check(api.cuEventSynchronize(first.handle), "cuEventSynchronize");
  detail::check(api.cuEventSynchronize(last.handle), "cuEventSynchronize");
  float ms = 0.0f;
  detail::check(api.cuEventElapsedTime(&ms, first.handle, last.handle), "cuEventElapsedTime");
  return ms;
}

} // namespace oxide
