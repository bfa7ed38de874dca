// The nvcc twin of launch_oxide's launch mode: the same two kernels (empty; c = a + b over one
// block of 32) launched with (d) the triple chevron, cudaLaunchKernel, and cuLaunchKernel on the
// CUfunction behind the runtime's kernel (cudaGetFuncBySymbol; the driver function through
// cudaGetDriverEntryPointByVersion, so the binary needs no -lcuda), on one stream.
//
// Settings: LAUNCH_N (100000), LAUNCH_BATCH (256), LAUNCH_REPS (5), LAUNCH_WARMUP (2000).
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "launch_common.hpp"

namespace lb = launchbench;

constexpr unsigned kBlock = 32;
constexpr size_t kElements = kBlock;

__global__ void empty_kernel(unsigned unused) { (void)unused; } // as launch_oxide's

__global__ void add_kernel(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c,
                           size_t n) {
  const size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

static void check(cudaError_t result, const char *what) {
  if (result == cudaSuccess)
    return;
  std::fprintf(stderr, "launch_cuda: %s failed: %s (%s)\n", what, cudaGetErrorName(result),
               cudaGetErrorString(result));
  std::exit(1);
}

static void check_driver(CUresult result, const char *what) {
  if (result == CUDA_SUCCESS)
    return;
  std::fprintf(stderr, "launch_cuda: %s failed: CUDA driver error %d\n", what, static_cast<int>(result));
  std::exit(1);
}

int main() {
  int devices = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&devices); e != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "launch_cuda: no CUDA GPU here (%s: %s); this benchmark needs one\n",
                 e == cudaSuccess ? "cudaGetDeviceCount" : cudaGetErrorName(e),
                 e == cudaSuccess ? "0 devices" : cudaGetErrorString(e));
    return 2;
  }
  check(cudaSetDevice(0), "cudaSetDevice");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  lb::print_device("cuda", "gpu", prop.name);
  const lb::Settings s = lb::settings(100000);

  cudaStream_t stream = nullptr;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  std::vector<float> ha(kElements), hb(kElements), hc(kElements);
  for (size_t i = 0; i < kElements; ++i) {
    ha[i] = static_cast<float>(i);
    hb[i] = 0.5f * static_cast<float>(i);
  }
  float *a = nullptr, *b = nullptr, *c = nullptr;
  check(cudaMalloc(&a, kElements * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(&b, kElements * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(&c, kElements * sizeof(float)), "cudaMalloc");
  check(cudaMemcpy(a, ha.data(), kElements * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
  check(cudaMemcpy(b, hb.data(), kElements * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
  check(cudaMemset(c, 0, kElements * sizeof(float)), "cudaMemset");

  // The driver-API twin: the CUfunction the runtime launches, and cuLaunchKernel itself.
  cudaFunction_t empty_function = nullptr, add_function = nullptr;
  check(cudaGetFuncBySymbol(&empty_function, reinterpret_cast<const void *>(empty_kernel)),
        "cudaGetFuncBySymbol");
  check(cudaGetFuncBySymbol(&add_function, reinterpret_cast<const void *>(add_kernel)),
        "cudaGetFuncBySymbol");
  void *entry = nullptr;
  cudaDriverEntryPointQueryResult found{};
  check(cudaGetDriverEntryPointByVersion("cuLaunchKernel", &entry, 12000, cudaEnableDefault, &found),
        "cudaGetDriverEntryPointByVersion(cuLaunchKernel)");
  if (found != cudaDriverEntryPointSuccess || !entry) {
    std::fprintf(stderr, "launch_cuda: the driver has no cuLaunchKernel\n");
    return 1;
  }
  const auto cu_launch = reinterpret_cast<decltype(&::cuLaunchKernel)>(entry);
  size_t n = kElements;
  void *args[] = {&a, &b, &c, &n};
  unsigned unused = 7;
  void *empty_args[] = {&unused};

  auto sync = [&] { check(cudaStreamSynchronize(stream), "cudaStreamSynchronize"); };
  const dim3 grid(1), block(kBlock);
  struct Variant {
    const char *variant;
    const char *kernel;
  };
  static const Variant variants[] = {{"cuda_chevron", "empty"},        {"cudaLaunchKernel", "empty"},
                                     {"cuda_cuLaunchKernel", "empty"}, {"cuda_chevron", "add3"},
                                     {"cudaLaunchKernel", "add3"},     {"cuda_cuLaunchKernel", "add3"}};
  constexpr size_t kVariants = sizeof variants / sizeof variants[0];
  auto run = [&](size_t v, bool warm) -> lb::Sample {
    auto go = [&](auto &&launch) {
      if (warm) {
        lb::warm_up(s, launch, sync);
        return lb::Sample{};
      }
      return lb::measure(s, launch, sync);
    };
    switch (v) {
    case 0:
      return go([&] { empty_kernel<<<grid, block, 0, stream>>>(unused); });
    case 1:
      return go([&] {
        check(cudaLaunchKernel(empty_kernel, grid, block, empty_args, 0, stream), "cudaLaunchKernel");
      });
    case 2:
      return go([&] {
        check_driver(cu_launch(reinterpret_cast<CUfunction>(empty_function), 1, 1, 1, kBlock, 1, 1, 0,
                               reinterpret_cast<CUstream>(stream), empty_args, nullptr),
                     "cuLaunchKernel");
      });
    case 3:
      return go([&] { add_kernel<<<grid, block, 0, stream>>>(a, b, c, n); });
    case 4:
      return go(
          [&] { check(cudaLaunchKernel(add_kernel, grid, block, args, 0, stream), "cudaLaunchKernel"); });
    default:
      return go([&] {
        check_driver(cu_launch(reinterpret_cast<CUfunction>(add_function), 1, 1, 1, kBlock, 1, 1, 0,
                               reinterpret_cast<CUstream>(stream), args, nullptr),
                     "cuLaunchKernel");
      });
    }
  };
  for (size_t v = 0; v < kVariants; ++v)
    run(v, true);
  check(cudaGetLastError(), "kernel launch");
  for (long rep = 0; rep < s.reps; ++rep)
    for (size_t k = 0; k < kVariants; ++k) {
      const size_t v = (k + static_cast<size_t>(rep)) % kVariants;
      lb::print_launch("cuda", "gpu", variants[v].variant, variants[v].kernel, rep, s, run(v, false));
    }
  check(cudaGetLastError(), "kernel launch");

  check(cudaMemcpy(hc.data(), c, kElements * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
  for (size_t i = 0; i < kElements; ++i)
    if (hc[i] != ha[i] + hb[i]) {
      std::fprintf(stderr, "launch_cuda: FAIL: c[%zu] = %g, expected %g\n", i, hc[i], ha[i] + hb[i]);
      return 1;
    }
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  cudaStreamDestroy(stream);
  return 0;
}
