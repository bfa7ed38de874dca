// oxide::cub's radix sorts of 64-bit keys (radix_sort.cuh).
#include "radix_sort.cuh"

int oxide::cub::calls::sort64(const SortArgs &args, void *temp, std::size_t &temp_bytes, void *stream) {
  return sort_keys_of_size<8>(args, temp, temp_bytes, stream);
}
