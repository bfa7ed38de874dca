// Bounds checks taken out of loops, at run time: oxide-loop-bounds-checks tests a loop's checked
// reads once, before the loop, for the largest index the loop reaches (a double-buffered
// prefetch under `k + 32 < n`, a counter of 32 bits stepping by a power of two, an `int` row loop
// stepping by blockDim.x, a naive matrix product and a matrix-vector product with `int`
// indices, a size_t stride that may wrap so that the indices fall). Each
// kernel runs twice: with the input ending exactly at the last element the loop reads (it must
// finish, with the sums the host computes: no false stop), and one element short (it must stop:
// the launch fails). A test before the loop that tested too little would let the second run
// read past the end and finish; one that tested too much would stop the first.
//
// A stopped kernel poisons its CUDA context, so each run is a child process: `loop_checks` with
// no argument runs `loop_checks <variant>` for each variant. The child exits 0 when the launch
// finished with the expected output, 3 when it failed (stopped), 1 on a wrong output. The parent
// prints one line per variant and PASS when each exit is the one expected. On the CPU simulator
// the kernels run their host compile, with the checks in the loops.
//
//   oxcc build tests/lang/loop_checks.cpp -o loop_checks && ./loop_checks
//   (OXIDE_DEVICE=cpu runs it on the simulator.)
#include "child_variants.hpp"

#include <oxide/oxide.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

constexpr std::uint32_t kThreads = 32;

// ---------------------------------------------------------------------------------------------
// The kernels: thread t sums what its loop reads into out[t].

// sgemm_128x8's prefetch: the next value is read while this one is used, under `k + 32 < n`,
// with a barrier in the loop (the check runs only in the iterations after which the loop goes
// on). Reads in[k + t] for k = 0, 32, .. below n.
[[kernel, oxide::launch_contract("domain = 1, block = 32")]] void
prefetch(oxide::DisjointSpan<float> out, oxide::Span<const float> in, std::uint32_t n) {
  auto staged = oxide::shared_array<float, kThreads>();
  const std::uint32_t t = oxide::thread_idx().x;
  float next = in[t], sum = 0.0f;
  for (std::uint32_t k = 0; k < n; k += kThreads) {
    staged[t] = next;
    oxide::sync_threads();
    if (k + kThreads < n)
      next = in[std::size_t{k} + kThreads + t];
    sum += staged[(t + 1) % kThreads];
    oxide::sync_threads();
  }
  if (float *o = out.get_mut(oxide::thread::index_1d()))
    *o = sum;
}

// The same prefetch with a small body: LLVM merges `k + 32 < n` into the loop's own test, and
// the read's k lags the loop's counter by an iteration.
[[kernel, oxide::launch_contract("domain = 1, block = 32")]] void
prefetch_merged(oxide::DisjointSpan<float> out, oxide::Span<const float> in, std::uint32_t n) {
  const std::uint32_t t = oxide::thread_idx().x;
  float next = in[t], sum = 0.0f;
  for (std::uint32_t k = 0; k < n; k += kThreads) {
    const float now = next;
    if (k + kThreads < n)
      next = in[std::size_t{k} + kThreads + t];
    sum += now;
  }
  if (float *o = out.get_mut(oxide::thread::index_1d()))
    *o = sum;
}

// A 32-bit counter stepping by 4 from `first`, a row of `width` per step: in[k * width + t].
[[kernel, oxide::launch_contract("domain = 1, block = 32")]] void
strided_rows(oxide::DisjointSpan<float> out, oxide::Span<const float> in, std::uint32_t first,
             std::uint32_t n, std::uint32_t width) {
  const std::uint32_t t = oxide::thread_idx().x;
  float sum = 0.0f;
  for (std::uint32_t k = first; k < n; k += 4)
    sum += in[std::size_t{k} * width + t];
  if (float *o = out.get_mut(oxide::thread::index_1d()))
    *o = sum;
}

