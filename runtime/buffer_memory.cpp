// Device memory: allocation and stream-ordered copies behind oxide::DeviceBuffer. On the
// simulator, device memory is host memory and every copy completes before it returns.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <unordered_set>
#include <vector>

#include "context_state.hpp"
#include "cuda_driver.hpp"
#include "graph_capture.hpp"
#include "oxide/host/buffer.hpp"
#include "oxide/host/error.hpp"
#include "sim/write_checks.hpp"
#include "stream_state.hpp"

// AddressSanitizer's manual poisoning, present when the program is built with ASan (weak: null
// otherwise).
extern "C" void __asan_poison_memory_region(const volatile void *address, std::size_t size)
    __attribute__((weak));

namespace oxide::detail {
namespace {

/// The stream's context, after checking that a buffer owned by `owner` may be used on it.
const ContextState &stream_context(const Stream &stream, const ContextState *owner, const char *operation) {
  const ContextState &context = *detail::StreamAccess::context_state(stream);
  if (owner && owner->handle() != context.handle())
    throw Error(ErrorKind::WrongContext, fmt::format("{}: the buffer belongs to {} but the stream to {}",
                                                     operation, owner->label(), context.label()));
  return context;
}

CUstream cu_stream(const Stream &stream) { return static_cast<CUstream>(stream.native_handle()); }

/// Simulated device memory is aligned like cuMemAlloc's, so alignment bugs show up here too.
constexpr std::size_t kSimAlignment = 256;

void *host_pointer(std::uint64_t pointer) {
  return reinterpret_cast<void *>(static_cast<std::uintptr_t>(pointer));
}

std::uint64_t sim_alloc(const ContextState &context, std::size_t bytes, const char *operation) {
  const bool check = context.sim_options().check;
  const std::size_t rounded = (bytes + kSimAlignment - 1) / kSimAlignment * kSimAlignment;
  // The checking mode adds a redzone after the buffer, so that a kernel's write just past its
  // end stays in the buffer's memory, where the write checks report it (sim/write_checks.hpp).
  const std::size_t reserved = rounded + (check ? sim::kRedzoneBytes : 0);
  void *memory =
      rounded < bytes || reserved < rounded ? nullptr : std::aligned_alloc(kSimAlignment, reserved);
  if (!memory)
    throw Error(ErrorKind::OutOfMemory,
                fmt::format("{}: out of memory allocating {} bytes on the CPU simulator", operation, bytes));
  // Uninitialized memory is poisoned in the checking mode: reading it gives NaN and -1.
  if (check) {
    std::memset(memory, 0xff, reserved);
    try {
      sim::note_allocation(memory, bytes, reserved);
    } catch (...) {
      std::free(memory);
      throw Error(
          ErrorKind::OutOfMemory,
          fmt::format("{}: out of memory allocating {} bytes on the CPU simulator", operation, bytes));
    }
  }
  // The rounding up is not the buffer's: under ASan an access past its end is reported even
  // when it stays inside the last 256-byte granule (free() unpoisons the whole block).
  if (__asan_poison_memory_region && reserved > bytes)
    __asan_poison_memory_region(static_cast<char *>(memory) + bytes, reserved - bytes);
  return reinterpret_cast<std::uintptr_t>(memory);
}

/// A GPU allocation's failure: OutOfMemory when the device (or its pool) is full.
[[noreturn]] void throw_alloc_failure(CUresult result, const char *api, const char *operation,
                                      const ContextState &context, std::size_t bytes) {
  if (result == CUDA_ERROR_OUT_OF_MEMORY)
    throw Error(ErrorKind::OutOfMemory,
                fmt::format("{}: out of memory allocating {} bytes on {} ({}, {} MiB in all) ({}: "
                            "CUDA_ERROR_OUT_OF_MEMORY)",
                            operation, bytes, context.label(), context.device().name(),
                            context.device().total_memory() >> 20, api));
  throw_driver_error(result, api, {},
                     fmt::format("(allocating {} bytes on {})", bytes, context.device().name()));
}

void free_device_memory_now(const ContextState &context, std::uint64_t pointer, MemoryOwnership ownership,
                            CUstream order) noexcept {
  if (context.is_simulator()) {
    if (context.sim_options().check)
      sim::forget_allocation(host_pointer(pointer));
    std::free(host_pointer(pointer));
    return;
  }
  const DriverApi &api = loaded_driver_api();
  if (api.cuCtxPushCurrent(context.handle()) != CUDA_SUCCESS)
    return;
  // A failure here means the context is already broken; a destructor cannot report it.
  if (ownership == MemoryOwnership::StreamOrdered)
    (void)api.cuMemFreeAsync(static_cast<CUdeviceptr>(pointer), order);
  else
    (void)api.cuMemFree(static_cast<CUdeviceptr>(pointer));
  CUcontext popped = nullptr;
  (void)api.cuCtxPopCurrent(&popped);
}

} // namespace

namespace {

/// The ids of the allocations DeviceBuffers hold now (register_allocation).
struct LiveAllocations {
  std::mutex mutex;
  std::uint64_t next = 1;
  std::unordered_set<std::uint64_t> ids;
};

LiveAllocations &live_allocations() {
  // Never destroyed: buffers in static storage are freed by static destructors in any order.
  static auto *live = new LiveAllocations;
  return *live;
}

} // namespace

std::uint64_t register_allocation() {
  LiveAllocations &live = live_allocations();
  std::lock_guard lock(live.mutex);
  const std::uint64_t id = live.next++;
  live.ids.insert(id);
  return id;
}

void unregister_allocation(std::uint64_t id) noexcept {
  if (id == 0)
    return;
  LiveAllocations &live = live_allocations();
  std::lock_guard lock(live.mutex);
  live.ids.erase(id);
}

std::size_t first_freed_allocation(std::span<const std::uint64_t> ids) noexcept {
  LiveAllocations &live = live_allocations();
  std::lock_guard lock(live.mutex);
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] != 0 && !live.ids.contains(ids[i]))
      return i;
  return ids.size();
}

