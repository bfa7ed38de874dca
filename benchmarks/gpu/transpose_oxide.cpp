// Matrix transpose through 32 x 33 tiles of shared memory (the padding column keeps the
// column-wise reads off a single bank): a 2-D launch contract, blocks of 32 x 32 threads, one
// output element per thread written through its witness; and transpose_32x8, blocks of 32 x 8
// threads writing 4 rows of the tile each (DisjointSpan2D::strided_rows_mut), or 4 consecutive
// rows each (transpose_32x8_tile: DisjointSpan2D::tile_mut<4, 1>). The input is 12288 rows of
// 16384 floats (768 MiB; non-square, so swapped extents cannot pass the check). Twin: transpose_cuda.cu.
//
//   transpose_oxide [width height]    prints RESULT lines (bench_common.hpp)
#include "bench_oxide.hpp"

#include <cstdint>
#include <cstdio>

constexpr std::uint32_t kTile = 32;
constexpr std::uint32_t kPitch = kTile + 1;
constexpr std::uint32_t kRows = 8; // transpose_32x8's block height

// `in` is height rows of width floats; `out` is its transpose, width rows of height floats.
[[kernel, oxide::launch_contract("domain = 2, block = (32, 32), "
                                 "requires = (width * height == in.size(), in.size() == out.size())")]] void
transpose(std::uint32_t width, std::uint32_t height, oxide::Span<const float> in,
          oxide::DisjointSpan2D<float> out) {
  auto tile = oxide::shared_array<float, std::size_t{kTile} * kPitch>();
  const oxide::Dim3 t = oxide::thread_idx(), b = oxide::block_idx();
  // The block's output tile (columns b.x * 32.., rows b.y * 32..) mirrors the input tile at rows
  // b.x * 32.., columns b.y * 32..; threads load it with x along the input's rows (coalesced).
  const std::uint32_t in_row = b.x * kTile + t.y, in_col = b.y * kTile + t.x;
  if (in_row < height && in_col < width)
    tile[t.y * kPitch + t.x] = in[std::size_t{in_row} * width + in_col];
  oxide::sync_threads();
  if (float *element = out.get_mut(oxide::thread::index_2d()))
    *element = tile[t.x * kPitch + t.y];
}

// Diagnostic: threadIdx reduced modulo 32, which changes nothing (the contract's block is
// 32 x 32, .reqntid in the PTX) but gives the compiler the range that .reqntid should have given
// it, so the two shared-memory bounds checks vanish. The gap to `transpose` is what that fix is
// worth (README.md). The body is repeated rather than shared through a helper taking the spans:
// loads through a Span<const T> passed to a helper lose ld.global.nc (README.md).
[[kernel, oxide::launch_contract("domain = 2, block = (32, 32), "
                                 "requires = (width * height == in.size(), in.size() == out.size())")]] void
transpose_tidmask(std::uint32_t width, std::uint32_t height, oxide::Span<const float> in,
                  oxide::DisjointSpan2D<float> out) {
  auto tile = oxide::shared_array<float, std::size_t{kTile} * kPitch>();
  const oxide::Dim3 b = oxide::block_idx();
  const std::uint32_t tx = oxide::thread_idx().x % kTile, ty = oxide::thread_idx().y % kTile;
  const std::uint32_t in_row = b.x * kTile + ty, in_col = b.y * kTile + tx;
  if (in_row < height && in_col < width)
    tile[ty * kPitch + tx] = in[std::size_t{in_row} * width + in_col];
  oxide::sync_threads();
  if (float *element = out.get_mut(oxide::thread::index_2d()))
    *element = tile[tx * kPitch + ty];
}

// The classic 32 x 8 transpose (NVIDIA's transposeCoalesced): blocks of 32 x 8 threads, each
// moving a 32 x 32 tile, so a thread copies 4 elements, rows ty, ty + 8, ty + 16, ty + 24.
// strided_rows_mut<4> is exactly that ownership in output coordinates: thread (x, y) of block
// row by writes column x, rows by * 32 + ty + 8 j. So the block owns the output tile at its own
// (bx, by) and reads the input tile at the mirrored position (rows from bx * 32, columns from
// by * 32), as `transpose` does; the classic kernel names the same tiles with bx, by swapped.
[[kernel, oxide::launch_contract("domain = 2, block = (32, 8), "
                                 "requires = (width * height == in.size(), in.size() == out.size())")]] void
transpose_32x8(std::uint32_t width, std::uint32_t height, oxide::Span<const float> in,
               oxide::DisjointSpan2D<float> out) {
  auto tile = oxide::shared_array<float, std::size_t{kTile} * kPitch>();
  const oxide::Dim3 t = oxide::thread_idx(), b = oxide::block_idx();
  const std::uint32_t in_col = b.y * kTile + t.x;
  for (std::uint32_t k = 0; k < kTile; k += kRows) {
    const std::uint32_t in_row = b.x * kTile + t.y + k;
    if (in_row < height && in_col < width)
      tile[(t.y + k) * kPitch + t.x] = in[std::size_t{in_row} * width + in_col];
  }
  oxide::sync_threads();
  const auto mine = out.strided_rows_mut<kTile / kRows>(oxide::thread::index_2d());
  for (std::size_t j = 0; j < mine.size(); ++j)
    if (float *element = mine.get_mut(j)) // nullptr past the output's edge
      *element = tile[t.x * kPitch + t.y + kRows * j];
}

// transpose_32x8 as the docs present safe reads (issue 41's held-out form): the tile is loaded
// with Span's checked subscript and no `if`, so each of the four loads has its own bounds check.
// HoistBoundsChecks joins them: one branch to the report, then the four loads back to back (a
// check between each load and the shared-memory store before the next had cost 26 %).
// Its twin is the CUDA kernel of transpose_32x8, which has no checks to pay for.
[[kernel, oxide::launch_contract("domain = 2, block = (32, 8), "
                                 "requires = (width * height == in.size(), in.size() == out.size())")]] void
