// CUDA's fast intrinsic functions that glibc's <math.h> declares under the same names but does
// not export (__expf, __logf, __sinf...): a kernel that calls one compiles for the host (the
// simulator runs it) and links against these. CUDA computes them approximately; here they are
// the exact functions, as oxide::fast's host side (oxide/device/fast_math.hpp). The rest of
// CUDA's device functions are in oxide/detail/cuda_host_functions.hpp.
#include <cmath>

extern "C" {
float __expf(float x) noexcept { return std::exp(x); }
float __exp10f(float x) noexcept { return std::pow(10.0f, x); }
float __logf(float x) noexcept { return std::log(x); }
float __log2f(float x) noexcept { return std::log2(x); }
float __log10f(float x) noexcept { return std::log10(x); }
float __sinf(float x) noexcept { return std::sin(x); }
float __cosf(float x) noexcept { return std::cos(x); }
float __tanf(float x) noexcept { return std::tan(x); }
float __powf(float x, float y) noexcept { return std::pow(x, y); }
void __sincosf(float x, float *s, float *c) noexcept {
  *s = std::sin(x);
  *c = std::cos(x);
}
}
