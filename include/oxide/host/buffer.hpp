// oxide::DeviceBuffer<T>: an owned array of T in device memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "oxide/host/buffer_view.hpp"
#include "oxide/host/stream.hpp"

namespace oxide {

namespace detail {
class ContextState;
struct BufferAccess;

// Out-of-line memory operations (runtime/memory.cpp). Each makes the stream's context current.
[[nodiscard]] std::size_t checked_byte_size(std::size_t count, std::size_t element_size);
[[nodiscard]] std::uint64_t device_alloc(ContextState &context, std::size_t bytes);
void device_free(ContextState &context, std::uint64_t pointer) noexcept;
void copy_host_to_device(const Stream &stream, const ContextState *owner, std::uint64_t dst, const void *src,
                         std::size_t bytes);
/// Synchronizes `stream`, so `dst` is filled on return.
void copy_device_to_host(const Stream &stream, const ContextState *owner, void *dst, std::uint64_t src,
                         std::size_t bytes);
void fill_zero(const Stream &stream, const ContextState *owner, std::uint64_t dst, std::size_t bytes);
/// Copies `bytes` from `src` (memory of `src_owner`) to `dst` (memory of `dst_owner`, the
/// stream's context): see DeviceBuffer::copy_from.
void copy_device_to_device(const Stream &stream, const ContextState *dst_owner, std::uint64_t dst,
                           const ContextState *src_owner, std::uint64_t src, std::size_t bytes);
[[noreturn]] void throw_size_mismatch(const char *operation, std::size_t buffer_size, std::size_t host_size);
[[noreturn]] void throw_buffer_size_mismatch(const char *operation, std::size_t dst_size,
                                             std::size_t src_size);
} // namespace detail

/// `size()` elements of T in the device memory of one context. RAII and move-only; the memory
/// is freed by the destructor. T must be trivially copyable, since it is copied bytewise.
template <class T> class DeviceBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "oxide::DeviceBuffer elements must be trivially copyable");
  static_assert(!std::is_const_v<T> && !std::is_volatile_v<T>,
                "oxide::DeviceBuffer<T>: T must not be cv-qualified; constness is decided at kernel binding");

