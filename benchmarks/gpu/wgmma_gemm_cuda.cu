// The CUDA C++ twin of wgmma_gemm_oxide.cpp: C (f32, m x n row-major) = A * W^T for bf16 A
// (m x k, row-major) and W (n x k, row-major: the layout of a linear layer's weights), on Hopper's
// warpgroup tensor cores through inline PTX, the algorithm of examples/wgmma_gemm.hpp:
// 128 x 256 block tiles, k in steps of 64 through a ring of 4 shared-memory stages filled by the
// copy engine (TMA, 128-byte swizzle) and guarded by full/empty mbarriers; warpgroup 0 is the
// producer (one thread issues the copies, setmaxnreg lowers its registers), warpgroups 1 and 2
// each multiply a 64 x 256 half of the tile with wgmma m64n256k16 (accumulators in 128
// registers per thread) and write it straight from registers. In the same run, cuBLAS
// (cublasGemmEx, bf16 in, f32 out and compute; and tf32) and cuBLASLt (e4m3 in, f32 out; and bf16
// with its GELU_BIAS epilogue) on the same inputs as the Oxide rows: the references of issue #18.
// m, n multiples of 128 and 256 and k of 64.
#include "bench_cublas.cuh"
#include "bench_cuda.cuh"

#include <cublasLt.h>
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <cmath>

#include <cstdint>
#include <cstdio>
#include <cstring>

constexpr unsigned kBM = 128, kBN = 256, kBK = 64, kStages = 4, kConsumers = 2;
constexpr unsigned kThreads = 128 * (kConsumers + 1);
constexpr unsigned kGroupM = 16; // block rows walked together (L2 reuse of W's tiles)

struct Shared {
  alignas(1024) __nv_bfloat16 a[kStages][kBM * kBK];
  alignas(1024) __nv_bfloat16 b[kStages][kBN * kBK];
  alignas(8) std::uint64_t full[kStages], empty[kStages];
};
constexpr std::size_t kSharedBytes = sizeof(Shared) + 1024; // room to align the base to 1024

__device__ inline unsigned smem(const void *p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

__device__ inline void mbar_init(std::uint64_t *bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem(bar)), "r"(count));
}
__device__ inline void mbar_expect_tx(std::uint64_t *bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(bar)), "r"(bytes)
               : "memory");
}
__device__ inline void mbar_arrive(std::uint64_t *bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(bar)) : "memory");
}
__device__ inline void mbar_wait(std::uint64_t *bar, unsigned parity) {
  unsigned done = 0;
  do {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}"
        : "=r"(done)
        : "r"(smem(bar)), "r"(parity)
        : "memory");
  } while (!done);
}
__device__ inline void tma_load_2d(void *dst, const CUtensorMap *map, std::uint64_t *bar, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, "
      "%4}], [%2];" ::"r"(smem(dst)),
      "l"(map), "r"(smem(bar)), "r"(c0), "r"(c1)
      : "memory");
}

/// The descriptor of a K-major bf16 tile with rows of 128 bytes in the 128-byte swizzle.
__device__ inline std::uint64_t descriptor(const void *tile) {
  const std::uint64_t address = smem(tile);
  return ((address & 0x3ffff) >> 4) | (std::uint64_t{1} << 16) | (std::uint64_t{1024 >> 4} << 32) |
         (std::uint64_t{1} << 62);
}
/// The descriptor of an MN-major bf16 tile (a row-major k x n B): 64-column panels of 64 rows of
/// 128 bytes, 8192 bytes apart (leading byte offset), 8 rows 1024 bytes apart (stride).
__device__ inline std::uint64_t descriptor_mn(const void *tile) {
  const std::uint64_t address = smem(tile);
  return ((address & 0x3ffff) >> 4) | (std::uint64_t{8192 >> 4} << 16) | (std::uint64_t{1024 >> 4} << 32) |
         (std::uint64_t{1} << 62);
}
__device__ inline void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ inline void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N> __device__ inline void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
/// B K-major (TransB 0) or MN-major (1).
template <int TransB>
__device__ inline void wgmma_m64n256k16(float (&d)[128], std::uint64_t da, std::uint64_t db, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, "
      "%11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, "
      "%31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, "
      "%51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, "
      "%71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, "
      "%91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, "
      "%109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, "
      "%126, %127}, %128, %129, p, 1, 1, 0, %131;\n}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]),
        "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
        "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]),
        "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
        "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]),
        "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]),
        "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]),
        "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
        "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]),
        "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]),
        "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]),
        "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]),
        "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]),
        "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]),
        "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]),
        "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(da), "l"(db), "r"(accumulate), "n"(TransB));
}

