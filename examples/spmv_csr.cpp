// spmv_csr: y = A x for a sparse matrix A in CSR form (row_ptr, col_idx, values), with 4 million
// rows of about 8 nonzeros at random columns on a GPU. One warp per row ("CSR-vector"): the lanes
// stride over the row's nonzeros, warp::sum adds their products, and lane 0 writes y[row]
// through the warp's witness. A warp-stride loop hands each warp one row after another, so a grid
// sized to the GPU covers any number of rows.
//
//   oxcc run examples/spmv_csr.cpp
#include <oxide/oxide.hpp>

#include "problem_size.hpp"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

// Safe: y.get_mut(w) is element w for lane 0 of warp w only (nullptr for the other lanes), and
// each row is one warp's: warp_stride gives every warp its own rows.
[[kernel, oxide::launch_contract(
              "domain = 1, block = 256, "
              "requires = (row_ptr.size() == y.size() + 1, col_idx.size() == values.size())")]] void
spmv_csr(oxide::Span<const std::uint32_t> row_ptr, oxide::Span<const std::uint32_t> col_idx,
         oxide::Span<const float> values, oxide::Span<const float> x, oxide::DisjointSpan<float> y) {
  const std::uint32_t lane = oxide::warp::lane_id();
  for (const auto &w : oxide::warp::warp_stride(y.size())) {
    const std::uint32_t begin = row_ptr[w.get()], end = row_ptr[w.get() + 1];
    float sum = 0.0f;
    for (std::uint32_t k = begin + lane; k < end; k += oxide::warp::kSize)
      sum += values[k] * x[col_idx[k]]; // a bad column index stops the kernel (bounds-checked)
    sum = oxide::warp::sum(sum);        // every lane takes part, also those with no nonzero
    if (float *out = y.get_mut(w))
      *out = sum;
  }
}

int main() try {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  const bool simulator = example::small_problem(ctx);
  // The simulator runs each lane as a fiber and switches at every shuffle: 16384 rows there.
  const std::uint32_t rows = simulator ? 1u << 14 : 1u << 22, cols = rows;
  std::mt19937 rng(std::random_device{}());
  // 0 to 16 nonzeros per row (8 on average), empty rows included, at uniformly random columns.
  std::uniform_int_distribution<std::uint32_t> per_row(0, 16), column(0, cols - 1);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<std::uint32_t> row_ptr(rows + 1, 0), col_idx;
  std::vector<float> values, x(cols);
  col_idx.reserve(std::size_t{rows} * 8 + 1024);
  values.reserve(col_idx.capacity());
  for (std::uint32_t r = 0; r < rows; ++r) {
    for (std::uint32_t k = per_row(rng); k > 0; --k) {
      col_idx.push_back(column(rng));
      values.push_back(value(rng));
    }
    row_ptr[r + 1] = static_cast<std::uint32_t>(col_idx.size());
  }
  for (float &v : x)
    v = value(rng);

  auto d_row_ptr = oxide::DeviceBuffer<std::uint32_t>::from_host(stream, row_ptr);
  auto d_col_idx = oxide::DeviceBuffer<std::uint32_t>::from_host(stream, col_idx);
  auto d_values = oxide::DeviceBuffer<float>::from_host(stream, values);
  auto d_x = oxide::DeviceBuffer<float>::from_host(stream, x);
  // Poisoned with NaN so a row the kernel never wrote cannot pass the check.
  auto d_y = oxide::DeviceBuffer<float>::from_host(
      stream, std::vector<float>(rows, std::numeric_limits<float>::quiet_NaN()));
  // 32 blocks of 8 warps per multiprocessor (the simulator: per host thread): each warp takes
  // rows / warps rows in turn.
  const oxide::LaunchConfig1D config{std::uint32_t(ctx.device().sm_count()) * 32, 256};
  auto spmv = oxide::prepare(ctx, spmv_csr, config);
  spmv(stream, d_row_ptr, d_col_idx, d_values, d_x, d_y);
  stream.synchronize();
  // A second, timed launch (the first loaded the module); it writes the same values.
  const auto start = std::chrono::steady_clock::now();
  spmv(stream, d_row_ptr, d_col_idx, d_values, d_x, d_y);
  stream.synchronize();
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const std::vector<float> y = d_y.to_host(stream);

  std::size_t wrong = 0;
  for (std::uint32_t r = 0; r < rows; ++r) {
    double want = 0.0, magnitude = 0.0;
    for (std::uint32_t k = row_ptr[r]; k < row_ptr[r + 1]; ++k) {
      want += double(values[k]) * x[col_idx[k]];
      magnitude += std::fabs(double(values[k]) * x[col_idx[k]]);
    }
    // Float sums in another order differ in the last bits: a few ulps of the terms' magnitude.
    if (!(std::fabs(y[r] - want) <= 1e-5 * magnitude + 1e-7) && wrong++ < 5)
      std::printf("row %u: got %.7g, expected %.7g\n", r, y[r], want);
  }
  if (wrong != 0) {
    std::printf("FAIL: %zu of %u rows wrong\n", wrong, rows);
    return 1;
  }
  std::printf("spmv_csr: %u rows, %zu nonzeros, %u warps, %.3f ms on %s\nPASS\n", rows, values.size(),
              config.grid * (config.block / oxide::warp::kSize), ms, ctx.device().name().c_str());
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
