// Row softmax of 262144 rows of 1024 floats (1 GiB in, 1 GiB out): one block of 1024 threads per
// row, one element per thread; the row's maximum and the sum of exponentials are block-wide
// reductions (bench::block_all_reduce: warp xor-shuffles, then shared memory). A launch contract
// with a 1-D witness per element. Twin: softmax_cuda.cu.
// Issue 41's held-out forms take any row width (threads loop over columns c = t, t + 1024...,
// as layernorm_oxide.cpp's rows do; the block owns its output row through row_mut):
//   softmax_block1024   two passes over the row: its maximum, then the sum of exponentials,
//                       then the write;
//   softmax_online1024  online softmax: one pass keeps a running maximum and a sum rescaled
//                       whenever the maximum grows, the block combines the (max, sum) pairs in
//                       one reduction, then the write.
//
//   softmax_oxide [rows]    prints RESULT lines (bench_common.hpp)
#include "bench_oxide.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>

constexpr std::uint32_t kCols = 1024; // = the block: a row per block
constexpr std::uint32_t kBlock = 1024;

[[kernel, oxide::launch_contract("domain = 1, block = 1024, requires = (in.size() == out.size())")]] void
softmax(oxide::Span<const float> in, oxide::DisjointSpan<float> out) {
  const auto i = oxide::thread::index_1d();
  float *o = out.get_mut(i); // nullptr only past the end: every row is whole (checked on the host)
  const float x = o ? in[i.get()] : -std::numeric_limits<float>::infinity();
  const float row_max = bench::block_all_reduce<kCols>(
      x, [](float a, float b) { return a < b ? b : a; }, -std::numeric_limits<float>::infinity());
  const float e = o ? std::exp(x - row_max) : 0.0f;
  const float row_sum = bench::block_all_reduce<kCols>(e, [](float a, float b) { return a + b; }, 0.0f);
  if (o)
    *o = e / row_sum;
}

// Two passes over the row before the write: the maximum, then the sum of exp(x - maximum). The
// block takes rows b, b + blocks... (block_stride), its thread t columns t, t + 1024...
[[kernel, oxide::launch_contract("domain = 1, block = 1024, "
                                 "requires = (inp.size() == rows * cols, out.size() == rows * cols)")]] void
softmax_block1024(std::uint32_t rows, std::uint32_t cols, oxide::Span<const float> inp,
                  oxide::DisjointSpan2D<float> out) {
  const std::uint32_t t = oxide::thread_idx().x;
  for (const auto &b : oxide::block::block_stride(rows)) {
    const std::size_t row = b.get() * cols;
    float m = -std::numeric_limits<float>::infinity();
    for (std::uint32_t c = t; c < cols; c += kBlock) {
      const float x = inp[row + c];
      m = m < x ? x : m;
    }
    const float row_max = bench::block_all_reduce<kBlock>(
        m, [](float x, float y) { return x < y ? y : x; }, -std::numeric_limits<float>::infinity());
    float sum = 0.0f;
    for (std::uint32_t c = t; c < cols; c += kBlock)
      sum += std::exp(inp[row + c] - row_max);
    const float scale =
        1.0f / bench::block_all_reduce<kBlock>(sum, [](float x, float y) { return x + y; }, 0.0f);
    const auto mine = out.row_mut(b);
    for (std::size_t j = 0; j < mine.size(); ++j) {
      const std::size_t c = t + std::size_t{kBlock} * j;
      if (float *o = mine.get_mut(j))
        *o = std::exp(inp[row + c] - row_max) * scale;
    }
  }
}

// A running (maximum, sum of exp(x - maximum)) pair. The empty pair's maximum is the lowest
// finite float, not -inf, so combining two empty pairs gives exp(0) * 0 = 0, not NaN.
struct MaxSum {
  float max, sum;
};
constexpr MaxSum kEmpty{std::numeric_limits<float>::lowest(), 0.0f};

inline MaxSum combine(MaxSum a, MaxSum b) {
  const float m = a.max < b.max ? b.max : a.max;
  return {m, a.sum * std::exp(a.max - m) + b.sum * std::exp(b.max - m)};
}

