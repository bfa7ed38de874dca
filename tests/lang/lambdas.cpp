// Language coverage, lambdas: captureless and capturing lambdas (by value, by reference,
// init-captures, mutable, `this`), generic and template lambdas, lambdas returning lambdas,
// recursion through a generic lambda, lambdas passed to helper templates, and closures built in
// host code and passed to a kernel by value (the kernel is a template over the closure type).
//
//   oxcc run tests/lang/lambdas.cpp
#include "lang_check.hpp"

#include <cstdint>
#include <functional>

template <class F> double integrate(F f, double a, double b, int steps) {
  const double h = (b - a) / steps;
  double sum = 0;
  for (int k = 0; k < steps; ++k)
    sum += f(a + (k + 0.5) * h);
  return sum * h;
}

auto make_adder(double amount) {
  return [amount](double x) { return x + amount; };
}

struct Scaler {
  double factor;
  double apply(double x) const {
    auto by_this = [this](double v) { return v * factor; };
    auto by_copy = [*this](double v) { return v + factor; };
    return by_this(x) + by_copy(x);
  }
};

// A lambda at namespace scope (a constexpr closure object).
constexpr auto cube = [](auto x) { return x * x * x; };

using Row = std::array<double, 12>;

Row compute(std::int64_t i) {
  Row r{};
  const double x = static_cast<double>(i) * 0.25;
  auto plain = [](double v) { return v * 2 + 1; };
  r[0] = plain(x) + [](double v) { return v - 1; }(x); // immediately invoked

  double captured = x + 3;
  int counter = 0;
  auto by_value = [captured](double v) { return v * captured; };
  auto by_reference = [&counter](int step) { counter += step; };
  by_reference(2);
  by_reference(5);
  r[1] = by_value(2.0) + counter;

  auto init_capture = [base = x * 2, n = 3](double v) { return base + n * v; };
  auto mutable_state = [calls = 0]() mutable { return ++calls; };
  mutable_state();
  mutable_state();
  r[2] = init_capture(1.0) + 100 * mutable_state();

  auto generic = [](auto a, auto b) { return a * b; };
  r[3] = generic(x, 2.0) + generic(static_cast<int>(i), 3) + generic(1.5f, 2.0f);

  auto templated = []<class T>(T a) { return static_cast<T>(a + sizeof(T)); };
  r[4] = templated(x) + templated(static_cast<int>(i));

  auto add5 = make_adder(5.0);
  auto compose = [](auto f, auto g) { return [=](auto v) { return f(g(v)); }; };
  r[5] = compose(add5, plain)(x);

  // Recursion through a generic lambda that receives itself.
  auto factorial = [](auto self, int n) -> std::int64_t { return n <= 1 ? 1 : n * self(self, n - 1); };
  r[6] = static_cast<double>(factorial(factorial, static_cast<int>(i % 15)));

  r[7] = integrate([=](double t) { return t * t + x; }, 0.0, 1.0, 16);
  r[8] = Scaler{x}.apply(3.0);
  r[9] = cube(x) + cube(static_cast<int>(i % 100));
  r[10] = std::invoke(generic, x, 4.0) + std::invoke([](int v) { return v / 2; }, static_cast<int>(i));

  double array[4] = {x, x + 1, x + 2, x + 3};
  double total = 0;
  auto for_each = [](double *first, double *last, auto f) {
    for (; first != last; ++first)
      f(*first);
  };
  for_each(array, array + 4, [&](double v) { total += v * v; });
  r[11] = total;
  return r;
}

[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void lambdas(oxide::DisjointSpan<Row> out) {
  const auto idx = oxide::thread::index_1d();
  if (Row *o = out.get_mut(idx))
    *o = compute(static_cast<std::int64_t>(idx.get()));
}

// Closures passed to a kernel by value: the kernel is a template over the closure type, and
// oxide::prepare takes the instantiation `map<decltype(f)>`.
template <class F>
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void map(oxide::DisjointSpan<double> out, F f) {
  const auto idx = oxide::thread::index_1d();
  if (double *o = out.get_mut(idx))
    *o = f(static_cast<std::int64_t>(idx.get()));
}

template <class F> [[kernel]] void map_unsafe(oxide::DisjointSpan<double> out, F f) {
  const auto idx = oxide::thread::index_1d();
  if (double *o = out.get_mut(idx))
    *o = f(static_cast<double>(idx.get()));
}

int main() {
  // A closure written directly in main: host and device must mangle its type (and so the
  // kernel instantiation's name) identically.
  const auto in_main = [base = 0.75](std::int64_t i) { return base * static_cast<double>(i * i); };
  return lang::run_group("lambdas", [&](lang::Checker &check) {
    check.run("lambdas", lambdas, 200, [](std::size_t i) { return compute(static_cast<std::int64_t>(i)); });

    const double scale = 1.5;
    const int offset = 7;
    const std::array<double, 3> coefficients{0.5, -1.0, 2.0};
    auto closure = [scale, offset, coefficients](std::int64_t i) {
      const double t = static_cast<double>(i);
      return scale * (coefficients[0] + coefficients[1] * t + coefficients[2] * t * t) + offset;
    };
    check.run(
        "map<closure>", map<decltype(closure)>, 150,
        [&](std::size_t i) { return closure(static_cast<std::int64_t>(i)); }, closure);

    auto captureless = [](std::int64_t i) { return static_cast<double>(i % 10) * 0.5; };
    check.run(
        "map<captureless>", map<decltype(captureless)>, 150,
        [&](std::size_t i) { return captureless(static_cast<std::int64_t>(i)); }, captureless);

    auto generic = [scale](auto v) { return v * scale - 1; };
    check.run_unsafe(
        "map_unsafe<generic>", map_unsafe<decltype(generic)>, 150,
        [&](std::size_t i) { return generic(static_cast<double>(i)); }, generic);

    check.run(
        "map<closure in main>", map<decltype(in_main)>, 150,
        [&](std::size_t i) { return in_main(static_cast<std::int64_t>(i)); }, in_main);

    using Cube = std::remove_cvref_t<decltype(cube)>; // the namespace-scope generic lambda
    check.run(
        "map<namespace-scope lambda>", map<Cube>, 150,
        [&](std::size_t i) { return static_cast<double>(cube(static_cast<std::int64_t>(i))); }, cube);

    auto nested = [inner = make_adder(2.5)](std::int64_t i) { return inner(static_cast<double>(i)) * 2; };
    check.run(
        "map<nested closure>", map<decltype(nested)>, 150,
        [&](std::size_t i) { return nested(static_cast<std::int64_t>(i)); }, nested);
  });
}
