//===- device_image_fuzzer.cpp - libFuzzer target: device images ----------===//
//
// The runtime decodes the device image embedded in every executable. Any byte string must
// decode or be rejected, never crash or allocate without bound; what decodes must encode back
// to the same bytes.
//
//===----------------------------------------------------------------------===//

#include "oxide/detail/device_image.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::span<const unsigned char> bytes(data, size);
  const auto image = oxide::detail::decode_image(bytes);
  if (!image)
    return 0;
  const std::string encoded = oxide::detail::encode_image(*image);
  if (encoded.size() != size || std::memcmp(encoded.data(), data, size) != 0) {
    std::fprintf(stderr, "device_image_fuzzer: decode then encode changed the bytes\n");
    std::abort();
  }
  return 0;
}
