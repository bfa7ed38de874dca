// DeviceRadixSort for oxide::cub::sort and sort_pairs: included by sort32.cu and sort64.cu, one
// per key width, so that the build compiles the two halves in parallel.
#pragma once

#include "cub_dispatch.cuh"

#include <cub/device/device_radix_sort.cuh>

namespace oxide::cub::calls {

template <class K, class V>
int sort_as(const SortArgs &a, void *temp, std::size_t &bytes, cudaStream_t stream) {
  const auto *ki = static_cast<const K *>(a.keys_in);
  auto *ko = static_cast<K *>(a.keys_out);
  const int n = static_cast<int>(a.count);
  if constexpr (std::is_void_v<V>) {
    return a.descending
               ? ::cub::DeviceRadixSort::SortKeysDescending(temp, bytes, ki, ko, n, a.begin_bit, a.end_bit,
                                                            stream)
               : ::cub::DeviceRadixSort::SortKeys(temp, bytes, ki, ko, n, a.begin_bit, a.end_bit, stream);
  } else {
    const auto *vi = static_cast<const V *>(a.values_in);
    auto *vo = static_cast<V *>(a.values_out);
    return a.descending ? ::cub::DeviceRadixSort::SortPairsDescending(temp, bytes, ki, ko, vi, vo, n,
                                                                      a.begin_bit, a.end_bit, stream)
                        : ::cub::DeviceRadixSort::SortPairs(temp, bytes, ki, ko, vi, vo, n, a.begin_bit,
                                                            a.end_bit, stream);
  }
}

template <std::size_t Bytes> struct OfSize {
  template <class T> using test = std::bool_constant<sizeof(T) == Bytes>;
};

/// The sort of `args` for a key type of `KeyBytes` bytes; values are moved as 4- or 8-byte words.
template <std::size_t KeyBytes>
int sort_keys_of_size(const SortArgs &args, void *temp, std::size_t &temp_bytes, void *stream) {
  return with_arithmetic<OfSize<KeyBytes>::template test>(args.key_dtype, [&](auto tag) {
    using K = typename decltype(tag)::type;
    switch (args.value_bytes) {
    case 0:
      return sort_as<K, void>(args, temp, temp_bytes, stream_of(stream));
    case 4:
      return sort_as<K, std::uint32_t>(args, temp, temp_bytes, stream_of(stream));
    case 8:
      return sort_as<K, std::uint64_t>(args, temp, temp_bytes, stream_of(stream));
    default:
      return int(cudaErrorInvalidValue);
    }
  });
}

} // namespace oxide::cub::calls