std::size_t checked_byte_size(std::size_t count, std::size_t element_size) {
  if (element_size != 0 && count > std::numeric_limits<std::size_t>::max() / element_size)
    throw Error(ErrorKind::OutOfMemory,
                fmt::format("a buffer of {} elements of {} bytes does not fit in the address space", count,
                            element_size));
  return count * element_size;
}

std::uint64_t device_alloc(ContextState &context, std::size_t bytes) {
  check_thread_not_capturing("DeviceBuffer allocation",
                             "allocate before Graph::capture (cuMemAlloc is not allowed during a capture)");
  if (context.is_simulator())
    return sim_alloc(context, bytes, "DeviceBuffer");
  ScopedCurrent current(context);
  CUdeviceptr pointer = 0;
  CUresult result = driver().cuMemAlloc(&pointer, bytes);
  if (result == CUDA_ERROR_OUT_OF_MEMORY) { // the stream-ordered pool may hold free memory
    context.trim_memory_pool();
    result = driver().cuMemAlloc(&pointer, bytes);
  }
  if (result != CUDA_SUCCESS)
    throw_alloc_failure(result, "cuMemAlloc", "DeviceBuffer", context, bytes);
  return pointer;
}

std::uint64_t device_alloc_async(const Stream &stream, std::size_t bytes) {
  const ContextState &context = *detail::StreamAccess::context_state(stream);
  check_not_capturing(stream, "DeviceBuffer::allocate_async", "allocate before Graph::capture");
  if (context.is_simulator())
    return sim_alloc(context, bytes, "allocate_async");
  ScopedCurrent current(context);
  CUdeviceptr pointer = 0;
  const CUmemoryPool pool = context.memory_pool();
  const auto allocate = [&] {
    return pool ? driver().cuMemAllocFromPoolAsync(&pointer, bytes, pool, cu_stream(stream))
                : driver().cuMemAllocAsync(&pointer, bytes, cu_stream(stream));
  };
  CUresult result = allocate();
  if (result == CUDA_ERROR_OUT_OF_MEMORY) { // what the pool keeps may be what is missing
    context.trim_memory_pool();
    result = allocate();
  }
  if (result != CUDA_SUCCESS)
    throw_alloc_failure(result, pool ? "cuMemAllocFromPoolAsync" : "cuMemAllocAsync", "allocate_async",
                        context, bytes);
  return pointer;
}

void release_device_memory(std::shared_ptr<ContextState> context, std::uint64_t pointer,
                           MemoryOwnership ownership, std::shared_ptr<StreamState> order) noexcept {
  if (CaptureScope *capture = capture_in_progress(order.get())) [[unlikely]] {
    try {
      defer_free(
          *capture,
          [context, pointer, ownership, order] {
            free_device_memory_now(*context, pointer, ownership, cu_stream_of(order.get()));
          },
          "a DeviceBuffer");
      return;
    } catch (...) { // no memory for the closure: free now
    }
  }
  free_device_memory_now(*context, pointer, ownership, cu_stream_of(order.get()));
}

void check_release_stream(const Stream &stream, const ContextState *owner) {
  (void)stream_context(stream, owner, "reset");
}

