// The CUDA C++ twin of stream_oxide.cpp: the same kernels and launch shapes, compiled by
// nvcc -O3 -arch=sm_90, timed and checked the same way (bench_cuda.cuh).
#include "bench_cuda.cuh"

#include <cstdint>
#include <cstdio>

constexpr float kScalar = 0.4f;
constexpr unsigned kBlock = 256;

// ---- one element per thread (block 256) ---------------------------------------------------

__global__ void copy(const float *__restrict__ a, float *__restrict__ out, size_t n) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a[i];
}
__global__ void mul(const float *__restrict__ c, float *__restrict__ out, size_t n) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = kScalar * c[i];
}
__global__ void add(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ out,
                    size_t n) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a[i] + b[i];
}
__global__ void triad(const float *__restrict__ b, const float *__restrict__ c, float *__restrict__ out,
                      size_t n) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = b[i] + kScalar * c[i];
}

__global__ void __launch_bounds__(256)
    dot(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ sums, size_t n) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const float sum = bench::block_sum<kBlock>(i < n ? a[i] * b[i] : 0.0f);
  if (threadIdx.x == 0)
    sums[blockIdx.x] = sum;
}

// ---- grid-stride (SMs * 8 blocks of 256) ----------------------------------------------------

__global__ void copy_gs(const float *__restrict__ a, float *__restrict__ out, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    out[i] = a[i];
}
__global__ void triad_gs(const float *__restrict__ b, const float *__restrict__ c, float *__restrict__ out,
                         size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    out[i] = b[i] + kScalar * c[i];
}

// ---- float4, grid-stride ----------------------------------------------------------------------

__global__ void copy_f4(const float4 *__restrict__ a, float4 *__restrict__ out, size_t n4) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += size_t(gridDim.x) * blockDim.x)
    out[i] = a[i];
}
__global__ void mul_f4(const float4 *__restrict__ c, float4 *__restrict__ out, size_t n4) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n4;
       i += size_t(gridDim.x) * blockDim.x) {
    const float4 v = c[i];
    out[i] = make_float4(kScalar * v.x, kScalar * v.y, kScalar * v.z, kScalar * v.w);
  }
}
__global__ void add_f4(const float4 *__restrict__ a, const float4 *__restrict__ b, float4 *__restrict__ out,
                       size_t n4) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n4;
       i += size_t(gridDim.x) * blockDim.x) {
    const float4 x = a[i], y = b[i];
    out[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}
__global__ void triad_f4(const float4 *__restrict__ b, const float4 *__restrict__ c, float4 *__restrict__ out,
                         size_t n4) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n4;
       i += size_t(gridDim.x) * blockDim.x) {
    const float4 x = b[i], y = c[i];
    out[i] = make_float4(x.x + kScalar * y.x, x.y + kScalar * y.y, x.z + kScalar * y.z, x.w + kScalar * y.w);
  }
}
// ---- float4, one element per thread (block 256) ---------------------------------------------
__global__ void copy_f4_flat(const float4 *__restrict__ a, float4 *__restrict__ out, size_t n4) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n4)
    out[i] = a[i];
}
__global__ void triad_f4_flat(const float4 *__restrict__ b, const float4 *__restrict__ c,
                              float4 *__restrict__ out, size_t n4) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n4) {
    const float4 x = b[i], y = c[i];
    out[i] = make_float4(x.x + kScalar * y.x, x.y + kScalar * y.y, x.z + kScalar * y.z, x.w + kScalar * y.w);
  }
}
__global__ void __launch_bounds__(256)
    dot_f4(const float4 *__restrict__ a, const float4 *__restrict__ b, float *__restrict__ sums, size_t n4) {
  float sum = 0.0f;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n4;
       i += size_t(gridDim.x) * blockDim.x) {
    const float4 x = a[i], y = b[i];
    sum += x.x * y.x + x.y * y.y + x.z * y.z + x.w * y.w;
  }
  sum = bench::block_sum<kBlock>(sum);
  if (threadIdx.x == 0)
    sums[blockIdx.x] = sum;
}

