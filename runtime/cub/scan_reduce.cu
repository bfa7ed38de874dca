// oxide::cub's scans and reductions (DeviceScan, DeviceReduce, DeviceSegmentedReduce) and
// selection (DeviceSelect::Flagged), and the error names the host side prints.
#include "cub_dispatch.cuh"

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/device/device_select.cuh>

#include <cuda/std/functional>

namespace oxide::cub::calls {
namespace {

/// `f(operator, identity)` for `op` over T: CUB's sum, min or max.
template <class T, class F> int with_op(Op op, F &&f) {
  switch (op) {
  case Op::sum:
    return f(::cuda::std::plus<T>{}, T{});
  case Op::min:
    return f(::cuda::minimum<T>{}, ::cuda::std::numeric_limits<T>::max());
  case Op::max:
    return f(::cuda::maximum<T>{}, ::cuda::std::numeric_limits<T>::lowest());
  }
  return int(cudaErrorInvalidValue);
}

} // namespace

const char *error_name(int error) { return cudaGetErrorName(static_cast<cudaError_t>(error)); }
const char *error_description(int error) { return cudaGetErrorString(static_cast<cudaError_t>(error)); }

int inclusive_scan(std::int32_t dtype, Op op, const void *in, void *out, std::int64_t count, void *temp,
                   std::size_t &temp_bytes, void *stream) {
  return with_arithmetic(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return with_op<T>(op, [&](auto fn, T) {
      return int(::cub::DeviceScan::InclusiveScan(temp, temp_bytes, static_cast<const T *>(in),
                                                  static_cast<T *>(out), fn, static_cast<int>(count),
                                                  stream_of(stream)));
    });
  });
}

int exclusive_sum(std::int32_t dtype, const void *in, void *out, std::int64_t count, void *temp,
                  std::size_t &temp_bytes, void *stream) {
  return with_arithmetic(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return int(::cub::DeviceScan::ExclusiveSum(temp, temp_bytes, static_cast<const T *>(in),
                                               static_cast<T *>(out), static_cast<int>(count),
                                               stream_of(stream)));
  });
}

int reduce(std::int32_t dtype, Op op, const void *in, void *out, std::int64_t count, void *temp,
           std::size_t &temp_bytes, void *stream) {
  return with_arithmetic(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return with_op<T>(op, [&](auto fn, T identity) {
      return int(::cub::DeviceReduce::Reduce(temp, temp_bytes, static_cast<const T *>(in),
                                             static_cast<T *>(out), static_cast<int>(count), fn, identity,
                                             stream_of(stream)));
    });
  });
}

int segmented_reduce(std::int32_t dtype, Op op, const void *in, void *out, std::int64_t segments,
                     const std::int64_t *offsets, void *temp, std::size_t &temp_bytes, void *stream) {
  return with_arithmetic(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return with_op<T>(op, [&](auto fn, T identity) {
      return int(::cub::DeviceSegmentedReduce::Reduce(temp, temp_bytes, static_cast<const T *>(in),
                                                      static_cast<T *>(out), static_cast<int>(segments),
                                                      offsets, offsets + 1, fn, identity, stream_of(stream)));
    });
  });
}

int select_flagged(std::uint32_t element_bytes, const void *in, const std::uint8_t *flags, void *out,
                   std::int64_t *selected, std::int64_t count, void *temp, std::size_t &temp_bytes,
                   void *stream) {
  return with_element_bytes(element_bytes, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return int(::cub::DeviceSelect::Flagged(temp, temp_bytes, static_cast<const T *>(in), flags,
                                            static_cast<T *>(out), selected, static_cast<int>(count),
                                            stream_of(stream)));
  });
}

} // namespace oxide::cub::calls
