// oxide::cub's functions of runs of equal elements: DeviceSelect::Unique and
// DeviceRunLengthEncode::Encode.
#include "cub_dispatch.cuh"

#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_select.cuh>

namespace oxide::cub::calls {

int unique(std::int32_t dtype, const void *in, void *out, std::int64_t *count, std::int64_t n, void *temp,
           std::size_t &temp_bytes, void *stream) {
  return with_arithmetic(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return int(::cub::DeviceSelect::Unique(temp, temp_bytes, static_cast<const T *>(in),
                                           static_cast<T *>(out), count, static_cast<int>(n),
                                           stream_of(stream)));
  });
}

int run_length_encode(std::int32_t dtype, const void *in, void *unique_out, std::int64_t *lengths,
                      std::int64_t *runs, std::int64_t n, void *temp, std::size_t &temp_bytes, void *stream) {
  return with_arithmetic(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return int(::cub::DeviceRunLengthEncode::Encode(temp, temp_bytes, static_cast<const T *>(in),
                                                    static_cast<T *>(unique_out), lengths, runs,
                                                    static_cast<int>(n), stream_of(stream)));
  });
}

} // namespace oxide::cub::calls
