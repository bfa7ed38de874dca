// layernorm: the forward pass of layer normalisation as llm.c writes it (GPT-2: B x T rows of C
// channels; out = (x - mean) / sqrt(var + 1e-5) * weight + bias, with each row's mean and
// 1/stddev kept for the backward pass). One warp per row: the lanes stride over the row's
// channels and reduce with shuffles (warp::sum); lane 0 writes the row's mean and rstd through
// the warp's witness (get_mut(warp)), and the lanes write the normalised row through row_mut.
//
//   oxcc run examples/layernorm.cpp
#include <oxide/oxide.hpp>

#include "problem_size.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

constexpr float kEps = 1e-5f;
constexpr std::uint32_t kBlock = 256; // 8 warps, 8 rows at a time per block

// Safe: the warp owns its row. warp_stride hands each warp whole rows (every lane of a warp sees
// the same row, so the shuffles are uniform); mean.get_mut(w) is element w for lane 0 only, and
// out.row_mut(w) gives lane l the columns l, l + 32, ... of row w.
[[kernel, oxide::launch_contract("domain = 1, block = 256, "
                                 "requires = (inp.size() == rows * cols, out.size() == rows * cols, "
                                 "weight.size() == cols, bias.size() == cols, mean.size() == rows, "
                                 "rstd.size() == rows)")]] void
layernorm_forward(std::uint32_t rows, std::uint32_t cols, oxide::Span<const float> inp,
                  oxide::Span<const float> weight, oxide::Span<const float> bias,
                  oxide::DisjointSpan2D<float> out, oxide::DisjointSpan<float> mean,
                  oxide::DisjointSpan<float> rstd) {
  const std::uint32_t lane = oxide::warp::lane_id();
  for (const auto &w : oxide::warp::warp_stride(rows)) {
    const std::size_t row = w.get() * cols;
    float sum = 0.0f;
    for (std::uint32_t c = lane; c < cols; c += oxide::warp::kSize)
      sum += inp[row + c];
    const float m = oxide::warp::sum(sum) / float(cols);
    // The variance from the deviations (a second pass over the row, from L1/L2), as llm.c does:
    // E[x^2] - m^2 would cancel badly for rows with a large mean.
    float squares = 0.0f;
    for (std::uint32_t c = lane; c < cols; c += oxide::warp::kSize) {
      const float d = inp[row + c] - m;
      squares += d * d;
    }
    const float s = 1.0f / std::sqrt(oxide::warp::sum(squares) / float(cols) + kEps);
    if (float *o = mean.get_mut(w))
      *o = m;
    if (float *o = rstd.get_mut(w))
      *o = s;
    const auto mine = out.row_mut(w);
    for (std::size_t j = 0; j < mine.size(); ++j) {
      const std::size_t c = lane + std::size_t{oxide::warp::kSize} * j;
      if (float *o = mine.get_mut(j))
        *o = (inp[row + c] - m) * s * weight[c] + bias[c];
    }
  }
}

int main() try {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  // GPT-2's B = 8, T = 1024 on a GPU; B = 4, T = 256 on the simulator, which runs every lane as
  // a fiber and switches fibers at each shuffle. C = 770 is not a multiple of 32: the last
  // columns of a row belong to lanes 0 and 1 only; for the others row_mut's last element is past
  // the row (nullptr).
  const std::uint32_t rows = example::small_problem(ctx) ? 4 * 256 : 8 * 1024, cols = 770;
  std::mt19937 rng(std::random_device{}());
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> inp(std::size_t{rows} * cols), weight(cols), bias(cols);
  for (std::size_t i = 0; i < inp.size(); ++i)
    inp[i] = 3.0f + 2.0f * dist(rng); // a mean away from 0, as activations have
  for (std::uint32_t c = 0; c < cols; ++c) {
    weight[c] = 1.0f + 0.1f * dist(rng);
    bias[c] = 0.1f * dist(rng);
  }

  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto d_inp = oxide::DeviceBuffer<float>::from_host(stream, inp);
  auto d_weight = oxide::DeviceBuffer<float>::from_host(stream, weight);
  auto d_bias = oxide::DeviceBuffer<float>::from_host(stream, bias);
  // Poisoned with NaN so an element the kernel never wrote cannot pass the check.
  auto d_out = oxide::DeviceBuffer<float>::from_host(stream, std::vector<float>(inp.size(), nan));
  auto d_mean = oxide::DeviceBuffer<float>::from_host(stream, std::vector<float>(rows, nan));
  auto d_rstd = oxide::DeviceBuffer<float>::from_host(stream, std::vector<float>(rows, nan));
  // A quarter of the warps the rows need: each warp normalises about four rows.
  const std::uint32_t warps_per_block = kBlock / oxide::warp::kSize;
  const std::uint32_t blocks = (rows / 4 + warps_per_block - 1) / warps_per_block;
  auto layernorm = oxide::prepare(ctx, layernorm_forward, oxide::LaunchConfig1D{blocks, kBlock});
  layernorm(stream, rows, cols, d_inp, d_weight, d_bias, d_out.view_2d(cols, rows), d_mean, d_rstd);
  const std::vector<float> out = d_out.to_host(stream), mean = d_mean.to_host(stream),
                           rstd = d_rstd.to_host(stream);

  std::size_t wrong = 0;
  auto check = [&](const char *what, std::size_t i, float got, double want) {
    // Float sums in another order differ in the last bits: a few ulps of the value.
    if (!(std::fabs(got - want) <= 1e-4 * (1.0 + std::fabs(want))) && wrong++ < 5)
      std::printf("%s %zu: got %.7g, expected %.7g\n", what, i, got, want);
  };
  for (std::uint32_t r = 0; r < rows; ++r) {
    const float *x = &inp[std::size_t{r} * cols];
    double m = 0.0, v = 0.0;
    for (std::uint32_t c = 0; c < cols; ++c)
      m += x[c];
    m /= cols;
    for (std::uint32_t c = 0; c < cols; ++c)
      v += (x[c] - m) * (x[c] - m);
    const double s = 1.0 / std::sqrt(v / cols + kEps);
    check("mean", r, mean[r], m);
    check("rstd", r, rstd[r], s);
    for (std::uint32_t c = 0; c < cols; ++c)
      check("out", std::size_t{r} * cols + c, out[std::size_t{r} * cols + c],
            (x[c] - m) * s * weight[c] + bias[c]);
  }
  if (wrong != 0) {
    std::printf("FAIL: %zu values wrong\n", wrong);
    return 1;
  }
  std::printf("layernorm: %u rows of %u channels, %u warps, on %s\nPASS\n", rows, cols,
              blocks * warps_per_block, ctx.device().name().c_str());
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
