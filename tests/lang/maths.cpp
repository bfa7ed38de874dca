// Language coverage, maths: the <cmath> functions for float and double (std:: overloads and the
// C names), classification, rounding and decomposition, and std::complex<float/double>
// arithmetic and functions. The device uses libdevice, the host its libm: results agree within
// a few ulps (lang_check.hpp's tolerance), not bit for bit.
//
//   oxcc run tests/lang/maths.cpp
#include "lang_check.hpp"

#include <cmath>
#include <complex>
#include <cstdint>
#include <type_traits>

template <class T> using Row = std::array<T, 56>;

/// Every <cmath> function on inputs derived from i; T is float or double (std:: overloads).
template <class T> Row<T> cmath_row(std::int64_t i) {
  Row<T> r{};
  const T t = static_cast<T>(i) / T(37);           // [0, ~8)
  const T x = t - std::floor(t) + T(0.125);        // (0, 1.125)
  const T s = (i % 2 ? T(-1) : T(1)) * t * T(1.7); // signed
  int k = 0;
  r[k++] = std::sqrt(t);
  r[k++] = std::cbrt(s);
  r[k++] = std::exp(s * T(0.5));
  r[k++] = std::exp2(s);
  r[k++] = std::expm1(x * T(0.01));
  r[k++] = std::log(t + T(0.5));
  r[k++] = std::log2(t + T(0.5));
  r[k++] = std::log10(t + T(0.5));
  r[k++] = std::log1p(x * T(0.001));
  r[k++] = std::pow(t + T(0.5), x * T(3));
  r[k++] = std::pow(s, 3);
  r[k++] = std::sin(s);
  r[k++] = std::cos(s);
  r[k++] = std::tan(x);
  r[k++] = std::asin(x - T(0.5));
  r[k++] = std::acos(x - T(0.5));
  r[k++] = std::atan(s);
  r[k++] = std::atan2(s, x);
  r[k++] = std::sinh(x);
  r[k++] = std::cosh(x);
  r[k++] = std::tanh(s);
  r[k++] = std::asinh(s);
  r[k++] = std::acosh(t + T(1));
  r[k++] = std::atanh(x - T(0.5));
  r[k++] = std::erf(s * T(0.5));
  r[k++] = std::erfc(x);
  r[k++] = std::tgamma(x + T(1));
  r[k++] = std::lgamma(t + T(0.5));
  r[k++] = std::hypot(s, x);
  r[k++] = std::fma(s, x, t);
  r[k++] = std::fmod(s, T(0.75));
  r[k++] = std::remainder(s, T(0.75));
  r[k++] = std::floor(s);
  r[k++] = std::ceil(s);
  r[k++] = std::trunc(s);
  r[k++] = std::round(s * T(4));
  r[k++] = std::nearbyint(s * T(4));
  r[k++] = std::rint(s * T(4));
  r[k++] = static_cast<T>(std::lround(s * T(4)) + std::llround(s * T(2)));
  r[k++] = std::copysign(x, s);
  r[k++] = std::fabs(s) + std::abs(s);
  r[k++] = std::fmin(s, x) + T(2) * std::fmax(s, x) + T(4) * std::fdim(s, x);
  r[k++] = std::ldexp(s, 3);
  int exponent = 0;
  r[k++] = std::frexp(s, &exponent) + static_cast<T>(exponent);
  T integral = 0;
  r[k++] = std::modf(s, &integral) + T(10) * integral;
  r[k++] = std::scalbn(x, -2);
  r[k++] = static_cast<T>(std::ilogb(t + T(1))) + std::logb(t + T(1));
  r[k++] = std::nextafter(x, T(2)) - x;
  r[k++] = static_cast<T>(std::isnan(std::sqrt(s)) + 2 * std::isinf(T(1) / (s - s)) + 4 * std::isfinite(s) +
                          8 * std::signbit(s) + 16 * (std::fpclassify(s) == FP_NORMAL));
  r[k++] = std::sqrt(-t - T(1)); // NaN on both sides
  r[k++] = std::log(T(0));       // -inf
  r[k++] = std::exp(t * T(200)); // overflows to inf for t > ~3.5 (double: never)
  r[k++] = std::remquo(s, T(0.5), &exponent) + static_cast<T>(exponent % 8);
  r[k++] = std::trunc(std::sin(s) * T(1000)) + std::cos(t) * std::cos(t) + std::sin(t) * std::sin(t);
  r[k++] = std::pow(T(2), static_cast<T>(i % 40) - T(20));
  r[k++] = std::sqrt(std::numeric_limits<T>::denorm_min() * T(4)) * T(1e20);
  return r;
}

