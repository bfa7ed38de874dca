// Device memory: allocation and stream-ordered copies behind oxide::DeviceBuffer.
#include <fmt/format.h>

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
    throw Error(fmt::format("{}: the buffer belongs to device {} but the stream to device {}", operation,
                            owner->device().ordinal(), context.device().ordinal()));
  return context;
}

CUstream cu_stream(const Stream &stream) { return static_cast<CUstream>(stream.native_handle()); }

} // namespace

std::size_t checked_byte_size(std::size_t count, std::size_t element_size) {
  if (element_size != 0 && count > std::numeric_limits<std::size_t>::max() / element_size)
    throw Error(fmt::format("a buffer of {} elements of {} bytes does not fit in the address space", count,
                            element_size));
  return count * element_size;
}

std::uint64_t device_alloc(ContextState &context, std::size_t bytes) {
  ScopedCurrent current(context);
  CUdeviceptr pointer = 0;
  const CUresult result = driver().cuMemAlloc(&pointer, bytes);
  if (result != CUDA_SUCCESS)
    throw_driver_error(result, "cuMemAlloc", {},
                       fmt::format("(allocating {} bytes on {})", bytes, context.device().name()));
  return pointer;
}

void device_free(ContextState &context, std::uint64_t pointer) noexcept {
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
  ScopedCurrent current(context);
  check(driver().cuMemcpyHtoDAsync(static_cast<CUdeviceptr>(dst), src, bytes, cu_stream(stream)),
        "cuMemcpyHtoDAsync");
}

void copy_device_to_host(const Stream &stream, const ContextState *owner, void *dst, std::uint64_t src,
                         std::size_t bytes) {
  const ContextState &context = stream_context(stream, owner, "copy_to_host");
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
  ScopedCurrent current(context);
  check(driver().cuMemsetD8Async(static_cast<CUdeviceptr>(dst), 0, bytes, cu_stream(stream)),
        "cuMemsetD8Async");
}

void throw_size_mismatch(const char *operation, std::size_t buffer_size, std::size_t host_size) {
  throw Error(fmt::format("{}: the device buffer has {} elements but the host range has {}", operation,
                          buffer_size, host_size));
}

} // namespace oxide::detail
