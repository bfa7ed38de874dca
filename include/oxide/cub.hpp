// CUB's device-wide algorithms on Oxide buffers: radix sort, segmented sort, scans, reductions,
// segmented reductions, selection, partition, unique, run-length encoding and histograms, called
// from host code in a stream's order, as CUDA programs call
// cub::DeviceRadixSort and friends. The toolkit's CUB does the work on the GPU (compiled into
// liboxide_cub.a, which oxcc links when a program calls one of these); on the CPU simulator the
// same calls run the same algorithms on the host, with CUB's orders.
//
//   #include <oxide/cub.hpp>
//   oxide::cub::sort(stream, keys, sorted);                    // ascending, stable
//   oxide::cub::sort_pairs(stream, keys, sorted, ids, permuted_ids, oxide::cub::Order::descending);
//   oxide::cub::exclusive_sum(stream, counts, offsets);
//   oxide::cub::reduce_max(stream, values, result);            // result: one element
//
// Every buffer argument is a DeviceBuffer<T> or a BufferSlice<T> (inputs also BufferSlice<const
// T>) of the stream's context; the calls check sizes, element types and overlaps before anything
// runs (oxide::Error: SizeMismatch, WrongContext, OverlappingArguments, Other), take their
// temporary storage in stream order (DeviceBuffer::allocate_async) and do not wait. Element
// counts up to 2^31 - 1 (CUB's int offsets, as CUDA code passes them). docs/libraries.md.
//
// In kernels, CUB's block and warp collectives with CUB's interface (oxide/device/cub_*.hpp):
// oxide::cub::BlockReduce, BlockScan, BlockExchange, BlockLoad, BlockStore, BlockHistogram,
// BlockRadixSort, BlockMergeSort, BlockDiscontinuity, BlockAdjacentDifference, BlockShuffle,
// BlockRunLengthDecode, WarpReduce, WarpScan, WarpExchange, WarpLoad, WarpStore, WarpMergeSort.
#pragma once

