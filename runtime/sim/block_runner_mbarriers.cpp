// BlockRunner: threads waiting at Hopper mbarriers, and the TMA copies queued until a thread
// waits at their barrier or no thread can run (the simulated copy engine; sim/hopper.cpp).
#include "sim/block_runner.hpp"

#include <algorithm>

#include "sim/mbarrier.hpp"

namespace oxide::detail::sim {

// --- mbarriers and TMA copies (sim/hopper.cpp) -----------------------------------------------

void BlockRunner::mbarrier_wait(SimThread &thread, const std::uint64_t *bar, std::uint32_t parity) {
  ThreadState &state = threads_[thread.slot];
  state.status = Status::at_mbarrier;
  state.mbarrier = bar;
  state.mbarrier_parity = parity;
  mbarrier_waiters_.push_back(thread.slot);
  suspend(state);
}

void BlockRunner::mbarrier_completed(const std::uint64_t *bar) {
  std::erase_if(mbarrier_waiters_, [&](std::uint32_t t) {
    ThreadState &state = threads_[t];
    if (state.mbarrier != bar)
      return false;
    state.status = Status::ready;
    state.mbarrier = nullptr;
    ready_.push_back(t);
    return true;
  });
}

bool BlockRunner::mbarrier_in_use(const std::uint64_t *bar) const noexcept {
  for (std::uint32_t t : mbarrier_waiters_)
    if (threads_[t].mbarrier == bar)
      return true;
  return std::any_of(copies_.begin(), copies_.end(), [&](const TmaCopy &copy) { return copy.bar == bar; });
}

void BlockRunner::defer_copy(const TmaCopy &copy) { copies_.push_back(copy); }

template <class Which> void BlockRunner::land_queued(Which which) {
  // Taken out first: landing wakes threads but queues nothing.
  std::vector<TmaCopy> landing;
  std::erase_if(copies_, [&](const TmaCopy &copy) {
    if (!which(copy))
      return false;
    landing.push_back(copy);
    return true;
  });
  const OwnAccess access(*this);
  for (const TmaCopy &copy : landing) {
    bool completed = false;
    if (std::string error = land(copy, completed); !error.empty()) {
      if (!failure_)
        failure_ = failure_of(copy.issuer, std::move(error));
      return;
    }
    if (completed)
      mbarrier_completed(copy.bar);
  }
}

void BlockRunner::land_copies(SimThread &thread, const std::uint64_t *bar) {
  if (copies_.empty())
    return;
  land_queued([bar](const TmaCopy &copy) { return copy.bar == bar; });
  if (failure_) // the issuer's, reported from the waiter's fiber
    leave_fiber({Event::failed, thread.slot, nullptr});
}

bool BlockRunner::land_all_copies() {
  if (copies_.empty())
    return false;
  land_queued([](const TmaCopy &) { return true; });
  return true;
}

} // namespace oxide::detail::sim
