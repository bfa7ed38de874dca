// oxide::DeviceBuffer<T>: an owned array of T in device memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "oxide/detail/host/host_elements.hpp"
#include "oxide/host/buffer_view.hpp"
#include "oxide/host/context.hpp"
#include "oxide/host/pinned.hpp"
#include "oxide/host/stream.hpp"

namespace oxide {

namespace detail {
class ContextState;
class StreamState;
struct BufferAccess;

/// How a DeviceBuffer's memory is released.
enum class MemoryOwnership : std::uint8_t {
  Owned,         ///< cuMemAlloc'ed: cuMemFree
  StreamOrdered, ///< cuMemAllocAsync'ed: cuMemFreeAsync on the allocating (or a given) stream
  Borrowed,      ///< someone else's memory (DeviceBuffer::unsafe_borrow): not freed
};

// Out-of-line memory operations (runtime/buffer_memory.cpp). Each makes the stream's context current.
[[nodiscard]] std::size_t checked_byte_size(std::size_t count, std::size_t element_size);
[[nodiscard]] std::uint64_t device_alloc(ContextState &context, std::size_t bytes);
/// cuMemAllocAsync on `stream`. Throws oxide::Error (OutOfMemory, GraphCapture).
[[nodiscard]] std::uint64_t device_alloc_async(const Stream &stream, std::size_t bytes);
/// Frees `pointer` as `ownership` says: cuMemFree, or cuMemFreeAsync ordered on `order` (the
/// default stream when null). During a graph capture, after the capture. Never throws.
void release_device_memory(std::shared_ptr<ContextState> context, std::uint64_t pointer,
                           MemoryOwnership ownership, std::shared_ptr<StreamState> order) noexcept;
/// Throws oxide::Error (WrongContext) unless `stream` may free memory of `owner`.
void check_release_stream(const Stream &stream, const ContextState *owner);
/// Checks a pointer given to DeviceBuffer::unsafe_borrow: not null unless `bytes` is 0, aligned.
void check_borrowed(std::uint64_t pointer, std::size_t bytes, std::size_t alignment);
/// `operation` names the public call in errors ("copy_from_host", "copy_from_async").
void copy_host_to_device(const Stream &stream, const ContextState *owner, std::uint64_t dst, const void *src,
                         std::size_t bytes, const char *operation = "copy_from_host");
/// Synchronizes `stream`, so `dst` is filled on return.
void copy_device_to_host(const Stream &stream, const ContextState *owner, void *dst, std::uint64_t src,
                         std::size_t bytes);
/// Enqueues the copy and returns (the simulator copies at once).
void copy_device_to_host_async(const Stream &stream, const ContextState *owner, void *dst, std::uint64_t src,
                               std::size_t bytes);
void fill_zero(const Stream &stream, const ContextState *owner, std::uint64_t dst, std::size_t bytes);
/// Stores the `element_size` bytes at `value` into each of `count` elements at `dst`, in the
/// order of `stream`, without waiting (see DeviceBuffer::fill). `operation` names the call in
/// errors.
void fill_elements(const Stream &stream, const ContextState *owner, std::uint64_t dst, const void *value,
                   std::size_t element_size, std::size_t count, const char *operation);
/// Copies `bytes` from `src` (memory of `src_owner`) to `dst` (memory of `dst_owner`, the
/// stream's context): see DeviceBuffer::copy_from.
void copy_device_to_device(const Stream &stream, const ContextState *dst_owner, std::uint64_t dst,
                           const ContextState *src_owner, std::uint64_t src, std::size_t bytes);
/// A new allocation id, registered as live: ids are never reused, so a graph that recorded a
/// buffer's id can tell at replay whether that buffer still holds the same memory. Throws
/// std::bad_alloc.
[[nodiscard]] std::uint64_t register_allocation();
/// Marks allocation `id` freed (0: none). Never throws.
void unregister_allocation(std::uint64_t id) noexcept;
[[noreturn]] void throw_size_mismatch(const char *operation, std::size_t buffer_size, std::size_t host_size);
[[noreturn]] void throw_buffer_size_mismatch(const char *operation, std::size_t dst_size,
                                             std::size_t src_size);
} // namespace detail

/// `size()` elements of T in the device memory of one context. RAII and move-only; the memory
/// is freed by the destructor (or reset()). T must be trivially copyable, since it is copied
/// bytewise. Three kinds of memory, one type, so each binds to kernel parameters alike:
/// - uninitialized / zeroed / from_host: cuMemAlloc, freed with cuMemFree (which waits for the
///   device);
/// - allocate_async: cuMemAllocAsync, freed in stream order with cuMemFreeAsync;
/// - unsafe_borrow: memory of other code, never freed by Oxide.
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
    const auto &context = detail::StreamAccess::context_state(stream);
    DeviceBuffer buffer(context, 0, count);
    if (bytes != 0)
      buffer.adopt(detail::device_alloc(*context, bytes));
    return buffer;
  }

  /// `count` elements whose bytes are all zero, ordered on `stream`.
  [[nodiscard]] static DeviceBuffer zeroed(Stream &stream, size_type count) {
    DeviceBuffer buffer = uninitialized(stream, count);
    detail::fill_zero(stream, buffer.context_.get(), buffer.pointer_, buffer.size_bytes());
    return buffer;
  }

  /// A copy of `host`, ordered on `stream`. `host` may be reused as soon as this returns
  /// (pageable host memory is staged by the driver before the call returns).
  [[nodiscard]] static DeviceBuffer from_host(Stream &stream, detail::HostElements<const T> host) {
    DeviceBuffer buffer = uninitialized(stream, host.size());
    buffer.copy_from_host(stream, host);
    return buffer;
  }

  /// `count` elements with unspecified contents, allocated in stream order (from the context's
  /// memory pool, which keeps freed memory for later allocations rather than giving it back to
  /// the device at each synchronisation; an allocation that runs out of memory, stream-ordered or
  /// not, first has it given back): the memory may be used by work enqueued on `stream`
  /// after this call (other streams must wait for `stream`, e.g. through an Event). The buffer
  /// remembers `stream`, and keeps a stream made by Context::create_stream alive, so that
  /// destroying or resetting it enqueues cuMemFreeAsync on that stream: the memory goes back to
  /// the pool after the work queued before, without waiting. Work on other streams that uses the
  /// buffer must be ordered before the free: reset(other_stream) frees in another stream's order
  /// instead. An adopted stream (Stream::adopt) must outlive the buffer. On the simulator it is
  /// ordinary memory, freed at once. Throws oxide::Error: OutOfMemory when the pool cannot grow,
  /// GraphCapture on a stream being captured (allocate before the capture).
  [[nodiscard]] static DeviceBuffer allocate_async(Stream &stream, size_type count) {
    const std::size_t bytes = detail::checked_byte_size(count, sizeof(T));
    DeviceBuffer buffer(detail::StreamAccess::context_state(stream), 0, count);
    buffer.ownership_ = detail::MemoryOwnership::StreamOrdered;
    buffer.order_ = detail::StreamAccess::state(stream);
    if (bytes != 0)
      buffer.adopt(detail::device_alloc_async(stream, bytes));
    return buffer;
  }

  /// UNSAFE (interop): `count` elements at `device_ptr`, memory of `context` that other code
  /// allocated (a CUdeviceptr; a host address on the simulator). The buffer does not own it: it is
  /// never freed by Oxide, and the caller keeps it allocated, and at least `count` elements long,
  /// as long as the buffer (and any launch or graph using it) is in use. It binds to kernel
  /// parameters and copies like any buffer. Throws oxide::Error when `device_ptr` is null (with
  /// count > 0) or not aligned for T.
  [[nodiscard]] static DeviceBuffer unsafe_borrow(const Context &context, std::uint64_t device_ptr,
                                                  size_type count) {
    detail::check_borrowed(device_ptr, detail::checked_byte_size(count, sizeof(T)), alignof(T));
    DeviceBuffer buffer(detail::ContextAccess::state(context), 0, count);
    buffer.ownership_ = detail::MemoryOwnership::Borrowed;
    if (count != 0)
      buffer.adopt(device_ptr);
    return buffer;
  }

  DeviceBuffer(DeviceBuffer &&other) noexcept
      : context_(std::move(other.context_)), order_(std::move(other.order_)),
        pointer_(std::exchange(other.pointer_, 0)), size_(std::exchange(other.size_, 0)),
        allocation_(std::exchange(other.allocation_, 0)),
        ownership_(std::exchange(other.ownership_, detail::MemoryOwnership::Owned)) {}
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept {
    if (this != &other) {
      release();
      context_ = std::move(other.context_);
      order_ = std::move(other.order_);
      pointer_ = std::exchange(other.pointer_, 0);
      size_ = std::exchange(other.size_, 0);
      allocation_ = std::exchange(other.allocation_, 0);
      ownership_ = std::exchange(other.ownership_, detail::MemoryOwnership::Owned);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer() { release(); }

  /// Frees the memory now, as the destructor does (cuMemFree, or cuMemFreeAsync on the
  /// allocating stream), and leaves the buffer empty.
  void reset() noexcept { release(); }
  /// Frees the memory in the order of `stream` (which must belong to the buffer's context, else
  /// WrongContext): a stream-ordered buffer with cuMemFreeAsync on `stream`, after the work
  /// queued there; other memory as reset() does. Leaves the buffer empty.
  void reset(Stream &stream) {
    detail::check_release_stream(stream, context_.get());
    order_ = detail::StreamAccess::state(stream);
    release();
  }

  /// Copies `host` (which must have exactly size() elements) into the buffer, ordered on `stream`.
  void copy_from_host(Stream &stream, detail::HostElements<const T> host) {
    if (host.size() != size_)
      detail::throw_size_mismatch("copy_from_host", size_, host.size());
    detail::copy_host_to_device(stream, context_.get(), pointer_, host.data(), size_bytes());
  }

  /// Copies the buffer into `host` (exactly size() elements) after the work queued on `stream`;
  /// synchronizes `stream`.
  void copy_to_host(Stream &stream, detail::HostElements<T> host) const {
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

  /// Enqueues the copy of `host` (exactly size() elements of pinned memory) into the buffer on
  /// `stream` and returns at once: `host` must stay unchanged until the stream has done it.
  /// Truly asynchronous only from pinned memory, which is why it takes a PinnedBuffer (use
  /// copy_from_host for pageable memory). Throws oxide::Error (SizeMismatch, WrongContext).
  void copy_from_async(Stream &stream, const PinnedBuffer<T> &host) {
    if (host.size() != size_)
      detail::throw_size_mismatch("copy_from_async", size_, host.size());
    detail::copy_host_to_device(stream, context_.get(), pointer_, host.data(), size_bytes(),
                                "copy_from_async");
  }

  /// Enqueues the copy of the buffer into `host` (exactly size() elements of pinned memory) on
  /// `stream`, after the work queued there, and returns at once: `host` holds the result once the
  /// stream (or an event recorded after the copy) has been synchronized. Unlike copy_to_host it
  /// does not wait, so it may be captured into a graph. Throws oxide::Error (SizeMismatch,
  /// WrongContext).
  void copy_to_async(Stream &stream, PinnedBuffer<T> &host) const {
    if (host.size() != size_)
      detail::throw_size_mismatch("copy_to_async", size_, host.size());
    detail::copy_device_to_host_async(stream, context_.get(), host.data(), pointer_, size_bytes());
  }

  /// Sets every element to `value` in the order of `stream` (CUDA's cudaMemsetAsync, for a value
  /// of the element type): later work on `stream` sees it. Does not wait, so Graph::capture
  /// records it (as memset nodes). On a GPU a value whose bytes repeat every 1, 2 or 4 bytes
  /// (any 1-, 2- or 4-byte element; 0.0 or -1 of any size) is one cuMemsetD8/D16/D32Async; any
  /// other value is one cuMemsetD2D32Async per 4 bytes of the element (D2D16/D2D8 for sizes that
  /// are not a multiple of 4), each storing that word into every element (pitch = sizeof(T)).
  /// `stream` must belong to the buffer's context (else WrongContext).
  void fill(Stream &stream, const T &value)
    requires std::is_trivially_copyable_v<T>
  {
    detail::fill_elements(stream, context_.get(), pointer_, &value, sizeof(T), size_, "fill");
  }
  /// Sets every byte of the buffer to `byte` in the order of `stream` (cudaMemsetAsync itself):
  /// 0xff makes every float a NaN, every integer -1. Does not wait; capturable like fill.
  void fill_bytes(Stream &stream, std::uint8_t byte) {
    detail::fill_elements(stream, context_.get(), pointer_, &byte, 1, size_bytes(), "fill_bytes");
  }

  /// The buffer's contents after the work queued on `stream`; synchronizes `stream`.
  [[nodiscard]] std::vector<T> to_host(Stream &stream) const {
    if constexpr (std::is_same_v<T, bool>) { // std::vector<bool> packs bits: copy the bytes first
      const std::unique_ptr<bool[]> bytes(new bool[size_]);
      copy_to_host(stream, std::span<bool>(bytes.get(), size_));
      return std::vector<bool>(bytes.get(), bytes.get() + size_);
    } else {
      std::vector<T> host(size_);
      copy_to_host(stream, host);
      return host;
    }
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

  /// Elements [offset, offset + count) of the buffer, to pass to span parameters (see
  /// BufferSlice). Throws oxide::Error (SliceOutOfRange) past the end of the buffer.
  [[nodiscard]] BufferSlice<T> slice(size_type offset, size_type count) & {
    detail::check_slice_range(size_, offset, count);
    return {*this, offset, count};
  }
  /// A read-only slice, which binds only to Span<const T>.
  [[nodiscard]] BufferSlice<const T> slice(size_type offset, size_type count) const & {
    detail::check_slice_range(size_, offset, count);
    return {*this, offset, count};
  }
  void slice(size_type, size_type) && = delete;

  [[nodiscard]] size_type size() const noexcept { return size_; }
  [[nodiscard]] size_type size_bytes() const noexcept { return size_ * sizeof(T); }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  /// The CUdeviceptr of the first element (0 when empty); a host address on the simulator.
  [[nodiscard]] std::uint64_t device_ptr() const noexcept { return pointer_; }
  /// Whether Oxide frees the memory (false for unsafe_borrow).
  [[nodiscard]] bool is_owning() const noexcept { return ownership_ != detail::MemoryOwnership::Borrowed; }
  /// Whether the memory is freed in stream order (allocate_async).
  [[nodiscard]] bool is_stream_ordered() const noexcept {
    return ownership_ == detail::MemoryOwnership::StreamOrdered;
  }

private:
  friend struct detail::BufferAccess;

  DeviceBuffer(std::shared_ptr<detail::ContextState> context, std::uint64_t pointer, size_type size) noexcept
      : context_(std::move(context)), pointer_(pointer), size_(size) {}

  /// Takes `pointer` (non-null) as the buffer's memory, under a new allocation id. Should
  /// registering the id throw, the buffer still holds the memory and frees it.
  void adopt(std::uint64_t pointer) {
    pointer_ = pointer;
    allocation_ = detail::register_allocation();
  }

  void release() noexcept {
    detail::unregister_allocation(allocation_);
    if (pointer_ != 0 && ownership_ != detail::MemoryOwnership::Borrowed)
      detail::release_device_memory(std::move(context_), pointer_, ownership_, std::move(order_));
    context_.reset();
    order_.reset();
    pointer_ = 0;
    size_ = 0;
    allocation_ = 0;
    ownership_ = detail::MemoryOwnership::Owned;
  }

  std::shared_ptr<detail::ContextState> context_;
  /// Stream-ordered memory: the stream its free is ordered on (null: the default stream).
  std::shared_ptr<detail::StreamState> order_;
  std::uint64_t pointer_ = 0;
  size_type size_ = 0;
  /// The id of the memory the buffer holds (register_allocation), 0 when it holds none: a graph
  /// records it, so that replaying it after the buffer was freed or given other memory fails.
  std::uint64_t allocation_ = 0;
  detail::MemoryOwnership ownership_ = detail::MemoryOwnership::Owned;
};

namespace detail {
/// Runtime access to a buffer's owning context, for checks at kernel launch.
struct BufferAccess {
  template <class T> static const ContextState *context(const DeviceBuffer<T> &buffer) noexcept {
    return buffer.context_.get();
  }
  /// The id of the buffer's memory (0 when it holds none), unique for the life of the process.
  template <class T> static std::uint64_t allocation(const DeviceBuffer<T> &buffer) noexcept {
    return buffer.allocation_;
  }
};
} // namespace detail

template <class T> std::uint64_t BufferSlice<T>::device_ptr() const noexcept {
  return buffer_->device_ptr() + offset_ * sizeof(T);
}

template <class T>
void BufferSlice<T>::fill(Stream &stream, const std::remove_const_t<T> &value) const
  requires(!std::is_const_v<T> && std::is_trivially_copyable_v<T>)
{
  detail::fill_elements(stream, detail::BufferAccess::context(*buffer_), device_ptr(), &value, sizeof(T),
                        size_, "fill");
}

template <class T> BufferSlice<T> BufferSlice<T>::slice(std::size_t offset, std::size_t count) const {
  detail::check_slice_range(size_, offset, count);
  return {*buffer_, offset_ + offset, count};
}

} // namespace oxide
