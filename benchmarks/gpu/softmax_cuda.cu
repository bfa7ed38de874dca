// The CUDA C++ twin of softmax_oxide.cpp: a block of 1024 threads per row of 1024 floats, one
// element per thread, block-wide max and sum (bench::block_all_reduce), expf and IEEE division;
// and issue 41's held-out forms, a block of 1024 per row looping over its columns: two passes
// (softmax_block1024) or online softmax, one pass of (max, rescaled sum) pairs (softmax_online1024).
#include "bench_cuda.cuh"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>

constexpr unsigned kCols = 1024;
constexpr unsigned kBlock = 1024;

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

// Two passes over the row (max, then sum of exponentials), then the write; rows r, r + blocks...
__global__ void __launch_bounds__(kBlock)
    softmax_block1024(unsigned rows, unsigned cols, const float *__restrict__ inp, float *__restrict__ out) {
  const unsigned t = threadIdx.x;
  for (unsigned r = blockIdx.x; r < rows; r += gridDim.x) {
    const size_t row = size_t(r) * cols;
    float m = -INFINITY;
    for (unsigned c = t; c < cols; c += kBlock) {
      const float x = inp[row + c];
      m = m < x ? x : m;
    }
    const float row_max = bench::block_all_reduce<kBlock>(m, bench::Max{}, -INFINITY);
    float sum = 0.0f;
    for (unsigned c = t; c < cols; c += kBlock)
      sum += expf(inp[row + c] - row_max);
    const float scale = 1.0f / bench::block_all_reduce<kBlock>(sum, bench::Add{}, 0.0f);
    for (unsigned c = t; c < cols; c += kBlock)
      out[row + c] = expf(inp[row + c] - row_max) * scale;
  }
}

// A running (maximum, sum of exp(x - maximum)) pair; the empty pair's maximum is the lowest finite
// float, so two empty pairs combine to 0, not NaN.
struct MaxSum {
  float max, sum;
};

__device__ MaxSum combine(MaxSum a, MaxSum b) {
  const float m = a.max < b.max ? b.max : a.max;
  return {m, a.sum * expf(a.max - m) + b.sum * expf(b.max - m)};
}

__device__ MaxSum warp_combine(MaxSum v) {
  for (unsigned offset = 16; offset > 0; offset /= 2)
    v = combine(v,
                {__shfl_xor_sync(0xffffffffu, v.max, offset), __shfl_xor_sync(0xffffffffu, v.sum, offset)});
  return v;
}

/// bench::block_all_reduce for MaxSum pairs, in every thread. Two barriers.
__device__ MaxSum block_all_combine(MaxSum v) {
  constexpr unsigned kWarps = kBlock / 32;
  __shared__ MaxSum partial[kWarps];
  __shared__ MaxSum result;
  const unsigned t = threadIdx.x;
  v = warp_combine(v);
  if (t % 32 == 0)
    partial[t / 32] = v;
  __syncthreads();
  if (t < 32) {
    const MaxSum all = warp_combine(t < kWarps ? partial[t] : MaxSum{-FLT_MAX, 0.0f});
    if (t == 0)
      result = all;
  }
  __syncthreads();
  return result;
}

// Online softmax: a running (max, rescaled sum) per thread in one pass, one block reduction of
// the pairs, then the write.
__global__ void __launch_bounds__(kBlock)
    softmax_online1024(unsigned rows, unsigned cols, const float *__restrict__ inp, float *__restrict__ out) {
  const unsigned t = threadIdx.x;
  for (unsigned r = blockIdx.x; r < rows; r += gridDim.x) {
    const size_t row = size_t(r) * cols;
    MaxSum run{-FLT_MAX, 0.0f};
    for (unsigned c = t; c < cols; c += kBlock) {
      const float x = inp[row + c];
      const float m = run.max < x ? x : run.max;
      run = {m, run.sum * expf(run.max - m) + expf(x - m)};
    }
    const MaxSum all = block_all_combine(run);
    const float scale = 1.0f / all.sum;
    for (unsigned c = t; c < cols; c += kBlock)
      out[row + c] = expf(inp[row + c] - all.max) * scale;
  }
}

int main(int argc, char **argv) {
  const size_t rows = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 262144, n = rows * kCols;
  bench::EventTimer timer;
  std::vector<float> host = bench::uniform_vector(6, n);
  for (float &x : host)
    x *= 8.0f;
  bench::DeviceArray<float> in(host), out(n);
  auto run = [&](const char *name, auto &&launch) {
    out.poison();
    const float ms = timer.median_ms([&](int) { launch(); });
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
          bench::mismatch(name, r * kCols + c, got[r * kCols + c], want);
      }
    }
    bench::report(name, bench::dims(rows, kCols), "bytes", 2.0 * n * sizeof(float), ms, bad == 0, "cuda");
  };
  run("softmax", [&] { softmax<<<unsigned(rows), kCols>>>(in.ptr, out.ptr, n); });
  run("softmax_block1024",
      [&] { softmax_block1024<<<unsigned(rows), kBlock>>>(unsigned(rows), kCols, in.ptr, out.ptr); });
  run("softmax_online1024",
      [&] { softmax_online1024<<<unsigned(rows), kBlock>>>(unsigned(rows), kCols, in.ptr, out.ptr); });
  return 0;
}
