// The CUDA C++ twin of mma_gemm_oxide.cpp: C (f32) = A * B for n x n row-major bf16 A and B on
// the tensor cores through inline PTX, the same algorithm as examples/mma_gemm.hpp with the
// benchmark's configuration: 128 x 256 block tiles stepping 64 along k in three cp.async stages
// (dynamic shared memory), one block per SM, 8 warps of 64 x 64, ldmatrix.x4 for A,
// ldmatrix.x4.trans for B, mma.sync m16n8k16, C staged through shared memory half a tile at a
// time and written as float4s. In the same run, cuBLAS (cublasGemmEx: bf16 in, f32 out, f32
// compute) on the same inputs: the reference the issue measures against (row `cublas_bf16`).
// n must be a multiple of 256.
#include "bench_cublas.cuh"
#include "bench_cuda.cuh"

#include <cuda_bf16.h>

#include <cstdint>
#include <cstdio>

constexpr unsigned kBM = 128, kBN = 256, kBK = 64, kStages = 3, kThreads = 256, kMinBlocks = 1;
constexpr unsigned kWarpsN = 4, kWM = 64, kWN = kBN / kWarpsN, kTilesM = 4, kTilesN = kWN / 8;
constexpr unsigned kStrideA = kBK + 8, kStrideB = kBN + 8, kOutRows = 64, kStrideC = kBN + 4,
                   kOwnCols = kBN / 16;

struct alignas(16) Shared {
  struct Pipeline {
    unsigned short a[kStages][kBM * kStrideA]; // bf16 bits
    unsigned short b[kStages][kBK * kStrideB];
  };
  union {
    Pipeline pipe;
    float c[kOutRows * kStrideC];
  };
};

