// The Oxide side's harness: block reductions for the kernels, and the host's timing. The Oxide runtime has no
// event type yet, so kernels are timed with CUDA events from the driver API (cuEventRecord on the launch
// stream, cuEventElapsedTime), loaded with dlopen like the runtime loads libcuda: device-side time, the same
// measure as the nvcc twins' cudaEventElapsedTime. On the CPU simulator (OXIDE_DEVICE=cpu, for checking the
// kernels here with small sizes) it falls back to wall-clock time.
#pragma once

#include <oxide/oxide.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <vector>

#include "bench_common.hpp"

namespace bench {

// ---- device helpers ---------------------------------------------------------------------------

/// The sum of v over a block of kBlock threads, in thread 0 (elsewhere: unspecified): each warp
/// adds its lanes with xor-shuffles, then warp 0 adds the warps' sums from shared memory. One
/// barrier; every thread of the block must call it.
template <std::uint32_t kBlock> float block_sum(float v) {
  constexpr std::uint32_t kWarps = kBlock / oxide::warp::kSize;
  auto warp_sums = oxide::shared_array<float, kWarps>();
  const std::uint32_t t = oxide::thread_idx().x;
  v = oxide::warp::sum(v);
  if (oxide::warp::lane_id() == 0)
    warp_sums[t / oxide::warp::kSize] = v;
  oxide::sync_threads();
  float total = 0.0f;
  if (t < oxide::warp::kSize)
    total = oxide::warp::sum(t < kWarps ? warp_sums[t] : 0.0f);
  return total;
}

/// v combined with `op` over a block of kBlock threads, in every thread (`identity` pads warp
/// 0's second step). Two barriers; every thread of the block must call it.
template <std::uint32_t kBlock, class Op> float block_all_reduce(float v, Op op, float identity) {
  constexpr std::uint32_t kWarps = kBlock / oxide::warp::kSize;
  auto partial = oxide::shared_array<float, kWarps>();
  auto result = oxide::shared_array<float, 1>();
  const std::uint32_t t = oxide::thread_idx().x;
  v = oxide::warp::reduce(v, op);
  if (oxide::warp::lane_id() == 0)
    partial[t / oxide::warp::kSize] = v;
  oxide::sync_threads();
  if (t < oxide::warp::kSize) {
    const float all = oxide::warp::reduce(t < kWarps ? partial[t] : identity, op);
    if (t == 0)
      result[0] = all;
  }
  oxide::sync_threads();
  return result[0];
}

// ---- host: timing -----------------------------------------------------------------------------

class EventTimer {
  using Create = int (*)(void **, unsigned);
  using Record = int (*)(void *, void *);
  using Sync = int (*)(void *);
  using Elapsed = int (*)(float *, void *, void *);
  using Destroy = int (*)(void *);
  using SetCurrent = int (*)(void *);
  using Memset = int (*)(std::uint64_t, unsigned char, std::size_t, void *);
  Create create_ = nullptr;
  Record record_ = nullptr;
  Sync sync_ = nullptr;
  Elapsed elapsed_ = nullptr;
  Destroy destroy_ = nullptr;
  Memset memset_ = nullptr;
  SetCurrent set_current_ = nullptr;
  void *context_ = nullptr;
  void *start_ = nullptr, *stop_ = nullptr;
  bool simulator_ = false;

