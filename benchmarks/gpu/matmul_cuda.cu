// Twin of matmul_oxide.cpp: the textbook naive and 16 x 16 tiled matrix products, as CUDA
// tutorials write them (`int` indices; matmul_naive_u32 with unsigned ones), unchecked.
#include "bench_cuda.cuh"

#include <vector>

constexpr int kTile = 16;

__global__ void matmul_naive(int n, const float *a, const float *b, float *c) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = 0.0f;
  for (int k = 0; k < n; ++k)
    sum += a[row * n + k] * b[k * n + col];
  c[row * n + col] = sum;
}

__global__ void matmul_naive_u32(unsigned n, const float *a, const float *b, float *c) {
  const unsigned row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = 0.0f;
  for (unsigned k = 0; k < n; ++k)
    sum += a[size_t(row) * n + k] * b[size_t(k) * n + col];
  c[size_t(row) * n + col] = sum;
}

__global__ void matmul_tiled(int n, const float *a, const float *b, float *c) {
  __shared__ float as[kTile * kTile], bs[kTile * kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty, col = blockIdx.x * kTile + tx;
  float sum = 0.0f;
  for (int k0 = 0; k0 < n; k0 += kTile) {
    as[ty * kTile + tx] = a[row * n + k0 + tx];
    bs[ty * kTile + tx] = b[(k0 + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < kTile; ++k)
      sum += as[ty * kTile + k] * bs[k * kTile + tx];
    __syncthreads();
  }
  c[row * n + col] = sum;
}

int main(int argc, char **argv) {
  std::vector<unsigned> sizes;
  for (int arg = 1; arg < argc; ++arg)
    sizes.push_back(unsigned(std::atoi(argv[arg])));
  if (sizes.empty())
    sizes = {2048, 4096};
  bench::EventTimer timer;
  for (const unsigned n : sizes) {
    const size_t nn = size_t(n) * n;
    const std::vector<float> ha = bench::uniform_vector(8, nn), hb = bench::uniform_vector(9, nn);
    bench::DeviceArray<float> a(ha), b(hb), c(nn);
    const dim3 grid(n / kTile, n / kTile), block(kTile, kTile);
    const double flops = 2.0 * n * n * double(n);
    auto run = [&](const char *name, auto &&launch) {
      c.poison();
      const float ms = timer.median_ms([&](int) { launch(); });
      bench::report(name, bench::dims(n, n), "flops", flops, ms,
                    bench::check_gemm(name, c.download(), ha, hb, n), "cuda");
    };
    run("matmul_naive", [&] { matmul_naive<<<grid, block>>>(int(n), a.ptr, b.ptr, c.ptr); });
    run("matmul_naive_u32", [&] { matmul_naive_u32<<<grid, block>>>(n, a.ptr, b.ptr, c.ptr); });
    run("matmul_tiled", [&] { matmul_tiled<<<grid, block>>>(int(n), a.ptr, b.ptr, c.ptr); });
  }
  return 0;
}