/// C = A W^T (B = W^T K-major), or with RowMajorB C = A B for a row-major k x n B, loaded as four
/// 64-column panels per stage and read MN-major.
template <bool RowMajorB>
__global__ void __launch_bounds__(kThreads, 1)
    wgmma_gemm(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, float *c,
               unsigned m, unsigned n, unsigned k) {
  extern __shared__ unsigned char raw[];
  Shared &sm =
      *reinterpret_cast<Shared *>((reinterpret_cast<std::uintptr_t>(raw) + 1023) & ~std::uintptr_t{1023});
  const unsigned t = threadIdx.x, group = t / 128;
  // Blocks walk kGroupM block rows at a time, column by column, so that the blocks running
  // together share W's tiles in L2.
  const unsigned blocks_m = m / kBM, blocks_n = n / kBN, id = blockIdx.x;
  const unsigned per_group = kGroupM * blocks_n, first_m = id / per_group * kGroupM;
  const unsigned group_m = min(kGroupM, blocks_m - first_m);
  const unsigned bm = first_m + (id % per_group) % group_m, bn = (id % per_group) / group_m;
  const unsigned row0 = bm * kBM, col0 = bn * kBN, steps = k / kBK;
  if (t == 0) {
    for (unsigned s = 0; s < kStages; ++s) {
      mbar_init(&sm.full[s], 1);
      mbar_init(&sm.empty[s], kConsumers);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (group == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
    if (t == 0) {
      for (unsigned i = 0; i < steps; ++i) {
        const unsigned s = i % kStages;
        if (i >= kStages)
          mbar_wait(&sm.empty[s], (i / kStages - 1) & 1);
        mbar_expect_tx(&sm.full[s], (kBM + kBN) * kBK * sizeof(__nv_bfloat16));
        tma_load_2d(sm.a[s], &map_a, &sm.full[s], int(i * kBK), int(row0));
        if (RowMajorB)
          for (unsigned p = 0; p < kBN / 64; ++p)
            tma_load_2d(&sm.b[s][p * 64 * kBK], &map_b, &sm.full[s], int(col0 + 64 * p), int(i * kBK));
        else
          tma_load_2d(sm.b[s], &map_b, &sm.full[s], int(i * kBK), int(col0));
      }
    }
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    float d[128];
#pragma unroll
    for (unsigned i = 0; i < 128; ++i)
      d[i] = 0.0f;
    const unsigned half = group - 1;
    for (unsigned i = 0; i < steps; ++i) {
      const unsigned s = i % kStages;
      mbar_wait(&sm.full[s], (i / kStages) & 1);
      const std::uint64_t da = descriptor(&sm.a[s][half * 64 * kBK]),
                          db = RowMajorB ? descriptor_mn(sm.b[s]) : descriptor(sm.b[s]);
      wgmma_fence();
      // k step kk: 32 bytes along a K-major row, or 16 rows (2048 bytes) down an MN-major panel.
#pragma unroll
      for (unsigned kk = 0; kk < kBK / 16; ++kk)
        wgmma_m64n256k16<RowMajorB ? 1 : 0>(d, da + 2 * kk, db + (RowMajorB ? 128 : 2) * kk, 1);
      wgmma_commit();
      wgmma_wait<0>();
      if (t % 128 == 0)
        mbar_arrive(&sm.empty[s]);
    }
    // Element i of a thread's accumulator: row 16 warp + lane / 4 + 8 ((i / 2) % 2), column
    // 8 (i / 4) + 2 (lane % 4) + i % 2 of the warpgroup's 64 x 256 tile.
    const unsigned warp = (t % 128) / 32, lane = t % 32;
    const unsigned r = row0 + half * 64 + 16 * warp + lane / 4;
#pragma unroll
    for (unsigned i = 0; i < 128; i += 2) {
      const unsigned row = r + 8 * ((i / 2) % 2), col = col0 + 8 * (i / 4) + 2 * (lane % 4);
      *reinterpret_cast<float2 *>(&c[std::size_t(row) * n + col]) = make_float2(d[i], d[i + 1]);
    }
  }
}

using EncodeTiled = CUresult (*)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                 const cuuint64_t *, const cuuint32_t *, const cuuint32_t *,
                                 CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
                                 CUtensorMapFloatOOBfill);

/// The map of a rows x cols row-major bf16 matrix read in boxes of box_rows x 64 (128 bytes).
CUtensorMap tensor_map(EncodeTiled encode, const __nv_bfloat16 *data, unsigned rows, unsigned cols,
                       unsigned box_rows) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {cols, rows}, strides[1] = {cols * sizeof(__nv_bfloat16)};
  const cuuint32_t box[2] = {64, box_rows}, element_strides[2] = {1, 1};
  const CUresult r =
      encode(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<__nv_bfloat16 *>(data), dims, strides, box,
             element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
             CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled: %d\n", int(r));
    std::exit(1);
  }
  return map;
}

