// The CUDA C++ twin of transpose_oxide.cpp: 32 x 33 shared tiles, blocks of 32 x 32 threads, one
// output element per thread; and the 32 x 8 blocks of transposeCoalesced, four per thread (rows
// strided by 8, or 4 consecutive rows: transpose_32x8_tile).
#include "bench_cuda.cuh"

#include <cstdint>
#include <cstdio>

constexpr unsigned kTile = 32;
constexpr unsigned kPitch = kTile + 1;
constexpr unsigned kRows = 8; // transpose_32x8's block height

__global__ void transpose(unsigned width, unsigned height, const float *__restrict__ in,
                          float *__restrict__ out) {
  __shared__ float tile[kTile * kPitch];
  const unsigned in_row = blockIdx.x * kTile + threadIdx.y, in_col = blockIdx.y * kTile + threadIdx.x;
  if (in_row < height && in_col < width)
    tile[threadIdx.y * kPitch + threadIdx.x] = in[size_t(in_row) * width + in_col];
  __syncthreads();
  // out is width rows of height floats; this thread's element is [y][x].
  const size_t x = size_t(blockIdx.x) * blockDim.x + threadIdx.x,
               y = size_t(blockIdx.y) * blockDim.y + threadIdx.y;
  if (x < height && y < width)
    out[y * height + x] = tile[threadIdx.x * kPitch + threadIdx.y];
}

// NVIDIA's transposeCoalesced: 32 x 8 threads per 32 x 32 tile, each thread copying rows ty,
// ty + 8, ty + 16, ty + 24. blockIdx.x and blockIdx.y swap roles against the classic code so that
// the block order is transpose_oxide.cpp's: block (bx, by) writes the output tile at (bx, by)
// and reads the input tile at rows from bx * 32, columns from by * 32.
__global__ void transpose_32x8(unsigned width, unsigned height, const float *__restrict__ in,
                               float *__restrict__ out) {
  __shared__ float tile[kTile * kPitch];
  const unsigned in_col = blockIdx.y * kTile + threadIdx.x;
  for (unsigned k = 0; k < kTile; k += kRows) {
    const unsigned in_row = blockIdx.x * kTile + threadIdx.y + k;
    if (in_row < height && in_col < width)
      tile[(threadIdx.y + k) * kPitch + threadIdx.x] = in[size_t(in_row) * width + in_col];
  }
  __syncthreads();
  // out is width rows of height floats.
  const size_t x = size_t(blockIdx.x) * kTile + threadIdx.x;
  for (unsigned k = 0; k < kTile; k += kRows) {
    const size_t y = size_t(blockIdx.y) * kTile + threadIdx.y + k;
    if (x < height && y < width)
      out[y * height + x] = tile[threadIdx.x * kPitch + threadIdx.y + k];
  }
}

// transpose_32x8 with each thread writing 4 consecutive rows of the output tile, 4 ty .. 4 ty + 3
// (transpose_oxide.cpp's tile_mut<4, 1>); a warp still stores 32 consecutive floats of a row and
// reads 32 banks of the tile.
__global__ void transpose_32x8_tile(unsigned width, unsigned height, const float *__restrict__ in,
                                    float *__restrict__ out) {
  constexpr unsigned kOwn = kTile / kRows; // rows per thread
  __shared__ float tile[kTile * kPitch];
  const unsigned in_col = blockIdx.y * kTile + threadIdx.x;
  for (unsigned k = 0; k < kTile; k += kRows) {
    const unsigned in_row = blockIdx.x * kTile + threadIdx.y + k;
    if (in_row < height && in_col < width)
      tile[(threadIdx.y + k) * kPitch + threadIdx.x] = in[size_t(in_row) * width + in_col];
  }
  __syncthreads();
  const size_t x = size_t(blockIdx.x) * kTile + threadIdx.x;
  for (unsigned r = 0; r < kOwn; ++r) {
    const size_t y = size_t(blockIdx.y) * kTile + kOwn * threadIdx.y + r;
    if (x < height && y < width)
      out[y * height + x] = tile[threadIdx.x * kPitch + kOwn * threadIdx.y + r];
  }
}

int main(int argc, char **argv) {
  const unsigned width = argc > 2 ? std::atoi(argv[1]) : 16384,
                 height = argc > 2 ? std::atoi(argv[2]) : 12288;
  const size_t n = size_t{width} * height;
  bench::EventTimer timer;
  const std::vector<float> host = bench::uniform_vector(5, n);
  bench::DeviceArray<float> in(host), out(n);
  const dim3 block(kTile, kTile), grid((height + kTile - 1) / kTile, (width + kTile - 1) / kTile);
  // transpose_tidmask is an Oxide-only diagnostic (see transpose_oxide.cpp); its twin is transpose.
  auto run = [&](const char *name, auto &&launch) {
    out.poison();
    const float ms = timer.median_ms(launch);
    const std::vector<float> got = out.download();
    size_t bad = 0;
    for (size_t y = 0; y < height; ++y)
      for (size_t x = 0; x < width; ++x)
        if (got[x * height + y] != host[y * width + x] && bad++ < 3)
          bench::mismatch(name, x * height + y, got[x * height + y], host[y * width + x]);
    bench::report(name, bench::dims(width, height), "bytes", 2.0 * n * sizeof(float), ms, bad == 0, "cuda");
  };
  for (const char *name : {"transpose", "transpose_tidmask"})
    run(name, [&](int) { transpose<<<grid, block>>>(width, height, in.ptr, out.ptr); });
  const dim3 block_32x8(kTile, kRows);
  // transpose_32x8_checked is transpose_oxide.cpp's held-out form (checked reads, no `if`); its
  // twin is the same textbook kernel.
  for (const char *name : {"transpose_32x8", "transpose_32x8_checked"})
    run(name, [&](int) { transpose_32x8<<<grid, block_32x8>>>(width, height, in.ptr, out.ptr); });
  run("transpose_32x8_tile",
      [&](int) { transpose_32x8_tile<<<grid, block_32x8>>>(width, height, in.ptr, out.ptr); });
  return 0;
}
