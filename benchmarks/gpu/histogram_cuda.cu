// The CUDA C++ twin of histogram_oxide.cpp: 32-bit words in a grid-stride loop, shared-memory
// bins with block-scope atomics, one device-scope atomic per bin and block into the call's slot.
#include "bench_cuda.cuh"

#include <cstdint>
#include <cstdio>
#include <string_view>

constexpr unsigned kBins = 256;
constexpr unsigned kBlock = 256;

__global__ void __launch_bounds__(256)
    histogram(const uint32_t *__restrict__ words, size_t n, uint32_t *bins, unsigned slot) {
  __shared__ uint32_t local[kBins];
  const unsigned t = threadIdx.x;
  local[t] = 0;
  __syncthreads();
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const uint32_t w = words[i];
    for (unsigned byte = 0; byte < 4; ++byte)
      atomicAdd_block(&local[(w >> (8 * byte)) & 0xff], 1u);
  }
  __syncthreads();
  if (const uint32_t count = local[t])
    atomicAdd(&bins[size_t{slot} * kBins + t], count);
}

// Twin of histogram_lanes: 32 lane-private copies of the bins, bin b of lane l at b * 32 + l,
// a rotated merge and one device-scope atomic per bin.
__global__ void __launch_bounds__(256)
    histogram_lanes(const uint32_t *__restrict__ words, size_t n, uint32_t *bins, unsigned slot) {
  __shared__ uint32_t local[kBins * 32];
  const unsigned t = threadIdx.x;
  const unsigned lane = t % 32;
  for (unsigned k = t; k < kBins * 32; k += kBlock)
    local[k] = 0;
  __syncthreads();
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const uint32_t w = words[i];
    for (unsigned byte = 0; byte < 4; ++byte)
      atomicAdd_block(&local[((w >> (8 * byte)) & 0xff) * 32 + lane], 1u);
  }
  __syncthreads();
  uint32_t count = 0;
  for (unsigned l = 0; l < 32; ++l)
    count += local[t * 32 + (l + t) % 32];
  if (count != 0)
    atomicAdd(&bins[size_t{slot} * kBins + t], count);
}

int main(int argc, char **argv) {
  const size_t bytes = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : size_t{1} << 30;
  const size_t n = bytes / 4;
  bench::EventTimer timer;
  std::vector<uint32_t> host(n);
  for (size_t i = 0; i < n; ++i)
    host[i] = uint32_t(bench::mix(i));
  std::vector<uint64_t> want(kBins, 0);
  for (uint32_t w : host)
    for (int byte = 0; byte < 4; ++byte)
      ++want[(w >> (8 * byte)) & 0xff];
  const int calls = bench::kWarmups + bench::reps();
  bench::DeviceArray<uint32_t> words(host);
  const unsigned grid = unsigned(bench::sm_count()) * 8;
  // histogram_unsafe is the Oxide unsafe-tier version (see histogram_oxide.cpp); its twin is this kernel.
  for (const char *name : {"histogram", "histogram_lanes", "histogram_unsafe"}) {
    bench::DeviceArray<uint32_t> bins(size_t{kBins} * calls);
    bins.zero();
    const bool lanes = std::string_view(name) == "histogram_lanes";
    const float ms = timer.median_ms([&](int call) {
      if (lanes)
        histogram_lanes<<<grid, kBlock>>>(words.ptr, n, bins.ptr, unsigned(call));
      else
        histogram<<<grid, kBlock>>>(words.ptr, n, bins.ptr, unsigned(call));
    });
    const std::vector<uint32_t> got = bins.download();
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i)
      if (got[i] != want[i % kBins] && bad++ < 3)
        bench::mismatch(name, i, got[i], double(want[i % kBins]));
    bench::report(name, std::to_string(n * 4), "bytes", double(n * 4), ms, bad == 0, "cuda");
  }
  return 0;
}