// bench::block_all_reduce for MaxSum pairs: each warp combines its lanes with xor-shuffles (two
// shfl.sync per step, one per float), warp 0 the warps' pairs from shared memory. Two barriers.
inline MaxSum block_all_combine(MaxSum v) {
  constexpr std::uint32_t kWarps = kBlock / oxide::warp::kSize;
  auto partial = oxide::shared_array<MaxSum, kWarps>();
  auto result = oxide::shared_array<MaxSum, 1>();
  const std::uint32_t t = oxide::thread_idx().x;
  v = oxide::warp::reduce(v, combine);
  if (oxide::warp::lane_id() == 0)
    partial[t / oxide::warp::kSize] = v;
  oxide::sync_threads();
  if (t < oxide::warp::kSize) {
    const MaxSum all = oxide::warp::reduce(t < kWarps ? partial[t] : kEmpty, combine);
    if (t == 0)
      result[0] = all;
  }
  oxide::sync_threads();
  return result[0];
}

// Online softmax: one pass over the row keeps the thread's running (maximum, sum), the sum
// rescaled by exp(old - new) when the maximum grows; one block reduction of the pairs; the write.
[[kernel, oxide::launch_contract("domain = 1, block = 1024, "
                                 "requires = (inp.size() == rows * cols, out.size() == rows * cols)")]] void
softmax_online1024(std::uint32_t rows, std::uint32_t cols, oxide::Span<const float> inp,
                   oxide::DisjointSpan2D<float> out) {
  const std::uint32_t t = oxide::thread_idx().x;
  for (const auto &b : oxide::block::block_stride(rows)) {
    const std::size_t row = b.get() * cols;
    MaxSum run = kEmpty;
    for (std::uint32_t c = t; c < cols; c += kBlock) {
      const float x = inp[row + c];
      const float m = run.max < x ? x : run.max;
      run = {m, run.sum * std::exp(run.max - m) + std::exp(x - m)};
    }
    const MaxSum all = block_all_combine(run);
    const float scale = 1.0f / all.sum;
    const auto mine = out.row_mut(b);
    for (std::size_t j = 0; j < mine.size(); ++j) {
      const std::size_t c = t + std::size_t{kBlock} * j;
      if (float *o = mine.get_mut(j))
        *o = std::exp(inp[row + c] - all.max) * scale;
    }
  }
}

int main(int argc, char **argv) try {
  const std::size_t rows = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 262144, n = rows * kCols;
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  bench::EventTimer timer(ctx);
  std::vector<float> host = bench::uniform_vector(6, n);
  for (float &x : host)
    x *= 8.0f; // exponents over [-8, 8): terms from 3e-4 to 3e3 of each other
  auto in = oxide::DeviceBuffer<float>::from_host(stream, host);
  auto out = oxide::DeviceBuffer<float>::uninitialized(stream, n);
  auto run = [&](const char *name, auto &&launch) {
    bench::poison(timer, stream, out);
    const float ms = timer.median_ms(stream, [&](int) { launch(); });
    const std::vector<float> got = out.to_host(stream);
    std::size_t bad = 0;
    std::vector<std::size_t> checked; // every 61st row and the last
    for (std::size_t r = 0; r < rows; r += 61)
      checked.push_back(r);
    checked.push_back(rows - 1);
    for (const std::size_t r : checked) {
      const float *x = &host[r * kCols];
      const double m = *std::max_element(x, x + kCols);
      double sum = 0;
      for (std::uint32_t c = 0; c < kCols; ++c)
        sum += std::exp(x[c] - m);
      for (std::uint32_t c = 0; c < kCols; ++c) {
        const double want = std::exp(x[c] - m) / sum;
        if (!bench::close(got[r * kCols + c], want, want, 1e-5, 1e-9) && bad++ < 3)
          bench::mismatch(name, r * kCols + c, got[r * kCols + c], want);
      }
    }
    bench::report(name, bench::dims(rows, kCols), "bytes", 2.0 * n * sizeof(float), ms, bad == 0, "safe");
  };
  auto one_per_thread = oxide::prepare(ctx, softmax, oxide::LaunchConfig1D::for_elements(n, kCols));
  run("softmax", [&] { one_per_thread(stream, in, out); });
  // A block per row; the kernels loop over the columns, one iteration each at this width.
  const oxide::LaunchConfig1D per_row{std::uint32_t(rows), kBlock};
  auto block1024 = oxide::prepare(ctx, softmax_block1024, per_row);
  run("softmax_block1024",
      [&] { block1024(stream, std::uint32_t(rows), kCols, in, out.view_2d(kCols, rows)); });
  auto online1024 = oxide::prepare(ctx, softmax_online1024, per_row);
  run("softmax_online1024",
      [&] { online1024(stream, std::uint32_t(rows), kCols, in, out.view_2d(kCols, rows)); });
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "softmax_oxide: %s\n", e.what());
  return 1;
}
