// Scalar arguments at launch, on the CPU simulator: they convert as in a function call with a
// check that the value fits its parameter (ArgumentOutOfRange), and a signed integer that a
// contract's `requires` reads must not be negative (NegativeArgument).
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "oxide/oxide.hpp"
#include "sim_test_support.hpp"

namespace {

using oxide::DeviceBuffer;
using oxide::DisjointSpan;
using oxide::ErrorKind;
using oxide::LaunchConfig1D;
using oxide::Span;
using oxide_test::simulator;

// out[i] = i < n ? in[i] : 0, with a signed n that `requires` bounds by out.size().
volatile int side_effect = 0;
void signed_first_n(int n, Span<const float> in, DisjointSpan<float> out) {
  const auto idx = oxide::thread::index_1d();
  if (float *o = out.get_mut(idx))
    *o = static_cast<int>(idx.get()) < n ? in[idx.get()] : 0.0f;
  side_effect = 1;
}

void scale(float factor, unsigned offset, DisjointSpan<float> out) {
  const auto idx = oxide::thread::index_1d();
  if (float *o = out.get_mut(idx))
    *o = factor * static_cast<float>(idx.get() + offset);
}

void narrow(int n, DisjointSpan<int> out) {
  if (int *o = out.get_mut(oxide::thread::index_1d()))
    *o = n;
}

void unchecked(std::uint8_t value, int *out) { *out = value; }

void register_image(const oxide::detail::DeviceImage &image, const void *address, const char *name) {
  const std::string bytes = oxide::detail::encode_image(image);
  __oxide_register_image(reinterpret_cast<const unsigned char *>(bytes.data()), bytes.size(), &address, &name,
                         1);
}

oxide::Error error_of(const std::function<void()> &body) {
  try {
    body();
  } catch (const oxide::Error &e) {
    return e;
  }
  ADD_FAILURE() << "expected an oxide::Error";
  return oxide::Error("no error");
}

class ContractArguments : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    // What oxcc writes for [[oxide::launch_contract("domain = 1, requires = (n <= out.size(),
    // in.size() == out.size())")]] on signed_first_n: n is a signed integer ('s').
    oxide::detail::DeviceImage image;
    image.kernels.push_back({"signed_first_n",
                             {{4, 4}, {16, 8}, {16, 8}},
                             "domain = 1, dynamic_shared = 0..0, requires = ($0 <= $2.size(), $1.size() == "
                             "$2.size())",
                             "n=s,in=i,out=o"});
    register_image(image, reinterpret_cast<const void *>(&signed_first_n), "signed_first_n");
    oxide::sim::register_kernel(scale, "scale", "domain = 1", {"factor", "offset", "out"});
    oxide::sim::register_kernel(narrow, "narrow", "domain = 1", {"n", "out"});
    oxide::sim::register_kernel(unchecked, "unchecked");
  }

  oxide::Context ctx = simulator();
  oxide::Stream stream = ctx.default_stream();
};

TEST_F(ContractArguments, SignedScalarsInRequiresMustNotBeNegative) {
  auto launch = oxide::prepare(ctx, signed_first_n, LaunchConfig1D{1, 32});
  auto in = DeviceBuffer<float>::from_host(stream, std::vector<float>(8, 3.0f));
  auto out = DeviceBuffer<float>::zeroed(stream, 8);
  const oxide::Error negative = error_of([&] { launch(stream, -3, in, out); });
  EXPECT_EQ(negative.kind(), ErrorKind::NegativeArgument);
  EXPECT_EQ(negative.kernel(), "signed_first_n");
  EXPECT_STREQ(negative.what(),
               "oxide: launch of 'signed_first_n' violates its contract: parameter 'n' is -3, but a signed "
               "integer that requires uses must not be negative; pass a value >= 0");
  const oxide::Error big = error_of([&] { launch(stream, 9, in, out); });
  EXPECT_EQ(big.kind(), ErrorKind::RequiresViolated);
  EXPECT_STREQ(big.what(),
               "oxide: launch of 'signed_first_n' violates its contract: requires n <= out.size(), "
               "but n = 9 and out.size() = 8");
  launch(stream, 5, in, out);
  EXPECT_EQ(out.to_host(stream), (std::vector<float>{3, 3, 3, 3, 3, 0, 0, 0}));
  launch(stream, 0, in, out); // zero is not negative
  EXPECT_EQ(out.to_host(stream), std::vector<float>(8, 0.0f));
}