void check_borrowed(std::uint64_t pointer, std::size_t bytes, std::size_t alignment) {
  if (bytes != 0 && pointer == 0)
    throw Error("DeviceBuffer::unsafe_borrow: a null pointer for a non-empty buffer");
  if (pointer % alignment != 0)
    throw Error(fmt::format("DeviceBuffer::unsafe_borrow: address {:#x} is not aligned to {} bytes, the "
                            "alignment of the element type",
                            pointer, alignment));
}

void copy_host_to_device(const Stream &stream, const ContextState *owner, std::uint64_t dst, const void *src,
                         std::size_t bytes, const char *operation) {
  const ContextState &context = stream_context(stream, owner, operation);
  if (bytes == 0)
    return;
  if (context.is_simulator()) {
    // Recorded in a capture, the copy reads `src` at each launch of the graph, as on a GPU.
    if (!record_if_capturing(stream, [dst, src, bytes] { std::memcpy(host_pointer(dst), src, bytes); }))
      std::memcpy(host_pointer(dst), src, bytes);
    return;
  }
  ScopedCurrent current(context);
  check(driver().cuMemcpyHtoDAsync(static_cast<CUdeviceptr>(dst), src, bytes, cu_stream(stream)),
        "cuMemcpyHtoDAsync");
}

