// The CUDA side's harness: block reductions for the kernels (the same steps as bench_oxide.hpp's),
// cudaEvent timing on the default stream, warm-ups, median, NaN poisoning.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench_common.hpp"

#define CHECK(call)                                                                                          \
  do {                                                                                                       \
    cudaError_t err_ = (call);                                                                               \
    if (err_ != cudaSuccess) {                                                                               \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_));          \
      std::exit(1);                                                                                          \
    }                                                                                                        \
  } while (0)

namespace bench {

// ---- device helpers ---------------------------------------------------------------------------

/// The xor butterfly of oxide::warp::reduce: every lane gets the result.
template <class Op> __device__ float warp_reduce(float v, Op op) {
  for (unsigned offset = 16; offset > 0; offset /= 2)
    v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}
struct Add {
  __device__ float operator()(float a, float b) const { return a + b; }
};
struct Max { // oxide::warp::max's comparison
  __device__ float operator()(float a, float b) const { return a < b ? b : a; }
};

/// The sum of v over a block of kBlock threads, in thread 0. One barrier.
template <unsigned kBlock> __device__ float block_sum(float v) {
  constexpr unsigned kWarps = kBlock / 32;
  __shared__ float warp_sums[kWarps];
  const unsigned t = threadIdx.x;
  v = warp_reduce(v, Add{});
  if (t % 32 == 0)
    warp_sums[t / 32] = v;
  __syncthreads();
  float total = 0.0f;
  if (t < 32)
    total = warp_reduce(t < kWarps ? warp_sums[t] : 0.0f, Add{});
  return total;
}

/// v combined with `op` over a block of kBlock threads, in every thread. Two barriers.
template <unsigned kBlock, class Op> __device__ float block_all_reduce(float v, Op op, float identity) {
  constexpr unsigned kWarps = kBlock / 32;
  __shared__ float partial[kWarps];
  __shared__ float result;
  const unsigned t = threadIdx.x;
  v = warp_reduce(v, op);
  if (t % 32 == 0)
    partial[t / 32] = v;
  __syncthreads();
  if (t < 32) {
    const float all = warp_reduce(t < kWarps ? partial[t] : identity, op);
    if (t == 0)
      result = all;
  }
  __syncthreads();
  return result;
}

// ---- host: timing -----------------------------------------------------------------------------

class EventTimer {
  cudaEvent_t start_{}, stop_{};

public:
  EventTimer() {
    CHECK(cudaEventCreate(&start_));
    CHECK(cudaEventCreate(&stop_));
  }
  EventTimer(const EventTimer &) = delete;
  EventTimer &operator=(const EventTimer &) = delete;
  ~EventTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }

  /// kWarmups untimed calls of launch(call), then reps() timed ones; the median in ms.
  template <class Launch> float median_ms(Launch &&launch) {
    int call = 0;
    for (; call < kWarmups; ++call)
      launch(call);
    CHECK(cudaDeviceSynchronize());
    std::vector<float> times;
    for (int r = 0; r < reps(); ++r, ++call) {
      CHECK(cudaEventRecord(start_));
      launch(call);
      CHECK(cudaEventRecord(stop_));
      CHECK(cudaEventSynchronize(stop_));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, start_, stop_));
      times.push_back(ms);
    }
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    return median(times);
  }
};

/// Device memory of n T's, freed with the object.
template <class T> struct DeviceArray {
  T *ptr = nullptr;
  std::size_t n = 0;
  explicit DeviceArray(std::size_t count) : n(count) { CHECK(cudaMalloc(&ptr, count * sizeof(T))); }
  DeviceArray(const std::vector<T> &host) : DeviceArray(host.size()) { upload(host); }
  DeviceArray(const DeviceArray &) = delete;
  DeviceArray &operator=(const DeviceArray &) = delete;
  ~DeviceArray() { cudaFree(ptr); }
  void upload(const std::vector<T> &host) {
    CHECK(cudaMemcpy(ptr, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> host(n);
    CHECK(cudaMemcpy(host.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
  void poison() { CHECK(cudaMemset(ptr, 0xff, n * sizeof(T))); } // all-ones bytes: NaN / max
  void zero() { CHECK(cudaMemset(ptr, 0, n * sizeof(T))); }
};

inline int sm_count() {
  int device = 0, sms = 0;
  CHECK(cudaGetDevice(&device));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

/// Device-to-device copy bandwidth (cudaMemcpyAsync) of `floats` floats.
inline void report_memcpy(EventTimer &timer, std::size_t floats) {
  DeviceArray<float> src(floats), dst(floats);
  src.zero();
  const float ms = timer.median_ms([&](int) {
    CHECK(cudaMemcpyAsync(dst.ptr, src.ptr, floats * sizeof(float), cudaMemcpyDeviceToDevice));
  });
  report("memcpy_d2d", std::to_string(floats), "bytes", 2.0 * floats * sizeof(float), ms, true, "cuda");
}

} // namespace bench
