// oxide::cub's partition: DevicePartition::Flagged, elements moved as words of their size.
#include "cub_dispatch.cuh"

#include <cub/device/device_partition.cuh>

namespace oxide::cub::calls {

int partition_flagged(std::uint32_t element_bytes, const void *in, const std::uint8_t *flags, void *out,
                      std::int64_t *selected, std::int64_t count, void *temp, std::size_t &temp_bytes,
                      void *stream) {
  return with_element_bytes(element_bytes, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return int(::cub::DevicePartition::Flagged(temp, temp_bytes, static_cast<const T *>(in), flags,
                                               static_cast<T *>(out), selected, static_cast<int>(count),
                                               stream_of(stream)));
  });
}

} // namespace oxide::cub::calls
