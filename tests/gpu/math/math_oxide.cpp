// Maths functions in kernels against the host and against nvcc: every function of
// math_inputs.hpp is evaluated on 2^20 inputs in float and double; the errors against a
// long-double host reference must stay within CUDA's documented ulps (nvcc's defaults: IEEE
// sqrt and division), and with --compare FILE the results must be within one ulp of those of
// the nvcc-built twin (math_nvcc.cu, same libdevice; it reports how many differ at all).
//
//   oxcc build tests/gpu/math/math_oxide.cpp -o math_oxide && ./math_oxide --compare nvcc.bin
#include <oxide/oxide.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "math_inputs.hpp"

using namespace math_test;

/// The intrinsic functions in float (oxide::fast).
float evaluate_fast(int f, float a, float b) {
  switch (f) {
  case FastExp:
    return oxide::fast::exp(a);
  case FastExp10:
    return oxide::fast::exp10(a);
  case FastExp2:
    return oxide::fast::exp2(a);
  case FastLog:
    return oxide::fast::log(a);
  case FastLog2:
    return oxide::fast::log2(a);
  case FastLog10:
    return oxide::fast::log10(a);
  case FastSin:
    return oxide::fast::sin(a);
  case FastCos:
    return oxide::fast::cos(a);
  case FastTan:
    return oxide::fast::tan(a);
  case FastPow:
    return oxide::fast::pow(a, b);
  case FastDiv:
    return oxide::fast::div(a, b);
  case FastRsqrt:
    return oxide::fast::rsqrt(a);
  default:
    return oxide::fast::saturate(a);
  }
}

/// The accurate functions of the same names: the double results (rsqrt: oxide::fast::rsqrt's
/// double version) and the long-double reference.
template <class T> T evaluate_fast(int f, T a, T b) {
  switch (f) {
  case FastExp:
    return std::exp(a);
  case FastExp10:
    return std::pow(T(10), a);
  case FastExp2:
    return std::exp2(a);
  case FastLog:
    return std::log(a);
  case FastLog2:
    return std::log2(a);
  case FastLog10:
    return std::log10(a);
  case FastSin:
    return std::sin(a);
  case FastCos:
    return std::cos(a);
  case FastTan:
    return std::tan(a);
  case FastPow:
    return std::pow(a, b);
  case FastDiv:
    return a / b;
  case FastRsqrt:
    if constexpr (std::is_same_v<T, double>)
      return oxide::fast::rsqrt(a);
    else
      return 1 / std::sqrt(a);
  default:
    return std::clamp(a, T(0), T(1));
  }
}

template <class T> T evaluate(int f, T a, T b) {
  switch (f) {
  case Sqrt:
    return std::sqrt(a);
  case Div:
    return a / b;
  case Exp:
    return std::exp(a);
  case Exp2:
    return std::exp2(a);
  case Log:
    return std::log(a);
  case Log2:
    return std::log2(a);
  case Sin:
    return std::sin(a);
  case Cos:
    return std::cos(a);
  case Tan:
    return std::tan(a);
  case Pow:
    return std::pow(a, b);
  case Tanh:
    return std::tanh(a);
  case Erf:
    return std::erf(a);
  case Atan2:
    return std::atan2(a, b);
  case Cbrt:
    return std::cbrt(a);
  default:
    return evaluate_fast(f, a, b);
  }
}

[[kernel,
  oxide::launch_contract("domain = 1, requires = (a.size() == out.size(), b.size() == out.size())")]] void
eval_float(int f, oxide::Span<const float> a, oxide::Span<const float> b, oxide::DisjointSpan<float> out) {
  const auto i = oxide::thread::index_1d();
  if (float *o = out.get_mut(i))
    *o = evaluate(f, a[i.get()], b[i.get()]);
}

[[kernel,
  oxide::launch_contract("domain = 1, requires = (a.size() == out.size(), b.size() == out.size())")]] void
eval_double(int f, oxide::Span<const double> a, oxide::Span<const double> b,
            oxide::DisjointSpan<double> out) {
  const auto i = oxide::thread::index_1d();
  if (double *o = out.get_mut(i))
    *o = evaluate(f, a[i.get()], b[i.get()]);
}

/// |got - exact| in units of the last place of T at `exact`.
template <class T> double ulps(T got, long double exact) {
  if (std::isnan(got) || std::isnan(exact))
    return std::isnan(got) && std::isnan(exact) ? 0.0 : 1e30;
  const T rounded = static_cast<T>(exact);
  const long double ulp =
      std::nextafter(std::fabs(rounded), std::numeric_limits<T>::infinity()) - std::fabs(rounded);
  return static_cast<double>(std::fabs(static_cast<long double>(got) - exact) / ulp);
}

long double reference(int f, long double a, long double b) { return evaluate(f, a, b); }

