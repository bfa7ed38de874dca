// The CUB calls of oxide::cub (include/oxide/host/cub.hpp), as plain functions: declared here
// for cub_algorithms.cpp (the checks, the simulator's path, the temporary storage) and defined in
// the *.cu files, which clang compiles in CUDA mode against the toolkit's CUB. Each takes the
// elements' type as a DLPack-style code (oxide/host/dtype.hpp) and a CUstream; with `temp` null
// it only sets `temp_bytes`, CUB's two-call convention. Each returns 0 or the cudaError_t.
#pragma once

#include <cstddef>
#include <cstdint>

namespace oxide::cub::calls {

/// CUB's name for a failed call's error (cudaGetErrorName) and its description.
const char *error_name(int error);
const char *error_description(int error);

struct SortArgs {
  std::int32_t key_dtype;
  const void *keys_in;
  void *keys_out;
  std::uint32_t value_bytes; // 0: keys only; else 4 or 8
  const void *values_in;
  void *values_out;
  std::int64_t count;
  int begin_bit, end_bit;
  bool descending;
};
/// Keys of 32 bits (int32, uint32, float) and of 64 bits (int64, uint64, double).
int sort32(const SortArgs &args, void *temp, std::size_t &temp_bytes, void *stream);
int sort64(const SortArgs &args, void *temp, std::size_t &temp_bytes, void *stream);

enum class Op : std::uint8_t { sum, min, max };

int inclusive_scan(std::int32_t dtype, Op op, const void *in, void *out, std::int64_t count, void *temp,
                   std::size_t &temp_bytes, void *stream);
int exclusive_sum(std::int32_t dtype, const void *in, void *out, std::int64_t count, void *temp,
                  std::size_t &temp_bytes, void *stream);
int reduce(std::int32_t dtype, Op op, const void *in, void *out, std::int64_t count, void *temp,
           std::size_t &temp_bytes, void *stream);
/// Segment s of `in` is [offsets[s], offsets[s + 1]); `offsets` holds segments + 1 int64.
int segmented_reduce(std::int32_t dtype, Op op, const void *in, void *out, std::int64_t segments,
                     const std::int64_t *offsets, void *temp, std::size_t &temp_bytes, void *stream);
/// Copies the elements of `in` (`element_bytes` each: 1, 2, 4, 8 or 16) whose flag (one byte,
/// nonzero) is set to the front of `out`, in order, and their number to `*selected` (an int64).
int select_flagged(std::uint32_t element_bytes, const void *in, const std::uint8_t *flags, void *out,
                   std::int64_t *selected, std::int64_t count, void *temp, std::size_t &temp_bytes,
                   void *stream);

/// The elements of `in` whose flag is set to the front of `out`, in order, the others to its back
/// in reverse order (the last rejected element first), and the number selected to `*selected`:
/// DevicePartition::Flagged. Elements as select_flagged's.
int partition_flagged(std::uint32_t element_bytes, const void *in, const std::uint8_t *flags, void *out,
                      std::int64_t *selected, std::int64_t count, void *temp, std::size_t &temp_bytes,
                      void *stream);

/// The first element of each run of equal consecutive elements of `in` (an arithmetic `dtype`,
/// compared with ==) to the front of `out`, in order, and their number to `*count` (an int64):
/// DeviceSelect::Unique.
int unique(std::int32_t dtype, const void *in, void *out, std::int64_t *count, std::int64_t n, void *temp,
           std::size_t &temp_bytes, void *stream);
/// Each run's element to `unique_out`, its length to `lengths` (int64), and the number of runs to
/// `*runs`: DeviceRunLengthEncode::Encode.
int run_length_encode(std::int32_t dtype, const void *in, void *unique_out, std::int64_t *lengths,
                      std::int64_t *runs, std::int64_t n, void *temp, std::size_t &temp_bytes, void *stream);
/// `bins` uint32 counters of the samples (uint8, uint16, int32 or float) in bins of equal width
/// over [lower, upper), the levels in the samples' type (int for the integers):
/// DeviceHistogram::HistogramEven.
int histogram_even(std::int32_t dtype, const void *samples, std::uint32_t *histogram, int bins, double lower,
                   double upper, std::int64_t n, void *temp, std::size_t &temp_bytes, void *stream);

/// `levels_count - 1` uint32 counters of the samples (as histogram_even's) in the bins
/// [levels[i], levels[i + 1]), `levels` in the samples' level type: DeviceHistogram::HistogramRange.
int histogram_range(std::int32_t dtype, const void *samples, std::uint32_t *histogram, int levels_count,
                    const void *levels, std::int64_t n, void *temp, std::size_t &temp_bytes, void *stream);

/// The stable sort of each segment [offsets[s], offsets[s + 1]) of `args` (its key bits unused):
/// DeviceSegmentedSort::StableSortKeys/StableSortPairs[Descending]. `offsets` holds segments + 1
/// int64; keys of 32 bits and of 64 bits, as sort32 and sort64.
int segmented_sort32(const SortArgs &args, std::int64_t segments, const std::int64_t *offsets, void *temp,
                     std::size_t &temp_bytes, void *stream);
int segmented_sort64(const SortArgs &args, std::int64_t segments, const std::int64_t *offsets, void *temp,
                     std::size_t &temp_bytes, void *stream);

} // namespace oxide::cub::calls
