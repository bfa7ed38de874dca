// The CUDA C++ twin of scatter_oxide.cpp: out[dest[i]] = in[i], the textbook scatter, compiled by
// nvcc -O3 -arch=sm_90, timed and checked the same way (bench_cuda.cuh). The same kernel gives
// the rows of both Oxide forms (claims and permutation): CUDA has one way to write it.
#include "bench_cuda.cuh"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>

constexpr unsigned kBlock = 256;

__global__ void scatter(const float *__restrict__ in, const uint32_t *__restrict__ dest,
                        float *__restrict__ out, size_t n) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n)
    out[dest[i]] = in[i];
}

int main(int argc, char **argv) {
  const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : size_t{1} << 26;
  bench::EventTimer timer;
  const std::vector<float> hin = bench::uniform_vector(1, n);
  std::vector<uint32_t> random(n), identity(n);
  std::iota(identity.begin(), identity.end(), 0u);
  random = identity;
  std::shuffle(random.begin(), random.end(), std::mt19937_64(42));
  const std::string size = std::to_string(n);
  const double bytes = 3.0 * n * sizeof(float);
  const unsigned blocks = unsigned((n + kBlock - 1) / kBlock);
  bench::DeviceArray<float> in(hin), out(n);
  for (const auto &[pattern, dest] : {std::pair{"random", &random}, std::pair{"sorted", &identity}}) {
    bench::DeviceArray<uint32_t> d(*dest);
    for (const char *form : {"scatter_", "scatter_perm_"}) {
      const std::string name = std::string(form) + pattern;
      out.poison();
      const float ms = timer.median_ms([&](int) { scatter<<<blocks, kBlock>>>(in.ptr, d.ptr, out.ptr, n); });
      const std::vector<float> got = out.download();
      size_t bad = 0;
      for (size_t i = 0; i < n; ++i)
        if (got[(*dest)[i]] != hin[i] && bad++ < 3)
          bench::mismatch(name.c_str(), (*dest)[i], got[(*dest)[i]], hin[i]);
      bench::report(name.c_str(), size, "bytes", bytes, ms, bad == 0, "cuda");
    }
  }
  return 0;
}
