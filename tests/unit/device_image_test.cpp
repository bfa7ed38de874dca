// The device image format: what the compiler writes must decode to the same image, and
// anything else must be rejected rather than misread.
#include <gtest/gtest.h>

#include <string>

#include "oxide/detail/device_image.hpp"

namespace {

using namespace oxide::detail;

std::span<const unsigned char> bytes_of(const std::string &s) {
  return {reinterpret_cast<const unsigned char *>(s.data()), s.size()};
}

DeviceImage sample_image() {
  DeviceImage image;
  image.code.push_back({CodeKind::Ptx, 80, ".version 8.8\n.target sm_80\n"});
  image.code.push_back({CodeKind::Cubin, 90,
                        std::string("\x7f"
                                    "ELF\0\0\x01\xff",
                                    8)});
  image.code.push_back({CodeKind::Cubin, 90, "sm_90a cubin", CodeFeatures::ArchSpecific});
  image.kernels.push_back(
      {"_Z6vecaddN5oxide4SpanIKfEES2_NS_12DisjointSpanIfEE", {{16, 8}, {16, 8}, {16, 8}}});
  image.kernels.push_back({"scalar_kernel", {{4, 4}, {8, 8}}});
  image.kernels.push_back({"no_params", {}});
  return image;
}

void expect_same(const DeviceImage &a, const DeviceImage &b) {
  ASSERT_EQ(a.code.size(), b.code.size());
  for (std::size_t i = 0; i < a.code.size(); ++i) {
    EXPECT_EQ(a.code[i].kind, b.code[i].kind);
    EXPECT_EQ(a.code[i].arch, b.code[i].arch);
    EXPECT_EQ(a.code[i].features, b.code[i].features);
    EXPECT_EQ(a.code[i].bytes, b.code[i].bytes);
  }
  ASSERT_EQ(a.kernels.size(), b.kernels.size());
  for (std::size_t i = 0; i < a.kernels.size(); ++i) {
    EXPECT_EQ(a.kernels[i].name, b.kernels[i].name);
    EXPECT_EQ(a.kernels[i].params, b.kernels[i].params);
  }
}

TEST(DeviceImage, RoundTripsCodeAndKernels) {
  const DeviceImage image = sample_image();
  const std::string encoded = encode_image(image);
  const auto decoded = decode_image(bytes_of(encoded));
  ASSERT_TRUE(decoded.has_value());
  expect_same(image, *decoded);
  EXPECT_NE(decoded->find_kernel("scalar_kernel"), nullptr);
  EXPECT_EQ(decoded->find_kernel("missing"), nullptr);
}

// A code object stored in the fatbinary (`.nv_fatbin`) is a reference to its payload there: the
// image decodes only with that fatbinary, and a reference past its end is rejected.
TEST(DeviceImage, CodeInTheFatbinary) {
  std::string fatbin(16, '\0');
  fatbin += std::string("CUBIN-PAYLOAD\0\0\0", 16);
  fatbin[0] = '\x50', fatbin[1] = '\xed', fatbin[2] = '\x55', fatbin[3] = '\xba';
  fatbin[8] = static_cast<char>(fatbin.size() - 16);
  EXPECT_EQ(fatbin_size(bytes_of(fatbin).data()), fatbin.size());
  DeviceImage image = sample_image();
  image.code[1].fatbin_offset = 16;
  image.code[1].fatbin_size = 16;
  const std::string encoded = encode_image(image);
  const auto decoded = decode_image(bytes_of(encoded), bytes_of(fatbin));
  ASSERT_TRUE(decoded.has_value());
  EXPECT_EQ(decoded->code[1].bytes, fatbin.substr(16));
  EXPECT_EQ(decoded->code[0].bytes, image.code[0].bytes);
  EXPECT_FALSE(decode_image(bytes_of(encoded)).has_value());
  image.code[1].fatbin_offset = 24;
  EXPECT_FALSE(decode_image(bytes_of(encode_image(image)), bytes_of(fatbin)).has_value());
  EXPECT_EQ(fatbin_size(bytes_of(std::string(16, 'x')).data()), 0u);
}

TEST(DeviceImage, RoundTripsEmptyImage) {
  const auto decoded = decode_image(bytes_of(encode_image({})));
  ASSERT_TRUE(decoded.has_value());
  EXPECT_TRUE(decoded->code.empty());
  EXPECT_TRUE(decoded->kernels.empty());
}

TEST(DeviceImage, RejectsEveryTruncation) {
  const std::string encoded = encode_image(sample_image());
  for (std::size_t length = 0; length < encoded.size(); ++length)
    EXPECT_FALSE(decode_image(bytes_of(encoded.substr(0, length))).has_value())
        << "prefix of " << length << " bytes";
}

TEST(DeviceImage, RejectsTrailingBytes) {
  EXPECT_FALSE(decode_image(bytes_of(encode_image(sample_image()) + '\0')).has_value());
}

TEST(DeviceImage, RejectsBadMagicVersionAndKind) {
  const std::string good = encode_image(sample_image());
  std::string bad_magic = good;
  bad_magic[0] = 'X';
  EXPECT_FALSE(decode_image(bytes_of(bad_magic)).has_value());

  std::string bad_version = good;
  bad_version[8] = static_cast<char>(DeviceImage::kVersion + 1); // u32 version follows the magic
  EXPECT_FALSE(decode_image(bytes_of(bad_version)).has_value());

  std::string bad_kind = good;
  bad_kind[20] = 2; // first code object's kind: after magic(8) + version, code_count, kernel_count
  EXPECT_FALSE(decode_image(bytes_of(bad_kind)).has_value());
}

TEST(DeviceImage, RejectsSizesLargerThanTheInput) {
  std::string huge = encode_image(sample_image());
  for (std::size_t i = 32; i < 40; ++i) // first code object's u64 size, after kind, arch and features
    huge[i] = '\xff';
  EXPECT_FALSE(decode_image(bytes_of(huge)).has_value());

  std::string many = encode_image(sample_image());
  many[16] = many[17] = many[18] = many[19] = '\xff'; // kernel_count = 2^32 - 1
  EXPECT_FALSE(decode_image(bytes_of(many)).has_value());
}

} // namespace
