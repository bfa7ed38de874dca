// Host-only helpers shared by both sides of every benchmark pair (<kernel>_oxide.cpp built by
// oxcc, <kernel>_cuda.cu built by nvcc): input generation, medians, tolerances and the one output
// line that run.sh parses. Nothing here runs on the GPU, so both compilers see the same host code.
//
//   RESULT <kernel> <size> <unit> <work> <median ms> <ok|FAIL> <api>
//
// unit is "bytes" (work = bytes moved: GB/s) or "flops" (work = floating-point operations:
// TFLOP/s); api is "safe" (launch contract, oxide::prepare), "unsafe" (oxide::unsafe_launch) or
// "cuda" (the nvcc twin).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace bench {

/// Timed repetitions (BENCH_REPS, default 20) after kWarmups untimed ones.
inline int reps() {
  const char *env = std::getenv("BENCH_REPS");
  const int n = env ? std::atoi(env) : 20;
  return n > 0 ? n : 20;
}
constexpr int kWarmups = 3;

inline float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0f : v[v.size() / 2];
}

/// splitmix64: a fast, deterministic stream of bits, so both sides get the same inputs.
inline std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// A float in [-1, 1) for element i of the stream named seed.
inline float uniform(std::uint64_t seed, std::uint64_t i) {
  return float(mix(seed * 0x100000001b3ull + i) >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

inline std::vector<float> uniform_vector(std::uint64_t seed, std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = uniform(seed, i);
  return v;
}

/// |got - want| within rel * scale + abs (scale: the magnitude the error is relative to, e.g. the
/// sum of |terms| of a dot product). NaN never passes.
inline bool close(double got, double want, double scale, double rel = 1e-5, double abs = 1e-6) {
  return std::fabs(got - want) <= rel * std::fabs(scale) + abs;
}

inline std::string dims(std::size_t a, std::size_t b) { return std::to_string(a) + "x" + std::to_string(b); }

inline void report(const char *kernel, const std::string &size, const char *unit, double work, float ms,
                   bool ok, const char *api) {
  std::printf("RESULT %s %s %s %.0f %.5f %s %s\n", kernel, size.c_str(), unit, work, ms, ok ? "ok" : "FAIL",
              api);
  std::fflush(stdout);
}

/// Prints a FAIL detail line (at most a few per kernel) to stderr.
inline void mismatch(const char *kernel, std::size_t index, double got, double want) {
  std::fprintf(stderr, "%s: element %zu is %.9g, expected %.9g\n", kernel, index, got, want);
}

/// Compares got[i] with ref(i) at every 997th element and the last one (relative 1e-6): enough
/// to catch a wrong index or an unwritten (NaN-poisoned) region of a streaming kernel.
template <class Ref> bool check_sampled(const char *kernel, const float *got, std::size_t n, Ref ref) {
  int bad = 0;
  auto one = [&](std::size_t i) {
    const double want = ref(i);
    if (!close(got[i], want, want, 1e-6, 1e-6)) {
      if (bad < 3)
        mismatch(kernel, i, got[i], want);
      ++bad;
    }
  };
  for (std::size_t i = 0; i < n; i += 997)
    one(i);
  if (n)
    one(n - 1);
  return bad == 0;
}

/// check_gemm's tolerance for bf16 inputs with f32 accumulation (mma_gemm, cuBLAS): the products
/// are exact, but the tensor cores' f32 adders may truncate, and n = 8192 terms add up to
/// sqrt(n) * 2^-23 ~ 1e-5 of the terms' magnitudes; a wrong or unwritten element is off by O(1).
constexpr double kBf16GemmTolerance = 1e-4;
/// check_gemm's tolerance for FP8 (e4m3) inputs: Hopper's FP8 tensor cores keep only about 14
/// bits of the running sum ("fast accumulation"), 1e-4 of the terms' magnitudes at n = 4096.
constexpr double kFp8GemmTolerance = 1.0 / 1024;

/// Checks C = A * B (n x n, row-major) at 1024 pseudo-random elements and the four corners,
/// each against a double-precision dot product (relative to the sum of the terms' magnitudes,
/// within `rel`).
inline bool check_gemm(const char *kernel, const std::vector<float> &c, const std::vector<float> &a,
                       const std::vector<float> &b, std::size_t n, double rel = 1e-5) {
  int bad = 0;
  for (std::size_t s = 0; s < 1028; ++s) {
    const std::size_t i = s < 1024 ? mix(2 * s) % n : (s & 1) * (n - 1),
                      j = s < 1024 ? mix(2 * s + 1) % n : ((s >> 1) & 1) * (n - 1);
    double want = 0, scale = 0;
    for (std::size_t k = 0; k < n; ++k) {
      want += double(a[i * n + k]) * b[k * n + j];
      scale += std::fabs(double(a[i * n + k]) * b[k * n + j]);
    }
    if (!close(c[i * n + j], want, scale, rel, 0)) {
      if (bad < 3)
        mismatch(kernel, i * n + j, c[i * n + j], want);
      ++bad;
    }
  }
  return bad == 0;
}

/// check_gemm for C = A * W^T with W given as n x n row-major (a linear layer's weights).
inline bool check_gemm_nt(const char *kernel, const std::vector<float> &c, const std::vector<float> &a,
                          const std::vector<float> &w, std::size_t n, double rel = 1e-5) {
  std::vector<float> b(n * n);
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t j = 0; j < n; ++j)
      b[k * n + j] = w[j * n + k];
  return check_gemm(kernel, c, a, b, n, rel);
}

} // namespace bench