__device__ inline unsigned shared_address(const void *p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ inline void cp_async16(void *dst, const void *src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(shared_address(dst)), "l"(src));
}
__device__ inline void cp_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ inline void cp_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }
__device__ inline void ldmatrix_x4(unsigned (&r)[4], const void *p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(p)));
}
__device__ inline void ldmatrix_x4_trans(unsigned (&r)[4], const void *p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(p)));
}
__device__ inline void mma_bf16(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ inline void load_stage(Shared &sm, unsigned s, unsigned t, unsigned row0, unsigned col0,
                                  unsigned k0, unsigned n, unsigned k, const __nv_bfloat16 *__restrict__ a,
                                  const __nv_bfloat16 *__restrict__ b) {
  constexpr unsigned kChunksA = kBK / 8, kChunksB = kBN / 8;
#pragma unroll
  for (unsigned i = t; i < kBM * kChunksA; i += kThreads) {
    const unsigned r = i / kChunksA, col = (i % kChunksA) * 8;
    cp_async16(&sm.pipe.a[s][r * kStrideA + col], a + size_t(row0 + r) * k + k0 + col);
  }
#pragma unroll
  for (unsigned i = t; i < kBK * kChunksB; i += kThreads) {
    const unsigned r = i / kChunksB, col = (i % kChunksB) * 8;
    cp_async16(&sm.pipe.b[s][r * kStrideB + col], b + size_t(k0 + r) * n + col0 + col);
  }
}

__global__ void __launch_bounds__(kThreads, kMinBlocks)
    mma_gemm(unsigned m, unsigned n, unsigned k, const __nv_bfloat16 *__restrict__ a,
             const __nv_bfloat16 *__restrict__ b, float *__restrict__ c) {
  extern __shared__ __align__(16) unsigned char dynamic_shared[];
  Shared &sm = *reinterpret_cast<Shared *>(dynamic_shared);
  const unsigned t = threadIdx.y * 16 + threadIdx.x, warp = t / 32, lane = t % 32;
  const unsigned warp_m = warp / kWarpsN, warp_n = warp % kWarpsN;
  const unsigned row0 = blockIdx.y * kBM, col0 = blockIdx.x * kBN;
  float acc[kTilesM][kTilesN][4] = {};
  const unsigned steps = k / kBK;
#pragma unroll
  for (unsigned s = 0; s + 1 < kStages; ++s) {
    if (s < steps)
      load_stage(sm, s, t, row0, col0, s * kBK, n, k, a, b);
    cp_commit();
  }
  for (unsigned step = 0; step < steps; ++step) {
    cp_wait<kStages - 2>();
    __syncthreads();
    if (const unsigned next = step + kStages - 1; next < steps)
      load_stage(sm, next % kStages, t, row0, col0, next * kBK, n, k, a, b);
    cp_commit();
    const unsigned s = step % kStages;
    const unsigned short *as = sm.pipe.a[s] + warp_m * kWM * kStrideA;
    const unsigned short *bs = sm.pipe.b[s] + warp_n * kWN;
#pragma unroll
    for (unsigned kk = 0; kk < kBK; kk += 16) {
      unsigned fa[kTilesM][4], fb[kTilesN][2];
#pragma unroll
      for (unsigned i = 0; i < kTilesM; ++i)
        ldmatrix_x4(fa[i], as + (i * 16 + lane % 16) * kStrideA + kk + (lane / 16) * 8);
#pragma unroll
      for (unsigned j = 0; j < kTilesN; j += 2) {
        unsigned r[4];
        ldmatrix_x4_trans(r, bs + (kk + lane % 16) * kStrideB + j * 8 + (lane / 16) * 8);
        fb[j][0] = r[0];
        fb[j][1] = r[1];
        fb[j + 1][0] = r[2];
        fb[j + 1][1] = r[3];
      }
#pragma unroll
      for (unsigned i = 0; i < kTilesM; ++i)
#pragma unroll
        for (unsigned j = 0; j < kTilesN; ++j)
          mma_bf16(acc[i][j], fa[i], fb[j][0], fb[j][1]);
    }
  }
  cp_wait<0>();
  __syncthreads();
  for (unsigned half = 0; half < 2; ++half) {
    if (warp_m == half) {
#pragma unroll
      for (unsigned i = 0; i < kTilesM; ++i)
#pragma unroll
        for (unsigned j = 0; j < kTilesN; ++j)
#pragma unroll
          for (unsigned e = 0; e < 4; ++e) {
            const unsigned row = lane / 4 + 8 * (e / 2), col = (lane % 4) * 2 + e % 2;
            sm.c[(i * 16 + row) * kStrideC + warp_n * kWN + j * 8 + col] = acc[i][j][e];
          }
    }
    __syncthreads();
    if (threadIdx.y * 8 / kOutRows == half) {
#pragma unroll
      for (unsigned r = 0; r < 8; ++r) {
        const float *row = &sm.c[((threadIdx.y * 8) % kOutRows + r) * kStrideC + threadIdx.x * kOwnCols];
        float *out = c + size_t(row0 + threadIdx.y * 8 + r) * n + col0 + threadIdx.x * kOwnCols;
#pragma unroll
        for (unsigned q = 0; q < kOwnCols / 4; ++q)
          reinterpret_cast<float4 *>(out)[q] =
              make_float4(row[4 * q], row[4 * q + 1], row[4 * q + 2], row[4 * q + 3]);
      }
    }
    __syncthreads();
  }
}

int main(int argc, char **argv) {
  std::vector<unsigned> sizes;
  for (int arg = 1; arg < argc; ++arg)
    sizes.push_back(unsigned(std::atoi(argv[arg])));
  if (sizes.empty())
    sizes = {4096, 8192};
  bench::EventTimer timer;
  cublasHandle_t handle;
  CHECK_CUBLAS(cublasCreate(&handle));
  for (const unsigned n : sizes) {
    const size_t nn = size_t(n) * n;
    // The Oxide side's inputs: the same floats, rounded to bf16 (to nearest even) and back.
    std::vector<float> fa = bench::uniform_vector(8, nn), fb = bench::uniform_vector(9, nn);
    std::vector<__nv_bfloat16> ha(nn), hb(nn);
    for (size_t i = 0; i < nn; ++i) {
      ha[i] = __float2bfloat16_rn(fa[i]);
      hb[i] = __float2bfloat16_rn(fb[i]);
      fa[i] = __bfloat162float(ha[i]);
      fb[i] = __bfloat162float(hb[i]);
    }
    bench::DeviceArray<__nv_bfloat16> a(ha), b(hb);
    bench::DeviceArray<float> c(nn);
    const double flops = 2.0 * n * n * double(n);
    {
      const dim3 grid(n / kBN, n / kBM), block(16, 16);
      CHECK(cudaFuncSetAttribute(mma_gemm, cudaFuncAttributeMaxDynamicSharedMemorySize, int(sizeof(Shared))));
      c.poison();
      const float ms = timer.median_ms(
          [&](int) { mma_gemm<<<grid, block, sizeof(Shared)>>>(n, n, n, a.ptr, b.ptr, c.ptr); });
      const bool ok = bench::check_gemm("mma_gemm", c.download(), fa, fb, n, bench::kBf16GemmTolerance);
      bench::report("mma_gemm", bench::dims(n, n), "flops", flops, ms, ok, "cuda");
    }
    {
      // Row-major C = A B is column-major C^T = B^T A^T: cuBLAS gets B first.
      const float alpha = 1.0f, beta = 0.0f;
      c.poison();
      const float ms = timer.median_ms([&](int) {
        CHECK_CUBLAS(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(n), int(n), &alpha, b.ptr,
                                  CUDA_R_16BF, int(n), a.ptr, CUDA_R_16BF, int(n), &beta, c.ptr, CUDA_R_32F,
                                  int(n), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
      });
      const bool ok = bench::check_gemm("cublas_bf16", c.download(), fa, fb, n, bench::kBf16GemmTolerance);
      bench::report("cublas_bf16", bench::dims(n, n), "flops", flops, ms, ok, "cuda");
    }
  }
  CHECK_CUBLAS(cublasDestroy(handle));
  return 0;
}
