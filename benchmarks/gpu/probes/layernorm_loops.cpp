// Probe (not a pair): where the safe layernorm kernel's time goes (docs/performance.md, session
// 19). The suite's three kernels, then a block of 1024 per row with its write loop over the
// column (`ln_B`), with `#pragma unroll 4` on the owned-elements loop (`ln_E`, which LLVM
// declines), and the same algorithm with raw pointers in the unsafe tier (`raw1024`).
//
//   oxcc build benchmarks/gpu/probes/layernorm_loops.cpp -O3 --arch=sm_90 -o layernorm_loops
#include "../bench_oxide.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>

constexpr std::uint32_t kCols = 4096;
constexpr float kEps = 1e-5f;

template <std::uint32_t kBlock>
void layernorm_rows(std::uint32_t rows, std::uint32_t cols, oxide::Span<const float> inp,
                    oxide::Span<const float> weight, oxide::Span<const float> bias,
                    oxide::DisjointSpan2D<float> out, oxide::DisjointSpan<float> mean,
                    oxide::DisjointSpan<float> rstd) {
  const std::uint32_t t = oxide::thread_idx().x;
  for (const auto &b : oxide::block::block_stride(rows)) {
    const std::size_t row = b.get() * cols;
    float sum = 0.0f;
    for (std::uint32_t c = t; c < cols; c += kBlock)
      sum += inp[row + c];
    const float m =
        bench::block_all_reduce<kBlock>(sum, [](float x, float y) { return x + y; }, 0.0f) / float(cols);
    float squares = 0.0f;
    for (std::uint32_t c = t; c < cols; c += kBlock) {
      const float d = inp[row + c] - m;
      squares += d * d;
    }
    const float var =
        bench::block_all_reduce<kBlock>(squares, [](float x, float y) { return x + y; }, 0.0f) / float(cols);
    const float s = 1.0f / std::sqrt(var + kEps);
    if (float *o = mean.get_mut(b))
      *o = m;
    if (float *o = rstd.get_mut(b))
      *o = s;
    const auto mine = out.row_mut(b);
    for (std::size_t j = 0; j < mine.size(); ++j) {
      const std::size_t c = t + std::size_t{kBlock} * j;
      if (float *o = mine.get_mut(j))
        *o = (inp[row + c] - m) * s * weight[c] + bias[c];
    }
  }
}

[[kernel, oxide::launch_contract("domain = 1, block = 1024, requires = (inp.size() == rows * cols, "
                                 "out.size() == rows * cols, weight.size() == cols, bias.size() == cols, "
                                 "mean.size() == rows, rstd.size() == rows)")]] void
layernorm_block1024(std::uint32_t rows, std::uint32_t cols, oxide::Span<const float> inp,
                    oxide::Span<const float> weight, oxide::Span<const float> bias,
                    oxide::DisjointSpan2D<float> out, oxide::DisjointSpan<float> mean,
                    oxide::DisjointSpan<float> rstd) {
  layernorm_rows<1024>(rows, cols, inp, weight, bias, out, mean, rstd);
}

[[kernel, oxide::launch_contract("domain = 1, block = 512, requires = (inp.size() == rows * cols, "
                                 "out.size() == rows * cols, weight.size() == cols, bias.size() == cols, "
                                 "mean.size() == rows, rstd.size() == rows)")]] void
layernorm_block512(std::uint32_t rows, std::uint32_t cols, oxide::Span<const float> inp,
                   oxide::Span<const float> weight, oxide::Span<const float> bias,
                   oxide::DisjointSpan2D<float> out, oxide::DisjointSpan<float> mean,
                   oxide::DisjointSpan<float> rstd) {
  layernorm_rows<512>(rows, cols, inp, weight, bias, out, mean, rstd);
}

[[kernel, oxide::launch_contract("domain = 1, block = 256, requires = (inp.size() == rows * cols, "
                                 "out.size() == rows * cols, weight.size() == cols, bias.size() == cols, "
                                 "mean.size() == rows, rstd.size() == rows)")]] void
