// The CUDA C++ twin of stencil_oxide.cpp: the 5-point stencil, blocks of 32 x 8 threads, one
// output element per thread, border copied.
#include "bench_cuda.cuh"

#include <cstdint>
#include <cstdio>

constexpr float kCentre = 0.5f, kSide = 0.125f;

__global__ void stencil(const float *__restrict__ in, float *__restrict__ out, size_t w, size_t h) {
  const size_t x = size_t(blockIdx.x) * blockDim.x + threadIdx.x,
               y = size_t(blockIdx.y) * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  const size_t c = y * w + x;
  if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
    out[c] = in[c];
  else
    out[c] = kCentre * in[c] + kSide * (in[c - 1] + in[c + 1] + in[c - w] + in[c + w]);
}

int main(int argc, char **argv) {
  const size_t w = argc > 2 ? std::strtoull(argv[1], nullptr, 10) : 16384,
               h = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 16384, n = w * h;
  bench::EventTimer timer;
  const std::vector<float> host = bench::uniform_vector(7, n);
  bench::DeviceArray<float> in(host), out(n);
  const dim3 block(32, 8), grid(unsigned((w + 31) / 32), unsigned((h + 7) / 8));
  // stencil5_nocheck is an Oxide-only diagnostic (see stencil_oxide.cpp); its twin is this kernel.
  for (const char *name : {"stencil5", "stencil5_nocheck"}) {
    out.poison();
    const float ms = timer.median_ms([&](int) { stencil<<<grid, block>>>(in.ptr, out.ptr, w, h); });
    const std::vector<float> got = out.download();
    const bool ok = bench::check_sampled(name, got.data(), n, [&](size_t c) {
      const size_t x = c % w, y = c / w;
      if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
        return host[c];
      return kCentre * host[c] + kSide * (host[c - 1] + host[c + 1] + host[c - w] + host[c + w]);
    });
    bench::report(name, bench::dims(w, h), "bytes", 2.0 * n * sizeof(float), ms, ok, "cuda");
  }
  return 0;
}
