// A probe, not part of the A/B suite: which launch shapes of a float4 copy and triad move the
// most bytes on the GPU (CUDA C++ only, arrays of 512 MiB as in stream_*), against
// cudaMemcpy's device-to-device copy. It chose the suite's copy_f4_flat / triad_f4_flat: one
// float4 per thread beats every grid-stride shape and cudaMemcpy on the H200
// (results/session4/stream_shapes.txt).
//
//   nvcc -O3 -arch=sm_90 benchmarks/gpu/probes/stream_shapes.cu -o stream_shapes && ./stream_shapes
#include <algorithm>
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>

#define CHECK(x)                                                                                             \
  do {                                                                                                       \
    cudaError_t e = (x);                                                                                     \
    if (e != cudaSuccess) {                                                                                  \
      printf("CUDA %s line %d\n", cudaGetErrorString(e), __LINE__);                                          \
      return 1;                                                                                              \
    }                                                                                                        \
  } while (0)

__global__ void copy_gs(const float4 *__restrict__ a, float4 *__restrict__ o, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    o[i] = a[i];
}
__global__ void copy_one(const float4 *__restrict__ a, float4 *__restrict__ o, size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = a[i];
}
template <int U> __global__ void copy_unroll(const float4 *__restrict__ a, float4 *__restrict__ o, size_t n) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (U - 1) * stride < n; i += U * stride) {
    float4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u)
      v[u] = a[i + u * stride];
#pragma unroll
    for (int u = 0; u < U; ++u)
      o[i + u * stride] = v[u];
  }
  for (; i < n; i += stride)
    o[i] = a[i];
}
__global__ void copy_cs(const float4 *__restrict__ a, float4 *__restrict__ o, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    __stcs(&o[i], __ldcs(&a[i]));
}
__global__ void triad_gs(const float4 *__restrict__ b, const float4 *__restrict__ c, float4 *__restrict__ o,
                         size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    float4 x = b[i], y = c[i];
    o[i] = make_float4(x.x + 0.4f * y.x, x.y + 0.4f * y.y, x.z + 0.4f * y.z, x.w + 0.4f * y.w);
  }
}
__global__ void triad_one(const float4 *__restrict__ b, const float4 *__restrict__ c, float4 *__restrict__ o,
                          size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    float4 x = b[i], y = c[i];
    o[i] = make_float4(x.x + 0.4f * y.x, x.y + 0.4f * y.y, x.z + 0.4f * y.z, x.w + 0.4f * y.w);
  }
}
template <int U>
__global__ void triad_unroll(const float4 *__restrict__ b, const float4 *__restrict__ c,
                             float4 *__restrict__ o, size_t n) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (U - 1) * stride < n; i += U * stride) {
    float4 x[U], y[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      x[u] = b[i + u * stride];
      y[u] = c[i + u * stride];
    }
#pragma unroll
    for (int u = 0; u < U; ++u)
      o[i + u * stride] = make_float4(x[u].x + 0.4f * y[u].x, x[u].y + 0.4f * y[u].y, x[u].z + 0.4f * y[u].z,
                                      x[u].w + 0.4f * y[u].w);
  }
  for (; i < n; i += stride) {
    float4 x = b[i], y = c[i];
    o[i] = make_float4(x.x + 0.4f * y.x, x.y + 0.4f * y.y, x.z + 0.4f * y.z, x.w + 0.4f * y.w);
  }
}

int main() {
  const size_t n = size_t(1) << 27, n4 = n / 4; // 512 MiB per array, as the suite
  float4 *a, *b, *o;
  CHECK(cudaMalloc(&a, n * 4));
  CHECK(cudaMalloc(&b, n * 4));
  CHECK(cudaMalloc(&o, n * 4));
  CHECK(cudaMemset(a, 0, n * 4));
  CHECK(cudaMemset(b, 0, n * 4));
  int sms;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  auto time = [&](const char *name, double bytes, auto &&f) {
    for (int w = 0; w < 3; ++w)
      f();
    std::vector<float> ms;
    for (int r = 0; r < 30; ++r) {
      cudaEventRecord(e0);
      f();
      cudaEventRecord(e1);
      cudaEventSynchronize(e1);
      float t;
      cudaEventElapsedTime(&t, e0, e1);
      ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    printf("%-28s %8.1f GB/s  (%.1f%% of 4.8 TB/s)\n", name, bytes / (ms[ms.size() / 2] * 1e6),
           bytes / (ms[ms.size() / 2] * 1e6) / 48.0);
  };
  const double b2 = 2.0 * n * 4, b3 = 3.0 * n * 4;
  time("memcpy d2d", b2, [&] { cudaMemcpyAsync(o, a, n * 4, cudaMemcpyDeviceToDevice); });
  for (int k : {4, 8, 16, 32})
    for (int t : {256, 512, 1024}) {
      if (k * t > 2048 * 2 * 8 && t == 1024)
        continue;
      char name[64];
      snprintf(name, 64, "copy_gs sm*%d x%d", k, t);
      time(name, b2, [&] { copy_gs<<<sms * k, t>>>(a, o, n4); });
    }
  time("copy_one x256", b2, [&] { copy_one<<<unsigned(n4 / 256), 256>>>(a, o, n4); });
  time("copy_one x1024", b2, [&] { copy_one<<<unsigned(n4 / 1024), 1024>>>(a, o, n4); });
  for (int k : {2, 4, 8}) {
    char name[64];
    snprintf(name, 64, "copy_unroll2 sm*%d x256", k);
    time(name, b2, [&] { copy_unroll<2><<<sms * k, 256>>>(a, o, n4); });
    snprintf(name, 64, "copy_unroll4 sm*%d x256", k);
    time(name, b2, [&] { copy_unroll<4><<<sms * k, 256>>>(a, o, n4); });
  }
  time("copy_cs sm*8 x256", b2, [&] { copy_cs<<<sms * 8, 256>>>(a, o, n4); });
  for (int k : {4, 8, 16, 32}) {
    char name[64];
    snprintf(name, 64, "triad_gs sm*%d x256", k);
    time(name, b3, [&] { triad_gs<<<sms * k, 256>>>(a, b, o, n4); });
  }
  time("triad_one x256", b3, [&] { triad_one<<<unsigned(n4 / 256), 256>>>(a, b, o, n4); });
  for (int k : {2, 4, 8}) {
    char name[64];
    snprintf(name, 64, "triad_unroll2 sm*%d x256", k);
    time(name, b3, [&] { triad_unroll<2><<<sms * k, 256>>>(a, b, o, n4); });
    snprintf(name, 64, "triad_unroll4 sm*%d x256", k);
    time(name, b3, [&] { triad_unroll<4><<<sms * k, 256>>>(a, b, o, n4); });
  }
  CHECK(cudaGetLastError());
  return 0;
}
