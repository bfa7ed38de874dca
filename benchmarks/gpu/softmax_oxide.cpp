// Row softmax of 262144 rows of 1024 floats (1 GiB in, 1 GiB out): one block of 1024 threads per
// row, one element per thread; the row's maximum and the sum of exponentials are block-wide
// reductions (bench::block_all_reduce: warp xor-shuffles, then shared memory). A launch contract
// with a 1-D witness per element. Twin: softmax_cuda.cu.
//
//   softmax_oxide [rows]    prints RESULT lines (bench_common.hpp)
#include "bench_oxide.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>

constexpr std::uint32_t kCols = 1024; // = the block: a row per block

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
  bench::poison(timer, stream, out);
  auto launch = oxide::prepare(ctx, softmax, oxide::LaunchConfig1D::for_elements(n, kCols));
  const float ms = timer.median_ms(stream, [&](int) { launch(stream, in, out); });
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
        bench::mismatch("softmax", r * kCols + c, got[r * kCols + c], want);
    }
  }
  bench::report("softmax", bench::dims(rows, kCols), "bytes", 2.0 * n * sizeof(float), ms, bad == 0, "safe");
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "softmax_oxide: %s\n", e.what());
  return 1;
}