int main(int argc, char **argv) try {
  const std::string compare = argc > 2 && std::strcmp(argv[1], "--compare") == 0 ? argv[2] : "";
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  const std::size_t n = ctx.is_simulator() ? kCount / 64 : kCount;
  const auto config = oxide::LaunchConfig1D::for_elements(n, 256);
  auto float_launch = oxide::prepare(ctx, eval_float, config);
  auto double_launch = oxide::prepare(ctx, eval_double, config);

  std::vector<float> all_float;
  std::vector<double> all_double;
  bool ok = true;
  std::printf("%-11s %12s %8s %12s %6s\n", "func", "float err", "limit", "double ulps", "limit");
  for (int f = 0; f < kFunctions; ++f) {
    const auto [af, bf, ad, bd] = make_inputs(f, n);
    auto a = oxide::DeviceBuffer<float>::from_host(stream, af),
         b = oxide::DeviceBuffer<float>::from_host(stream, bf);
    auto out = oxide::DeviceBuffer<float>::zeroed(stream, n);
    float_launch(stream, f, a, b, out);
    const std::vector<float> rf = out.to_host(stream);
    auto a2 = oxide::DeviceBuffer<double>::from_host(stream, ad),
         b2 = oxide::DeviceBuffer<double>::from_host(stream, bd);
    auto out2 = oxide::DeviceBuffer<double>::zeroed(stream, n);
    double_launch(stream, f, a2, b2, out2);
    const std::vector<double> rd = out2.to_host(stream);

    // Float errors in ulps, or absolutely where CUDA's bound is absolute (kFloatUlps -1).
    const bool absolute = kFloatUlps[f] < 0;
    double worst_float = 0, worst_double = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const long double exact = reference(f, af[i], bf[i]);
      worst_float = std::max(worst_float,
                             absolute ? static_cast<double>(std::fabs(rf[i] - exact)) : ulps(rf[i], exact));
      worst_double = std::max(worst_double, ulps(rd[i], reference(f, ad[i], bd[i])));
    }
    // A documented bound of k ulps allows results k ulps from the rounded exact value: k + 0.5
    // (an absolute bound: half an ulp of 1 more). On the CPU simulator the host's libm computes
    // the functions: only a sanity bound applies.
    const double slack = ctx.is_simulator() ? 16.0 : 0.5;
    const double float_limit = absolute ? kFloatAbs[f] + 0x1p-24 : kFloatUlps[f] + slack;
    const bool pass = worst_float <= float_limit && worst_double <= kDoubleUlps[f] + slack;
    ok &= pass;
    std::printf("%-11s %12.4g %8.3g %12.3f %6d%s\n", kNames[f], worst_float,
                absolute ? kFloatAbs[f] : kFloatUlps[f], worst_double, kDoubleUlps[f],
                pass ? "" : "  OUT OF BOUNDS");
    all_float.insert(all_float.end(), rf.begin(), rf.end());
    all_double.insert(all_double.end(), rd.begin(), rd.end());
  }

  if (!compare.empty()) {
    std::ifstream file(compare, std::ios::binary);
    std::vector<float> nf(all_float.size());
    std::vector<double> nd(all_double.size());
    file.read(reinterpret_cast<char *>(nf.data()), static_cast<std::streamsize>(nf.size() * sizeof(float)));
    file.read(reinterpret_cast<char *>(nd.data()), static_cast<std::streamsize>(nd.size() * sizeof(double)));
    if (!file) {
      std::printf("FAIL: cannot read %zu results from %s\n", nf.size() + nd.size(), compare.c_str());
      return 1;
    }
    // Same libdevice, same defaults: the results should be nvcc's bit for bit. A difference of
    // at most one ulp (a contraction or constant folded differently) is reported, not failed.
    const auto distance = [](auto a, auto b) {
      using Int = std::conditional_t<sizeof(a) == 4, std::int32_t, std::int64_t>;
      auto ordered = [](auto x) {
        Int i;
        std::memcpy(&i, &x, sizeof i);
        return i < 0 ? std::numeric_limits<Int>::min() - i : i;
      };
      const Int x = ordered(a), y = ordered(b);
      return static_cast<std::uint64_t>(x > y ? x - y : y - x);
    };
    for (int f = 0; f < kFunctions; ++f) {
      std::size_t differ = 0;
      std::uint64_t worst = 0;
      for (std::size_t i = f * n; i < (f + 1) * n; ++i) {
        const std::uint64_t df = distance(nf[i], all_float[i]), dd = distance(nd[i], all_double[i]);
        differ += (df != 0) + (dd != 0);
        worst = std::max({worst, df, dd});
      }
      std::printf("%-11s %zu of %zu results differ from nvcc's (at most %llu ulp)\n", kNames[f], differ,
                  2 * n, static_cast<unsigned long long>(worst));
      ok &= worst <= 1;
    }
  }
  if (!ok) {
    std::printf("FAIL\n");
    return 1;
  }
  std::printf("math: %d functions x %zu inputs in float and double within %s%s on %s\nPASS\n", kFunctions, n,
              ctx.is_simulator() ? "16 ulps of CUDA's bounds (host libm)" : "CUDA's documented ulps",
              compare.empty() ? "" : ", within 1 ulp of nvcc's", ctx.device().name().c_str());
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