/// The C spellings: sinf, expf... for float, sin, exp... for double.
template <class T> Row<T> c_names_row(std::int64_t i) {
  Row<T> r{};
  int k = 0;
  if constexpr (std::is_same_v<T, float>) {
    const float f = static_cast<float>(i) / 17.0f + 0.25f;
    r[k++] = sinf(f);
    r[k++] = cosf(f);
    r[k++] = tanf(f * 0.25f);
    r[k++] = expf(f * 0.1f);
    r[k++] = logf(f);
    r[k++] = log2f(f);
    r[k++] = powf(f, 1.5f);
    r[k++] = sqrtf(f);
    r[k++] = cbrtf(f);
    r[k++] = fabsf(-f);
    r[k++] = floorf(f);
    r[k++] = ceilf(f);
    r[k++] = roundf(f);
    r[k++] = atan2f(f, 2.0f);
    r[k++] = fmaf(f, f, 1.0f);
    r[k++] = hypotf(f, 3.0f);
    r[k++] = fmodf(f, 0.7f);
    r[k++] = erff(f * 0.25f);
  } else {
    const double d = static_cast<double>(i) / 17.0 + 0.25;
    r[k++] = sin(d);
    r[k++] = cos(d);
    r[k++] = tan(d * 0.25);
    r[k++] = exp(d * 0.1);
    r[k++] = log(d);
    r[k++] = log2(d);
    r[k++] = pow(d, 1.5);
    r[k++] = sqrt(d);
    r[k++] = cbrt(d);
    r[k++] = fabs(-d);
    r[k++] = floor(d);
    r[k++] = ceil(d);
    r[k++] = round(d);
    r[k++] = atan2(d, 2.0);
    r[k++] = fma(d, d, 1.0);
    r[k++] = hypot(d, 3.0);
    r[k++] = fmod(d, 0.7);
    r[k++] = erf(d * 0.25);
  }
  return r;
}

template <class T> Row<T> complex_row(std::int64_t i) {
  using C = std::complex<T>;
  Row<T> r{};
  const T a = static_cast<T>(i % 23) / T(7) - T(1.5);
  const T b = static_cast<T>(i % 11) / T(5) - T(0.9);
  const C z(a, b), w(b + T(0.5), T(-0.75));
  int k = 0;
  auto put = [&](C c) {
    r[k++] = c.real();
    r[k++] = c.imag();
  };
  put(z + w);
  put(z - w);
  put(z * w);
  put(z / w);
  put(z * T(2) + T(1));
  put(std::conj(z));
  put(std::exp(z));
  put(std::log(w));
  put(std::sqrt(z));
  put(std::pow(w, C(T(0.5), T(0.25))));
  put(std::pow(z, 2));
  put(std::sin(z));
  put(std::cos(z));
  put(std::tanh(z));
  put(std::polar(T(2), a));
  r[k++] = std::abs(z);
  r[k++] = std::arg(w);
  r[k++] = std::norm(z);
  r[k++] = (z == w) ? T(1) : T(0);
  C acc(T(1), T(0));
  for (int n = 0; n < 5; ++n)
    acc = acc * z + w;
  put(acc);
  return r;
}

template <class T>
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void cmath(oxide::DisjointSpan<Row<T>> out) {
  const auto idx = oxide::thread::index_1d();
  if (Row<T> *o = out.get_mut(idx))
    *o = cmath_row<T>(static_cast<std::int64_t>(idx.get()));
}

template <class T>
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void c_names(oxide::DisjointSpan<Row<T>> out) {
  const auto idx = oxide::thread::index_1d();
  if (Row<T> *o = out.get_mut(idx))
    *o = c_names_row<T>(static_cast<std::int64_t>(idx.get()));
}

template <class T>
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void complex(oxide::DisjointSpan<Row<T>> out) {
  const auto idx = oxide::thread::index_1d();
  if (Row<T> *o = out.get_mut(idx))
    *o = complex_row<T>(static_cast<std::int64_t>(idx.get()));
}

int main() {
  return lang::run_group("maths", [](lang::Checker &check) {
    check.run("cmath<float>", cmath<float>, 300,
              [](std::size_t i) { return cmath_row<float>(static_cast<std::int64_t>(i)); });
    check.run("cmath<double>", cmath<double>, 300,
              [](std::size_t i) { return cmath_row<double>(static_cast<std::int64_t>(i)); });
    check.run("c_names<float>", c_names<float>, 100,
              [](std::size_t i) { return c_names_row<float>(static_cast<std::int64_t>(i)); });
    check.run("c_names<double>", c_names<double>, 100,
              [](std::size_t i) { return c_names_row<double>(static_cast<std::int64_t>(i)); });
    check.run("complex<float>", complex<float>, 250,
              [](std::size_t i) { return complex_row<float>(static_cast<std::int64_t>(i)); });
    check.run("complex<double>", complex<double>, 250,
              [](std::size_t i) { return complex_row<double>(static_cast<std::int64_t>(i)); });
  });
}
