// Language coverage, names: a user's own functions named like the global functions of CUDA's
// headers (rsqrt, min, max, all, any, normcdf...) are the ones kernels call. CUDA declares them
// in the global namespace of the device compile; here each is defined differently from CUDA's,
// so a kernel that called CUDA's would disagree with the host.
//
//   oxcc run tests/lang/cuda_names.cpp
#include "lang_check.hpp"

#include <cstdint>

using Row = std::array<double, 16>;

// Named like clang's host-only float overloads (its CUDA runtime wrapper)...
float rsqrt(float x) { return x + 100.0f; }
float rcbrt(float x) { return x * 3.0f; }
float sinpi(float x) { return x - 1.0f; }
float normcdf(float x) { return x * x; }
float erfcx(float x) { return -x; }
// ...like CUDA's device functions...
double rsqrt(double x) { return x * 0.5; }
int min(int a, int b) { return a > b ? a : b; } // deliberately the larger
float max(float a, float b) { return a + b; }
unsigned umin(unsigned a, unsigned b) { return a * b; }
long long llmax(long long a, long long b) { return a - b; }
bool all(bool p) { return !p; }
bool any(bool p) { return !p; }
unsigned ballot(bool p) { return p ? 7u : 9u; }
float powi(float x, int n) { return x + static_cast<float>(n); }
float rhypot(float x, float y) { return x - y; }
// ...and a template.
template <class T> T saturate(T x) { return x * T(4); }

Row compute(std::int64_t i) {
  const float f = static_cast<float>(i) * 0.25f;
  const int k = static_cast<int>(i);
  return Row{rsqrt(f),
             rcbrt(f),
             sinpi(f),
             normcdf(f),
             erfcx(f),
             rsqrt(static_cast<double>(i)),
             static_cast<double>(min(k, 7)),
             max(f, 2.0f),
             static_cast<double>(umin(static_cast<unsigned>(k), 3u)),
             static_cast<double>(llmax(i, 5)),
             all(k % 2 == 0) ? 1.0 : 0.0,
             any(k % 3 == 0) ? 1.0 : 0.0,
             static_cast<double>(ballot(k % 5 == 0)),
             powi(f, 3),
             rhypot(f, 1.5f),
             saturate(f)};
}

[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void names(oxide::DisjointSpan<Row> out) {
  const auto idx = oxide::thread::index_1d();
  if (Row *o = out.get_mut(idx))
    *o = compute(static_cast<std::int64_t>(idx.get()));
}

int main() {
  return lang::run_group("cuda_names", [](lang::Checker &check) {
    check.run("names", names, 200, [](std::size_t i) { return compute(static_cast<std::int64_t>(i)); });
  });
}
