// The shared state behind oxide::Event. Runtime internal.
#pragma once

#include <cuda.h>

#include <chrono>
#include <memory>
#include <mutex>

namespace oxide::detail {

class ContextState;

class EventState {
public:
  EventState(std::shared_ptr<ContextState> context_state, CUevent cu_event, bool timing_enabled) noexcept
      : context(std::move(context_state)), handle(cu_event), timing(timing_enabled) {}
  EventState(const EventState &) = delete;
  EventState &operator=(const EventState &) = delete;
  /// cuEventDestroy; never throws.
  ~EventState();

  const std::shared_ptr<ContextState> context;
  const CUevent handle; ///< nullptr on the simulator
  const bool timing;

  /// Whether record() was called outside a capture (what elapsed_ms needs), and on the simulator
  /// when: guarded by `mutex`.
  mutable std::mutex mutex;
  bool recorded = false;
  std::chrono::steady_clock::time_point time;
};

} // namespace oxide::detail