TEST_F(ContractArguments, ScalarsConvertAsInACall) {
  auto launch = oxide::prepare(ctx, scale, LaunchConfig1D{1, 32});
  auto out = DeviceBuffer<float>::zeroed(stream, 4);
  launch(stream, 2.0, 1, out); // a double for the float, an int for the unsigned
  EXPECT_EQ(out.to_host(stream), (std::vector<float>{2, 4, 6, 8}));
  launch(stream, 3, std::size_t{0}, out); // an int for the float, a size_t for the unsigned
  EXPECT_EQ(out.to_host(stream), (std::vector<float>{0, 3, 6, 9}));
}

TEST_F(ContractArguments, ScalarsThatDoNotFitAreErrors) {
  auto out = DeviceBuffer<float>::zeroed(stream, 4);
  auto launch = oxide::prepare(ctx, scale, LaunchConfig1D{1, 32});
  const oxide::Error minus_one = error_of([&] { launch(stream, 1.0f, -1, out); });
  EXPECT_EQ(minus_one.kind(), ErrorKind::ArgumentOutOfRange);
  EXPECT_EQ(minus_one.kernel(), "scale");
  EXPECT_STREQ(
      minus_one.what(),
      "oxide: argument 2 of kernel 'scale' is -1, which parameter 2 'offset' (unsigned int, from 0 to "
      "4294967295) cannot hold; pass a value in that range or change the parameter's type");
  const oxide::Error huge = error_of([&] { launch(stream, 1e39, 0u, out); });
  EXPECT_EQ(huge.kind(), ErrorKind::ArgumentOutOfRange);
  EXPECT_STREQ(huge.what(),
               "oxide: argument 1 of kernel 'scale' is 1e+39, which parameter 1 'factor' (float, "
               "from -3.4028235e+38 to 3.4028235e+38) cannot hold; pass a value in that range or "
               "change the parameter's type");
  auto ints = DeviceBuffer<int>::zeroed(stream, 2);
  auto narrow_launch = oxide::prepare(ctx, narrow, LaunchConfig1D{1, 32});
  const oxide::Error wide = error_of([&] { narrow_launch(stream, std::size_t{1} << 40, ints); });
  EXPECT_EQ(wide.kind(), ErrorKind::ArgumentOutOfRange);
  EXPECT_STREQ(wide.what(),
               "oxide: argument 1 of kernel 'narrow' is 1099511627776, which parameter 1 'n' (int, "
               "from -2147483648 to 2147483647) cannot hold; pass a value in that range or change "
               "the parameter's type");
  EXPECT_EQ(error_of([&] { narrow_launch(stream, 2.5, ints); }).kind(), ErrorKind::ArgumentOutOfRange);
  narrow_launch(stream, std::size_t{7}, ints);
  EXPECT_EQ(ints.to_host(stream), (std::vector<int>{7, 7}));
}

TEST_F(ContractArguments, UnsafeLaunchesCheckScalarsToo) {
  // No contract, so no parameter names: the message gives the position.
  int result = 0;
  const oxide::Error e =
      error_of([&] { oxide::unsafe_launch(stream, unchecked, LaunchConfig1D{1, 1}, 300, &result); });
  EXPECT_EQ(e.kind(), ErrorKind::ArgumentOutOfRange);
  EXPECT_STREQ(e.what(),
               "oxide: argument 1 of kernel 'unchecked' is 300, which parameter 1 (unsigned char, from 0 "
               "to 255) cannot hold; pass a value in that range or change the parameter's type");
}

} // namespace
