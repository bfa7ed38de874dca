// Language coverage, free functions: kernels call inline, static, internal, plain and
// [[gnu::noinline]] functions, defined before or after the kernel, recursive functions,
// overloads, default arguments, namespaces, references and pointers between functions and
// calls through function pointers, none of them annotated.
//
//   oxcc run tests/lang/functions.cpp
#include "lang_check.hpp"

#include <cstdint>

using Row = std::array<std::int64_t, 16>;

namespace {
std::int64_t in_anonymous_namespace(std::int64_t x) { return x * 3 + 1; }
} // namespace

static std::int64_t static_function(std::int64_t x) { return x - 7; }
inline std::int64_t inline_function(std::int64_t x) { return x * x; }
std::int64_t plain_function(std::int64_t x) { return x ^ 0x55; }
std::int64_t defined_after_kernel(std::int64_t x); // defined below the kernels
[[gnu::noinline]] std::int64_t never_inlined(std::int64_t x) { return x % 13 + 2; }

// Real recursion: the GPU needs a call stack for these.
[[gnu::noinline]] std::int64_t fibonacci(std::int64_t n) {
  return n < 2 ? n : fibonacci(n - 1) + fibonacci(n - 2);
}
std::int64_t gcd(std::int64_t a, std::int64_t b) { return b == 0 ? a : gcd(b, a % b); }
bool is_odd(unsigned n);
bool is_even(unsigned n) { return n == 0 ? true : is_odd(n - 1); }
bool is_odd(unsigned n) { return n == 0 ? false : is_even(n - 1); }

std::int64_t overloaded(int x) { return x + 1; }
std::int64_t overloaded(long x) { return x + 2; }
std::int64_t overloaded(double x) { return static_cast<std::int64_t>(x * 10.0); }
std::int64_t overloaded(int x, int y) { return x * 100 + y; }

std::int64_t with_default(std::int64_t x, std::int64_t step = 5, std::int64_t scale = 2) {
  return (x + step) * scale;
}

namespace outer::inner {
std::int64_t nested(std::int64_t x) { return x * 11; }
} // namespace outer::inner

void add_through_reference(std::int64_t &value, std::int64_t amount) { value += amount; }
void double_through_pointer(std::int64_t *value) { *value *= 2; }
std::int64_t sum_array(const std::int64_t *values, int count) {
  std::int64_t sum = 0;
  for (int k = 0; k < count; ++k)
    sum += values[k];
  return sum;
}

using Unary = std::int64_t (*)(std::int64_t);
[[gnu::noinline]] std::int64_t call_through(Unary f, std::int64_t x) { return f(x); }
std::int64_t through_table(std::int64_t i) {
  const Unary table[] = {&in_anonymous_namespace, &static_function, &plain_function, &never_inlined};
  return call_through(table[i % 4], i);
}

std::int64_t noexcept_function(std::int64_t x) noexcept { return -x; }
[[nodiscard]] constexpr std::int64_t attributed(std::int64_t x) { return x + 42; }
auto deduced_return(std::int64_t x) { return x * 2 + 1; }
auto trailing_return(std::int64_t x) -> std::int64_t { return x / 3; }

/// The computation each thread does, shared with the host for the comparison.
Row compute(std::int64_t i) {
  Row r{};
  r[0] = in_anonymous_namespace(i);
  r[1] = static_function(i);
  r[2] = inline_function(i);
  r[3] = plain_function(i);
  r[4] = never_inlined(i);
  r[5] = fibonacci(i % 16);
  r[6] = gcd(i * 12, 84) + (is_even(static_cast<unsigned>(i)) ? 1000 : 0);
  r[7] = overloaded(static_cast<int>(i)) + overloaded(static_cast<long>(i)) + overloaded(i * 0.25) +
         overloaded(static_cast<int>(i), 3);
  r[8] = with_default(i) + with_default(i, 1) + with_default(i, 1, 3);
  r[9] = outer::inner::nested(i);
  std::int64_t value = i;
  add_through_reference(value, 10);
  double_through_pointer(&value);
  r[10] = value;
  const std::int64_t values[] = {i, i + 1, i + 2, i + 3};
  r[11] = sum_array(values, 4);
  r[12] = through_table(i);
  r[13] = noexcept_function(i) + attributed(i);
  r[14] = deduced_return(i) + trailing_return(i);
  r[15] = defined_after_kernel(i);
  return r;
}

[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void functions(oxide::DisjointSpan<Row> out) {
  const auto idx = oxide::thread::index_1d();
  if (Row *o = out.get_mut(idx))
    *o = compute(static_cast<std::int64_t>(idx.get()));
}

// A kernel calling a function declared before and defined after it, directly.
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void
forward_declared(oxide::DisjointSpan<std::int64_t> out) {
  const auto idx = oxide::thread::index_1d();
  if (std::int64_t *o = out.get_mut(idx))
    *o = defined_after_kernel(static_cast<std::int64_t>(idx.get())) + static_function(3);
}

std::int64_t defined_after_kernel(std::int64_t x) { return 1000 - x; }

int main() {
  return lang::run_group("functions", [](lang::Checker &check) {
    check.run("functions", functions, 200,
              [](std::size_t i) { return compute(static_cast<std::int64_t>(i)); });
    check.run("forward_declared", forward_declared, 200, [](std::size_t i) {
      return defined_after_kernel(static_cast<std::int64_t>(i)) + static_function(3);
    });
  });
}