public:
  using value_type = T;
  using size_type = std::size_t;

  /// An empty buffer that belongs to no context.
  DeviceBuffer() noexcept = default;

  /// `count` elements with unspecified contents.
  [[nodiscard]] static DeviceBuffer uninitialized(Stream &stream, size_type count) {
    const std::size_t bytes = detail::checked_byte_size(count, sizeof(T));
    const auto &context = stream.context_state();
    return DeviceBuffer(context, bytes == 0 ? 0 : detail::device_alloc(*context, bytes), count);
  }

  /// `count` elements whose bytes are all zero, ordered on `stream`.
  [[nodiscard]] static DeviceBuffer zeroed(Stream &stream, size_type count) {
    DeviceBuffer buffer = uninitialized(stream, count);
    detail::fill_zero(stream, buffer.context_.get(), buffer.pointer_, buffer.size_bytes());
    return buffer;
  }

  /// A copy of `host`, ordered on `stream`. `host` may be reused as soon as this returns
  /// (pageable host memory is staged by the driver before the call returns).
  [[nodiscard]] static DeviceBuffer from_host(Stream &stream, std::span<const T> host) {
    DeviceBuffer buffer = uninitialized(stream, host.size());
    buffer.copy_from_host(stream, host);
    return buffer;
  }

  DeviceBuffer(DeviceBuffer &&other) noexcept
      : context_(std::move(other.context_)), pointer_(std::exchange(other.pointer_, 0)),
        size_(std::exchange(other.size_, 0)) {}
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept {
    if (this != &other) {
      release();
      context_ = std::move(other.context_);
      pointer_ = std::exchange(other.pointer_, 0);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer() { release(); }

  /// Copies `host` (which must have exactly size() elements) into the buffer, ordered on `stream`.
  void copy_from_host(Stream &stream, std::span<const T> host) {
    if (host.size() != size_)
      detail::throw_size_mismatch("copy_from_host", size_, host.size());
    detail::copy_host_to_device(stream, context_.get(), pointer_, host.data(), size_bytes());
  }

  /// Copies the buffer into `host` (exactly size() elements) after the work queued on `stream`;
  /// synchronizes `stream`.
  void copy_to_host(Stream &stream, std::span<T> host) const {
    if (host.size() != size_)
      detail::throw_size_mismatch("copy_to_host", size_, host.size());
    detail::copy_device_to_host(stream, context_.get(), host.data(), pointer_, size_bytes());
  }

  /// Copies `src` (exactly size() elements) into this buffer; `stream` must belong to this
  /// buffer's context (else WrongContext), sizes must match (else SizeMismatch).
  /// - Same context (or two contexts of one device): cuMemcpyDtoDAsync, ordered on `stream` and
  ///   asynchronous like every other stream operation.
  /// - Another context: complete on return. It first waits for all work submitted to `src`'s
  ///   context, then copies with cuMemcpyPeerAsync when peer access is enabled between the two
  ///   (Context::enable_peer_access, either direction), else through a pinned host buffer in
  ///   chunks; simulator <-> GPU copies go through the host; simulator <-> simulator is memcpy.
  void copy_from(Stream &stream, const DeviceBuffer &src) {
    if (src.size_ != size_)
      detail::throw_buffer_size_mismatch("copy_from", size_, src.size_);
    detail::copy_device_to_device(stream, context_.get(), pointer_, src.context_.get(), src.pointer_,
                                  size_bytes());
  }

  /// The buffer's contents after the work queued on `stream`; synchronizes `stream`.
  [[nodiscard]] std::vector<T> to_host(Stream &stream) const {
    std::vector<T> host(size_);
    copy_to_host(stream, host);
    return host;
  }

  /// The buffer as a row-major width x height array, to pass to a DisjointSpan2D<T> parameter.
  /// Throws oxide::Error (ViewShapeMismatch) unless width * height == size().
  [[nodiscard]] BufferView2D<T> view_2d(size_type width, size_type height) & {
    detail::check_view_shape("view_2d", size_, width, height, 1);
    return {*this, width, height, 1};
  }
  /// The buffer as a width x height x depth volume (x fastest), for a DisjointSpan3D<T>.
  /// Throws oxide::Error (ViewShapeMismatch) unless width * height * depth == size().
  [[nodiscard]] BufferView3D<T> view_3d(size_type width, size_type height, size_type depth) & {
    detail::check_view_shape("view_3d", size_, width, height, depth);
    return {*this, width, height, depth};
  }
  // A view of a temporary would dangle before the launch that uses it.
  void view_2d(size_type, size_type) && = delete;
  void view_3d(size_type, size_type, size_type) && = delete;

  [[nodiscard]] size_type size() const noexcept { return size_; }
  [[nodiscard]] size_type size_bytes() const noexcept { return size_ * sizeof(T); }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  /// The CUdeviceptr of the first element (0 when empty).
  [[nodiscard]] std::uint64_t device_ptr() const noexcept { return pointer_; }

private:
  friend struct detail::BufferAccess;

  DeviceBuffer(std::shared_ptr<detail::ContextState> context, std::uint64_t pointer, size_type size) noexcept
      : context_(std::move(context)), pointer_(pointer), size_(size) {}

  void release() noexcept {
    if (pointer_ != 0)
      detail::device_free(*context_, pointer_);
    context_.reset();
    pointer_ = 0;
    size_ = 0;
  }

  std::shared_ptr<detail::ContextState> context_;
  std::uint64_t pointer_ = 0;
  size_type size_ = 0;
};

namespace detail {
/// Runtime access to a buffer's owning context, for checks at kernel launch.
struct BufferAccess {
  template <class T> static const ContextState *context(const DeviceBuffer<T> &buffer) noexcept {
    return buffer.context_.get();
  }
};
} // namespace detail

} // namespace oxide