// CUDA's row loop with `int` indices: c from the thread's index by the block's width (a constant
// only once the contract's block is applied, so LLVM keeps a 32-bit signed counter).
[[kernel, oxide::launch_contract("domain = 1, block = 32")]] void
row_blockdim(oxide::DisjointSpan<float> out, oxide::Span<const float> in, int cols) {
  const int t = int(oxide::thread_idx().x);
  float sum = 0.0f;
  for (int c = t; c < cols; c += int(oxide::block_dim().x))
    sum += in[std::size_t{3} * std::size_t(cols) + c];
  if (float *o = out.get_mut(oxide::thread::index_1d()))
    *o = sum;
}

// The naive matrix product with `int` indices (A, n x n, and B, n rows of n, here with 8
// columns read: 4 x 8 threads compute the first 4 rows and 8 columns of C): the read of A
// becomes an exit on `k == x` in LLVM, the read of B steps by n.
[[kernel, oxide::launch_contract("domain = 2, block = (8, 4)")]] void
matmul_int(oxide::DisjointSpan2D<float> out, oxide::Span<const float> a, oxide::Span<const float> b, int n) {
  const auto t = oxide::thread::index_2d();
  const int row = int(t.y()), col = int(t.x());
  float sum = 0.0f;
  for (int k = 0; k < n; ++k)
    sum += a[row * n + k] * b[k * n + col];
  if (float *o = out.get_mut(t))
    *o = sum;
}

// A matrix-vector product with `int` indices, a row per thread: LLVM turns the read of x into
// an exit on `k == x.size()`, whose reported index the loop computes (`k`).
[[kernel, oxide::launch_contract("domain = 1, block = 32")]] void
gemv_int(oxide::DisjointSpan<float> out, oxide::Span<const float> a, oxide::Span<const float> x, int n) {
  const int row = int(oxide::thread::index_1d().get());
  float sum = 0.0f;
  for (int k = 0; k < n; ++k)
    sum += a[row * n + k] * x[k];
  if (float *o = out.get_mut(oxide::thread::index_1d()))
    *o = sum;
}

// A size_t stride: in[start + k * stride] for k < count. A stride above 2^63 wraps: the indices
// fall by -stride each time.
[[kernel, oxide::launch_contract("domain = 1, block = 32")]] void
any_stride(oxide::DisjointSpan<float> out, oxide::Span<const float> in, std::size_t start, std::size_t stride,
           std::size_t count) {
  const std::uint32_t t = oxide::thread_idx().x;
  float sum = 0.0f;
  for (std::size_t k = 0; k < count; ++k)
    sum += in[start + k * stride + t];
  if (float *o = out.get_mut(oxide::thread::index_1d()))
    *o = sum;
}

// ---------------------------------------------------------------------------------------------
// The host side.

