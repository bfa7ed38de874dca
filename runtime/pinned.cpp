// Page-locked host memory behind oxide::PinnedBuffer: cuMemHostAlloc on a GPU, aligned host
// memory on the simulator.
#include "oxide/host/pinned.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "context_state.hpp"
#include "cuda_driver.hpp"
#include "oxide/host/error.hpp"
#include "stream_state.hpp"

namespace oxide::detail {
namespace {

constexpr std::size_t kHostAlignment = 256;

void free_pinned_now(const ContextState &context, void *memory) noexcept {
  if (context.is_simulator()) {
    std::free(memory);
    return;
  }
  const DriverApi &api = loaded_driver_api();
  if (api.cuCtxPushCurrent(context.handle()) != CUDA_SUCCESS)
    return;
  (void)api.cuMemFreeHost(memory); // waits for the device: a copy in flight finishes first
  CUcontext popped = nullptr;
  (void)api.cuCtxPopCurrent(&popped);
}

} // namespace

void *pinned_alloc(ContextState &context, std::size_t bytes) {
  check_thread_not_capturing("PinnedBuffer allocation", "allocate pinned memory before Graph::capture");
  if (context.is_simulator()) {
    const std::size_t rounded = (bytes + kHostAlignment - 1) / kHostAlignment * kHostAlignment;
    void *memory = rounded < bytes ? nullptr : std::aligned_alloc(kHostAlignment, rounded);
    if (!memory)
      throw Error(ErrorKind::OutOfMemory,
                  fmt::format("out of memory allocating {} bytes of pinned host memory for the CPU simulator",
                              bytes));
    return memory;
  }
  ScopedCurrent current(context);
  void *memory = nullptr;
  const CUresult result = driver().cuMemHostAlloc(&memory, bytes, CU_MEMHOSTALLOC_PORTABLE);
  if (result == CUDA_ERROR_OUT_OF_MEMORY)
    throw Error(ErrorKind::OutOfMemory,
                fmt::format("out of memory allocating {} bytes of pinned host memory (cuMemHostAlloc: "
                            "CUDA_ERROR_OUT_OF_MEMORY)",
                            bytes));
  if (result != CUDA_SUCCESS)
    throw_driver_error(result, "cuMemHostAlloc", {},
                       fmt::format("(allocating {} bytes of pinned memory)", bytes));
  return memory;
}

void pinned_free(std::shared_ptr<ContextState> context, void *memory) noexcept {
  if (CaptureScope *capture = capture_in_progress(nullptr)) [[unlikely]] {
    try {
      defer_free(*capture, [context, memory] { free_pinned_now(*context, memory); }, "a PinnedBuffer");
      return;
    } catch (...) { // no memory for the closure: free now
    }
  }
  free_pinned_now(*context, memory);
}

} // namespace oxide::detail
