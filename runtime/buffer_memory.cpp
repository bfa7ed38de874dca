// Device memory: allocation and stream-ordered copies behind oxide::DeviceBuffer. On the
// simulator, device memory is host memory and every copy completes before it returns.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "context_state.hpp"
#include "cuda_driver.hpp"
#include "oxide/host/buffer.hpp"
#include "oxide/host/error.hpp"

namespace oxide::detail {
namespace {

/// The stream's context, after checking that a buffer owned by `owner` may be used on it.
const ContextState &stream_context(const Stream &stream, const ContextState *owner, const char *operation) {
  const ContextState &context = *stream.context_state();
  if (owner && owner->handle() != context.handle())
    throw Error(ErrorKind::WrongContext, fmt::format("{}: the buffer belongs to {} but the stream to {}",
                                                     operation, owner->label(), context.label()));
  return context;
}

CUstream cu_stream(const Stream &stream) { return static_cast<CUstream>(stream.native_handle()); }

/// Simulated device memory is aligned like cuMemAlloc's, so alignment bugs show up here too.
constexpr std::size_t kSimAlignment = 256;

} // namespace

std::size_t checked_byte_size(std::size_t count, std::size_t element_size) {
  if (element_size != 0 && count > std::numeric_limits<std::size_t>::max() / element_size)
    throw Error(ErrorKind::OutOfMemory,
                fmt::format("a buffer of {} elements of {} bytes does not fit in the address space", count,
                            element_size));
  return count * element_size;
}

std::uint64_t device_alloc(ContextState &context, std::size_t bytes) {
  if (context.is_simulator()) {
    const std::size_t rounded = (bytes + kSimAlignment - 1) / kSimAlignment * kSimAlignment;
    void *memory = rounded < bytes ? nullptr : std::aligned_alloc(kSimAlignment, rounded);
    if (!memory)
      throw Error(ErrorKind::OutOfMemory,
                  fmt::format("out of memory allocating {} bytes on the CPU simulator", bytes));
    // Uninitialized memory is poisoned in the checking mode: reading it gives NaN and -1.
    if (context.sim_options().check)
      std::memset(memory, 0xff, rounded);
    return reinterpret_cast<std::uintptr_t>(memory);
  }
  ScopedCurrent current(context);
  CUdeviceptr pointer = 0;
  const CUresult result = driver().cuMemAlloc(&pointer, bytes);
  if (result != CUDA_SUCCESS)
    throw_driver_error(result, "cuMemAlloc", {},
                       fmt::format("(allocating {} bytes on {})", bytes, context.device().name()));
  return pointer;
}

void device_free(ContextState &context, std::uint64_t pointer) noexcept {
  if (context.is_simulator()) {
    std::free(reinterpret_cast<void *>(static_cast<std::uintptr_t>(pointer)));
    return;
  }
  const DriverApi &api = loaded_driver_api();
  if (api.cuCtxPushCurrent(context.handle()) != CUDA_SUCCESS)
    return;
  // A failure here means the context is already broken; a destructor cannot report it.
  (void)api.cuMemFree(static_cast<CUdeviceptr>(pointer));
  CUcontext popped = nullptr;
  (void)api.cuCtxPopCurrent(&popped);
}

void copy_host_to_device(const Stream &stream, const ContextState *owner, std::uint64_t dst, const void *src,
                         std::size_t bytes) {
  const ContextState &context = stream_context(stream, owner, "copy_from_host");
  if (bytes == 0)
    return;
  if (context.is_simulator()) {
    std::memcpy(reinterpret_cast<void *>(static_cast<std::uintptr_t>(dst)), src, bytes);
    return;
  }
  ScopedCurrent current(context);
  check(driver().cuMemcpyHtoDAsync(static_cast<CUdeviceptr>(dst), src, bytes, cu_stream(stream)),
        "cuMemcpyHtoDAsync");
}

void copy_device_to_host(const Stream &stream, const ContextState *owner, void *dst, std::uint64_t src,
                         std::size_t bytes) {
  const ContextState &context = stream_context(stream, owner, "copy_to_host");
  if (context.is_simulator()) {
    if (bytes != 0)
      std::memcpy(dst, reinterpret_cast<const void *>(static_cast<std::uintptr_t>(src)), bytes);
    return;
  }
  ScopedCurrent current(context);
  if (bytes != 0)
    check(driver().cuMemcpyDtoHAsync(dst, static_cast<CUdeviceptr>(src), bytes, cu_stream(stream)),
          "cuMemcpyDtoHAsync");
  // Also reports errors of earlier asynchronous work (a failed kernel) at the point of use.
  check(driver().cuStreamSynchronize(cu_stream(stream)), "cuStreamSynchronize");
}

void fill_zero(const Stream &stream, const ContextState *owner, std::uint64_t dst, std::size_t bytes) {
  const ContextState &context = stream_context(stream, owner, "zeroed");
  if (bytes == 0)
    return;
  if (context.is_simulator()) {
    std::memset(reinterpret_cast<void *>(static_cast<std::uintptr_t>(dst)), 0, bytes);
    return;
  }
  ScopedCurrent current(context);
  check(driver().cuMemsetD8Async(static_cast<CUdeviceptr>(dst), 0, bytes, cu_stream(stream)),
        "cuMemsetD8Async");
}

namespace {

void *host_pointer(std::uint64_t pointer) {
  return reinterpret_cast<void *>(static_cast<std::uintptr_t>(pointer));
}

/// Waits for all work submitted to a GPU context, so its memory holds what that work wrote.
void synchronize_context(const ContextState &context) {
  ScopedCurrent current(context);
  check(driver().cuCtxSynchronize(), "cuCtxSynchronize");
}

/// Staged copies move this much at a time through one pinned buffer.
constexpr std::size_t kStagingChunk = std::size_t{64} << 20;

/// Pinned host memory, portable to every context; freed by the destructor.
class PinnedBuffer {
public:
  PinnedBuffer(const ContextState &context, std::size_t bytes) : context_(context) {
    ScopedCurrent current(context);
    const CUresult result = driver().cuMemHostAlloc(&memory_, bytes, CU_MEMHOSTALLOC_PORTABLE);
    if (result != CUDA_SUCCESS)
      throw_driver_error(result, "cuMemHostAlloc", {},
                         fmt::format("(allocating {} bytes of pinned staging memory)", bytes));
  }
  PinnedBuffer(const PinnedBuffer &) = delete;
  PinnedBuffer &operator=(const PinnedBuffer &) = delete;
  ~PinnedBuffer() {
    const DriverApi &api = loaded_driver_api();
    if (api.cuCtxPushCurrent(context_.handle()) != CUDA_SUCCESS)
      return;
    (void)api.cuMemFreeHost(memory_);
    CUcontext popped = nullptr;
    (void)api.cuCtxPopCurrent(&popped);
  }
  [[nodiscard]] void *get() const noexcept { return memory_; }

private:
  const ContextState &context_;
  void *memory_ = nullptr;
};

} // namespace

void copy_device_to_device(const Stream &stream, const ContextState *dst_owner, std::uint64_t dst,
                           const ContextState *src_owner, std::uint64_t src, std::size_t bytes) {
  const ContextState &context = stream_context(stream, dst_owner, "copy_from");
  if (bytes == 0)
    return;
  const ContextState &source = *src_owner; // a non-empty buffer has a context
  const CUstream cu = cu_stream(stream);

  if (context.is_simulator() && source.is_simulator()) {
    if (dst != src)
      std::memmove(host_pointer(dst), host_pointer(src), bytes);
    return;
  }
  if (context.is_simulator()) { // GPU -> simulator: the simulator's memory is host memory
    synchronize_context(source);
    ScopedCurrent current(source);
    check(driver().cuMemcpyDtoHAsync(host_pointer(dst), static_cast<CUdeviceptr>(src), bytes, nullptr),
          "cuMemcpyDtoHAsync");
    check(driver().cuStreamSynchronize(nullptr), "cuStreamSynchronize");
    return;
  }
  if (source.is_simulator()) { // simulator -> GPU
    ScopedCurrent current(context);
    check(driver().cuMemcpyHtoDAsync(static_cast<CUdeviceptr>(dst), host_pointer(src), bytes, cu),
          "cuMemcpyHtoDAsync");
    check(driver().cuStreamSynchronize(cu), "cuStreamSynchronize");
    return;
  }
  if (context.handle() == source.handle()) { // one device: ordered on the stream like any copy
    if (dst == src)
      return;
    ScopedCurrent current(context);
    check(driver().cuMemcpyDtoDAsync(static_cast<CUdeviceptr>(dst), static_cast<CUdeviceptr>(src), bytes, cu),
          "cuMemcpyDtoDAsync");
    return;
  }

  // Two devices. The source's producers run on streams this call does not know: wait for them all.
  synchronize_context(source);
  if (context.peer_access_enabled(source.handle()) || source.peer_access_enabled(context.handle())) {
    ScopedCurrent current(context);
    check(driver().cuMemcpyPeerAsync(static_cast<CUdeviceptr>(dst), context.handle(),
                                     static_cast<CUdeviceptr>(src), source.handle(), bytes, cu),
          "cuMemcpyPeerAsync");
    // Complete on return, so the source may be changed or freed by its own context right away.
    check(driver().cuStreamSynchronize(cu), "cuStreamSynchronize");
    return;
  }
  // No peer access: device -> pinned host -> device, one chunk at a time.
  const PinnedBuffer staging(context, std::min(bytes, kStagingChunk));
  for (std::size_t offset = 0; offset < bytes; offset += kStagingChunk) {
    const std::size_t chunk = std::min(kStagingChunk, bytes - offset);
    {
      ScopedCurrent current(source);
      check(driver().cuMemcpyDtoHAsync(staging.get(), static_cast<CUdeviceptr>(src + offset), chunk, nullptr),
            "cuMemcpyDtoHAsync");
      check(driver().cuStreamSynchronize(nullptr), "cuStreamSynchronize");
    }
    ScopedCurrent current(context);
    check(driver().cuMemcpyHtoDAsync(static_cast<CUdeviceptr>(dst + offset), staging.get(), chunk, cu),
          "cuMemcpyHtoDAsync");
    check(driver().cuStreamSynchronize(cu), "cuStreamSynchronize");
  }
}

void throw_buffer_size_mismatch(const char *operation, std::size_t dst_size, std::size_t src_size) {
  throw Error(ErrorKind::SizeMismatch,
              fmt::format("{}: the destination buffer has {} elements but the source buffer has {}",
                          operation, dst_size, src_size));
}

void throw_size_mismatch(const char *operation, std::size_t buffer_size, std::size_t host_size) {
  throw Error(ErrorKind::SizeMismatch,
              fmt::format("{}: the device buffer has {} elements but the host range has {}", operation,
                          buffer_size, host_size));
}

} // namespace oxide::detail
