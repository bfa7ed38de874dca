// oxide::cub::segmented_sort and segmented_sort_pairs (include/oxide/cub.hpp): the checks, the
// simulator's sort of each segment, and DeviceSegmentedSort on the GPU (segmented_sort*.cu). A
// file of its own, so that only programs that call it link those kernels.
#include "cub_host.hpp"

namespace oxide::cub::detail {

using namespace host_side;

void segmented_sort(Stream &stream, const Range &keys_in, const Range &keys_out, const Range *values_in,
                    const Range *values_out, const Range &offsets, Order order) {
  const char *what = values_in ? "segmented_sort_pairs" : "segmented_sort";
  check_sort_ranges(stream, what, keys_in, keys_out, values_in, values_out);
  check_common(stream, what, {&offsets});
  require(offsets.size >= 1, ErrorKind::SizeMismatch, what,
          "'offsets' is empty; it holds one more value than there are segments (segment s is [offsets[s], "
          "offsets[s + 1]))");
  require_apart(what, keys_out, offsets);
  if (values_out)
    require_apart(what, *values_out, offsets);
  const std::size_t segments = offsets.size - 1;
  if (keys_in.size == 0 || segments == 0)
    return; // as CUB, which reads no offset then
  const int key_bits = static_cast<int>(8 * keys_in.element_bytes);
  if (context_of(stream).is_simulator()) {
    const std::int64_t *bounds = host<const std::int64_t>(offsets);
    check_segments(what, bounds, segments, keys_in.size, "keys_in");
    with_arithmetic(keys_in.dtype, [&](auto key) {
      using K = decltype(key);
      const std::size_t w = values_in ? values_in->element_bytes : 0;
      for (std::size_t s = 0; s < segments; ++s) {
        // Elements outside every segment are neither read nor written, as in CUB.
        const auto first = static_cast<std::size_t>(bounds[s]);
        sort_on_host(host<const K>(keys_in) + first, host<K>(keys_out) + first,
                     values_in ? host<const std::byte>(*values_in) + first * w : nullptr,
                     values_out ? host<std::byte>(*values_out) + first * w : nullptr, w,
                     static_cast<std::size_t>(bounds[s + 1] - bounds[s]), order, 0, key_bits);
      }
    });
    return;
  }
  const calls::SortArgs args = sort_args(keys_in, keys_out, values_in, values_out, 0, key_bits, order);
  const char *api = values_in
                        ? (order == Order::descending ? "cub::DeviceSegmentedSort::StableSortPairsDescending"
                                                      : "cub::DeviceSegmentedSort::StableSortPairs")
                        : (order == Order::descending ? "cub::DeviceSegmentedSort::StableSortKeysDescending"
                                                      : "cub::DeviceSegmentedSort::StableSortKeys");
  const auto segment_count = static_cast<std::int64_t>(segments);
  const std::int64_t *bounds = host<const std::int64_t>(offsets);
  run_on_gpu(stream, api, [&](void *temp, std::size_t &bytes, void *s) {
    return key_bits == 32 ? calls::segmented_sort32(args, segment_count, bounds, temp, bytes, s)
                          : calls::segmented_sort64(args, segment_count, bounds, temp, bytes, s);
  });
}

} // namespace oxide::cub::detail