/// C (f32, n x n row-major) = A W^T through cuBLASLt for n x n row-major A and W of `type`, with
/// `epilogue` (GELU_BIAS reads an f32 bias per column of C). Row-major C = A W^T is column-major
/// C^T = W A^T: the TN form cuBLASLt's FP8 kernels require. The algorithm is the heuristic's
/// first, with a 64 MiB workspace; returns a launcher for the timer.
class LtGemm {
public:
  LtGemm(cublasLtHandle_t handle, cudaDataType_t type, const void *a, const void *w, float *c, unsigned n,
         cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT, const float *bias = nullptr,
         bool fast_accumulation = false)
      : handle_(handle), a_(a), w_(w), c_(c) {
    CHECK_CUBLAS(cublasLtMatmulDescCreate(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const std::int8_t fast = fast_accumulation ? 1 : 0;
    CHECK_CUBLAS(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast));
    const cublasOperation_t t = CUBLAS_OP_T, nop = CUBLAS_OP_N;
    CHECK_CUBLAS(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t));
    CHECK_CUBLAS(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &nop, sizeof nop));
    CHECK_CUBLAS(
        cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue));
    if (bias != nullptr) {
      const cudaDataType_t bias_type = CUDA_R_32F;
      CHECK_CUBLAS(
          cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
      CHECK_CUBLAS(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type,
                                                  sizeof bias_type));
    }
    CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&w_layout_, type, n, n, n));
    CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&a_layout_, type, n, n, n));
    CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&c_layout_, CUDA_R_32F, n, n, n));
    CHECK(cudaMalloc(&workspace_, kWorkspace));
    cublasLtMatmulPreference_t preference;
    CHECK_CUBLAS(cublasLtMatmulPreferenceCreate(&preference));
    CHECK_CUBLAS(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                      &kWorkspace, sizeof kWorkspace));
    int found = 0;
    CHECK_CUBLAS(cublasLtMatmulAlgoGetHeuristic(handle_, desc_, w_layout_, a_layout_, c_layout_, c_layout_,
                                                preference, 1, &algo_, &found));
    CHECK_CUBLAS(cublasLtMatmulPreferenceDestroy(preference));
    if (found == 0) {
      std::fprintf(stderr, "cuBLASLt: no algorithm for this GEMM\n");
      std::exit(1);
    }
  }
  LtGemm(const LtGemm &) = delete;
  LtGemm &operator=(const LtGemm &) = delete;
  ~LtGemm() {
    cudaFree(workspace_);
    cublasLtMatrixLayoutDestroy(c_layout_);
    cublasLtMatrixLayoutDestroy(a_layout_);
    cublasLtMatrixLayoutDestroy(w_layout_);
    cublasLtMatmulDescDestroy(desc_);
  }
  void operator()() const {
    const float alpha = 1.0f, beta = 0.0f;
    CHECK_CUBLAS(cublasLtMatmul(handle_, desc_, &alpha, w_, w_layout_, a_, a_layout_, &beta, c_, c_layout_,
                                c_, c_layout_, &algo_.algo, workspace_, kWorkspace, nullptr));
  }

