// The CUDA C++ twin of layernorm_oxide.cpp: the same three launch shapes (a block of 1024 or
// 512 threads per row with block reductions in shared memory, or a warp per row with shuffles),
// the same two passes over the row and the same normalised write.
#include "bench_cuda.cuh"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

constexpr unsigned kCols = 4096;
constexpr float kEps = 1e-5f;

template <unsigned kBlock>
__global__ void __launch_bounds__(kBlock)
    layernorm_block(unsigned rows, unsigned cols, const float *__restrict__ inp,
                    const float *__restrict__ weight, const float *__restrict__ bias, float *__restrict__ out,
                    float *__restrict__ mean, float *__restrict__ rstd) {
  const unsigned t = threadIdx.x;
  for (unsigned r = blockIdx.x; r < rows; r += gridDim.x) {
    const size_t row = size_t(r) * cols;
    float sum = 0.0f;
    for (unsigned c = t; c < cols; c += kBlock)
      sum += inp[row + c];
    const float m = bench::block_all_reduce<kBlock>(sum, bench::Add{}, 0.0f) / float(cols);
    float squares = 0.0f;
    for (unsigned c = t; c < cols; c += kBlock) {
      const float d = inp[row + c] - m;
      squares += d * d;
    }
    const float s =
        1.0f / sqrtf(bench::block_all_reduce<kBlock>(squares, bench::Add{}, 0.0f) / float(cols) + kEps);
    if (t == 0) {
      mean[r] = m;
      rstd[r] = s;
    }
    for (unsigned c = t; c < cols; c += kBlock)
      out[row + c] = (inp[row + c] - m) * s * weight[c] + bias[c];
  }
}

__global__ void __launch_bounds__(256)
    layernorm_warp(unsigned rows, unsigned cols, const float *__restrict__ inp,
                   const float *__restrict__ weight, const float *__restrict__ bias, float *__restrict__ out,
                   float *__restrict__ mean, float *__restrict__ rstd) {
  const unsigned lane = threadIdx.x % 32;
  const unsigned warps = gridDim.x * (blockDim.x / 32);
  for (unsigned r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; r < rows; r += warps) {
    const size_t row = size_t(r) * cols;
    float sum = 0.0f;
    for (unsigned c = lane; c < cols; c += 32)
      sum += inp[row + c];
    const float m = bench::warp_reduce(sum, bench::Add{}) / float(cols);
    float squares = 0.0f;
    for (unsigned c = lane; c < cols; c += 32) {
      const float d = inp[row + c] - m;
      squares += d * d;
    }
    const float s = 1.0f / sqrtf(bench::warp_reduce(squares, bench::Add{}) / float(cols) + kEps);
    if (lane == 0) {
      mean[r] = m;
      rstd[r] = s;
    }
    for (unsigned c = lane; c < cols; c += 32)
      out[row + c] = (inp[row + c] - m) * s * weight[c] + bias[c];
  }
}

int main(int argc, char **argv) {
  const unsigned rows = argc > 1 ? unsigned(std::strtoul(argv[1], nullptr, 10)) : 32768;
  const size_t n = size_t(rows) * kCols;
  bench::EventTimer timer;
  std::vector<float> host = bench::uniform_vector(11, n), weight = bench::uniform_vector(12, kCols),
                     bias = bench::uniform_vector(13, kCols);
  for (float &x : host)
    x = 3.0f + 4.0f * x;
  bench::DeviceArray<float> inp(host), d_weight(weight), d_bias(bias), out(n), mean(rows), rstd(rows);
  auto run = [&](const char *name, auto &&launch) {
    out.poison();
    mean.poison();
    rstd.poison();
    const float ms = timer.median_ms([&](int) { launch(); });
    const std::vector<float> got = out.download(), got_mean = mean.download(), got_rstd = rstd.download();
    size_t bad = 0;
    std::vector<unsigned> checked; // every 97th row and the last
    for (unsigned r = 0; r < rows; r += 97)
      checked.push_back(r);
    checked.push_back(rows - 1);
    for (const unsigned r : checked) {
      const float *x = &host[size_t(r) * kCols];
      double m = 0, v = 0;
      for (unsigned c = 0; c < kCols; ++c)
        m += x[c];
      m /= kCols;
      for (unsigned c = 0; c < kCols; ++c)
        v += (x[c] - m) * (x[c] - m);
      const double s = 1.0 / std::sqrt(v / kCols + kEps);
      if (!bench::close(got_mean[r], m, 1.0 + std::fabs(m), 1e-5, 1e-5) && bad++ < 3)
        bench::mismatch(name, r, got_mean[r], m);
      if (!bench::close(got_rstd[r], s, s, 1e-4, 1e-6) && bad++ < 3)
        bench::mismatch(name, r, got_rstd[r], s);
      for (unsigned c = 0; c < kCols; ++c) {
        const double want = (x[c] - m) * s * weight[c] + bias[c];
        const float g = got[size_t(r) * kCols + c];
        if (!bench::close(g, want, 1.0 + std::fabs(want), 1e-4, 1e-5) && bad++ < 3)
          bench::mismatch(name, size_t(r) * kCols + c, g, want);
      }
    }
    bench::report(name, bench::dims(rows, kCols), "bytes", 2.0 * n * sizeof(float), ms, bad == 0, "cuda");
  };
  run("layernorm_block1024", [&] {
    layernorm_block<1024>
        <<<rows, 1024>>>(rows, kCols, inp.ptr, d_weight.ptr, d_bias.ptr, out.ptr, mean.ptr, rstd.ptr);
  });
  run("layernorm_block512", [&] {
    layernorm_block<512>
        <<<rows, 512>>>(rows, kCols, inp.ptr, d_weight.ptr, d_bias.ptr, out.ptr, mean.ptr, rstd.ptr);
  });
  run("layernorm_warp", [&] {
    layernorm_warp<<<rows / 8, 256>>>(rows, kCols, inp.ptr, d_weight.ptr, d_bias.ptr, out.ptr, mean.ptr,
                                      rstd.ptr);
  });
  return 0;
}
