// The host side of copies (oxide::detail::HostElements): every contiguous host container that
// std::span took, with std::span's rules for the element type, and copies through it on the
// CPU simulator.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "oxide/oxide.hpp"

namespace {

using oxide::detail::HostElements;

struct Base {
  int x;
};
struct Derived : Base {};

// What converts: containers of T or of T less const, never of another type or a derived class,
// and never const elements to a mutable view.
static_assert(std::is_convertible_v<std::vector<float> &, HostElements<const float>>);
static_assert(std::is_convertible_v<const std::vector<float> &, HostElements<const float>>);
static_assert(std::is_convertible_v<std::vector<float> &, HostElements<float>>);
static_assert(!std::is_convertible_v<const std::vector<float> &, HostElements<float>>);
static_assert(std::is_convertible_v<std::array<int, 4> &, HostElements<const int>>);
static_assert(std::is_convertible_v<std::span<int> &, HostElements<int>>);
static_assert(std::is_convertible_v<std::span<const int>, HostElements<const int>>);
static_assert(!std::is_convertible_v<std::span<const int>, HostElements<int>>);
static_assert(std::is_convertible_v<int (&)[3], HostElements<const int>>);
static_assert(std::is_convertible_v<const std::string &, HostElements<const char>>);
static_assert(!std::is_convertible_v<std::vector<int> &, HostElements<const float>>);
static_assert(!std::is_convertible_v<std::vector<std::uint32_t> &, HostElements<const std::int32_t>>);
static_assert(!std::is_convertible_v<std::vector<Derived> &, HostElements<const Base>>);
static_assert(!std::is_convertible_v<int, HostElements<const int>>);
// Mutable elements of a temporary container would be written and lost; a span is a view.
static_assert(!std::is_convertible_v<std::vector<float> &&, HostElements<float>>);
static_assert(std::is_convertible_v<std::vector<float> &&, HostElements<const float>>);
static_assert(std::is_convertible_v<std::span<float> &&, HostElements<float>>);

TEST(HostElements, ViewsTheContainersElements) {
  std::vector<int> v{1, 2, 3};
  const HostElements<const int> all(v);
  EXPECT_EQ(all.data(), v.data());
  EXPECT_EQ(all.size(), 3u);
  EXPECT_EQ(all[2], 3);
  const HostElements<const int> none;
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.data(), nullptr);
  const HostElements<const int> braced{v.data() + 1, 2};
  EXPECT_EQ(braced[0], 2);
  int sum = 0;
  for (int x : braced)
    sum += x;
  EXPECT_EQ(sum, 5);
}

TEST(HostElements, CopiesFromEveryContainer) {
  auto ctx = oxide::Context::cpu();
  auto stream = ctx.default_stream();
  const std::vector<float> vector{1, 2, 3, 4};
  const std::array<float, 4> array{5, 6, 7, 8};
  const float c_array[4] = {9, 10, 11, 12};
  auto buffer = oxide::DeviceBuffer<float>::from_host(stream, vector);
  EXPECT_EQ(buffer.to_host(stream), vector);
  buffer.copy_from_host(stream, array);
  EXPECT_EQ(buffer.to_host(stream), std::vector<float>(array.begin(), array.end()));
  buffer.copy_from_host(stream, c_array);
  EXPECT_EQ(buffer.to_host(stream), std::vector<float>(c_array, c_array + 4));
  buffer.copy_from_host(stream, {vector.data(), vector.size()});
  EXPECT_EQ(buffer.to_host(stream), vector);
  auto pinned = oxide::PinnedBuffer<float>::from_host(ctx, array);
  buffer.copy_from_host(stream, pinned);
  std::array<float, 4> back{};
  buffer.copy_to_host(stream, back);
  EXPECT_EQ(back, array);
  std::vector<float> wrong(3);
  EXPECT_THROW(buffer.copy_to_host(stream, wrong), oxide::Error);
}

} // namespace
