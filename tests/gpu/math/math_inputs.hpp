// The inputs and functions of the maths comparison, shared by the Oxide program (math_oxide.cpp)
// and its nvcc twin (math_nvcc.cu) so that both compute exactly the same values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace math_test {

inline constexpr std::size_t kCount = std::size_t{1} << 20; // inputs per function

/// The functions compared, in output order; each takes one or two arguments.
enum Function : int {
  Sqrt,
  Div,
  Exp,
  Exp2,
  Log,
  Log2,
  Sin,
  Cos,
  Tan,
  Pow,
  Tanh,
  Erf,
  Atan2,
  Cbrt,
  // CUDA's intrinsic functions (oxide::fast, nvcc's __expf...) in float; in double the accurate
  // function of the same name (rsqrt: oxide::fast::rsqrt(double), nvcc's rsqrt).
  FastExp,
  FastExp10,
  FastExp2,
  FastLog,
  FastLog2,
  FastLog10,
  FastSin,
  FastCos,
  FastTan,
  FastPow,
  FastDiv,
  FastRsqrt,
  FastSaturate,
  kFunctions
};
inline constexpr const char *kNames[kFunctions] = {"sqrt",
                                                   "div",
                                                   "exp",
                                                   "exp2",
                                                   "log",
                                                   "log2",
                                                   "sin",
                                                   "cos",
                                                   "tan",
                                                   "pow",
                                                   "tanh",
                                                   "erf",
                                                   "atan2",
                                                   "cbrt",
                                                   "__expf",
                                                   "__exp10f",
                                                   "ex2.approx.ftz",
                                                   "__logf",
                                                   "__log2f",
                                                   "__log10f",
                                                   "__sinf",
                                                   "__cosf",
                                                   "__tanf",
                                                   "__powf",
                                                   "__fdividef",
                                                   "rsqrtf",
                                                   "__saturatef"};
/// CUDA's documented maximum error in ulps for the float versions with nvcc's defaults
/// (-prec-div=true, -prec-sqrt=true; CUDA C++ Programming Guide, "Mathematical Functions" and
/// "Intrinsic Functions"), on the ranges below: __expf 2 + floor(|1.173 x|) for |x| <= 10,
/// __exp10f 2 + floor(|2.97 x|) for |x| <= 4, the logarithms outside [0.5, 2]. -1: no ulp bound
/// (an absolute one, kFloatAbs). __powf has no documented bound: 32 ulps follows from its
/// implementation, 2^(y __log2f(x)), for |y log2 x| <= 8.
inline constexpr int kFloatUlps[kFunctions] = {0,  0,  2, 2, 1, 1, 2,  2,  4,  4,  2, 2, 3, 1,
                                               13, 13, 2, 3, 2, 3, -1, -1, -1, 32, 2, 2, 0};
/// Absolute bounds where CUDA gives them instead of ulps: __sinf and __cosf on [-pi, pi]
/// (2^-21.41, 2^-21.19), and for __tanf (none documented) what __sinf / __cosf allows on [-1, 1].
inline constexpr double kFloatAbs[kFunctions] = {0, 0, 0, 0, 0, 0, 0,       0,       0,    0, 0, 0, 0, 0,
                                                 0, 0, 0, 0, 0, 0, 3.57e-7, 4.15e-7, 1e-5, 0, 0, 0, 0};
/// The same for double (the accurate functions: 10^x is pow's; rsqrt 1 ulp).
inline constexpr int kDoubleUlps[kFunctions] = {0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 1,
                                                1, 2, 1, 1, 1, 1, 2, 2, 2, 2, 0, 1, 0};

/// A deterministic input stream (splitmix64), identical on every compiler.
struct Inputs {
  std::uint64_t state;
  constexpr std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [lo, hi).
  constexpr double uniform(double lo, double hi) { return lo + (hi - lo) * double(next() >> 11) * 0x1p-53; }
};

/// The argument range of each function: where it is defined and its result is finite.
inline void range(int f, double &lo, double &hi) {
  switch (f) {
  case Sqrt:
  case Log:
  case Log2:
  case Cbrt:
    lo = 1e-6;
    hi = 1e6;
    break;
  case Div:
    lo = -1e6;
    hi = 1e6;
    break;
  case Exp:
    lo = -80;
    hi = 80;
    break;
  case Exp2:
    lo = -120;
    hi = 120;
    break;
  case Sin:
  case Cos:
  case Tan:
    lo = -1000;
    hi = 1000;
    break;
  case Pow:
    lo = 0.01;
    hi = 20;
    break;
  case Tanh:
  case Erf:
    lo = -6;
    hi = 6;
    break;
  case FastExp:
    lo = -10;
    hi = 10;
    break;
  case FastExp10:
    lo = -4;
    hi = 4;
    break;
  case FastExp2: // results normal: ex2.approx.ftz flushes denormal ones
    lo = -120;
    hi = 120;
    break;
  case FastLog:
  case FastLog2:
  case FastLog10:
    lo = 2;
    hi = 1e6;
    break;
  case FastSin:
  case FastCos:
    lo = -3.14159;
    hi = 3.14159;
    break;
  case FastTan:
    lo = -1;
    hi = 1;
    break;
  case FastPow:
    lo = 0.5;
    hi = 4;
    break;
  case FastDiv:
    lo = -1e6;
    hi = 1e6;
    break;
  case FastRsqrt:
    lo = 1e-6;
    hi = 1e6;
    break;
  case FastSaturate:
    lo = -2;
    hi = 2;
    break;
  default:
    lo = -100;
    hi = 100;
    break;
  }
}

/// The arguments of function `f`: `n` pairs (a, b) in double, and the same rounded to float.
struct FunctionInputs {
  std::vector<float> af, bf;
  std::vector<double> ad, bd;
};
inline FunctionInputs make_inputs(int f, std::size_t n) {
  Inputs gen{0x0c0ffee0ull + static_cast<std::uint64_t>(f)};
  double lo = 0, hi = 0;
  range(f, lo, hi);
  FunctionInputs in{std::vector<float>(n), std::vector<float>(n), std::vector<double>(n),
                    std::vector<double>(n)};
  for (std::size_t i = 0; i < n; ++i) {
    in.ad[i] = gen.uniform(lo, hi);
    in.bd[i] = f == Div || f == FastDiv ? gen.uniform(0.5, 1e3)
               : f == Pow               ? gen.uniform(-8, 8)
               : f == FastPow           ? gen.uniform(-4, 4)
                                        : gen.uniform(lo, hi);
    in.af[i] = static_cast<float>(in.ad[i]);
    in.bf[i] = static_cast<float>(in.bd[i]);
  }
  return in;
}

} // namespace math_test
