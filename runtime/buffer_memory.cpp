// Device memory: allocation and stream-ordered copies behind oxide::DeviceBuffer. On the
// simulator, device memory is host memory and every copy completes before it returns.
#include <fmt/format.h>

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

void throw_size_mismatch(const char *operation, std::size_t buffer_size, std::size_t host_size) {
  throw Error(ErrorKind::SizeMismatch,
              fmt::format("{}: the device buffer has {} elements but the host range has {}", operation,
                          buffer_size, host_size));
}

} // namespace oxide::detail
