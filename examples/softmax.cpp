// softmax: the numerically stable softmax of each row of a rows x 3000 matrix, one block of 256
// threads per row: out[r][j] = exp(in[r][j] - max_r) / sum_j exp(in[r][j] - max_r). Each thread
// holds 16 elements of its row in registers; the row's maximum and then its sum of exponentials
// are block reductions: warp shuffles (warp::max, warp::sum) within each warp, then the warps'
// results through shared memory and a barrier.
//
// The outputs stay safe: each thread writes its 16 elements through a check-once tile of a
// DisjointSpan (tile_mut<16> of its own 1-D witness, as in tiles.cpp). Thread t of block r owns
// elements (256 r + t) * 16 .. + 15, so block r owns the 4096 elements from 4096 r: the output is
// laid out with a row pitch of 4096 floats, and the columns from 3000 to 4095 of each row are
// padding that the kernel sets to 0. (A DisjointSpan2D would give a thread only one element, and
// rows of exactly 4096 columns would leave no partial row to test.)
//
//   oxcc run examples/softmax.cpp
#include <oxide/oxide.hpp>

#include "problem_size.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

constexpr std::uint32_t kBlock = 256;
constexpr std::uint32_t kWarps = kBlock / oxide::warp::kSize;
constexpr std::size_t kPerThread = 16;
constexpr std::size_t kPitch = kBlock * kPerThread; // floats per output row; also the widest row

// Combines one value per thread over the whole block with `op`; every thread gets the result.
// `partials` (one element per warp, in shared memory) must not be in use by another reduction.
template <class Op> float block_reduce(float value, Op op, oxide::Span<float> partials) {
  const float warp_result = oxide::warp::reduce(value, op); // every lane takes part
  if (oxide::warp::lane_id() == 0)
    partials[oxide::thread_idx().x / oxide::warp::kSize] = warp_result;
  oxide::sync_threads(); // every warp's result is in shared memory
  // Every thread combines the warps' results itself, in the same order: the same value for all,
  // with no second barrier to broadcast it.
  float result = partials[0];
  for (std::uint32_t w = 1; w < kWarps; ++w)
    result = op(result, partials[w]);
  return result;
}

// `in` is rows x cols, row-major; `out` is rows x 4096 (kPitch), row-major.
[[kernel, oxide::launch_contract("domain = 1, block = 256, "
                                 "requires = (in.size() == rows * cols, out.size() == rows * 4096, "
                                 "cols <= 4096)")]] void
softmax(std::uint32_t rows, std::uint32_t cols, oxide::Span<const float> in, oxide::DisjointSpan<float> out) {
  auto row_maxima = oxide::shared_array<float, kWarps>();
  auto row_sums = oxide::shared_array<float, kWarps>();
  const std::uint32_t row = oxide::block_idx().x;
  const std::size_t first = std::size_t{oxide::thread_idx().x} * kPerThread; // the thread's first column
  // Blocks past the last row would only find an empty tile; all threads of a block agree here,
  // so none of them skips a barrier another waits at.
  if (row >= rows)
    return;

  float v[kPerThread];
  float local_max = -std::numeric_limits<float>::infinity();
  for (std::size_t j = 0; j < kPerThread; ++j) {
    v[j] =
        first + j < cols ? in[std::size_t{row} * cols + first + j] : -std::numeric_limits<float>::infinity();
    local_max = std::max(local_max, v[j]);
  }
  const float row_max = block_reduce(local_max, [](float x, float y) { return std::max(x, y); }, row_maxima);

  float local_sum = 0.0f;
  for (std::size_t j = 0; j < kPerThread; ++j) {
    v[j] = first + j < cols ? std::exp(v[j] - row_max) : 0.0f; // at most 1: cannot overflow
    local_sum += v[j];
  }
  const float row_sum = block_reduce(local_sum, [](float x, float y) { return x + y; }, row_sums);

  // This thread's 16 elements of the output (fewer at the end); the padding gets v[j] = 0.
  auto tile = out.tile_mut<kPerThread>(oxide::thread::index_1d());
  std::size_t j = 0;
  for (float &o : tile)
    o = v[j++] / row_sum;
}

int main() try {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  // The simulator switches fibers at every barrier and for every lane of every warp shuffle, so it
  // gets fewer rows, to finish in well under a second.
  const std::uint32_t rows = example::small_problem(ctx) ? 1000 : 8192,
                      cols = 3000; // a row is not a multiple of 256
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(-10.0f, 10.0f);
  std::vector<float> host(std::size_t{rows} * cols);
  for (float &x : host)
    x = dist(rng);

  auto in = oxide::DeviceBuffer<float>::from_host(stream, host);
  // Poisoned with NaN so an element the kernel never wrote cannot pass the check.
  auto out = oxide::DeviceBuffer<float>::from_host(
      stream, std::vector<float>(std::size_t{rows} * kPitch, std::numeric_limits<float>::quiet_NaN()));
  // One block per row: rows * 256 threads, each with a tile of 16 outputs.
  const auto config = oxide::LaunchConfig1D::for_elements(std::size_t{rows} * kBlock, kBlock);
  oxide::prepare(ctx, softmax, config)(stream, rows, cols, in, out);
  const std::vector<float> result = out.to_host(stream);

  // The reference in double. The error bound of an output, in units of u = 2^-24 (the unit
  // roundoff of float):
  //  - x - max rounds by at most u |x - max| <= 20 u (inputs in [-10, 10]), which exp turns into a
  //    relative error of at most 20 u; exp itself is within 2 ulp (libdevice's expf, the host's
  //    libm), so each exponential is within 24 u;
  //  - the sum's additions form a tree of depth 16 (a thread's elements) + 5 (the warp's
  //    butterfly) + 7 (the warps' results) = 28, each adding at most u of relative error to
  //    positive terms, so the sum is within 28 u + 24 u of the exact sum of the exact exponentials;
  //  - the division rounds once more.
  // That is at most 24 + 52 + 1 = 77 u relative to the result, with no assumption about the
  // rounding; the check allows 128 u, still small enough to catch a missing term (1/3000 of a row).
  constexpr double u = std::numeric_limits<float>::epsilon() / 2;
  constexpr double tolerance = 128 * u;
  std::vector<double> e(cols);
  std::size_t wrong = 0;
  for (std::uint32_t r = 0; r < rows; ++r) {
    const float *x = &host[std::size_t{r} * cols];
    const double max = *std::max_element(x, x + cols);
    double sum = 0.0;
    for (std::uint32_t j = 0; j < cols; ++j)
      sum += e[j] = std::exp(double(x[j]) - max);
    for (std::size_t j = 0; j < kPitch; ++j) {
      const double expected = j < cols ? e[j] / sum : 0.0;
      const float got = result[std::size_t{r} * kPitch + j];
      if (!(std::fabs(got - expected) <= tolerance * expected) && wrong++ < 5)
        std::printf("out[%u][%zu]: got %.9g, expected %.9g\n", r, j, got, expected);
    }
  }
  if (wrong != 0) {
    std::printf("FAIL: %zu of %zu elements wrong\n", wrong, result.size());
    return 1;
  }
  std::printf("softmax: %u rows of %u floats, one block of %u threads per row, on %s\nPASS\n", rows, cols,
              kBlock, ctx.device().name().c_str());
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