void copy_device_to_host(const Stream &stream, const ContextState *owner, void *dst, std::uint64_t src,
                         std::size_t bytes) {
  const ContextState &context = stream_context(stream, owner, "copy_to_host");
  check_not_capturing(stream, "copy_to_host (and to_host), which waits for the stream,",
                      "use copy_to_async with a PinnedBuffer");
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

void copy_device_to_host_async(const Stream &stream, const ContextState *owner, void *dst, std::uint64_t src,
                               std::size_t bytes) {
  const ContextState &context = stream_context(stream, owner, "copy_to_async");
  if (bytes == 0)
    return;
  if (context.is_simulator()) {
    if (!record_if_capturing(stream, [dst, src, bytes] { std::memcpy(dst, host_pointer(src), bytes); }))
      std::memcpy(dst, host_pointer(src), bytes);
    return;
  }
  ScopedCurrent current(context);
  check(driver().cuMemcpyDtoHAsync(dst, static_cast<CUdeviceptr>(src), bytes, cu_stream(stream)),
        "cuMemcpyDtoHAsync");
}

void fill_zero(const Stream &stream, const ContextState *owner, std::uint64_t dst, std::size_t bytes) {
  const ContextState &context = stream_context(stream, owner, "zeroed");
  if (bytes == 0)
    return;
  if (context.is_simulator()) {
    if (!record_if_capturing(stream, [dst, bytes] { std::memset(host_pointer(dst), 0, bytes); }))
      std::memset(host_pointer(dst), 0, bytes);
    return;
  }
  ScopedCurrent current(context);
  check(driver().cuMemsetD8Async(static_cast<CUdeviceptr>(dst), 0, bytes, cu_stream(stream)),
        "cuMemsetD8Async");
}

namespace {

/// The smallest of 1, 2 and 4 bytes that divides the element size and the address and with
/// which the element's bytes repeat (so one cuMemsetD8/D16/D32 stores the whole value), or 0.
std::size_t fill_period(std::uint64_t dst, const unsigned char *value, std::size_t element_size) {
  for (const std::size_t period : {1u, 2u, 4u}) {
    if (element_size % period != 0 || dst % period != 0)
      continue;
    if (std::equal(value + period, value + element_size, value))
      return period;
  }
  return 0;
}

/// One memset as the driver does it: `rows` words of `word` bytes (1, 2 or 4) holding `value`,
/// the first at byte `offset`, then every `pitch` bytes (pitch == word: contiguous).
struct MemsetStep {
  std::size_t offset, word, pitch, rows;
  unsigned value;
};

/// The memsets that store `value` into `count` elements at `dst`: one contiguous memset when the
/// value's bytes repeat every 1, 2 or 4 bytes, else one strided memset per word of the element
/// (a 2-D memset of `count` rows one word wide, pitch = the element size; the driver requires
/// the address and the pitch to be multiples of the word). The simulator runs the same steps, so
/// its tests cover this plan too.
std::vector<MemsetStep> plan_fill(std::uint64_t dst, const unsigned char *value, std::size_t element_size,
                                  std::size_t count) {
  const auto word_at = [value](std::size_t offset, std::size_t width) {
    unsigned word = 0;
    std::memcpy(&word, value + offset, width); // little-endian, as the driver takes it
    return word;
  };
  if (const std::size_t period = fill_period(dst, value, element_size))
    return {{0, period, period, element_size / period * count, word_at(0, period)}};
  const std::size_t word = element_size % 4 == 0 && dst % 4 == 0   ? 4
                           : element_size % 2 == 0 && dst % 2 == 0 ? 2
                                                                   : 1;
  std::vector<MemsetStep> steps;
  for (std::size_t offset = 0; offset < element_size; offset += word)
    steps.push_back({offset, word, element_size, count, word_at(offset, word)});
  return steps;
}

} // namespace

void fill_elements(const Stream &stream, const ContextState *owner, std::uint64_t dst, const void *value,
                   std::size_t element_size, std::size_t count, const char *operation) {
  const ContextState &context = stream_context(stream, owner, operation);
  if (count == 0 || element_size == 0)
    return;
  std::vector<MemsetStep> steps =
      plan_fill(dst, static_cast<const unsigned char *>(value), element_size, count);
  if (context.is_simulator()) {
    // Recorded in a capture with its own copy of the value, as a GPU memset node keeps one.
    auto store = [dst, steps = std::move(steps)] {
      auto *base = static_cast<unsigned char *>(host_pointer(dst));
      for (const MemsetStep &step : steps) {
        if (step.word == 1 && step.pitch == 1) {
          std::memset(base + step.offset, static_cast<int>(step.value), step.rows);
          continue;
        }
        for (std::size_t row = 0; row < step.rows; ++row)
          std::memcpy(base + step.offset + row * step.pitch, &step.value, step.word);
      }
    };
    if (!record_if_capturing(stream, store))
      store();
    return;
  }
  ScopedCurrent current(context);
  const DriverApi &api = driver();
  const CUstream cu = cu_stream(stream);
  for (const MemsetStep &step : steps) {
    const CUdeviceptr at = static_cast<CUdeviceptr>(dst + step.offset);
    const bool contiguous = step.pitch == step.word;
    switch (step.word) {
    case 1:
      check(contiguous ? api.cuMemsetD8Async(at, static_cast<unsigned char>(step.value), step.rows, cu)
                       : api.cuMemsetD2D8Async(at, step.pitch, static_cast<unsigned char>(step.value), 1,
                                               step.rows, cu),
            contiguous ? "cuMemsetD8Async" : "cuMemsetD2D8Async");
      break;
    case 2:
      check(contiguous ? api.cuMemsetD16Async(at, static_cast<unsigned short>(step.value), step.rows, cu)
                       : api.cuMemsetD2D16Async(at, step.pitch, static_cast<unsigned short>(step.value), 1,
                                                step.rows, cu),
            contiguous ? "cuMemsetD16Async" : "cuMemsetD2D16Async");
      break;
    default:
      check(contiguous ? api.cuMemsetD32Async(at, step.value, step.rows, cu)
                       : api.cuMemsetD2D32Async(at, step.pitch, step.value, 1, step.rows, cu),
            contiguous ? "cuMemsetD32Async" : "cuMemsetD2D32Async");
      break;
    }
  }
}

namespace {

/// Waits for all work submitted to a GPU context, so its memory holds what that work wrote.
void synchronize_context(const ContextState &context) {
  ScopedCurrent current(context);
  check(driver().cuCtxSynchronize(), "cuCtxSynchronize");
}

/// Staged copies move this much at a time through one pinned buffer.
constexpr std::size_t kStagingChunk = std::size_t{64} << 20;

/// Pinned host memory for staged copies, portable to every context; freed by the destructor.
class StagingBuffer {
public:
  StagingBuffer(const ContextState &context, std::size_t bytes) : context_(context) {
    ScopedCurrent current(context);
    const CUresult result = driver().cuMemHostAlloc(&memory_, bytes, CU_MEMHOSTALLOC_PORTABLE);
    if (result != CUDA_SUCCESS)
      throw_driver_error(result, "cuMemHostAlloc", {},
                         fmt::format("(allocating {} bytes of pinned staging memory)", bytes));
  }
  StagingBuffer(const StagingBuffer &) = delete;
  StagingBuffer &operator=(const StagingBuffer &) = delete;
  ~StagingBuffer() {
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
    if (dst != src && !record_if_capturing(stream, [dst, src, bytes] {
          std::memmove(host_pointer(dst), host_pointer(src), bytes);
        }))
      std::memmove(host_pointer(dst), host_pointer(src), bytes);
    return;
  }
  if (context.handle() != source.handle())
    check_not_capturing(stream, "copy_from between two contexts, which waits for both,",
                        "copy within one context inside the capture");
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
  const StagingBuffer staging(context, std::min(bytes, kStagingChunk));
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