#include "oxide/detail/element_types.hpp"
#include "oxide/device/cub_block.hpp"
#include "oxide/device/cub_block_adjacent.hpp"
#include "oxide/device/cub_block_io.hpp"
#include "oxide/device/cub_block_radix_sort.hpp"
#include "oxide/device/cub_merge_sort.hpp"
#include "oxide/device/cub_run_length.hpp"
#include "oxide/device/cub_warp.hpp"
#include "oxide/device/cub_warp_io.hpp"
#include "oxide/host/buffer.hpp"
#include "oxide/host/dtype.hpp"
#include "oxide/host/stream.hpp"

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace oxide::cub {

enum class Order : std::uint8_t { ascending, descending };

/// The key bits a radix sort looks at, [begin, end); end = -1: up to the key's last bit. Keys
/// that agree on these bits keep their input order.
struct KeyBits {
  int begin = 0;
  int end = -1;
};

namespace detail {

/// A buffer argument as the library sees it.
struct Range {
  std::uint64_t address;
  std::size_t size;
  std::size_t element_bytes;
  std::int32_t dtype;
  const oxide::detail::ContextState *context;
  const char *role; // "keys_in", ... for messages
};

template <class B> struct RangeTraits;
template <class T> struct RangeTraits<DeviceBuffer<T>> {
  using element = T;
  static constexpr bool writable = true;
  static constexpr bool slice = false;
  static Range of(const DeviceBuffer<T> &b, const char *role) {
    return {b.device_ptr(),
            b.size(),
            sizeof(T),
            oxide::detail::dtype_of<T>(),
            oxide::detail::BufferAccess::context(b),
            role};
  }
};
template <class T> struct RangeTraits<BufferSlice<T>> {
  using element = std::remove_const_t<T>;
  static constexpr bool writable = !std::is_const_v<T>;
  static constexpr bool slice = true;
  static Range of(const BufferSlice<T> &s, const char *role) {
    return {s.device_ptr(),
            s.size(),
            sizeof(T),
            oxide::detail::dtype_of<T>(),
            oxide::detail::BufferAccess::context(s.buffer()),
            role};
  }
};

template <class B> using Traits = RangeTraits<std::remove_cvref_t<B>>;
template <class B> using Element = typename Traits<B>::element;

/// A DeviceBuffer or a BufferSlice the algorithm reads.
template <class B>
concept Input = requires { typename Traits<B>::element; };
/// One it writes: a DeviceBuffer that is not const, or a BufferSlice of non-const elements (a
/// slice refers to its buffer's elements whatever the slice object's own constness).
template <class B>
concept Output =
    Input<B> && Traits<B>::writable && (Traits<B>::slice || !std::is_const_v<std::remove_reference_t<B>>);

template <class B> Range range(const B &b, const char *role) { return Traits<B>::of(b, role); }

enum class Op : std::uint8_t { sum, min, max };

// liboxide_cub.a (runtime/cub/cub_algorithms.cpp).
void sort(Stream &stream, const Range &keys_in, const Range &keys_out, const Range *values_in,
          const Range *values_out, Order order, KeyBits bits);
void inclusive_scan(Stream &stream, const Range &in, const Range &out, Op op);
void exclusive_sum(Stream &stream, const Range &in, const Range &out);
void reduce(Stream &stream, const Range &in, const Range &out, Op op);
void segmented_reduce(Stream &stream, const Range &in, const Range &offsets, const Range &out, Op op);
void select_flagged(Stream &stream, const Range &in, const Range &flags, const Range &out,
                    const Range &count);
void unique(Stream &stream, const Range &in, const Range &out, const Range &count);
void run_length_encode(Stream &stream, const Range &in, const Range &unique_out, const Range &lengths,
                       const Range &runs);
void histogram_even(Stream &stream, const Range &samples, const Range &histogram, double lower, double upper);
void partition_flagged(Stream &stream, const Range &in, const Range &flags, const Range &out,
                       const Range &count);
void histogram_range(Stream &stream, const Range &samples, const Range &levels, const Range &counters);
void segmented_sort(Stream &stream, const Range &keys_in, const Range &keys_out, const Range *values_in,
                    const Range *values_out, const Range &offsets, Order order);

} // namespace detail

/// The keys radix sort takes, and the element types of the scans and reductions: int32, uint32,
/// int64, uint64, float, double.
template <class T>
concept SortKey = oxide::detail::kOneOf<T, oxide::detail::CubArithmetic>;
/// What sort_pairs moves with each key: any trivially copyable type of 4 or 8 bytes.
template <class T>
concept PairValue = std::is_trivially_copyable_v<T> && (sizeof(T) == 4 || sizeof(T) == 8);
/// What select_flagged copies: any trivially copyable type of 1, 2, 4, 8 or 16 bytes.
template <class T>
concept SelectElement =
    std::is_trivially_copyable_v<T> &&
    (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16);

/// What histogram_even counts: uint8, uint16, int32 or float samples.
template <class T>
concept HistogramSample = oxide::detail::kOneOf<T, oxide::detail::CubHistogramSamples>;

namespace detail {
/// An input and an output of the same SortKey elements (the scans and reductions).
template <class In, class Out>
concept Arithmetic =
    Input<In> && Output<Out> && std::is_same_v<Element<In>, Element<Out>> && SortKey<Element<In>>;
} // namespace detail

/// Sorts `keys_in` into `keys_out` (same size, no overlap), stably: cub::DeviceRadixSort::SortKeys
/// (SortKeysDescending). Floats in CUB's order: -0.0 and +0.0 equal, NaNs at the ends by their sign.
template <class In, class Out>
  requires detail::Arithmetic<In, Out>
void sort(Stream &stream, const In &keys_in, Out &&keys_out, Order order = Order::ascending,
          KeyBits bits = {}) {
  detail::sort(stream, detail::range(keys_in, "keys_in"), detail::range(keys_out, "keys_out"), nullptr,
               nullptr, order, bits);
}

/// Sorts the pairs (keys_in[i], values_in[i]) by key, stably, into keys_out and values_out:
/// cub::DeviceRadixSort::SortPairs. All four the same size; the outputs overlap nothing.
template <class KeysIn, class KeysOut, detail::Input ValuesIn, detail::Output ValuesOut>
  requires detail::Arithmetic<KeysIn, KeysOut> &&
           std::is_same_v<detail::Element<ValuesIn>, detail::Element<ValuesOut>> &&
           PairValue<detail::Element<ValuesIn>>
void sort_pairs(Stream &stream, const KeysIn &keys_in, KeysOut &&keys_out, const ValuesIn &values_in,
                ValuesOut &&values_out, Order order = Order::ascending, KeyBits bits = {}) {
  const detail::Range values[2] = {detail::range(values_in, "values_in"),
                                   detail::range(values_out, "values_out")};
  detail::sort(stream, detail::range(keys_in, "keys_in"), detail::range(keys_out, "keys_out"), &values[0],
               &values[1], order, bits);
}

/// Sorts each segment keys_in[offsets[s], offsets[s + 1]) into the same places of `keys_out`
/// (same size, no overlap), stably: cub::DeviceSegmentedSort::StableSortKeys
/// (StableSortKeysDescending). `offsets` holds one more int64 than there are segments, each at
/// most keys_in.size() and none smaller than the one before (read on the GPU, not checked there);
/// elements outside every segment are neither read nor written. Floats as sort's, except NaNs:
/// CUB compares the keys of small segments with < and radix sorts large ones, so where NaNs go
/// depends on the segment's size (on the simulator, as sort puts them).
template <class In, class Out, detail::Input Offsets>
  requires detail::Arithmetic<In, Out> && std::is_same_v<detail::Element<Offsets>, std::int64_t>
void segmented_sort(Stream &stream, const In &keys_in, Out &&keys_out, const Offsets &offsets,
                    Order order = Order::ascending) {
  detail::segmented_sort(stream, detail::range(keys_in, "keys_in"), detail::range(keys_out, "keys_out"),
                         nullptr, nullptr, detail::range(offsets, "offsets"), order);
}

/// Sorts the pairs (keys_in[i], values_in[i]) of each segment [offsets[s], offsets[s + 1]) by
/// key, stably, into keys_out and values_out: cub::DeviceSegmentedSort::StableSortPairs. Keys,
/// values and offsets as segmented_sort's and sort_pairs'.
template <class KeysIn, class KeysOut, detail::Input ValuesIn, detail::Output ValuesOut,
          detail::Input Offsets>
  requires detail::Arithmetic<KeysIn, KeysOut> &&
           std::is_same_v<detail::Element<ValuesIn>, detail::Element<ValuesOut>> &&
           PairValue<detail::Element<ValuesIn>> && std::is_same_v<detail::Element<Offsets>, std::int64_t>
void segmented_sort_pairs(Stream &stream, const KeysIn &keys_in, KeysOut &&keys_out,
                          const ValuesIn &values_in, ValuesOut &&values_out, const Offsets &offsets,
                          Order order = Order::ascending) {
  const detail::Range values[2] = {detail::range(values_in, "values_in"),
                                   detail::range(values_out, "values_out")};
  detail::segmented_sort(stream, detail::range(keys_in, "keys_in"), detail::range(keys_out, "keys_out"),
                         &values[0], &values[1], detail::range(offsets, "offsets"), order);
}

/// out[i] = in[0] op ... op in[i] (cub::DeviceScan::InclusiveSum, or InclusiveScan with min or
/// max); `out` may be `in` itself, else overlaps nothing.
template <class In, class Out>
  requires detail::Arithmetic<In, Out>
void inclusive_sum(Stream &stream, const In &in, Out &&out) {
  detail::inclusive_scan(stream, detail::range(in, "in"), detail::range(out, "out"), detail::Op::sum);
}
template <class In, class Out>
  requires detail::Arithmetic<In, Out>
void inclusive_min(Stream &stream, const In &in, Out &&out) {
  detail::inclusive_scan(stream, detail::range(in, "in"), detail::range(out, "out"), detail::Op::min);
}
template <class In, class Out>
  requires detail::Arithmetic<In, Out>
void inclusive_max(Stream &stream, const In &in, Out &&out) {
  detail::inclusive_scan(stream, detail::range(in, "in"), detail::range(out, "out"), detail::Op::max);
}

/// out[0] = 0, out[i] = in[0] + ... + in[i - 1] (cub::DeviceScan::ExclusiveSum).
template <class In, class Out>
  requires detail::Arithmetic<In, Out>
void exclusive_sum(Stream &stream, const In &in, Out &&out) {
  detail::exclusive_sum(stream, detail::range(in, "in"), detail::range(out, "out"));
}

/// out[0] = the sum (minimum, maximum) of `in`: cub::DeviceReduce. `out` holds one element; an
/// empty input gives 0 (the largest value, the lowest).
template <class In, class Out>
  requires detail::Arithmetic<In, Out>
void reduce_sum(Stream &stream, const In &in, Out &&out) {
  detail::reduce(stream, detail::range(in, "in"), detail::range(out, "out"), detail::Op::sum);
}
template <class In, class Out>
  requires detail::Arithmetic<In, Out>
void reduce_min(Stream &stream, const In &in, Out &&out) {
  detail::reduce(stream, detail::range(in, "in"), detail::range(out, "out"), detail::Op::min);
}
template <class In, class Out>
  requires detail::Arithmetic<In, Out>
void reduce_max(Stream &stream, const In &in, Out &&out) {
  detail::reduce(stream, detail::range(in, "in"), detail::range(out, "out"), detail::Op::max);
}

/// out[s] = the sum (minimum, maximum) of in[offsets[s], offsets[s + 1]):
/// cub::DeviceSegmentedReduce. `offsets` holds out.size() + 1 int64 values, each at most
/// in.size() and none smaller than the one before (read on the GPU, not checked there).
template <class In, detail::Input Offsets, class Out>
  requires detail::Arithmetic<In, Out> && std::is_same_v<detail::Element<Offsets>, std::int64_t>
void segmented_reduce_sum(Stream &stream, const In &in, const Offsets &offsets, Out &&out) {
  detail::segmented_reduce(stream, detail::range(in, "in"), detail::range(offsets, "offsets"),
                           detail::range(out, "out"), detail::Op::sum);
}
template <class In, detail::Input Offsets, class Out>
  requires detail::Arithmetic<In, Out> && std::is_same_v<detail::Element<Offsets>, std::int64_t>
void segmented_reduce_min(Stream &stream, const In &in, const Offsets &offsets, Out &&out) {
  detail::segmented_reduce(stream, detail::range(in, "in"), detail::range(offsets, "offsets"),
                           detail::range(out, "out"), detail::Op::min);
}
template <class In, detail::Input Offsets, class Out>
  requires detail::Arithmetic<In, Out> && std::is_same_v<detail::Element<Offsets>, std::int64_t>
void segmented_reduce_max(Stream &stream, const In &in, const Offsets &offsets, Out &&out) {
  detail::segmented_reduce(stream, detail::range(in, "in"), detail::range(offsets, "offsets"),
                           detail::range(out, "out"), detail::Op::max);
}

/// Copies the elements of `in` whose flag is set (nonzero) to the front of `out`, in order, and
/// their number to count[0]: cub::DeviceSelect::Flagged. Flags: uint8_t or bool, one per
/// element; `out` at least as large as `in`; `count` one int64.
template <detail::Input In, detail::Input Flags, detail::Output Out, detail::Output Count>
  requires std::is_same_v<detail::Element<In>, detail::Element<Out>> && SelectElement<detail::Element<In>> &&
           (std::is_same_v<detail::Element<Flags>, std::uint8_t> ||
            std::is_same_v<detail::Element<Flags>, bool>) &&
           std::is_same_v<detail::Element<Count>, std::int64_t>
void select_flagged(Stream &stream, const In &in, const Flags &flags, Out &&out, Count &&count) {
  detail::select_flagged(stream, detail::range(in, "in"), detail::range(flags, "flags"),
                         detail::range(out, "out"), detail::range(count, "count"));
}

/// Partitions `in` by its flags into `out` (the same size): the elements whose flag is set
/// (nonzero) first, in order, then the others in reverse order (the last one first), and the
/// number selected to count[0]: cub::DevicePartition::Flagged. Elements and flags as
/// select_flagged's; `count` one int64.
template <detail::Input In, detail::Input Flags, detail::Output Out, detail::Output Count>
  requires std::is_same_v<detail::Element<In>, detail::Element<Out>> && SelectElement<detail::Element<In>> &&
           (std::is_same_v<detail::Element<Flags>, std::uint8_t> ||
            std::is_same_v<detail::Element<Flags>, bool>) &&
           std::is_same_v<detail::Element<Count>, std::int64_t>
void partition_flagged(Stream &stream, const In &in, const Flags &flags, Out &&out, Count &&count) {
  detail::partition_flagged(stream, detail::range(in, "in"), detail::range(flags, "flags"),
                            detail::range(out, "out"), detail::range(count, "count"));
}

/// Copies the first element of each run of equal consecutive elements of `in` to the front of
/// `out` (at least as large as `in`), in order, and their number to `count` (one int64):
/// cub::DeviceSelect::Unique. Elements are SortKey types, compared with == (so -0.0 == +0.0, and
/// each NaN starts a run of its own).
template <detail::Input In, detail::Output Out, detail::Output Count>
  requires detail::Arithmetic<In, Out> && std::is_same_v<detail::Element<Count>, std::int64_t>
void unique(Stream &stream, const In &in, Out &&out, Count &&count) {
  detail::unique(stream, detail::range(in, "in"), detail::range(out, "out"), detail::range(count, "count"));
}

/// The runs of equal consecutive elements of `in`: each run's element, in order, to the front of
/// `unique_out`, its length to `lengths` (int64; both at least as large as `in`), and the number of
/// runs to `runs` (one int64): cub::DeviceRunLengthEncode::Encode. Elements as unique's.
template <detail::Input In, detail::Output Out, detail::Output Lengths, detail::Output Runs>
  requires detail::Arithmetic<In, Out> && std::is_same_v<detail::Element<Lengths>, std::int64_t> &&
           std::is_same_v<detail::Element<Runs>, std::int64_t>
void run_length_encode(Stream &stream, const In &in, Out &&unique_out, Lengths &&lengths, Runs &&runs) {
  detail::run_length_encode(stream, detail::range(in, "in"), detail::range(unique_out, "unique_out"),
                            detail::range(lengths, "lengths"), detail::range(runs, "runs"));
}

/// Counts `samples` into `histogram.size()` bins of equal width over [lower, upper) (uint32
/// counters, zeroed first): sample x in bin (x - lower) * bins / (upper - lower), computed as CUB
/// does (exactly for integer samples; in float by the reciprocal of the width for float ones).
/// Samples outside [lower, upper) are not counted: cub::DeviceHistogram::HistogramEven. The
/// levels are of the samples' level type: int for uint8, uint16 and int32 samples, float for
/// float.
template <detail::Input Samples, detail::Output Histogram>
  requires HistogramSample<detail::Element<Samples>> &&
           std::is_same_v<detail::Element<Histogram>, std::uint32_t>
void histogram_even(Stream &stream, const Samples &samples, Histogram &&histogram,
                    std::type_identity_t<oxide::detail::HistogramLevel<detail::Element<Samples>>> lower,
                    std::type_identity_t<oxide::detail::HistogramLevel<detail::Element<Samples>>> upper) {
  detail::histogram_even(stream, detail::range(samples, "samples"), detail::range(histogram, "histogram"),
                         static_cast<double>(lower), static_cast<double>(upper));
}

/// Counts `samples` into the bins [levels[i], levels[i + 1]) (`counters`: levels.size() - 1
/// uint32 counters, zeroed first; `levels` at least 2 values of the samples' level type, int for
/// uint8, uint16 and int32 samples, float for float): cub::DeviceHistogram::HistogramRange.
/// Samples below levels[0] or at or above the last level are not counted. The levels should not
/// decrease; they are read on the GPU and not checked: CUB bins each sample by a binary search
/// for the first level above it, whatever their order, and the simulator does the same search.
template <detail::Input Samples, detail::Input Levels, detail::Output Counters>
  requires HistogramSample<detail::Element<Samples>> &&
           std::is_same_v<detail::Element<Levels>, oxide::detail::HistogramLevel<detail::Element<Samples>>> &&
           std::is_same_v<detail::Element<Counters>, std::uint32_t>
void histogram_range(Stream &stream, const Samples &samples, const Levels &levels, Counters &&counters) {
  detail::histogram_range(stream, detail::range(samples, "samples"), detail::range(levels, "levels"),
                          detail::range(counters, "counters"));
}

} // namespace oxide::cub
