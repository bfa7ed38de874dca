// Language coverage, compile-time programming: constexpr functions evaluated at compile time
// (static_assert) and at run time on the device, consteval, constexpr variables and lookup
// tables at namespace scope indexed at run time, constexpr classes and lambdas, if constexpr,
// and structured bindings (arrays, structs, std::pair/std::tuple, by reference).
//
//   oxcc run tests/lang/constexpr.cpp
#include "lang_check.hpp"

#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

constexpr std::int64_t triangle(std::int64_t n) { return n * (n + 1) / 2; }
consteval std::int64_t compile_time_only(std::int64_t n) { return n * n + 1; }

constexpr std::uint32_t crc_step(std::uint32_t c) {
  for (int k = 0; k < 8; ++k)
    c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
  return c;
}
struct CrcTable {
  std::uint32_t entries[256];
};
constexpr CrcTable make_crc_table() {
  CrcTable t{};
  for (std::uint32_t i = 0; i < 256; ++i)
    t.entries[i] = crc_step(i);
  return t;
}
// Namespace-scope constexpr data, indexed at run time in device code.
constexpr CrcTable crc_table = make_crc_table();
constexpr std::int64_t primes[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
constexpr double scale = 0.125;

constexpr std::uint32_t crc32(const unsigned char *data, std::size_t n) {
  std::uint32_t c = 0xFFFFFFFFu;
  for (std::size_t k = 0; k < n; ++k)
    c = crc_table.entries[(c ^ data[k]) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

static_assert(triangle(10) == 55);
static_assert(crc_table.entries[1] == 0x77073096u);
static_assert(compile_time_only(4) == 17);

struct Fraction {
  std::int64_t num, den;
  constexpr Fraction(std::int64_t n, std::int64_t d) : num(n), den(d) {}
  constexpr Fraction operator+(Fraction o) const { return {num * o.den + o.num * den, den * o.den}; }
  constexpr double value() const { return static_cast<double>(num) / static_cast<double>(den); }
};
constexpr Fraction half_plus_third = Fraction{1, 2} + Fraction{1, 3};
static_assert(half_plus_third.num == 5 && half_plus_third.den == 6);

template <class T> constexpr double describe(T value) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>)
    return static_cast<double>(value) * 2;
  else if constexpr (std::is_integral_v<T>)
    return static_cast<double>(value) + 0.5;
  else if constexpr (sizeof(T) == sizeof(float))
    return static_cast<double>(value) * 0.25;
  else
    return static_cast<double>(value) - 1;
}

struct Point {
  double x, y;
};
std::pair<double, int> split(double v) { return {v - static_cast<int>(v), static_cast<int>(v)}; }
std::tuple<int, double, char> three(int i) { return {i, i * 0.5, static_cast<char>('a' + i % 26)}; }

using Row = std::array<double, 10>;

Row compute(std::int64_t i) {
  Row r{};
  constexpr std::int64_t folded = triangle(100) + compile_time_only(3); // evaluated by the compiler
  r[0] = static_cast<double>(triangle(i) + folded);
  const unsigned char bytes[4] = {static_cast<unsigned char>(i), static_cast<unsigned char>(i >> 8), 0x5A,
                                  0xC3};
  r[1] = static_cast<double>(crc32(bytes, 4));
  r[2] = static_cast<double>(primes[i % 12]) * scale + half_plus_third.value();
  r[3] = describe(static_cast<int>(i)) + describe(static_cast<unsigned>(i)) +
         describe(static_cast<float>(i)) + describe(static_cast<double>(i));
  constexpr auto doubled = [](auto v) constexpr { return v * 2; };
  static_assert(doubled(21) == 42);
  r[4] = doubled(static_cast<double>(i));

  const double array[3] = {1.0 * i, 2.0 * i, 3.0 * i};
  auto [a0, a1, a2] = array;
  r[5] = a0 + 10 * a1 + 100 * a2;
  auto [px, py] = Point{static_cast<double>(i), 2.0};
  r[6] = px * py;
  auto [fraction, whole] = split(static_cast<double>(i) * 0.3);
  r[7] = fraction + whole;
  const auto [n, h, c] = three(static_cast<int>(i));
  r[8] = n + h + c;
  Point p{1, 2};
  auto &[rx, ry] = p; // bindings by reference write through
  rx += static_cast<double>(i);
  ry *= 3;
  r[9] = p.x + p.y;
  return r;
}

[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void
constexpr_kernel(oxide::DisjointSpan<Row> out) {
  const auto idx = oxide::thread::index_1d();
  if (Row *o = out.get_mut(idx))
    *o = compute(static_cast<std::int64_t>(idx.get()));
}

// if constexpr in a template kernel picks a different body per instantiation.
template <class T>
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void kind(oxide::DisjointSpan<T> out) {
  const auto idx = oxide::thread::index_1d();
  if (T *o = out.get_mut(idx)) {
    if constexpr (std::is_floating_point_v<T>)
      *o = static_cast<T>(idx.get()) / T(4);
    else
      *o = static_cast<T>(idx.get() * 3);
  }
}

int main() {
  return lang::run_group("constexpr", [](lang::Checker &check) {
    check.run("constexpr", constexpr_kernel, 300,
              [](std::size_t i) { return compute(static_cast<std::int64_t>(i)); });
    check.run("kind<float>", kind<float>, 100, [](std::size_t i) { return static_cast<float>(i) / 4.0f; });
    check.run("kind<int>", kind<int>, 100, [](std::size_t i) { return static_cast<int>(i * 3); });
  });
}