layernorm_warp(std::uint32_t rows, std::uint32_t cols, oxide::Span<const float> inp,
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

template <std::uint32_t kBlock>
void rows_B(std::uint32_t rows, std::uint32_t cols, oxide::Span<const float> inp,
            oxide::Span<const float> weight, oxide::Span<const float> bias, oxide::DisjointSpan2D<float> out,
            oxide::DisjointSpan<float> mean, oxide::DisjointSpan<float> rstd) {
  const std::uint32_t t = oxide::thread_idx().x;
  for (const auto &b : oxide::block::block_stride(rows)) {
    const std::size_t row = b.get() * cols;
    float sum = 0.0f;
    for (std::uint32_t c = t; c < cols; c += kBlock)
      sum += inp[row + c];
    const float m =
        bench::block_all_reduce<kBlock>(sum, [](float x, float y) { return x + y; }, 0.0f) / float(cols);
    float squares = 0.0f;
    for (std::uint32_t c = t; c < cols; c += kBlock) {
      const float d = inp[row + c] - m;
      squares += d * d;
    }
    const float var =
        bench::block_all_reduce<kBlock>(squares, [](float x, float y) { return x + y; }, 0.0f) / float(cols);
    const float s = 1.0f / std::sqrt(var + kEps);
    if (float *o = mean.get_mut(b))
      *o = m;
    if (float *o = rstd.get_mut(b))
      *o = s;
    const auto mine = out.row_mut(b);
    std::size_t j = 0;
    for (std::uint32_t c = t; c < cols; c += kBlock, ++j)
      if (float *o = mine.get_mut(j))
        *o = (inp[row + c] - m) * s * weight[c] + bias[c];
  }
}

template <std::uint32_t kBlock>
void rows_E(std::uint32_t rows, std::uint32_t cols, oxide::Span<const float> inp,
            oxide::Span<const float> weight, oxide::Span<const float> bias, oxide::DisjointSpan2D<float> out,
            oxide::DisjointSpan<float> mean, oxide::DisjointSpan<float> rstd) {
  const std::uint32_t t = oxide::thread_idx().x;
  for (const auto &b : oxide::block::block_stride(rows)) {
    const std::size_t row = b.get() * cols;
    float sum = 0.0f;
    for (std::uint32_t c = t; c < cols; c += kBlock)
      sum += inp[row + c];
    const float m =
        bench::block_all_reduce<kBlock>(sum, [](float x, float y) { return x + y; }, 0.0f) / float(cols);
    float squares = 0.0f;
    for (std::uint32_t c = t; c < cols; c += kBlock) {
      const float d = inp[row + c] - m;
      squares += d * d;
    }
    const float var =
        bench::block_all_reduce<kBlock>(squares, [](float x, float y) { return x + y; }, 0.0f) / float(cols);
    const float s = 1.0f / std::sqrt(var + kEps);
    if (float *o = mean.get_mut(b))
      *o = m;
    if (float *o = rstd.get_mut(b))
      *o = s;
    const auto mine = out.row_mut(b);
#pragma unroll 4
    for (std::size_t j = 0; j < mine.size(); ++j) {
      const std::size_t c = t + std::size_t{kBlock} * j;
      if (float *o = mine.get_mut(j))
        *o = (inp[row + c] - m) * s * weight[c] + bias[c];
    }
  }
}

// The suite's kernel with its write loop left rolled for ptxas (`ln_F`: LLVM's runtime unrolling
// by two, with its remainder loop, off) or counted in 32 bits (`ln_G`).
template <std::uint32_t kBlock, bool kRolled, class Counter>
void rows_FG(std::uint32_t rows, std::uint32_t cols, oxide::Span<const float> inp,
             oxide::Span<const float> weight, oxide::Span<const float> bias, oxide::DisjointSpan2D<float> out,
             oxide::DisjointSpan<float> mean, oxide::DisjointSpan<float> rstd) {
  const std::uint32_t t = oxide::thread_idx().x;
  for (const auto &b : oxide::block::block_stride(rows)) {
    const std::size_t row = b.get() * cols;
    float sum = 0.0f;
    for (std::uint32_t c = t; c < cols; c += kBlock)
      sum += inp[row + c];
    const float m =
        bench::block_all_reduce<kBlock>(sum, [](float x, float y) { return x + y; }, 0.0f) / float(cols);
    float squares = 0.0f;
    for (std::uint32_t c = t; c < cols; c += kBlock) {
      const float d = inp[row + c] - m;
      squares += d * d;
    }
    const float var =
        bench::block_all_reduce<kBlock>(squares, [](float x, float y) { return x + y; }, 0.0f) / float(cols);
    const float s = 1.0f / std::sqrt(var + kEps);
    if (float *o = mean.get_mut(b))
      *o = m;
    if (float *o = rstd.get_mut(b))
      *o = s;
    const auto mine = out.row_mut(b);
    if constexpr (kRolled) {
#pragma clang loop unroll(disable)
      for (Counter j = 0; j < mine.size(); ++j) {
        const std::size_t c = t + std::size_t{kBlock} * j;
        if (float *o = mine.get_mut(j))
          *o = (inp[row + c] - m) * s * weight[c] + bias[c];
      }
    } else {
      for (Counter j = 0; j < mine.size(); ++j) {
        const std::size_t c = t + std::size_t{kBlock} * j;
        if (float *o = mine.get_mut(j))
          *o = (inp[row + c] - m) * s * weight[c] + bias[c];
      }
    }
  }
}

#define LN_CONTRACT                                                                                          \
  oxide::launch_contract("domain = 1, block = 1024, requires = (inp.size() == rows * cols, "                 \
                         "out.size() == rows * cols, weight.size() == cols, bias.size() == cols, "           \
                         "mean.size() == rows, rstd.size() == rows)")
[[kernel, LN_CONTRACT]] void ln_F(std::uint32_t rows, std::uint32_t cols, oxide::Span<const float> inp,
                                  oxide::Span<const float> weight, oxide::Span<const float> bias,
                                  oxide::DisjointSpan2D<float> out, oxide::DisjointSpan<float> mean,
                                  oxide::DisjointSpan<float> rstd) {
  rows_FG<1024, true, std::size_t>(rows, cols, inp, weight, bias, out, mean, rstd);
}
[[kernel, LN_CONTRACT]] void ln_G(std::uint32_t rows, std::uint32_t cols, oxide::Span<const float> inp,
                                  oxide::Span<const float> weight, oxide::Span<const float> bias,
                                  oxide::DisjointSpan2D<float> out, oxide::DisjointSpan<float> mean,
                                  oxide::DisjointSpan<float> rstd) {
  rows_FG<1024, false, std::uint32_t>(rows, cols, inp, weight, bias, out, mean, rstd);
}
[[kernel, LN_CONTRACT]] void ln_H(std::uint32_t rows, std::uint32_t cols, oxide::Span<const float> inp,
                                  oxide::Span<const float> weight, oxide::Span<const float> bias,
                                  oxide::DisjointSpan2D<float> out, oxide::DisjointSpan<float> mean,
                                  oxide::DisjointSpan<float> rstd) {
  rows_FG<1024, true, std::uint32_t>(rows, cols, inp, weight, bias, out, mean, rstd);
}
// The suite's kernel held to two blocks per multiprocessor (32 registers: ptxas spills rather
// than take more), and with the output's width in the contract (every check proved).
[[kernel, LN_CONTRACT, oxide::launch_bounds(1024, 2)]] void
ln_I(std::uint32_t rows, std::uint32_t cols, oxide::Span<const float> inp, oxide::Span<const float> weight,
     oxide::Span<const float> bias, oxide::DisjointSpan2D<float> out, oxide::DisjointSpan<float> mean,
     oxide::DisjointSpan<float> rstd) {
  layernorm_rows<1024>(rows, cols, inp, weight, bias, out, mean, rstd);
}
[[kernel, oxide::launch_contract("domain = 1, block = 1024, requires = (inp.size() == rows * cols, "
                                 "out.size() == rows * cols, out.width() == cols, weight.size() == cols, "
                                 "bias.size() == cols, mean.size() == rows, rstd.size() == rows)")]] void
ln_J(std::uint32_t rows, std::uint32_t cols, oxide::Span<const float> inp, oxide::Span<const float> weight,
     oxide::Span<const float> bias, oxide::DisjointSpan2D<float> out, oxide::DisjointSpan<float> mean,
     oxide::DisjointSpan<float> rstd) {
  layernorm_rows<1024>(rows, cols, inp, weight, bias, out, mean, rstd);
}

[[kernel, oxide::launch_contract("domain = 1, block = 1024, requires = (inp.size() == rows * cols, "
                                 "out.size() == rows * cols, weight.size() == cols, bias.size() == cols, "
                                 "mean.size() == rows, rstd.size() == rows)")]] void
ln_B(std::uint32_t rows, std::uint32_t cols, oxide::Span<const float> inp, oxide::Span<const float> weight,
     oxide::Span<const float> bias, oxide::DisjointSpan2D<float> out, oxide::DisjointSpan<float> mean,
     oxide::DisjointSpan<float> rstd) {
  rows_B<1024>(rows, cols, inp, weight, bias, out, mean, rstd);
}
[[kernel, oxide::launch_contract("domain = 1, block = 1024, requires = (inp.size() == rows * cols, "
                                 "out.size() == rows * cols, weight.size() == cols, bias.size() == cols, "
                                 "mean.size() == rows, rstd.size() == rows)")]] void
ln_E(std::uint32_t rows, std::uint32_t cols, oxide::Span<const float> inp, oxide::Span<const float> weight,
     oxide::Span<const float> bias, oxide::DisjointSpan2D<float> out, oxide::DisjointSpan<float> mean,
     oxide::DisjointSpan<float> rstd) {
  rows_E<1024>(rows, cols, inp, weight, bias, out, mean, rstd);
}

[[kernel, oxide::launch_bounds(1024)]] void raw1024(std::uint32_t rows, std::uint32_t cols,
                                                    oxide::Span<const float> inp_,
                                                    oxide::Span<const float> weight_,
                                                    oxide::Span<const float> bias_, oxide::Span<float> out_,
                                                    oxide::Span<float> mean_, oxide::Span<float> rstd_) {
  constexpr std::uint32_t kBlock = 1024;
  const float *inp = inp_.data(), *weight = weight_.data(), *bias = bias_.data();
  float *out = out_.data(), *mean = mean_.data(), *rstd = rstd_.data();
  const std::uint32_t t = oxide::thread_idx().x;
  for (std::uint32_t r = oxide::block_idx().x; r < rows; r += oxide::grid_dim().x) {
    const std::size_t row = std::size_t(r) * cols;
    float sum = 0.0f;
    for (std::uint32_t c = t; c < cols; c += kBlock)
      sum += inp[row + c];
    const float m =
        bench::block_all_reduce<kBlock>(sum, [](float x, float y) { return x + y; }, 0.0f) / float(cols);
    float squares = 0.0f;
    for (std::uint32_t c = t; c < cols; c += kBlock) {
      const float d = inp[row + c] - m;
      squares += d * d;
    }
    const float s = 1.0f / std::sqrt(bench::block_all_reduce<kBlock>(
                                         squares, [](float x, float y) { return x + y; }, 0.0f) /
                                         float(cols) +
                                     kEps);
    if (t == 0) {
      mean[r] = m;
      rstd[r] = s;
    }
    for (std::uint32_t c = t; c < cols; c += kBlock)
      out[row + c] = (inp[row + c] - m) * s * weight[c] + bias[c];
  }
}

int main(int argc, char **argv) try {
  const std::uint32_t rows = argc > 1 ? std::uint32_t(std::strtoul(argv[1], nullptr, 10)) : 32768;
  const std::size_t n = std::size_t{rows} * kCols;
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  bench::EventTimer timer(ctx);
  std::vector<float> host = bench::uniform_vector(11, n), weight = bench::uniform_vector(12, kCols),
                     bias = bench::uniform_vector(13, kCols);
  for (float &x : host)
    x = 3.0f + 4.0f * x; // a mean away from 0, as activations have
  auto d_inp = oxide::DeviceBuffer<float>::from_host(stream, host);
  auto d_weight = oxide::DeviceBuffer<float>::from_host(stream, weight);
  auto d_bias = oxide::DeviceBuffer<float>::from_host(stream, bias);
  auto d_out = oxide::DeviceBuffer<float>::uninitialized(stream, n);
  auto d_mean = oxide::DeviceBuffer<float>::uninitialized(stream, rows);
  auto d_rstd = oxide::DeviceBuffer<float>::uninitialized(stream, rows);
  auto run = [&](const char *name, auto &&launch) {
    bench::poison(timer, stream, d_out);
    bench::poison(timer, stream, d_mean);
    bench::poison(timer, stream, d_rstd);
    const float ms = timer.median_ms(stream, [&](int) { launch(); });
    const std::vector<float> out = d_out.to_host(stream), mean = d_mean.to_host(stream),
                             rstd = d_rstd.to_host(stream);
    std::size_t bad = 0;
    std::vector<std::uint32_t> checked; // every 97th row and the last
    for (std::uint32_t r = 0; r < rows; r += 97)
      checked.push_back(r);
    checked.push_back(rows - 1);
    for (const std::uint32_t r : checked) {
      const float *x = &host[std::size_t{r} * kCols];
      double m = 0, v = 0;
      for (std::uint32_t c = 0; c < kCols; ++c)
        m += x[c];
      m /= kCols;
      for (std::uint32_t c = 0; c < kCols; ++c)
        v += (x[c] - m) * (x[c] - m);
      const double s = 1.0 / std::sqrt(v / kCols + kEps);
      if (!bench::close(mean[r], m, 1.0 + std::fabs(m), 1e-5, 1e-5) && bad++ < 3)
        bench::mismatch(name, r, mean[r], m);
      if (!bench::close(rstd[r], s, s, 1e-4, 1e-6) && bad++ < 3)
        bench::mismatch(name, r, rstd[r], s);
      for (std::uint32_t c = 0; c < kCols; ++c) {
        const double want = (x[c] - m) * s * weight[c] + bias[c];
        const float got = out[std::size_t{r} * kCols + c];
        if (!bench::close(got, want, 1.0 + std::fabs(want), 1e-4, 1e-5) && bad++ < 3)
          bench::mismatch(name, std::size_t{r} * kCols + c, got, want);
      }
    }
    bench::report(name, bench::dims(rows, kCols), "bytes", 2.0 * n * sizeof(float), ms, bad == 0, "safe");
  };
  auto launch_with = [&](auto kernel, oxide::LaunchConfig1D config) {
    auto prepared = oxide::prepare(ctx, kernel, config);
    return [&, prepared]() mutable {
      prepared(stream, rows, kCols, d_inp, d_weight, d_bias, d_out.view_2d(kCols, rows), d_mean, d_rstd);
    };
  };
  run("layernorm_block1024", launch_with(layernorm_block1024, oxide::LaunchConfig1D{rows, 1024}));
  run("layernorm_block512", launch_with(layernorm_block512, oxide::LaunchConfig1D{rows, 512}));
  run("layernorm_warp", launch_with(layernorm_warp, oxide::LaunchConfig1D{rows / 8, 256}));
  run("layernorm_B_cloop", launch_with(ln_B, oxide::LaunchConfig1D{rows, 1024}));
  run("layernorm_E_unroll", launch_with(ln_E, oxide::LaunchConfig1D{rows, 1024}));
  run("layernorm_F_rolled", launch_with(ln_F, oxide::LaunchConfig1D{rows, 1024}));
  run("layernorm_G_j32", launch_with(ln_G, oxide::LaunchConfig1D{rows, 1024}));
  run("layernorm_H_j32_rolled", launch_with(ln_H, oxide::LaunchConfig1D{rows, 1024}));
  run("layernorm_I_two_blocks", launch_with(ln_I, oxide::LaunchConfig1D{rows, 1024}));
  run("layernorm_J_width", launch_with(ln_J, oxide::LaunchConfig1D{rows, 1024}));
  run("layernorm_raw1024", [&] {
    oxide::unsafe_launch(stream, raw1024, oxide::LaunchConfig1D{rows, 1024}, rows, kCols, d_inp, d_weight,
                         d_bias, d_out, d_mean, d_rstd);
  });
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "layernorm_oxide: %s\n", e.what());
  return 1;
}