namespace {

float input(std::size_t k) { return float(k % 7) + 1.0f; } // small integers: exact sums

struct Env {
  oxide::Context ctx = oxide::Context::create();
  oxide::Stream stream = ctx.default_stream();
};

/// Runs `launch` over an input of `size` elements and compares out with `want` (computed on an
/// input long enough for every read, so that a run that should have stopped and did not shows).
int run(const char *variant, std::size_t size, const std::function<float(std::size_t t)> &want,
        const std::function<void(Env &, oxide::DeviceBuffer<float> &, const oxide::DeviceBuffer<float> &)>
            &launch) {
  Env env;
  std::vector<float> host(size);
  for (std::size_t k = 0; k < size; ++k)
    host[k] = input(k);
  const auto in = oxide::DeviceBuffer<float>::from_host(env.stream, host);
  auto out = oxide::DeviceBuffer<float>::from_host(env.stream, std::vector<float>(kThreads, -1.0f));
  try {
    launch(env, out, in);
    env.stream.synchronize();
  } catch (const oxide::Error &e) {
    // The stop must be the failed bounds check, reported with its index and size; on a GPU also
    // with its place (the kernel writes it to the host: oxide/detail/failure_record.hpp).
    const std::string what = e.what();
    std::printf("%s: launch failed: %s: %s\n", variant, oxide::to_string(e.kind()).data(), e.what());
    const bool located = env.ctx.is_simulator() || what.find("loop_checks.cpp:") != std::string::npos;
    return e.kind() == oxide::ErrorKind::KernelFault &&
                   what.find("out of bounds for span of size") != std::string::npos && located
               ? 3
               : 1;
  }
  const std::vector<float> got = out.to_host(env.stream);
  int wrong = 0;
  for (std::size_t t = 0; t < kThreads; ++t)
    if (got[t] != want(t) && wrong++ < 4)
      std::printf("%s: out[%zu] = %g, expected %g\n", variant, t, double(got[t]), double(want(t)));
  return wrong == 0 ? 0 : 1;
}

const oxide::LaunchConfig1D kOneBlock{1, kThreads};

int run_prefetch(const char *variant, bool merged, std::uint32_t n, std::size_t size) {
  // Reads in[k + t] for k = 0, 32, .. below n (and the first in[t]); the shared-memory form sums
  // the neighbour's value.
  auto want = [&](std::size_t t) {
    float sum = 0.0f;
    for (std::uint32_t k = 0; k < n; k += kThreads)
      sum += input(k + (merged ? t : (t + 1) % kThreads));
    return sum;
  };
  return run(variant, size, want, [&](Env &env, auto &out, const auto &in) {
    oxide::prepare(env.ctx, merged ? prefetch_merged : prefetch, kOneBlock)(env.stream, out, in, n);
  });
}

int run_strided(const char *variant, std::uint32_t first, std::uint32_t n, std::uint32_t width,
                std::size_t size) {
  auto want = [&](std::size_t t) {
    float sum = 0.0f;
    for (std::uint32_t k = first; k < n; k += 4)
      sum += input(std::size_t{k} * width + t);
    return sum;
  };
  return run(variant, size, want, [&](Env &env, auto &out, const auto &in) {
    oxide::prepare(env.ctx, strided_rows, kOneBlock)(env.stream, out, in, first, n, width);
  });
}

int run_row_blockdim(const char *variant, int cols, std::size_t size) {
  auto want = [&](std::size_t t) {
    float sum = 0.0f;
    for (std::size_t c = t; c < std::size_t(cols); c += kThreads)
      sum += input(3 * std::size_t(cols) + c);
    return sum;
  };
  return run(variant, size, want, [&](Env &env, auto &out, const auto &in) {
    oxide::prepare(env.ctx, row_blockdim, kOneBlock)(env.stream, out, in, cols);
  });
}

int run_matmul(const char *variant, int n, std::size_t size) {
  const std::size_t an = std::size_t(n) * n; // A is in[0, an), B the rest
  auto want = [&](std::size_t t) {
    const std::size_t row = t / 8, col = t % 8;
    float sum = 0.0f;
    for (int k = 0; k < n; ++k)
      sum += input(row * n + k) * input(an + std::size_t(k) * n + col);
    return sum;
  };
  return run(variant, size, want, [&](Env &env, auto &out, const auto &in) {
    oxide::prepare(env.ctx, matmul_int, oxide::LaunchConfig2D{{1, 1, 1}, {8, 4, 1}})(
        env.stream, out.view_2d(8, 4), in.slice(0, an), in.slice(an, size - an), n);
  });
}

int run_gemv(const char *variant, int n, std::size_t size) {
  const std::size_t an = std::size_t{kThreads} * n; // A is in[0, an), x the rest
  auto want = [&](std::size_t t) {
    float sum = 0.0f;
    for (int k = 0; k < n; ++k)
      sum += input(t * n + k) * input(an + k);
    return sum;
  };
  return run(variant, size, want, [&](Env &env, auto &out, const auto &in) {
    oxide::prepare(env.ctx, gemv_int, kOneBlock)(env.stream, out, in.slice(0, an), in.slice(an, size - an),
                                                 n);
  });
}

int run_any_stride(const char *variant, std::size_t start, std::size_t stride, std::size_t count,
                   std::size_t size) {
  auto want = [&](std::size_t t) {
    float sum = 0.0f;
    for (std::size_t k = 0; k < count; ++k)
      sum += input(start + k * stride + t);
    return sum;
  };
  return run(variant, size, want, [&](Env &env, auto &out, const auto &in) {
    oxide::prepare(env.ctx, any_stride, kOneBlock)(env.stream, out, in, start, stride, count);
  });
}

struct Variant {
  const char *name;
  bool stops; // the loop reads one element past the input: the kernel must stop
  std::function<int(const char *)> run;
};

// n = 100: k = 0, 32, 64, 96, so the last read is in[96 + 31] = in[127].
const std::vector<Variant> &variants() {
  static const std::vector<Variant> all = {
      {"prefetch_edge", false, [](const char *v) { return run_prefetch(v, false, 100, 128); }},
      {"prefetch_past", true, [](const char *v) { return run_prefetch(v, false, 100, 127); }},
      {"prefetch_merged_edge", false, [](const char *v) { return run_prefetch(v, true, 100, 128); }},
      {"prefetch_merged_past", true, [](const char *v) { return run_prefetch(v, true, 100, 127); }},
      // k = 3, 7, .. 19 below n = 22, width 40: the last read is in[19 * 40 + 31] = in[791].
      {"strided_rows_edge", false, [](const char *v) { return run_strided(v, 3, 22, 40, 792); }},
      {"strided_rows_past", true, [](const char *v) { return run_strided(v, 3, 22, 40, 791); }},
      // One iteration only, k = 20 (in[20 * 40 + 31] = in[831]): the loop does not go on.
      {"strided_rows_once", false, [](const char *v) { return run_strided(v, 20, 22, 40, 832); }},
      {"strided_rows_once_past", true, [](const char *v) { return run_strided(v, 20, 22, 40, 831); }},
      // Row 3 of 70 columns: the last read is in[3 * 70 + 69] = in[279].
      {"row_blockdim_edge", false, [](const char *v) { return run_row_blockdim(v, 70, 280); }},
      {"row_blockdim_past", true, [](const char *v) { return run_row_blockdim(v, 70, 279); }},
      // n = 6: the last read of B is b[5 * 6 + 7] = b[37] (8 columns of a 6-wide B: each row's
      // last two reads are the next row's first elements, in bounds but for the last row's).
      {"matmul_int_edge", false, [](const char *v) { return run_matmul(v, 6, 36 + 38); }},
      {"matmul_int_past", true, [](const char *v) { return run_matmul(v, 6, 36 + 37); }},
      // n = 9: x is read at 0 .. 8.
      {"gemv_int_edge", false, [](const char *v) { return run_gemv(v, 9, 32 * 9 + 9); }},
      {"gemv_int_past", true, [](const char *v) { return run_gemv(v, 9, 32 * 9 + 8); }},
      // Rising: start 5, stride 3, 10 steps: the last read is in[5 + 27 + 31] = in[63].
      {"stride_rising_edge", false, [](const char *v) { return run_any_stride(v, 5, 3, 10, 64); }},
      {"stride_rising_past", true, [](const char *v) { return run_any_stride(v, 5, 3, 10, 63); }},
      // Falling (stride 2^64 - 2): from start 18 down to 0 in 10 steps, then to 2^64 - 2.
      {"stride_falling_edge", false,
       [](const char *v) { return run_any_stride(v, 18, std::size_t(-2), 10, 50); }},
      {"stride_falling_below", true,
       [](const char *v) { return run_any_stride(v, 18, std::size_t(-2), 11, 50); }},
      {"stride_falling_past", true,
       [](const char *v) { return run_any_stride(v, 18, std::size_t(-2), 10, 49); }},
  };
  return all;
}

} // namespace

int main(int argc, char **argv) {
  return lang::run_variants(argc, argv, variants(), [](const Variant &variant, int code) {
    const bool ok = code == (variant.stops ? 3 : 0);
    const char *what = code == 0   ? "finished with the expected sums"
                       : code == 3 ? "stopped (the launch failed)"
                       : code == 1 ? "finished with wrong sums"
                                   : "did not exit normally";
    return lang::Verdict{!ok, std::string(ok ? "ok" : "FAILED") + ": " + what};
  });
}
