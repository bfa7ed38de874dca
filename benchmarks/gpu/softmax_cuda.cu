// The CUDA C++ twin of softmax_oxide.cpp: a block of 1024 threads per row of 1024 floats, one
// element per thread, block-wide max and sum (bench::block_all_reduce), expf and IEEE division.
#include "bench_cuda.cuh"

#include <cmath>
#include <cstdint>
#include <cstdio>

constexpr unsigned kCols = 1024;

__global__ void softmax(const float *__restrict__ in, float *__restrict__ out, size_t n) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool mine = i < n;
  const float x = mine ? in[i] : -INFINITY;
  const float row_max = bench::block_all_reduce<kCols>(x, bench::Max{}, -INFINITY);
  const float e = mine ? expf(x - row_max) : 0.0f;
  const float row_sum = bench::block_all_reduce<kCols>(e, bench::Add{}, 0.0f);
  if (mine)
    out[i] = e / row_sum;
}

int main(int argc, char **argv) {
  const size_t rows = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 262144, n = rows * kCols;
  bench::EventTimer timer;
  std::vector<float> host = bench::uniform_vector(6, n);
  for (float &x : host)
    x *= 8.0f;
  bench::DeviceArray<float> in(host), out(n);
  out.poison();
  const float ms = timer.median_ms([&](int) { softmax<<<unsigned(rows), kCols>>>(in.ptr, out.ptr, n); });
  const std::vector<float> got = out.download();
  size_t bad = 0;
  std::vector<size_t> checked; // every 61st row and the last
  for (size_t r = 0; r < rows; r += 61)
    checked.push_back(r);
  checked.push_back(rows - 1);
  for (const size_t r : checked) {
    const float *x = &host[r * kCols];
    const double m = *std::max_element(x, x + kCols);
    double sum = 0;
    for (unsigned c = 0; c < kCols; ++c)
      sum += std::exp(x[c] - m);
    for (unsigned c = 0; c < kCols; ++c) {
      const double want = std::exp(x[c] - m) / sum;
      if (!bench::close(got[r * kCols + c], want, want, 1e-5, 1e-9) && bad++ < 3)
        bench::mismatch("softmax", r * kCols + c, got[r * kCols + c], want);
    }
  }
  bench::report("softmax", bench::dims(rows, kCols), "bytes", 2.0 * n * sizeof(float), ms, bad == 0, "cuda");
  return 0;
}
