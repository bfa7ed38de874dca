// The CUDA C++ twin of sgemm_oxide.cpp: C = A * B for n x n row-major floats, 128 x 128 block
// tiles stepping 8 along k, 256 threads each computing an 8 x 8 tile of C in registers. A's tile
// is stored transposed in shared memory; A and B are read with float4 loads, C written with
// float4 stores. n must be a multiple of 128. sgemm_128x8: the double-buffered form, blocks of
// 16 x 16.
#include "bench_cuda.cuh"

#include <cstdint>
#include <cstdio>

constexpr unsigned kBM = 128, kBN = 128, kBK = 8, kTM = 8, kTN = 8, kThreads = 256;
constexpr unsigned kOneBlockShared = 160 * 1024; // sgemm_1blk: one block per SM

__global__ void __launch_bounds__(kThreads)
    sgemm(unsigned n, const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c) {
  __shared__ float as[kBK * kBM]; // as[k][m]: A's tile transposed
  __shared__ float bs[kBK * kBN]; // bs[k][n]
  const unsigned t = threadIdx.x, tr = t / (kBN / kTN), tc = t % (kBN / kTN);
  const unsigned row0 = blockIdx.y * kBM, col0 = blockIdx.x * kBN;
  const unsigned a_row = t / 2, a_col = (t % 2) * 4;   // A's tile: 128 rows of 8, a float4 each
  const unsigned b_row = t / 32, b_col = (t % 32) * 4; // B's tile: 8 rows of 128
  float acc[kTM][kTN] = {};
  for (unsigned k0 = 0; k0 < n; k0 += kBK) {
    const float4 av = *reinterpret_cast<const float4 *>(&a[size_t(row0 + a_row) * n + k0 + a_col]);
    as[(a_col + 0) * kBM + a_row] = av.x;
    as[(a_col + 1) * kBM + a_row] = av.y;
    as[(a_col + 2) * kBM + a_row] = av.z;
    as[(a_col + 3) * kBM + a_row] = av.w;
    const float4 bv = *reinterpret_cast<const float4 *>(&b[size_t(k0 + b_row) * n + col0 + b_col]);
    bs[b_row * kBN + b_col + 0] = bv.x;
    bs[b_row * kBN + b_col + 1] = bv.y;
    bs[b_row * kBN + b_col + 2] = bv.z;
    bs[b_row * kBN + b_col + 3] = bv.w;
    __syncthreads();
#pragma unroll
    for (unsigned k = 0; k < kBK; ++k) {
      float rm[kTM], rn[kTN];
#pragma unroll
      for (unsigned i = 0; i < kTM; ++i)
        rm[i] = as[k * kBM + tr * kTM + i];
#pragma unroll
      for (unsigned j = 0; j < kTN; ++j)
        rn[j] = bs[k * kBN + tc * kTN + j];
#pragma unroll
      for (unsigned i = 0; i < kTM; ++i)
#pragma unroll
        for (unsigned j = 0; j < kTN; ++j)
          acc[i][j] += rm[i] * rn[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (unsigned i = 0; i < kTM; ++i)
#pragma unroll
    for (unsigned j = 0; j < kTN; j += 4)
      *reinterpret_cast<float4 *>(&c[size_t(row0 + tr * kTM + i) * n + col0 + tc * kTN + j]) =
          make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
}

// sgemm_128x8: the classic "SGEMM 128 x 128 x 8" form (see sgemm_oxide.cpp): two stages of shared
// memory, A's slice transposed, fragments read as float4s, the next k-tile loaded into registers
// during the current one's FMAs, one barrier per k-tile. Blocks of 16 x 16 threads; thread (x, y)
// computes rows y * 8.. and columns x * 8.. of the block's 128 x 128 tile.
__global__ void __launch_bounds__(kThreads)
    sgemm_128x8(unsigned n, const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c) {
  __shared__ __align__(16) float as[2][kBK][kBM]; // as[stage][k][m]: A's slice transposed
  __shared__ __align__(16) float bs[2][kBK][kBN]; // bs[stage][k][n]
  const unsigned tid = threadIdx.y * 16 + threadIdx.x;
  const unsigned row0 = blockIdx.y * kBM, col0 = blockIdx.x * kBN;
  const unsigned a_row = tid / 2, a_col = (tid % 2) * 4;   // A's slice: 128 rows of 8, a float4 each
  const unsigned b_row = tid / 32, b_col = (tid % 32) * 4; // B's slice: 8 rows of 128
  const float *a_at = &a[size_t(row0 + a_row) * n + a_col], *b_at = &b[size_t(b_row) * n + col0 + b_col];
  float4 av = *reinterpret_cast<const float4 *>(a_at), bv = *reinterpret_cast<const float4 *>(b_at);
  float acc[kTM][kTN] = {};
  for (unsigned k0 = 0, stage = 0; k0 < n; k0 += kBK, stage ^= 1) {
    // This k-tile into its stage, last read two k-tiles ago (before the previous barrier).
    as[stage][a_col + 0][a_row] = av.x;
    as[stage][a_col + 1][a_row] = av.y;
    as[stage][a_col + 2][a_row] = av.z;
    as[stage][a_col + 3][a_row] = av.w;
    *reinterpret_cast<float4 *>(&bs[stage][b_row][b_col]) = bv;
    __syncthreads();
    if (k0 + kBK < n) { // the next k-tile, into registers during this one's FMAs
      av = *reinterpret_cast<const float4 *>(a_at + k0 + kBK);
      bv = *reinterpret_cast<const float4 *>(b_at + size_t(k0 + kBK) * n);
    }
#pragma unroll
    for (unsigned k = 0; k < kBK; ++k) {
      const float4 a0 = *reinterpret_cast<const float4 *>(&as[stage][k][threadIdx.y * kTM]);
      const float4 a1 = *reinterpret_cast<const float4 *>(&as[stage][k][threadIdx.y * kTM + 4]);
      const float4 b0 = *reinterpret_cast<const float4 *>(&bs[stage][k][threadIdx.x * kTN]);
      const float4 b1 = *reinterpret_cast<const float4 *>(&bs[stage][k][threadIdx.x * kTN + 4]);
      const float fa[kTM] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float fb[kTN] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (unsigned i = 0; i < kTM; ++i)
#pragma unroll
        for (unsigned j = 0; j < kTN; ++j)
          acc[i][j] += fa[i] * fb[j];
    }
  }
  const unsigned row = row0 + threadIdx.y * kTM, col = col0 + threadIdx.x * kTN;
#pragma unroll
  for (unsigned i = 0; i < kTM; ++i)
#pragma unroll
    for (unsigned j = 0; j < kTN; j += 4)
      *reinterpret_cast<float4 *>(&c[size_t(row + i) * n + col + j]) =
          make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
}

int main(int argc, char **argv) {
  std::vector<unsigned> sizes;
  for (int arg = 1; arg < argc; ++arg)
    sizes.push_back(unsigned(std::atoi(argv[arg])));
  if (sizes.empty())
    sizes = {4096, 8192};
  bench::EventTimer timer;
  for (const unsigned n : sizes) {
    const size_t nn = size_t(n) * n;
    const std::vector<float> ha = bench::uniform_vector(8, nn), hb = bench::uniform_vector(9, nn);
    bench::DeviceArray<float> a(ha), b(hb), c(nn);
    const dim3 grid(n / kBN, n / kBM);
    // sgemm_unsafe is an Oxide-only variant (see sgemm_oxide.cpp): its twin is this kernel.
    // sgemm_1blk adds 160 KiB of unused dynamic shared memory: one block per SM, as on the Oxide side.
    CHECK(cudaFuncSetAttribute(sgemm, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kOneBlockShared)));
    for (const char *name : {"sgemm", "sgemm_unsafe", "sgemm_1blk"}) {
      const unsigned shared = std::string(name) == "sgemm_1blk" ? kOneBlockShared : 0;
      c.poison();
      const float ms =
          timer.median_ms([&](int) { sgemm<<<grid, kThreads, shared>>>(n, a.ptr, b.ptr, c.ptr); });
      const bool ok = bench::check_gemm(name, c.download(), ha, hb, n);
      bench::report(name, bench::dims(n, n), "flops", 2.0 * n * n * double(n), ms, ok, "cuda");
    }
    c.poison();
    const float ms =
        timer.median_ms([&](int) { sgemm_128x8<<<grid, dim3(16, 16)>>>(n, a.ptr, b.ptr, c.ptr); });
    const bool ok = bench::check_gemm("sgemm_128x8", c.download(), ha, hb, n);
    bench::report("sgemm_128x8", bench::dims(n, n), "flops", 2.0 * n * n * double(n), ms, ok, "cuda");
  }
  return 0;
}
