// DeviceSegmentedSort for oxide::cub::segmented_sort and segmented_sort_pairs: included by
// segmented_sort32.cu and segmented_sort64.cu, one per key width, as the radix sorts
// (radix_sort.cuh). The stable variants: oxide::cub's sorts are stable.
#pragma once

#include "radix_sort.cuh"

#include <cub/device/device_segmented_sort.cuh>

namespace oxide::cub::calls {

template <class K, class V>
int segmented_sort_as(const SortArgs &a, std::int64_t segments, const std::int64_t *offsets, void *temp,
                      std::size_t &bytes, cudaStream_t stream) {
  using Segmented = ::cub::DeviceSegmentedSort;
  const auto *ki = static_cast<const K *>(a.keys_in);
  auto *ko = static_cast<K *>(a.keys_out);
  const std::int64_t n = a.count;
  const std::int64_t *begins = offsets, *ends = offsets + 1;
  if constexpr (std::is_void_v<V>) {
    return a.descending
               ? Segmented::StableSortKeysDescending(temp, bytes, ki, ko, n, segments, begins, ends, stream)
               : Segmented::StableSortKeys(temp, bytes, ki, ko, n, segments, begins, ends, stream);
  } else {
    const auto *vi = static_cast<const V *>(a.values_in);
    auto *vo = static_cast<V *>(a.values_out);
    return a.descending
               ? Segmented::StableSortPairsDescending(temp, bytes, ki, ko, vi, vo, n, segments, begins, ends,
                                                      stream)
               : Segmented::StableSortPairs(temp, bytes, ki, ko, vi, vo, n, segments, begins, ends, stream);
  }
}

/// The segmented sort of `args` for a key type of `KeyBytes` bytes; values are moved as 4- or
/// 8-byte words.
template <std::size_t KeyBytes>
int segmented_sort_keys_of_size(const SortArgs &args, std::int64_t segments, const std::int64_t *offsets,
                                void *temp, std::size_t &temp_bytes, void *stream) {
  return with_arithmetic<OfSize<KeyBytes>::template test>(args.key_dtype, [&](auto tag) {
    using K = typename decltype(tag)::type;
    switch (args.value_bytes) {
    case 0:
      return segmented_sort_as<K, void>(args, segments, offsets, temp, temp_bytes, stream_of(stream));
    case 4:
      return segmented_sort_as<K, std::uint32_t>(args, segments, offsets, temp, temp_bytes,
                                                 stream_of(stream));
    case 8:
      return segmented_sort_as<K, std::uint64_t>(args, segments, offsets, temp, temp_bytes,
                                                 stream_of(stream));
    default:
      return int(cudaErrorInvalidValue);
    }
  });
}

} // namespace oxide::cub::calls