int main(int argc, char **argv) {
  const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : size_t{1} << 27;
  if (n % 4 != 0) {
    std::fprintf(stderr, "stream_cuda: the size must be a multiple of 4\n");
    return 2;
  }
  bench::EventTimer timer;
  const std::vector<float> ha = bench::uniform_vector(1, n), hb = bench::uniform_vector(2, n),
                           hc = bench::uniform_vector(3, n);
  const size_t bytes2 = 2 * n * sizeof(float), bytes3 = 3 * n * sizeof(float), n4 = n / 4;
  const std::string size = std::to_string(n);
  const unsigned blocks = unsigned((n + kBlock - 1) / kBlock), gs_blocks = unsigned(bench::sm_count()) * 8;

  bench::report_memcpy(timer, n);
  bench::DeviceArray<float> a(ha), b(hb), c(hc), out(n);
  auto run = [&](const char *name, size_t bytes, auto &&launch, auto &&ref) {
    out.poison();
    const float ms = timer.median_ms(launch);
    const std::vector<float> got = out.download();
    bench::report(name, size, "bytes", double(bytes), ms, bench::check_sampled(name, got.data(), n, ref),
                  "cuda");
  };
  run(
      "copy", bytes2, [&](int) { copy<<<blocks, kBlock>>>(a.ptr, out.ptr, n); },
      [&](size_t i) { return ha[i]; });
  run(
      "mul", bytes2, [&](int) { mul<<<blocks, kBlock>>>(c.ptr, out.ptr, n); },
      [&](size_t i) { return kScalar * hc[i]; });
  run(
      "add", bytes3, [&](int) { add<<<blocks, kBlock>>>(a.ptr, b.ptr, out.ptr, n); },
      [&](size_t i) { return ha[i] + hb[i]; });
  run(
      "triad", bytes3, [&](int) { triad<<<blocks, kBlock>>>(b.ptr, c.ptr, out.ptr, n); },
      [&](size_t i) { return hb[i] + kScalar * hc[i]; });
  run(
      "copy_gridstride", bytes2, [&](int) { copy_gs<<<gs_blocks, kBlock>>>(a.ptr, out.ptr, n); },
      [&](size_t i) { return ha[i]; });
  run(
      "triad_gridstride", bytes3, [&](int) { triad_gs<<<gs_blocks, kBlock>>>(b.ptr, c.ptr, out.ptr, n); },
      [&](size_t i) { return hb[i] + kScalar * hc[i]; });

  auto as4 = [](float *p) { return reinterpret_cast<float4 *>(p); };
  run(
      "copy_f4", bytes2, [&](int) { copy_f4<<<gs_blocks, kBlock>>>(as4(a.ptr), as4(out.ptr), n4); },
      [&](size_t i) { return ha[i]; });
  // The same kernel: in CUDA C++ the natural whole-struct assignment already is a v4 copy.
  run(
      "copy_f4_assign", bytes2, [&](int) { copy_f4<<<gs_blocks, kBlock>>>(as4(a.ptr), as4(out.ptr), n4); },
      [&](size_t i) { return ha[i]; });
  run(
      "mul_f4", bytes2, [&](int) { mul_f4<<<gs_blocks, kBlock>>>(as4(c.ptr), as4(out.ptr), n4); },
      [&](size_t i) { return kScalar * hc[i]; });
  run(
      "add_f4", bytes3, [&](int) { add_f4<<<gs_blocks, kBlock>>>(as4(a.ptr), as4(b.ptr), as4(out.ptr), n4); },
      [&](size_t i) { return ha[i] + hb[i]; });
  run(
      "triad_f4", bytes3,
      [&](int) { triad_f4<<<gs_blocks, kBlock>>>(as4(b.ptr), as4(c.ptr), as4(out.ptr), n4); },
      [&](size_t i) { return hb[i] + kScalar * hc[i]; });
  const unsigned flat_blocks = unsigned((n4 + kBlock - 1) / kBlock);
  run(
      "copy_f4_flat", bytes2,
      [&](int) { copy_f4_flat<<<flat_blocks, kBlock>>>(as4(a.ptr), as4(out.ptr), n4); },
      [&](size_t i) { return ha[i]; });
  run(
      "triad_f4_flat", bytes3,
      [&](int) { triad_f4_flat<<<flat_blocks, kBlock>>>(as4(b.ptr), as4(c.ptr), as4(out.ptr), n4); },
      [&](size_t i) { return hb[i] + kScalar * hc[i]; });

  double want = 0, scale = 0;
  for (size_t i = 0; i < n; ++i) {
    want += double(ha[i]) * hb[i];
    scale += std::fabs(double(ha[i]) * hb[i]);
  }
  auto run_dot = [&](const char *name, unsigned grid, auto &&launch) {
    bench::DeviceArray<float> sums(grid);
    sums.poison();
    const float ms = timer.median_ms([&](int) { launch(sums.ptr); });
    double got = 0;
    for (float s : sums.download())
      got += s;
    const bool ok = bench::close(got, want, scale);
    if (!ok)
      bench::mismatch(name, 0, got, want);
    bench::report(name, size, "bytes", double(bytes2), ms, ok, "cuda");
  };
  // dot_unsafe and dot_raw are Oxide-only variants (see stream_oxide.cpp); their twin is this same
  // kernel, as dot_f4_unsafe's is dot_f4.
  for (const char *name : {"dot", "dot_unsafe", "dot_raw"})
    run_dot(name, blocks, [&](float *sums) { dot<<<blocks, kBlock>>>(a.ptr, b.ptr, sums, n); });
  for (const char *name : {"dot_f4", "dot_f4_unsafe"})
    run_dot(name, gs_blocks,
            [&](float *sums) { dot_f4<<<gs_blocks, kBlock>>>(as4(a.ptr), as4(b.ptr), sums, n4); });
  return 0;
}
