// Language coverage, templates: function and class templates, explicit and partial
// specialisations, non-type and template-template parameters, variadic templates with fold
// expressions, CTAD, concepts and requires-clauses, variable and alias templates, SFINAE, and
// template kernels: one device entry per instantiation, each launched from host code.
//
//   oxcc run tests/lang/templates.cpp
#include "lang_check.hpp"

#include <concepts>
#include <cstdint>
#include <type_traits>

template <class T> T square(T x) { return x * x; }

template <class T> struct Pair {
  T first, second;
  T sum() const { return first + second; }
  template <class U> U scaled(U factor) const; // member template, defined out of line
};
template <class T> template <class U> U Pair<T>::scaled(U factor) const { return U(sum()) * factor; }
template <class T> Pair(T, T) -> Pair<T>; // deduction guide (CTAD)

// Primary template, explicit specialisation, partial specialisation.
template <class T> struct Describe {
  static constexpr int value = 1;
};
template <> struct Describe<double> {
  static constexpr int value = 2;
};
template <class T> struct Describe<T *> {
  static constexpr int value = 3 + Describe<T>::value;
};

template <int N> constexpr int factorial() {
  if constexpr (N <= 1)
    return 1;
  else
    return N * factorial<N - 1>();
}

template <class... Ts> auto sum_all(Ts... values) { return (values + ... + 0); }
template <class... Ts> constexpr std::size_t count_args(Ts...) { return sizeof...(Ts); }
template <class F, class... Ts> auto apply_each(F f, Ts... values) { return (f(values) + ...); }

template <class T>
concept Number = std::is_arithmetic_v<T>;
template <Number T> T twice(T x) { return x + x; }
template <class T>
  requires(sizeof(T) == 8)
T only_eight_bytes(T x) {
  return x - 1;
}

template <class T> inline constexpr T pi_v = T(3.141592653589793);
template <class T> using Pointer = T *;

// SFINAE: chooses by whether T has a `.sum()`.
template <class T> auto total(const T &t, int) -> decltype(t.sum()) { return t.sum(); }
template <class T> T total(const T &t, long) { return t; }

template <template <class> class Box, class T> T unbox(const Box<T> &b) { return b.first; }

template <class T, std::size_t N> struct FixedVector {
  T data[N]{};
  constexpr T &operator[](std::size_t i) { return data[i]; }
  constexpr T dot(const FixedVector &other) const {
    T s{};
    for (std::size_t k = 0; k < N; ++k)
      s += data[k] * other.data[k];
    return s;
  }
};

using Row = std::array<double, 12>;

Row compute(std::int64_t i) {
  Row r{};
  const double x = static_cast<double>(i) * 0.5;
  r[0] = square(x) + square(static_cast<int>(i));
  Pair p{x, 2.0}; // CTAD
  r[1] = p.sum() + p.scaled(3.0f);
  r[2] = Describe<int>::value + 10 * Describe<double>::value + 100 * Describe<double *>::value;
  r[3] = factorial<6>() + static_cast<double>(i);
  r[4] = sum_all(1, 2.5, static_cast<int>(i), 4.0f);
  r[5] =
      static_cast<double>(count_args(1, 'a', 2.0, i)) + apply_each([](auto v) { return v * 2; }, 1, x, 3.0f);
  r[6] = twice(x) + twice(static_cast<int>(i));
  r[7] = only_eight_bytes(x) + static_cast<double>(only_eight_bytes(i));
  r[8] = pi_v<double> * x + pi_v<float>;
  double value = x;
  Pointer<double> pointer = &value;
  r[9] = *pointer + total(p, 0) + total(x, 0);
  r[10] = unbox(p);
  FixedVector<double, 4> a, b;
  for (std::size_t k = 0; k < 4; ++k) {
    a[k] = x + static_cast<double>(k);
    b[k] = static_cast<double>(k) - x;
  }
  r[11] = a.dot(b);
  return r;
}

[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void templates(oxide::DisjointSpan<Row> out) {
  const auto idx = oxide::thread::index_1d();
  if (Row *o = out.get_mut(idx))
    *o = compute(static_cast<std::int64_t>(idx.get()));
}

// Template kernels: one .entry per instantiation.
template <class T> T polynomial(T x) { return (T(3) * x + T(2)) * x + T(1); }

// (No `requires = (in.size() == out.size())` here: the contract parser cannot yet see that a
// dependent oxide::Span<const T> is a span; in[] is bounds-checked instead.)
template <class T>
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void evaluate(oxide::DisjointSpan<T> out,
                                                                           oxide::Span<const T> in) {
  const auto idx = oxide::thread::index_1d();
  if (T *o = out.get_mut(idx))
    *o = polynomial(in[idx.get()]);
}

template <int Power, class T>
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void power(oxide::DisjointSpan<T> out, T base) {
  const auto idx = oxide::thread::index_1d();
  if (T *o = out.get_mut(idx)) {
    T result = T(1);
    for (int k = 0; k < Power; ++k)
      result *= base + static_cast<T>(idx.get() % 7);
    *o = result;
  }
}

// A template kernel without a contract, launched with unsafe_launch for two types.
template <class T> [[kernel]] void fill_with_index(oxide::DisjointSpan<T> out, T offset) {
  const auto idx = oxide::thread::index_1d();
  if (T *o = out.get_mut(idx))
    *o = static_cast<T>(idx.get()) + offset;
}

template <class T> void check_evaluate(lang::Checker &check, const char *name) {
  constexpr std::size_t n = 300;
  std::vector<T> input(n);
  for (std::size_t i = 0; i < n; ++i)
    input[i] = static_cast<T>(i % 50) - static_cast<T>(20);
  const auto in = oxide::DeviceBuffer<T>::from_host(check.stream, input);
  check.run(name, evaluate<T>, n, [&](std::size_t i) { return polynomial(input[i]); }, in);
}

template <int Power, class T> void check_power(lang::Checker &check, const char *name, T base) {
  check.run(
      name, power<Power, T>, 100,
      [&](std::size_t i) {
        T result = T(1);
        for (int k = 0; k < Power; ++k)
          result *= base + static_cast<T>(i % 7);
        return result;
      },
      base);
}

int main() {
  return lang::run_group("templates", [](lang::Checker &check) {
    check.run("templates", templates, 200,
              [](std::size_t i) { return compute(static_cast<std::int64_t>(i)); });
    check_evaluate<int>(check, "evaluate<int>");
    check_evaluate<float>(check, "evaluate<float>");
    check_evaluate<double>(check, "evaluate<double>");
    check_evaluate<std::int64_t>(check, "evaluate<long>");
    check_power<2, int>(check, "power<2, int>", 3);
    check_power<3, int>(check, "power<3, int>", 2);
    check_power<3, double>(check, "power<3, double>", 1.5);
    check.run_unsafe(
        "fill_with_index<unsigned>", fill_with_index<unsigned>, 100,
        [](std::size_t i) { return static_cast<unsigned>(i) + 5u; }, 5u);
    check.run_unsafe(
        "fill_with_index<float>", fill_with_index<float>, 100,
        [](std::size_t i) { return static_cast<float>(i) + 0.5f; }, 0.5f);
  });
}