private:
  static constexpr std::size_t kWorkspace = std::size_t{64} << 20;
  cublasLtHandle_t handle_;
  const void *a_, *w_;
  float *c_;
  cublasLtMatmulDesc_t desc_{};
  cublasLtMatrixLayout_t w_layout_{}, a_layout_{}, c_layout_{};
  cublasLtMatmulHeuristicResult_t algo_{};
  void *workspace_ = nullptr;
};

int main(int argc, char **argv) {
  std::vector<unsigned> sizes;
  for (int arg = 1; arg < argc; ++arg)
    sizes.push_back(unsigned(std::atoi(argv[arg])));
  if (sizes.empty())
    sizes = {4096, 8192};
  void *entry = nullptr;
  cudaDriverEntryPointQueryResult query;
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &entry, 12000, cudaEnableDefault, &query));
  const auto encode = reinterpret_cast<EncodeTiled>(entry);
  bench::EventTimer timer;
  cublasHandle_t handle;
  CHECK_CUBLAS(cublasCreate(&handle));
  cublasLtHandle_t lt;
  CHECK_CUBLAS(cublasLtCreate(&lt));
  for (const unsigned n : sizes) {
    const size_t nn = size_t(n) * n;
    std::vector<float> fa = bench::uniform_vector(8, nn), fw = bench::uniform_vector(9, nn);
    std::vector<__nv_bfloat16> ha(nn), hw(nn);
    for (size_t i = 0; i < nn; ++i) {
      ha[i] = __float2bfloat16_rn(fa[i]);
      hw[i] = __float2bfloat16_rn(fw[i]);
      fa[i] = __bfloat162float(ha[i]);
      fw[i] = __bfloat162float(hw[i]);
    }
    bench::DeviceArray<__nv_bfloat16> a(ha), w(hw);
    bench::DeviceArray<float> c(nn);
    const double flops = 2.0 * n * n * double(n);
    {
      const CUtensorMap map_a = tensor_map(encode, a.ptr, n, n, kBM),
                        map_b = tensor_map(encode, w.ptr, n, n, kBN);
      CHECK(cudaFuncSetAttribute(wgmma_gemm<false>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 int(kSharedBytes)));
      c.poison();
      const unsigned blocks = (n / kBM) * (n / kBN);
      const float ms = timer.median_ms(
          [&](int) { wgmma_gemm<false><<<blocks, kThreads, kSharedBytes>>>(map_a, map_b, c.ptr, n, n, n); });
      const bool ok = bench::check_gemm_nt("wgmma_gemm", c.download(), fa, fw, n, bench::kBf16GemmTolerance);
      bench::report("wgmma_gemm", bench::dims(n, n), "flops", flops, ms, ok, "cuda");
    }
    {
      // Row-major C = A W^T is column-major C^T = W A^T: W's buffer is W^T column-major (op T).
      const float alpha = 1.0f, beta = 0.0f;
      c.poison();
      const float ms = timer.median_ms([&](int) {
        CHECK_CUBLAS(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, int(n), int(n), int(n), &alpha, w.ptr,
                                  CUDA_R_16BF, int(n), a.ptr, CUDA_R_16BF, int(n), &beta, c.ptr, CUDA_R_32F,
                                  int(n), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
      });
      const bool ok =
          bench::check_gemm_nt("cublas_bf16_tn", c.download(), fa, fw, n, bench::kBf16GemmTolerance);
      bench::report("cublas_bf16_tn", bench::dims(n, n), "flops", flops, ms, ok, "cuda");
    }
    {
      // The same product with B = W^T given row-major (k x n): row-major C = A B is column-major
      // C^T = B^T A^T, both buffers as they are (op N): cuBLAS's reference for wgmma_gemm_nn.
      std::vector<__nv_bfloat16> hb(nn);
      for (size_t q = 0; q < nn; ++q)
        hb[q] = hw[q % n * n + q / n];
      bench::DeviceArray<__nv_bfloat16> b(hb);
      const float alpha = 1.0f, beta = 0.0f;
      c.poison();
      const float ms = timer.median_ms([&](int) {
        CHECK_CUBLAS(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(n), int(n), &alpha, b.ptr,
                                  CUDA_R_16BF, int(n), a.ptr, CUDA_R_16BF, int(n), &beta, c.ptr, CUDA_R_32F,
                                  int(n), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
      });
      const bool ok =
          bench::check_gemm_nt("cublas_bf16_nn", c.download(), fa, fw, n, bench::kBf16GemmTolerance);
      bench::report("cublas_bf16_nn", bench::dims(n, n), "flops", flops, ms, ok, "cuda");
      // The twin of wgmma_gemm_nn: the same kernel with B's panels read MN-major.
      const CUtensorMap map_a = tensor_map(encode, a.ptr, n, n, kBM),
                        map_bt = tensor_map(encode, b.ptr, n, n, 64);
      CHECK(cudaFuncSetAttribute(wgmma_gemm<true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 int(kSharedBytes)));
      c.poison();
      const unsigned blocks = (n / kBM) * (n / kBN);
      const float nn_ms = timer.median_ms(
          [&](int) { wgmma_gemm<true><<<blocks, kThreads, kSharedBytes>>>(map_a, map_bt, c.ptr, n, n, n); });
      const bool nn_ok =
          bench::check_gemm_nt("wgmma_gemm_nn", c.download(), fa, fw, n, bench::kBf16GemmTolerance);
      bench::report("wgmma_gemm_nn", bench::dims(n, n), "flops", flops, nn_ms, nn_ok, "cuda");
    }
    {
      // tf32: the Oxide side's inputs (the same floats rounded to tf32, to nearest with ties away
      // as cvt.rna.tf32.f32), which cuBLAS's tensor-core path then reads exactly.
      auto to_tf32 = [](float x) {
        std::uint32_t bits;
        std::memcpy(&bits, &x, 4);
        if ((bits & 0x7f800000u) != 0x7f800000u)
          bits = (bits + 0x1000u) & 0xffffe000u;
        std::memcpy(&x, &bits, 4);
        return x;
      };
      std::vector<float> ta = bench::uniform_vector(8, nn), tw = bench::uniform_vector(9, nn);
      for (size_t i = 0; i < nn; ++i) {
        ta[i] = to_tf32(ta[i]);
        tw[i] = to_tf32(tw[i]);
      }
      bench::DeviceArray<float> a32(ta), w32(tw);
      const float alpha = 1.0f, beta = 0.0f;
      c.poison();
      const float ms = timer.median_ms([&](int) {
        CHECK_CUBLAS(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, int(n), int(n), int(n), &alpha, w32.ptr,
                                  CUDA_R_32F, int(n), a32.ptr, CUDA_R_32F, int(n), &beta, c.ptr, CUDA_R_32F,
                                  int(n), CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
      });
      const bool ok =
          bench::check_gemm_nt("cublas_tf32_tn", c.download(), ta, tw, n, bench::kBf16GemmTolerance);
      bench::report("cublas_tf32_tn", bench::dims(n, n), "flops", flops, ms, ok, "cuda");
    }
    {
      // bf16 with cuBLASLt's GELU_BIAS epilogue (GELU's tanh form, as the Oxide kernel's), checked
      // against GELU of the host product plus the Oxide row's bias, at a sample of elements, within
      // the product's tolerance (relative to the sum of the terms' magnitudes; GELU's slope is
      // below 1.13) plus a few ulps of the epilogue's own arithmetic.
      std::vector<float> bias(n);
      for (unsigned j = 0; j < n; ++j)
        bias[j] = 0.25f * std::sin(0.1f * float(j));
      bench::DeviceArray<float> b(bias);
      const LtGemm gemm(lt, CUDA_R_16BF, a.ptr, w.ptr, c.ptr, n, CUBLASLT_EPILOGUE_GELU_BIAS, b.ptr);
      c.poison();
      const float ms = timer.median_ms([&](int) { gemm(); });
      const std::vector<float> got = c.download();
      bool ok = true;
      for (std::size_t s = 0; s < 4096 && ok; ++s) {
        const std::size_t e = bench::mix(s) % nn, i = e / n, j = e % n;
        double x = bias[j], magnitude = 0;
        for (unsigned l = 0; l < n; ++l) {
          x += double(fa[i * n + l]) * fw[j * n + l];
          magnitude += std::fabs(double(fa[i * n + l]) * fw[j * n + l]);
        }
        const double want = 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
        if (!bench::close(got[e], want, 1.2 * bench::kBf16GemmTolerance * magnitude, 1.0,
                          1e-5 * (1.0 + std::fabs(x)))) {
          bench::mismatch("cublaslt_bf16_gelu_bias", e, got[e], want);
          ok = false;
        }
      }
      bench::report("cublaslt_bf16_gelu_bias", bench::dims(n, n), "flops", flops, ms, ok, "cuda");
    }
    {
      // e4m3: the Oxide side's inputs (the same floats rounded to e4m3, to nearest even, saturated),
      // through cuBLASLt's FP8 path (scales of 1).
      std::vector<float> ea = bench::uniform_vector(8, nn), ew = bench::uniform_vector(9, nn);
      std::vector<__nv_fp8_e4m3> qa(nn), qw(nn);
      for (size_t i = 0; i < nn; ++i) {
        qa[i] = __nv_fp8_e4m3(ea[i]);
        qw[i] = __nv_fp8_e4m3(ew[i]);
        ea[i] = float(qa[i]);
        ew[i] = float(qw[i]);
      }
      bench::DeviceArray<__nv_fp8_e4m3> a8(qa), w8(qw);
      // Fast accumulation is what the Oxide kernel does (wgmma's own FP8 sums); the default
      // promotes partial sums to f32 on the CUDA cores, slower and more accurate.
      for (const bool fast : {true, false}) {
        const char *name = fast ? "cublaslt_e4m3_fast_tn" : "cublaslt_e4m3_tn";
        const LtGemm gemm(lt, CUDA_R_8F_E4M3, a8.ptr, w8.ptr, c.ptr, n, CUBLASLT_EPILOGUE_DEFAULT, nullptr,
                          fast);
        c.poison();
        const float ms = timer.median_ms([&](int) { gemm(); });
        const bool ok = bench::check_gemm_nt(name, c.download(), ea, ew, n, bench::kFp8GemmTolerance);
        bench::report(name, bench::dims(n, n), "flops", flops, ms, ok, "cuda");
      }
    }
  }
  CHECK_CUBLAS(cublasLtDestroy(lt));
  CHECK_CUBLAS(cublasDestroy(handle));
  return 0;
}
