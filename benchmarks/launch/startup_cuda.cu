// Process start to first kernel done, nvcc side: the twin of startup_oxide.cpp (2^20 floats, three
// buffers, one launch of 256-thread blocks, a synchronize, the copy back and the check), with
// the same RESULT line. The CUDA runtime creates its context at cudaFree(0) (the "context" phase).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "launch_common.hpp"

namespace lb = launchbench;

__global__ void vecadd(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c,
                       size_t n) {
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

static void check(cudaError_t result, const char *what) {
  if (result == cudaSuccess)
    return;
  const bool no_gpu = result == cudaErrorNoDevice || result == cudaErrorInsufficientDriver;
  std::fprintf(stderr, "startup_cuda: %s failed: %s (%s)%s\n", what, cudaGetErrorName(result),
               cudaGetErrorString(result), no_gpu ? "; this benchmark needs a CUDA GPU" : "");
  std::exit(no_gpu ? 2 : 1);
}

int main() {
  const long long t_main = lb::monotonic_ns();
  const size_t n = static_cast<size_t>(lb::env_long("STARTUP_ELEMENTS", 1 << 20));
  std::vector<float> ha(n), hb(n), hc(n);
  for (size_t i = 0; i < n; ++i) {
    ha[i] = static_cast<float>(i % 1000);
    hb[i] = 0.25f * static_cast<float>(i % 777);
  }

  check(cudaSetDevice(0), "cudaSetDevice");
  check(cudaFree(nullptr), "cudaFree(0) (context creation)");
  const long long t_context = lb::monotonic_ns();
  float *a = nullptr, *b = nullptr, *c = nullptr;
  check(cudaMalloc(&a, n * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(&b, n * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(&c, n * sizeof(float)), "cudaMalloc");
  check(cudaMemcpy(a, ha.data(), n * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
  check(cudaMemcpy(b, hb.data(), n * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
  check(cudaMemset(c, 0, n * sizeof(float)), "cudaMemset");
  const long long t_buffers = lb::monotonic_ns();
  const long long t_prepare = t_buffers; // nothing to prepare: the module loads at the first launch
  vecadd<<<static_cast<unsigned>((n + 255) / 256), 256>>>(a, b, c, n);
  check(cudaGetLastError(), "vecadd launch");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  const long long t_done = lb::monotonic_ns();

  check(cudaMemcpy(hc.data(), c, n * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
  for (size_t i = 0; i < n; ++i)
    if (hc[i] != ha[i] + hb[i]) {
      std::fprintf(stderr, "startup_cuda: FAIL: c[%zu] = %g, expected %g\n", i, hc[i], ha[i] + hb[i]);
      return 1;
    }
  std::printf("RESULT section=startup side=cuda backend=gpu main_ns=%lld done_ns=%lld context_us=%.1f "
              "buffers_us=%.1f prepare_us=%.1f launch_sync_us=%.1f\n",
              t_main, t_done, (t_context - t_main) / 1e3, (t_buffers - t_context) / 1e3,
              (t_prepare - t_buffers) / 1e3, (t_done - t_prepare) / 1e3);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  return 0;
}