  static void check(int rc, const char *what) {
    if (rc != 0) {
      std::fprintf(stderr, "bench: %s failed with CUDA error %d\n", what, rc);
      std::exit(2);
    }
  }
  template <class F> static F symbol(void *lib, const char *name) {
    void *p = dlsym(lib, name);
    if (!p) {
      std::fprintf(stderr, "bench: libcuda has no %s\n", name);
      std::exit(2);
    }
    return reinterpret_cast<F>(p);
  }

public:
  /// `ctx`'s CUcontext is made current: the Oxide runtime does not leave it current.
  explicit EventTimer(const oxide::Context &ctx) : simulator_(ctx.is_simulator()) {
    if (simulator_) {
      std::fprintf(stderr, "bench: on the CPU simulator: wall-clock times, for checking only\n");
      return;
    }
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) {
      std::fprintf(stderr, "bench: needs libcuda.so.1\n");
      std::exit(2);
    }
    create_ = symbol<Create>(lib, "cuEventCreate");
    record_ = symbol<Record>(lib, "cuEventRecord");
    sync_ = symbol<Sync>(lib, "cuEventSynchronize");
    elapsed_ = symbol<Elapsed>(lib, "cuEventElapsedTime");
    destroy_ = symbol<Destroy>(lib, "cuEventDestroy_v2");
    memset_ = symbol<Memset>(lib, "cuMemsetD8Async");
    set_current_ = symbol<SetCurrent>(lib, "cuCtxSetCurrent");
    context_ = ctx.native_handle();
    make_current();
    check(create_(&start_, 0u), "cuEventCreate");
    check(create_(&stop_, 0u), "cuEventCreate");
  }
  EventTimer(const EventTimer &) = delete;
  EventTimer &operator=(const EventTimer &) = delete;
  ~EventTimer() {
    if (!simulator_) {
      destroy_(start_);
      destroy_(stop_);
    }
  }

  /// Makes the Oxide context current on this thread before each driver call: the runtime
  /// pushes and pops it around its own calls and promises nothing about the current context.
  void make_current() { check(set_current_(context_), "cuCtxSetCurrent"); }

  /// Fills `bytes` bytes at device address `ptr` with `value`, ordered on `stream`; false on the
  /// simulator (no device addresses there).
  bool memset(oxide::Stream &stream, std::uint64_t ptr, unsigned char value, std::size_t bytes) {
    if (simulator_)
      return false;
    make_current();
    check(memset_(ptr, value, bytes, stream.native_handle()), "cuMemsetD8Async");
    return true;
  }

  /// kWarmups untimed calls of launch(call), then reps() timed ones, one event pair each; the
  /// median in milliseconds. `call` counts all calls, warm-ups included (0, 1, ...).
  template <class Launch> float median_ms(oxide::Stream &stream, Launch &&launch) {
    int call = 0;
    for (; call < kWarmups; ++call)
      launch(call);
    stream.synchronize();
    std::vector<float> times;
    for (int r = 0; r < reps(); ++r, ++call) {
      if (simulator_) {
        const auto start = std::chrono::steady_clock::now();
        launch(call);
        stream.synchronize();
        times.push_back(
            std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - start).count());
        continue;
      }
      make_current();
      check(record_(start_, stream.native_handle()), "cuEventRecord");
      launch(call);
      make_current();
      check(record_(stop_, stream.native_handle()), "cuEventRecord");
      check(sync_(stop_), "cuEventSynchronize");
      float ms = 0;
      check(elapsed_(&ms, start_, stop_), "cuEventElapsedTime");
      times.push_back(ms);
    }
    stream.synchronize(); // reports a failed launch
    return median(times);
  }
};

/// All-ones bytes in every element: NaN for floats, the maximum for unsigned integers, so an
/// element the kernel never wrote fails the check. DeviceBuffer has no fill, so this is
/// cuMemsetD8Async on the stream (the twins' cudaMemset); on the simulator, a host copy.
template <class T> void poison(EventTimer &timer, oxide::Stream &stream, oxide::DeviceBuffer<T> &buffer) {
  if (timer.memset(stream, buffer.device_ptr(), 0xff, buffer.size_bytes()))
    return;
  std::vector<T> bits(buffer.size());
  std::fill_n(reinterpret_cast<unsigned char *>(bits.data()), bits.size() * sizeof(T), 0xff);
  buffer.copy_from_host(stream, bits);
}

/// Device-to-device copy bandwidth (cuMemcpyDtoDAsync through DeviceBuffer::copy_from) of
/// `floats` floats: the reference the runner's "% of D2D copy" column divides by.
inline void report_memcpy(EventTimer &timer, oxide::Stream &stream, std::size_t floats) {
  auto src = oxide::DeviceBuffer<float>::zeroed(stream, floats);
  auto dst = oxide::DeviceBuffer<float>::uninitialized(stream, floats);
  const float ms = timer.median_ms(stream, [&](int) { dst.copy_from(stream, src); });
  report("memcpy_d2d", std::to_string(floats), "bytes", 2.0 * floats * sizeof(float), ms, true, "safe");
}

} // namespace bench
