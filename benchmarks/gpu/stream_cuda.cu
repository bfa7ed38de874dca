// The CUDA C++ twin of stream_oxide.cpp: the same kernels and launch shapes, compiled by
// nvcc -O3 -arch=sm_90, timed the same way (events, 3 warm-ups, median of the repetitions).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <vector>

constexpr float kScalar = 0.4f;

__global__ void copy(const float *__restrict__ a, float *__restrict__ c, size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i];
}
__global__ void mul(const float *__restrict__ c, float *__restrict__ b, size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n)
    b[i] = kScalar * c[i];
}
__global__ void add(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c, size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}
__global__ void triad(const float *__restrict__ b, const float *__restrict__ c, float *__restrict__ a, size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = b[i] + kScalar * c[i];
}
__global__ void copy_gs(const float *__restrict__ a, float *__restrict__ c, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    c[i] = a[i];
}
__global__ void triad_gs(const float *__restrict__ b, const float *__restrict__ c, float *__restrict__ a, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    a[i] = b[i] + kScalar * c[i];
}

#define CHECK(call)                                                                                          \
  do {                                                                                                       \
    cudaError_t err = (call);                                                                                \
    if (err != cudaSuccess) {                                                                                \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(err));                                      \
      std::exit(1);                                                                                          \
    }                                                                                                        \
  } while (0)

int main(int argc, char **argv) {
  const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : size_t{1} << 27;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 20;
  std::mt19937 rng(12345);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> ha(n), hb(n), hc(n);
  for (size_t i = 0; i < n; ++i) {
    ha[i] = dist(rng);
    hb[i] = dist(rng);
    hc[i] = dist(rng);
  }
  float *a, *b, *c, *out;
  CHECK(cudaMalloc(&a, n * 4));
  CHECK(cudaMalloc(&b, n * 4));
  CHECK(cudaMalloc(&c, n * 4));
  CHECK(cudaMalloc(&out, n * 4));
  CHECK(cudaMemcpy(a, ha.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b, hb.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(c, hc.data(), n * 4, cudaMemcpyHostToDevice));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  const unsigned blocks = unsigned((n + 255) / 256), gs_blocks = 132 * 8;
  const size_t bytes2 = 2 * n * 4, bytes3 = 3 * n * 4;

  auto report = [&](const char *name, size_t bytes, const std::function<void()> &launch, float *result,
                    const std::function<float(size_t)> &ref) {
    for (int w = 0; w < 3; ++w)
      launch();
    CHECK(cudaDeviceSynchronize());
    std::vector<float> times;
    for (int r = 0; r < reps; ++r) {
      CHECK(cudaEventRecord(start));
      launch();
      CHECK(cudaEventRecord(stop));
      CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, start, stop));
      times.push_back(ms);
    }
    CHECK(cudaGetLastError());
    std::sort(times.begin(), times.end());
    std::vector<float> got(n);
    CHECK(cudaMemcpy(got.data(), result, n * 4, cudaMemcpyDeviceToHost));
    bool ok = !std::isnan(got[n - 1]);
    for (size_t i = 0; i < n; i += 997)
      ok = ok && std::fabs(got[i] - ref(i)) <= 1e-6f * (1 + std::fabs(ref(i)));
    std::printf("RESULT %s %zu %.5f %s\n", name, bytes, times[times.size() / 2], ok ? "ok" : "FAIL");
    std::fflush(stdout);
  };
  auto poison = [&](float *p) { CHECK(cudaMemset(p, 0xff, n * 4)); }; // all-ones bits: NaN

  poison(c);
  report("copy", bytes2, [&] { copy<<<blocks, 256>>>(a, c, n); }, c, [&](size_t i) { return ha[i]; });
  poison(c);
  report("copy_gridstride", bytes2, [&] { copy_gs<<<gs_blocks, 256>>>(a, c, n); }, c, [&](size_t i) { return ha[i]; });
  poison(b);
  report("mul", bytes2, [&] { mul<<<blocks, 256>>>(c, b, n); }, b, [&](size_t i) { return kScalar * ha[i]; });
  CHECK(cudaMemcpy(b, hb.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(c, hc.data(), n * 4, cudaMemcpyHostToDevice));
  poison(out);
  report("add", bytes3, [&] { add<<<blocks, 256>>>(a, b, out, n); }, out, [&](size_t i) { return ha[i] + hb[i]; });
  poison(a);
  report("triad", bytes3, [&] { triad<<<blocks, 256>>>(b, c, a, n); }, a,
         [&](size_t i) { return hb[i] + kScalar * hc[i]; });
  poison(a);
  report("triad_gridstride", bytes3, [&] { triad_gs<<<gs_blocks, 256>>>(b, c, a, n); }, a,
         [&](size_t i) { return hb[i] + kScalar * hc[i]; });
  return 0;
}
