// Language coverage, the standard library in kernels: std::array, std::span, std::optional,
// std::tuple and std::pair, std::min/max/clamp, <bit>, the constexpr algorithms of <numeric>
// and <algorithm>, <utility> and <limits>, std::variant/std::visit and std::string_view, with
// no annotations.
//
//   oxcc run tests/lang/stdlib.cpp
#include "lang_check.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <utility>
#include <variant>

using Row = std::array<std::int64_t, 27>;

std::optional<std::int64_t> checked_divide(std::int64_t a, std::int64_t b) {
  if (b == 0)
    return std::nullopt;
  return a / b;
}

std::int64_t sum_span(std::span<const std::int64_t> values) {
  std::int64_t s = 0;
  for (std::int64_t v : values)
    s += v;
  return s;
}

std::tuple<std::int64_t, std::int64_t, double> divmod(std::int64_t a, std::int64_t b) {
  return {a / b, a % b, static_cast<double>(a) / static_cast<double>(b)};
}

struct Item {
  std::int64_t key, weight;
};

Row compute(std::int64_t i) {
  Row r{};
  const auto u = static_cast<std::uint32_t>(i * 2654435761u);

  // std::array and std::span
  std::array<std::int64_t, 8> a{};
  for (std::size_t k = 0; k < a.size(); ++k)
    a[k] = (i * 7 + static_cast<std::int64_t>(k) * 13) % 17;
  r[0] = a.front() + 100 * a.back() + 10000 * static_cast<std::int64_t>(a.size());
  std::span<const std::int64_t> whole(a);
  r[1] = sum_span(whole) + 1000 * sum_span(whole.subspan(2, 3)) + 100000 * sum_span(whole.first<2>()) +
         static_cast<std::int64_t>(whole.last(3).size()) * 10000000;

  // std::optional
  const auto q = checked_divide(i, i % 4);
  const auto none = checked_divide(i, 0);
  std::optional<Item> item;
  item.emplace(Item{i, 2});
  r[2] = (q.has_value() ? *q : -1) + 1000 * none.value_or(7) + (none ? 1 : 0) + 100000 * item->weight;

  // std::tuple, std::pair, std::tie, std::apply, std::get
  auto [quotient, remainder, ratio] = divmod(i + 100, 7);
  std::int64_t x = 0, y = 0;
  std::tie(x, y) = std::make_pair(remainder, quotient);
  const auto t = std::make_tuple(i, 3, 0.5);
  r[3] = x + 100 * y + static_cast<std::int64_t>(ratio * 1000) * 10000 +
         std::apply([](auto p, auto s, auto h) { return p * s + static_cast<std::int64_t>(h * 10); }, t) +
         std::get<1>(t) + static_cast<std::int64_t>(std::tuple_size_v<decltype(t)>);

  // std::min/max/clamp/minmax, std::swap, std::exchange
  std::int64_t lo = i % 9, hi = i % 5;
  if (lo > hi)
    std::swap(lo, hi);
  const auto [mn, mx] = std::minmax({i % 11, i % 7, i % 3});
  r[4] = std::min(i, std::int64_t{50}) + 100 * std::max(i % 13, std::int64_t{6}) +
         10000 * std::clamp(i, std::int64_t{20}, std::int64_t{120}) + 10000000 * lo + 100000000 * hi +
         1000000000LL * (mn + 10 * mx) + std::exchange(lo, 0) * 7;
  r[5] = static_cast<std::int64_t>(std::min(0.5 * static_cast<double>(i), 12.25) * 4) +
         1000 * static_cast<std::int64_t>(std::clamp(static_cast<float>(i) * 0.1f, 1.0f, 9.5f) * 2);

  // <bit>
  r[6] = std::popcount(u) + 100 * std::countl_zero(u) + 10000 * std::countr_zero(u | 0x80000000u) +
         1000000 * std::countl_one(~u);
  r[7] = static_cast<std::int64_t>(std::rotl(u, 5)) ^ static_cast<std::int64_t>(std::rotr(u, 3));
  r[8] = static_cast<std::int64_t>(std::bit_width(u)) +
         100 * std::has_single_bit(static_cast<std::uint32_t>(i)) +
         1000 * static_cast<std::int64_t>(std::bit_ceil(static_cast<std::uint32_t>(i % 1000) + 1)) +
         static_cast<std::int64_t>(std::bit_floor(static_cast<std::uint64_t>(i) + 1)) * 10000000;
  r[9] = static_cast<std::int64_t>(std::bit_cast<std::uint64_t>(static_cast<double>(i) * 1.5) >> 20) +
         std::bit_cast<std::int32_t>(static_cast<float>(i));

  // <numeric>
  std::array<std::int64_t, 8> scan{};
  std::iota(scan.begin(), scan.end(), i);
  r[10] = std::accumulate(scan.begin(), scan.end(), std::int64_t{0}) +
          1000 * std::accumulate(a.begin(), a.end(), std::int64_t{1}, std::multiplies<>{}) % 1000003;
  r[11] = std::inner_product(a.begin(), a.end(), scan.begin(), std::int64_t{0});
  std::array<std::int64_t, 8> partial{};
  std::partial_sum(a.begin(), a.end(), partial.begin());
  std::array<std::int64_t, 8> exclusive{};
  std::exclusive_scan(a.begin(), a.end(), exclusive.begin(), std::int64_t{5});
  r[12] = partial[7] + 1000 * partial[3] + 1000000 * exclusive[4];
  r[13] = std::gcd(i * 6, std::int64_t{84}) + 1000 * std::lcm(i % 20 + 1, std::int64_t{6}) +
          1000000 * std::midpoint(i, std::int64_t{1000});
  r[14] = std::reduce(a.begin(), a.end()) +
          1000 * std::transform_reduce(a.begin(), a.end(), scan.begin(), std::int64_t{0});
  std::array<std::int64_t, 8> differences{};
  std::adjacent_difference(a.begin(), a.end(), differences.begin());
  r[15] = differences[1] + 100 * differences[7] +
          10000 * std::transform_reduce(a.begin(), a.end(), std::int64_t{0}, std::plus<>{},
                                        [](std::int64_t v) { return v * v; });

  // constexpr <algorithm>
  std::array<std::int64_t, 8> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  r[16] = sorted[0] + 100 * sorted[7] + 10000 * (std::is_sorted(sorted.begin(), sorted.end()) ? 1 : 0);
  r[17] = std::count_if(a.begin(), a.end(), [](std::int64_t v) { return v % 2 == 0; }) +
          100 * (std::find(a.begin(), a.end(), 5) - a.begin()) +
          10000 * *std::max_element(a.begin(), a.end()) +
          1000000 * (std::any_of(a.begin(), a.end(), [](std::int64_t v) { return v > 15; }) ? 1 : 0);
  std::array<std::int64_t, 8> reversed = a;
  std::reverse(reversed.begin(), reversed.end());
  std::rotate(reversed.begin(), reversed.begin() + 3, reversed.end());
  r[18] =
      reversed[0] + 100 * reversed[5] + 10000 * (std::equal(a.begin(), a.end(), reversed.begin()) ? 1 : 0);
  std::array<Item, 4> items{{{i % 5, 1}, {i % 3, 2}, {i % 7, 3}, {i % 2, 4}}};
  std::sort(items.begin(), items.end(), [](const Item &l, const Item &rr) {
    return l.key < rr.key || (l.key == rr.key && l.weight < rr.weight);
  });
  r[19] = items[0].weight + 10 * items[1].weight + 100 * items[2].weight + 1000 * items[3].weight;
  const auto *lower = std::lower_bound(sorted.begin(), sorted.end(), 8);
  std::array<std::int64_t, 8> filled{};
  std::fill(filled.begin(), filled.begin() + 3, i);
  std::transform(a.begin(), a.end(), filled.begin() + 3 - 3, filled.begin(),
                 [](std::int64_t l, std::int64_t rr) { return l + rr; });
  r[20] = (lower - sorted.begin()) + 100 * filled[0] + 100000 * filled[7];

  // <limits> and <utility>
  r[21] = std::numeric_limits<std::int32_t>::max() / (i + 1) + std::numeric_limits<std::uint8_t>::digits +
          (std::numeric_limits<double>::epsilon() < 1e-15 ? 1 : 0);
  std::pair<std::int64_t, double> pr{i, 0.5};
  auto moved = std::move(pr);
  r[22] = moved.first + static_cast<std::int64_t>(moved.second * 4) +
          static_cast<std::int64_t>(std::cmp_less(-1, static_cast<unsigned>(i)));
  r[23] = std::to_integer<std::int64_t>(std::byte{0x2A}) + std::as_const(moved).first;

  // std::optional::value(), std::variant with std::visit/std::get, std::string_view
  const std::optional<std::int64_t> present(i * 3);
  std::variant<std::int64_t, double, Item> v;
  if (i % 3 == 0)
    v = i;
  else if (i % 3 == 1)
    v = static_cast<double>(i) * 0.5;
  else
    v = Item{i, 9};
  r[24] = present.value() +
          1000 * std::visit(
                     [](const auto &alt) -> std::int64_t {
                       using A = std::decay_t<decltype(alt)>;
                       if constexpr (std::is_same_v<A, Item>)
                         return alt.key * alt.weight;
                       else
                         return static_cast<std::int64_t>(alt * 2);
                     },
                     v) +
          1000000 * static_cast<std::int64_t>(v.index()) +
          (std::holds_alternative<double>(v) ? static_cast<std::int64_t>(std::get<double>(v)) : 7);
  constexpr std::string_view words = "device host kernel";
  const std::string_view word = words.substr(static_cast<std::size_t>(i % 3) * 7, 6);
  r[25] = static_cast<std::int64_t>(words.find(word)) + 100 * (word == "kernel" ? 1 : 0) +
          1000 * static_cast<std::int64_t>(word.size()) + 10000 * (word < "e" ? 1 : 0);
  r[26] = static_cast<std::int64_t>(words.find('k')) + 100 * static_cast<std::int64_t>(words.rfind("e")) +
          10000 * (words.starts_with("dev") ? 1 : 0) + 100000 * word.compare("host") + 1000000 * a.at(3);
  return r;
}

[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void stdlib(oxide::DisjointSpan<Row> out) {
  const auto idx = oxide::thread::index_1d();
  if (Row *o = out.get_mut(idx))
    *o = compute(static_cast<std::int64_t>(idx.get()));
}

// std::array passed to a kernel by value (std::pair and std::tuple are not trivially copyable).
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void
by_value(oxide::DisjointSpan<double> out, std::array<double, 4> weights, std::array<int, 2> shift) {
  const auto idx = oxide::thread::index_1d();
  if (double *o = out.get_mut(idx))
    *o = weights[idx.get() % 4] * static_cast<double>(idx.get()) + shift[0] + shift[1];
}

int main() {
  return lang::run_group("stdlib", [](lang::Checker &check) {
    check.run("stdlib", stdlib, 300, [](std::size_t i) { return compute(static_cast<std::int64_t>(i)); });
    const std::array<double, 4> weights{0.5, 1.5, -2.0, 4.0};
    const std::array<int, 2> shift{3, -8};
    check.run(
        "by_value", by_value, 100,
        [&](std::size_t i) { return weights[i % 4] * static_cast<double>(i) + shift[0] + shift[1]; }, weights,
        shift);
  });
}
