// oxide::PinnedBuffer<T>: page-locked host memory, the only host memory the GPU copies to and from
// asynchronously.
//
//   auto staging = oxide::PinnedBuffer<float>::uninitialized(ctx, n);
//   fill(staging.span());
//   device.copy_from_async(stream, staging);   // returns at once; staging must stay unchanged
//   ...                                        // until the stream has done the copy
//   device.copy_to_async(stream, staging);
//   stream.synchronize();                      // now staging holds the result
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>

#include "oxide/detail/host/host_elements.hpp"
#include "oxide/host/context.hpp"

namespace oxide {

namespace detail {
class ContextState;
/// cuMemHostAlloc (portable to every context) on a GPU, aligned host memory on the simulator.
/// Throws oxide::Error (OutOfMemory, GraphCapture during a capture).
[[nodiscard]] void *pinned_alloc(ContextState &context, std::size_t bytes);
/// cuMemFreeHost; after a capture when called during one. Never throws.
void pinned_free(std::shared_ptr<ContextState> context, void *memory) noexcept;
[[nodiscard]] std::size_t checked_byte_size(std::size_t count, std::size_t element_size);
} // namespace detail

/// `size()` elements of T in page-locked ("pinned") host memory, allocated in `context` with
/// cuMemHostAlloc(CU_MEMHOSTALLOC_PORTABLE), so copies with any context's buffers may use it.
/// RAII and move-only: cuMemFreeHost in the destructor, which waits for the device first, so a
/// copy still in flight finishes before the memory goes. On the simulator it is ordinary
/// (aligned) host memory. T must be trivially copyable.
///
/// Copies between a DeviceBuffer and a PinnedBuffer (DeviceBuffer::copy_from_async,
/// copy_to_async) are truly asynchronous: they return before the copy has happened, and the
/// host must not touch the pinned elements until the stream has done it (synchronize the stream
/// or an event recorded after the copy). Copies from ordinary (pageable) memory are staged by the
/// driver and block the host instead.
template <class T> class PinnedBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "oxide::PinnedBuffer elements must be trivially copyable");
  static_assert(!std::is_const_v<T> && !std::is_volatile_v<T>,
                "oxide::PinnedBuffer<T>: T must not be cv-qualified");

public:
  using value_type = T;
  using size_type = std::size_t;

  /// An empty buffer that belongs to no context.
  PinnedBuffer() noexcept = default;

  /// `count` elements with unspecified contents. Throws oxide::Error (OutOfMemory).
  [[nodiscard]] static PinnedBuffer uninitialized(const Context &context, size_type count) {
    const std::size_t bytes = detail::checked_byte_size(count, sizeof(T));
    const auto &state = detail::ContextAccess::state(context);
    return PinnedBuffer(state, bytes == 0 ? nullptr : static_cast<T *>(detail::pinned_alloc(*state, bytes)),
                        count);
  }
  /// `count` elements whose bytes are all zero.
  [[nodiscard]] static PinnedBuffer zeroed(const Context &context, size_type count) {
    PinnedBuffer buffer = uninitialized(context, count);
    if (count != 0)
      std::memset(static_cast<void *>(buffer.data_), 0, buffer.size_bytes());
    return buffer;
  }
  /// A copy of `host`.
  [[nodiscard]] static PinnedBuffer from_host(const Context &context, detail::HostElements<const T> host) {
    PinnedBuffer buffer = uninitialized(context, host.size());
    if (!host.empty())
      std::memcpy(static_cast<void *>(buffer.data_), host.data(), buffer.size_bytes());
    return buffer;
  }

  PinnedBuffer(PinnedBuffer &&other) noexcept
      : context_(std::move(other.context_)), data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)) {}
  PinnedBuffer &operator=(PinnedBuffer &&other) noexcept {
    if (this != &other) {
      reset();
      context_ = std::move(other.context_);
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  PinnedBuffer(const PinnedBuffer &) = delete;
  PinnedBuffer &operator=(const PinnedBuffer &) = delete;
  ~PinnedBuffer() { reset(); }

  /// Frees the memory now (waiting for the device first); the buffer is then empty.
  void reset() noexcept {
    if (data_)
      detail::pinned_free(std::move(context_), data_);
    context_.reset();
    data_ = nullptr;
    size_ = 0;
  }

  [[nodiscard]] std::span<T> span() noexcept { return {data_, size_}; }
  [[nodiscard]] std::span<const T> span() const noexcept { return {data_, size_}; }
  operator std::span<T>() noexcept { return span(); }
  operator std::span<const T>() const noexcept { return span(); }
  [[nodiscard]] T &operator[](size_type i) noexcept { return data_[i]; }
  [[nodiscard]] const T &operator[](size_type i) const noexcept { return data_[i]; }
  [[nodiscard]] T *begin() noexcept { return data_; }
  [[nodiscard]] T *end() noexcept { return data_ + size_; }
  [[nodiscard]] const T *begin() const noexcept { return data_; }
  [[nodiscard]] const T *end() const noexcept { return data_ + size_; }

  /// The host address of the first element (nullptr when empty): also the native handle.
  [[nodiscard]] T *data() noexcept { return data_; }
  [[nodiscard]] const T *data() const noexcept { return data_; }
  [[nodiscard]] size_type size() const noexcept { return size_; }
  [[nodiscard]] size_type size_bytes() const noexcept { return size_ * sizeof(T); }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }

private:
  PinnedBuffer(std::shared_ptr<detail::ContextState> context, T *data, size_type size) noexcept
      : context_(std::move(context)), data_(data), size_(size) {}

  std::shared_ptr<detail::ContextState> context_;
  T *data_ = nullptr;
  size_type size_ = 0;
};

} // namespace oxide
