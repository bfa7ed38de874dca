// oxide::Event: a marker in a stream's work, to wait for, to order other streams after, and to
// time device work.
//
//   auto start = oxide::Event::create(ctx), stop = oxide::Event::create(ctx);
//   start.record(stream);
//   launch(stream, a, b, c);
//   stop.record(stream);
//   float ms = oxide::Event::elapsed_ms(start, stop); // waits for `stop`
#pragma once

#include <cstdint>
#include <memory>

namespace oxide {

class Context;
class Stream;

namespace detail {
class EventState;
struct EventAccess;
} // namespace detail

/// A CUDA event of one context (cuEventCreate), destroyed with this object. RAII and move-only.
/// On the simulator, whose streams are synchronous, record() stores the host's steady_clock time
/// at the point of the call, and the event has completed as soon as it is recorded.
class Event {
public:
  enum class Timing : std::uint8_t {
    Enabled,  ///< elapsed_ms can use the event
    Disabled, ///< CU_EVENT_DISABLE_TIMING: cheaper to record and wait for; no elapsed_ms
  };

  /// A new event of `context`, not yet recorded. Throws oxide::Error.
  [[nodiscard]] static Event create(const Context &context, Timing timing = Timing::Enabled);

  Event(Event &&) noexcept;
  Event &operator=(Event &&) noexcept;
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;
  ~Event();

  /// Captures the work enqueued on `stream` so far (cuEventRecord): the event completes when that
  /// work has. `stream` must belong to the event's context (else WrongStreamContext). Recording
  /// again moves the event to the new point. Inside Graph::capture a record only serves
  /// stream.wait(event) within the capture, as in CUDA: it is not replayed by the graph.
  void record(Stream &stream);
  /// Blocks until the event has completed (cuEventSynchronize); an event never recorded has.
  /// Reports errors of the work it waits for.
  void synchronize() const;
  /// Whether the event has completed, without waiting (cuEventQuery).
  [[nodiscard]] bool query() const;
  /// Milliseconds between the points `start` and `end` were recorded (resolution about half a
  /// microsecond on a GPU); waits for both. Throws oxide::Error: InvalidEvent when either was
  /// never recorded or was created with Timing::Disabled, WrongContext for events of two
  /// contexts.
  [[nodiscard]] static float elapsed_ms(const Event &start, const Event &end);

  [[nodiscard]] bool timing_enabled() const;
  /// The CUevent, for interoperation with other CUDA code; nullptr on the simulator.
  [[nodiscard]] void *native_handle() const noexcept;

private:
  friend struct detail::EventAccess;
  /// The shared state. Throws oxide::Error on a moved-from Event.
  [[nodiscard]] detail::EventState &state() const;
  explicit Event(std::shared_ptr<detail::EventState> state) noexcept;
  std::shared_ptr<detail::EventState> state_;
};

namespace detail {
/// Runtime access to an Event's shared state.
struct EventAccess {
  static EventState &state(const Event &event) { return event.state(); }
};
} // namespace detail

} // namespace oxide
