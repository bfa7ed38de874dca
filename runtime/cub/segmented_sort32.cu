// oxide::cub's segmented sorts of 32-bit keys (segmented_sort.cuh).
#include "segmented_sort.cuh"

int oxide::cub::calls::segmented_sort32(const SortArgs &args, std::int64_t segments,
                                        const std::int64_t *offsets, void *temp, std::size_t &temp_bytes,
                                        void *stream) {
  return segmented_sort_keys_of_size<4>(args, segments, offsets, temp, temp_bytes, stream);
}
