// The CUDA C++ twin of reduce_oxide.cpp: grid-stride sums, bench::block_sum, one atomicAdd per
// block into the call's own slot.
#include "bench_cuda.cuh"

#include <cstdint>
#include <cstdio>

constexpr unsigned kBlock = 256;

__global__ void __launch_bounds__(256)
    reduce_sum(const float *__restrict__ in, size_t n, float *sums, unsigned slot) {
  float v = 0.0f;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    v += in[i];
  v = bench::block_sum<kBlock>(v);
  if (threadIdx.x == 0)
    atomicAdd(&sums[slot], v);
}

__global__ void __launch_bounds__(256)
    reduce_sum_f4(const float4 *__restrict__ in, size_t n4, float *sums, unsigned slot) {
  float v = 0.0f;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n4;
       i += size_t(gridDim.x) * blockDim.x) {
    const float4 x = in[i];
    v += (x.x + x.y) + (x.z + x.w);
  }
  v = bench::block_sum<kBlock>(v);
  if (threadIdx.x == 0)
    atomicAdd(&sums[slot], v);
}

int main(int argc, char **argv) {
  const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : size_t{1} << 28;
  bench::EventTimer timer;
  const std::vector<float> host = bench::uniform_vector(4, n);
  double want = 0, scale = 0;
  for (float x : host) {
    want += x;
    scale += std::fabs(x);
  }
  bench::DeviceArray<float> in(host);
  const unsigned grid = unsigned(bench::sm_count()) * 8;
  auto run = [&](const char *name, auto &&launch) {
    bench::DeviceArray<float> sums(bench::kWarmups + bench::reps());
    sums.zero();
    const float ms = timer.median_ms([&](int call) { launch(sums.ptr, unsigned(call)); });
    bool ok = true;
    int slot = 0;
    for (float got : sums.download()) {
      if (!bench::close(got, want, scale)) {
        if (ok)
          bench::mismatch(name, slot, got, want);
        ok = false;
      }
      ++slot;
    }
    bench::report(name, std::to_string(n), "bytes", double(n * sizeof(float)), ms, ok, "cuda");
  };
  // reduce_sum_unsafe is the Oxide unsafe-tier version (see reduce_oxide.cpp); its twin is this kernel.
  for (const char *name : {"reduce_sum", "reduce_sum_unsafe"})
    run(name, [&](float *sums, unsigned slot) { reduce_sum<<<grid, kBlock>>>(in.ptr, n, sums, slot); });
  if (n % 4 == 0)
    run("reduce_sum_f4", [&](float *sums, unsigned slot) {
      reduce_sum_f4<<<grid, kBlock>>>(reinterpret_cast<const float4 *>(in.ptr), n / 4, sums, slot);
    });
  return 0;
}
