#include "oxide/host/stream.hpp"

#include <utility>

#include "context_state.hpp"
#include "cuda_driver.hpp"
#include "oxide/host/error.hpp"

namespace oxide {

Stream::Stream(Stream &&other) noexcept
    : context_(std::move(other.context_)), handle_(std::exchange(other.handle_, nullptr)),
      owned_(std::exchange(other.owned_, false)) {}

Stream &Stream::operator=(Stream &&other) noexcept {
  if (this != &other) {
    reset();
    context_ = std::move(other.context_);
    handle_ = std::exchange(other.handle_, nullptr);
    owned_ = std::exchange(other.owned_, false);
  }
  return *this;
}

Stream::~Stream() { reset(); }

void Stream::reset() noexcept {
  if (owned_ && handle_) {
    // Work still queued completes first: the driver defers the release until then.
    (void)detail::loaded_driver_api().cuStreamDestroy(static_cast<CUstream>(handle_));
  }
  context_.reset();
  handle_ = nullptr;
  owned_ = false;
}

const std::shared_ptr<detail::ContextState> &Stream::context_state() const {
  if (!context_) [[unlikely]]
    throw Error("use of a moved-from oxide::Stream");
  return context_;
}

void Stream::synchronize() const {
  const auto &context = context_state();
  if (context->is_simulator())
    return; // the simulator ran the stream's work when it was submitted
  detail::ScopedCurrent current(*context);
  detail::check(detail::driver().cuStreamSynchronize(static_cast<CUstream>(handle_)), "cuStreamSynchronize");
}

} // namespace oxide
