// Probe (not a pair): where softmax_block1024's time goes (issue 41: 0.85 of nvcc's with the same
// PTX shape). 262144 rows of 1024 floats, a block of 1024 per row, so each thread does one
// iteration of each loop and a block's fixed costs decide the speed. The suite's kernel, then
// one change at a time: the output's width in the contract (every check proved), the write loop
// left rolled, one row per block without block_stride (block::index), and raw pointers in the
// unsafe tier with the CUDA twin's loops.
//
//   oxcc build benchmarks/gpu/probes/softmax_rows.cpp -O3 --arch=sm_90 -o softmax_rows
#include "../bench_oxide.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>

constexpr std::uint32_t kCols = 1024;
constexpr std::uint32_t kBlock = 1024;
constexpr float kLow = -std::numeric_limits<float>::infinity();

inline float row_max(float m) {
  return bench::block_all_reduce<kBlock>(m, [](float x, float y) { return x < y ? y : x; }, kLow);
}
inline float row_sum(float s) {
  return bench::block_all_reduce<kBlock>(s, [](float x, float y) { return x + y; }, 0.0f);
}

enum class Form { suite, rolled, single };

template <Form kForm>
void rows_of(std::uint32_t rows, std::uint32_t cols, oxide::Span<const float> inp,
             oxide::DisjointSpan2D<float> out, const oxide::block::BlockIndex &b) {
  const std::uint32_t t = oxide::thread_idx().x;
  const std::size_t row = b.get() * cols;
  float m = kLow;
  for (std::uint32_t c = t; c < cols; c += kBlock)
    m = std::max(m, inp[row + c]);
  const float top = row_max(m);
  float sum = 0.0f;
  for (std::uint32_t c = t; c < cols; c += kBlock)
    sum += std::exp(inp[row + c] - top);
  const float scale = 1.0f / row_sum(sum);
  const auto mine = out.row_mut(b);
  if constexpr (kForm == Form::rolled) {
#pragma clang loop unroll(disable)
    for (std::size_t j = 0; j < mine.size(); ++j)
      if (float *o = mine.get_mut(j))
        *o = std::exp(inp[row + t + std::size_t{kBlock} * j] - top) * scale;
  } else {
    for (std::size_t j = 0; j < mine.size(); ++j)
      if (float *o = mine.get_mut(j))
        *o = std::exp(inp[row + t + std::size_t{kBlock} * j] - top) * scale;
  }
  (void)rows;
}

#define SOFTMAX_CONTRACT                                                                                     \
  oxide::launch_contract("domain = 1, block = 1024, requires = (inp.size() == rows * cols, "                 \
                         "out.size() == rows * cols)")
[[kernel, SOFTMAX_CONTRACT]] void suite(std::uint32_t rows, std::uint32_t cols, oxide::Span<const float> inp,
                                        oxide::DisjointSpan2D<float> out) {
  for (const auto &b : oxide::block::block_stride(rows))
    rows_of<Form::suite>(rows, cols, inp, out, b);
}
[[kernel, oxide::launch_contract("domain = 1, block = 1024, requires = (inp.size() == rows * cols, "
                                 "out.width() == cols, out.height() == rows)")]] void
width(std::uint32_t rows, std::uint32_t cols, oxide::Span<const float> inp,
      oxide::DisjointSpan2D<float> out) {
  for (const auto &b : oxide::block::block_stride(rows))
    rows_of<Form::suite>(rows, cols, inp, out, b);
}
[[kernel, SOFTMAX_CONTRACT]] void rolled(std::uint32_t rows, std::uint32_t cols, oxide::Span<const float> inp,
                                         oxide::DisjointSpan2D<float> out) {
  for (const auto &b : oxide::block::block_stride(rows))
    rows_of<Form::rolled>(rows, cols, inp, out, b);
}
[[kernel, SOFTMAX_CONTRACT]] void single(std::uint32_t rows, std::uint32_t cols, oxide::Span<const float> inp,
                                         oxide::DisjointSpan2D<float> out) {
  const auto b = oxide::block::index();
  if (b.get() < rows)
    rows_of<Form::single>(rows, cols, inp, out, b);
}
[[kernel, oxide::launch_bounds(1024)]] void raw(std::uint32_t rows, std::uint32_t cols,
                                                oxide::Span<const float> inp_, oxide::Span<float> out_) {
  const float *inp = inp_.data();
  float *out = out_.data();
  const std::uint32_t t = oxide::thread_idx().x;
  for (std::uint32_t r = oxide::block_idx().x; r < rows; r += oxide::grid_dim().x) {
    const std::size_t row = std::size_t{r} * cols;
    float m = kLow;
    for (std::uint32_t c = t; c < cols; c += kBlock)
      m = std::max(m, inp[row + c]);
    const float top = row_max(m);
    float sum = 0.0f;
    for (std::uint32_t c = t; c < cols; c += kBlock)
      sum += std::exp(inp[row + c] - top);
    const float scale = 1.0f / row_sum(sum);
    for (std::uint32_t c = t; c < cols; c += kBlock)
      out[row + c] = std::exp(inp[row + c] - top) * scale;
  }
}

int main(int argc, char **argv) try {
  const std::size_t rows = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 262144, n = rows * kCols;
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  bench::EventTimer timer(ctx);
  std::vector<float> host = bench::uniform_vector(6, n);
  for (float &x : host)
    x *= 8.0f;
  auto in = oxide::DeviceBuffer<float>::from_host(stream, host);
  auto out = oxide::DeviceBuffer<float>::uninitialized(stream, n);
  auto run = [&](const char *name, auto &&launch) {
    bench::poison(timer, stream, out);
    const float ms = timer.median_ms(stream, [&](int) { launch(); });
    const std::vector<float> got = out.to_host(stream);
    std::size_t bad = 0;
    for (std::size_t r = 0; r < rows; r += 61) {
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
  const oxide::LaunchConfig1D per_row{std::uint32_t(rows), kBlock};
  const auto u32rows = std::uint32_t(rows);
  auto k_suite = oxide::prepare(ctx, suite, per_row);
  auto k_width = oxide::prepare(ctx, width, per_row);
  auto k_rolled = oxide::prepare(ctx, rolled, per_row);
  auto k_single = oxide::prepare(ctx, single, per_row);
  run("softmax_suite", [&] { k_suite(stream, u32rows, kCols, in, out.view_2d(kCols, rows)); });
  run("softmax_width", [&] { k_width(stream, u32rows, kCols, in, out.view_2d(kCols, rows)); });
  run("softmax_rolled", [&] { k_rolled(stream, u32rows, kCols, in, out.view_2d(kCols, rows)); });
  run("softmax_single", [&] { k_single(stream, u32rows, kCols, in, out.view_2d(kCols, rows)); });
  run("softmax_raw", [&] { oxide::unsafe_launch(stream, raw, per_row, u32rows, kCols, in, out); });
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "softmax_rows: %s\n", e.what());
  return 1;
}
