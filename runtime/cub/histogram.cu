// oxide::cub's histograms: DeviceHistogram::HistogramEven and HistogramRange over the sample
// types of oxide::detail::CubHistogramSamples, levels in the samples' level type.
#include "cub_dispatch.cuh"

#include <cub/device/device_histogram.cuh>

namespace oxide::cub::calls {

int histogram_even(std::int32_t dtype, const void *samples, std::uint32_t *histogram, int bins, double lower,
                   double upper, std::int64_t n, void *temp, std::size_t &temp_bytes, void *stream) {
  int result = cudaErrorInvalidValue;
  oxide::detail::visit_dtype(
      oxide::detail::CubHistogramSamples{}, dtype,
      [&](auto tag) {
        using T = typename decltype(tag)::type;
        using Level = oxide::detail::HistogramLevel<T>;
        return int(::cub::DeviceHistogram::HistogramEven(
            temp, temp_bytes, static_cast<const T *>(samples), histogram, bins + 1, static_cast<Level>(lower),
            static_cast<Level>(upper), static_cast<int>(n), stream_of(stream)));
      },
      result);
  return result;
}

int histogram_range(std::int32_t dtype, const void *samples, std::uint32_t *histogram, int levels_count,
                    const void *levels, std::int64_t n, void *temp, std::size_t &temp_bytes, void *stream) {
  int result = cudaErrorInvalidValue;
  oxide::detail::visit_dtype(
      oxide::detail::CubHistogramSamples{}, dtype,
      [&](auto tag) {
        using T = typename decltype(tag)::type;
        using Level = oxide::detail::HistogramLevel<T>;
        return int(::cub::DeviceHistogram::HistogramRange(
            temp, temp_bytes, static_cast<const T *>(samples), histogram, levels_count,
            static_cast<const Level *>(levels), static_cast<int>(n), stream_of(stream)));
      },
      result);
  return result;
}

} // namespace oxide::cub::calls