transpose_32x8_checked(std::uint32_t width, std::uint32_t height, oxide::Span<const float> in,
                       oxide::DisjointSpan2D<float> out) {
  auto tile = oxide::shared_array<float, std::size_t{kTile} * kPitch>();
  const oxide::Dim3 t = oxide::thread_idx(), b = oxide::block_idx();
  const std::uint32_t in_col = b.y * kTile + t.x;
  for (std::uint32_t k = 0; k < kTile; k += kRows)
    tile[(t.y + k) * kPitch + t.x] = in[std::size_t{b.x * kTile + t.y + k} * width + in_col];
  oxide::sync_threads();
  const auto mine = out.strided_rows_mut<kTile / kRows>(oxide::thread::index_2d());
  for (std::size_t j = 0; j < mine.size(); ++j)
    if (float *element = mine.get_mut(j))
      *element = tile[t.x * kPitch + t.y + kRows * j];
}

// transposeCoalesced with each thread owning 4 consecutive rows of the output tile (issue 41's
// held-out form): tile_mut<4, 1> gives thread (x, y) column x, rows 4 y .. 4 y + 3, so thread
// (tx, ty) of block (bx, by) writes column bx * 32 + tx, rows by * 32 + 4 ty + r: the same 32 x 32
// output tile per block as transpose_32x8, its 8 rows of threads now in runs of 4 rows instead of
// strided by 8. A warp (one ty, tx = 0..31) still stores 32 consecutive floats of one row, and
// reads tile[tx * 33 + 4 ty + r], 32 different banks. Loads as the docs present safe reads:
// Span's checked subscript, no `if` (the extents must be multiples of 32, as for
// transpose_32x8_checked).
[[kernel, oxide::launch_contract("domain = 2, block = (32, 8), "
                                 "requires = (width * height == in.size(), in.size() == out.size())")]] void
transpose_32x8_tile(std::uint32_t width, std::uint32_t height, oxide::Span<const float> in,
                    oxide::DisjointSpan2D<float> out) {
  constexpr std::uint32_t kOwn = kTile / kRows; // rows per thread
  auto tile = oxide::shared_array<float, std::size_t{kTile} * kPitch>();
  const oxide::Dim3 t = oxide::thread_idx(), b = oxide::block_idx();
  const std::uint32_t in_col = b.y * kTile + t.x;
  for (std::uint32_t k = 0; k < kTile; k += kRows)
    tile[(t.y + k) * kPitch + t.x] = in[std::size_t{b.x * kTile + t.y + k} * width + in_col];
  oxide::sync_threads();
  const auto mine = out.tile_mut<kOwn, 1>(oxide::thread::index_2d());
  // A full tile stores its 4 rows unrolled; only a tile cut by the output's edges loops.
  if (mine.full()) {
    for (std::uint32_t r = 0; r < kOwn; ++r)
      mine(r, 0) = tile[t.x * kPitch + kOwn * t.y + r];
  } else if (!mine.empty()) {
    for (std::size_t r = 0; r < mine.rows(); ++r)
      mine(r, 0) = tile[t.x * kPitch + kOwn * t.y + r];
  }
}

int main(int argc, char **argv) try {
  const std::uint32_t width = argc > 2 ? std::atoi(argv[1]) : 16384,
                      height = argc > 2 ? std::atoi(argv[2]) : 12288;
  const std::size_t n = std::size_t{width} * height;
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  bench::EventTimer timer(ctx);
  const std::vector<float> host = bench::uniform_vector(5, n);
  auto in = oxide::DeviceBuffer<float>::from_host(stream, host);
  auto out = oxide::DeviceBuffer<float>::uninitialized(stream, n);
  // One thread per output element: the output is `height` wide and `width` high.
  const auto config = oxide::LaunchConfig2D::for_elements(height, width, {kTile, kTile, 1});
  auto run = [&](const char *name, auto &&launch) {
    bench::poison(timer, stream, out);
    const float ms =
        timer.median_ms(stream, [&](int) { launch(stream, width, height, in, out.view_2d(height, width)); });
    const std::vector<float> got = out.to_host(stream);
    std::size_t bad = 0;
    for (std::size_t y = 0; y < height; ++y)
      for (std::size_t x = 0; x < width; ++x)
        if (got[x * height + y] != host[y * width + x] && bad++ < 3)
          bench::mismatch(name, x * height + y, got[x * height + y], host[y * width + x]);
    bench::report(name, bench::dims(width, height), "bytes", 2.0 * n * sizeof(float), ms, bad == 0, "safe");
  };
  run("transpose", oxide::prepare(ctx, transpose, config));
  run("transpose_tidmask", oxide::prepare(ctx, transpose_tidmask, config));
  // A quarter of the rows of threads: each writes kTile / kRows output rows.
  const auto config_32x8 = oxide::LaunchConfig2D::for_elements(
      height, (std::size_t{width} + kTile / kRows - 1) / (kTile / kRows), {kTile, kRows, 1});
  run("transpose_32x8", oxide::prepare(ctx, transpose_32x8, config_32x8));
  run("transpose_32x8_checked", oxide::prepare(ctx, transpose_32x8_checked, config_32x8));
  // The same grid: tile_mut<4, 1> covers the output with ceil(width / 4) rows of threads too.
  run("transpose_32x8_tile", oxide::prepare(ctx, transpose_32x8_tile, config_32x8));
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "transpose_oxide: %s\n", e.what());
  return 1;
}
