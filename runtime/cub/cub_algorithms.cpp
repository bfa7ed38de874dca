// oxide::cub (include/oxide/cub.hpp): the argument checks, the CPU simulator's algorithms, and
// the GPU path, which runs CUB (cub_calls.hpp, the *.cu files) on the stream with temporary
// storage allocated in its order.
#include "oxide/cub.hpp"
#include "oxide/detail/radix_key.hpp"
#include "oxide/host/error.hpp"

#include "cub_host.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

namespace oxide::cub::detail {

using namespace host_side;

namespace {

/// An output that every element of `in` may need a place in.
void require_room(const char *what, const Range &in, const Range &out, const char *name) {
  require(out.size >= in.size, ErrorKind::SizeMismatch, what,
          fmt::format("'{}' holds {} elements and 'in' {}: every element may start a run, so '{}' must be at "
                      "least as large",
                      name, out.size, in.size, name));
}

/// A count's output: one int64.
void require_count(const char *what, const Range &count, const char *name, const char *of) {
  require(count.size == 1, ErrorKind::SizeMismatch, what,
          fmt::format("'{}' holds {} elements; {} is one int64", name, count.size, of));
}

/// The bin of a sample inside [low, high) as CUB's HistogramEven computes it: in the samples'
/// float type by the reciprocal of the bin width, or exactly in integers.
template <class T, class Level> std::size_t histogram_bin(T sample, Level low, Level high, std::size_t bins) {
  if constexpr (std::is_floating_point_v<T>) {
    const T reciprocal = static_cast<T>(static_cast<T>(bins) / static_cast<T>(high - low));
    return static_cast<std::size_t>(static_cast<int>((sample - low) * reciprocal));
  } else {
    const auto offset = static_cast<std::uint64_t>(static_cast<std::int64_t>(sample) - low);
    return static_cast<std::size_t>(offset * bins / static_cast<std::uint64_t>(std::int64_t{high} - low));
  }
}

/// CUB's UpperBound (cub/thread/thread_search.cuh) over `levels`: the binary search
/// HistogramRange bins a sample by, the same search whether or not the levels are sorted.
template <class Level> int upper_bound(const Level *levels, int count, Level value) {
  int result = 0;
  while (count > 0) {
    const int half = count >> 1;
    if (value < levels[result + half]) {
      count = half;
    } else {
      result += half + 1;
      count -= half + 1;
    }
  }
  return result;
}

/// A scan's arguments: the same size, `out` either `in` itself or apart from it. False when
/// there is nothing to scan.
bool check_scan(const Stream &stream, const char *what, const Range &in, const Range &out) {
  check_common(stream, what, {&in, &out});
  require_size(what, out, in.size, in);
  if (out.address != in.address)
    require_apart(what, out, in);
  return in.size != 0;
}

template <class T> T identity(Op op) {
  return op == Op::sum   ? T{}
         : op == Op::min ? std::numeric_limits<T>::max()
                         : std::numeric_limits<T>::lowest();
}
template <class T> T apply(Op op, T a, T b) {
  return op == Op::sum ? static_cast<T>(a + b) : op == Op::min ? std::min(a, b) : std::max(a, b);
}

calls::Op call_op(Op op) {
  return op == Op::sum ? calls::Op::sum : op == Op::min ? calls::Op::min : calls::Op::max;
}

const char *op_name(Op op) { return op == Op::sum ? "sum" : op == Op::min ? "min" : "max"; }

} // namespace

void sort(Stream &stream, const Range &keys_in, const Range &keys_out, const Range *values_in,
          const Range *values_out, Order order, KeyBits bits) {
  const char *what = values_in ? "sort_pairs" : "sort";
  check_sort_ranges(stream, what, keys_in, keys_out, values_in, values_out);
  const int key_bits = static_cast<int>(8 * keys_in.element_bytes);
  const int end = bits.end < 0 ? key_bits : bits.end;
  require(
      bits.begin >= 0 && bits.begin < end && end <= key_bits, ErrorKind::Other, what,
      fmt::format("key bits [{}, {}) are not a range inside the key's {} bits", bits.begin, end, key_bits));
  if (keys_in.size == 0)
    return;
  if (context_of(stream).is_simulator()) {
    with_arithmetic(keys_in.dtype, [&](auto key) {
      using K = decltype(key);
      sort_on_host(host<const K>(keys_in), host<K>(keys_out),
                   values_in ? host<const std::byte>(*values_in) : nullptr,
                   values_out ? host<std::byte>(*values_out) : nullptr,
                   values_in ? values_in->element_bytes : 0, keys_in.size, order, bits.begin, end);
    });
    return;
  }
  const calls::SortArgs args = sort_args(keys_in, keys_out, values_in, values_out, bits.begin, end, order);
  const char *api = values_in ? (order == Order::descending ? "cub::DeviceRadixSort::SortPairsDescending"
                                                            : "cub::DeviceRadixSort::SortPairs")
                              : (order == Order::descending ? "cub::DeviceRadixSort::SortKeysDescending"
                                                            : "cub::DeviceRadixSort::SortKeys");
  run_on_gpu(stream, api, [&](void *temp, std::size_t &bytes, void *s) {
    return key_bits == 32 ? calls::sort32(args, temp, bytes, s) : calls::sort64(args, temp, bytes, s);
  });
}

void inclusive_scan(Stream &stream, const Range &in, const Range &out, Op op) {
  if (!check_scan(stream, fmt::format("inclusive_{}", op_name(op)).c_str(), in, out))
    return;
  if (context_of(stream).is_simulator()) {
    with_arithmetic(in.dtype, [&](auto zero) {
      using T = decltype(zero);
      const T *from = host<const T>(in);
      T *to = host<T>(out);
      T running = from[0];
      to[0] = running;
      for (std::size_t i = 1; i < in.size; ++i)
        to[i] = running = apply(op, running, from[i]);
    });
    return;
  }
  run_on_gpu(stream, op == Op::sum ? "cub::DeviceScan::InclusiveSum" : "cub::DeviceScan::InclusiveScan",
             [&](void *temp, std::size_t &bytes, void *s) {
               return calls::inclusive_scan(in.dtype, call_op(op), host<const void>(in), host<void>(out),
                                            static_cast<std::int64_t>(in.size), temp, bytes, s);
             });
}

void exclusive_sum(Stream &stream, const Range &in, const Range &out) {
  if (!check_scan(stream, "exclusive_sum", in, out))
    return;
  if (context_of(stream).is_simulator()) {
    with_arithmetic(in.dtype, [&](auto zero) {
      using T = decltype(zero);
      const T *from = host<const T>(in);
      T *to = host<T>(out);
      T running{};
      for (std::size_t i = 0; i < in.size; ++i) {
        const T x = from[i]; // before the write: out may be in
        to[i] = running;
        running = static_cast<T>(running + x);
      }
    });
    return;
  }
  run_on_gpu(stream, "cub::DeviceScan::ExclusiveSum", [&](void *temp, std::size_t &bytes, void *s) {
    return calls::exclusive_sum(in.dtype, host<const void>(in), host<void>(out),
                                static_cast<std::int64_t>(in.size), temp, bytes, s);
  });
}

void reduce(Stream &stream, const Range &in, const Range &out, Op op) {
  const std::string what = fmt::format("reduce_{}", op_name(op));
  check_common(stream, what.c_str(), {&in, &out});
  require(out.size == 1, ErrorKind::SizeMismatch, what,
          fmt::format("'out' holds {} elements; the result is one element", out.size));
  require_apart(what.c_str(), out, in);
  if (context_of(stream).is_simulator()) {
    with_arithmetic(in.dtype, [&](auto zero) {
      using T = decltype(zero);
      const T *from = host<const T>(in);
      T result = identity<T>(op);
      for (std::size_t i = 0; i < in.size; ++i)
        result = apply(op, result, from[i]);
      *host<T>(out) = result;
    });
    return;
  }
  run_on_gpu(stream, "cub::DeviceReduce::Reduce", [&](void *temp, std::size_t &bytes, void *s) {
    return calls::reduce(in.dtype, call_op(op), host<const void>(in), host<void>(out),
                         static_cast<std::int64_t>(in.size), temp, bytes, s);
  });
}

void segmented_reduce(Stream &stream, const Range &in, const Range &offsets, const Range &out, Op op) {
  const std::string what = fmt::format("segmented_reduce_{}", op_name(op));
  check_common(stream, what.c_str(), {&in, &offsets, &out});
  require(offsets.size == out.size + 1, ErrorKind::SizeMismatch, what,
          fmt::format("'offsets' holds {} values for {} segments; it needs one more than 'out' has elements",
                      offsets.size, out.size));
  require_apart(what.c_str(), out, in);
  require_apart(what.c_str(), out, offsets);
  if (out.size == 0)
    return;
  if (context_of(stream).is_simulator()) {
    const std::int64_t *bounds = host<const std::int64_t>(offsets);
    check_segments(what.c_str(), bounds, out.size, in.size, "in");
    with_arithmetic(in.dtype, [&](auto zero) {
      using T = decltype(zero);
      const T *from = host<const T>(in);
      for (std::size_t s = 0; s < out.size; ++s) {
        T result = identity<T>(op);
        for (std::int64_t i = bounds[s]; i < bounds[s + 1]; ++i)
          result = apply(op, result, from[i]);
        host<T>(out)[s] = result;
      }
    });
    return;
  }
  run_on_gpu(stream, "cub::DeviceSegmentedReduce::Reduce", [&](void *temp, std::size_t &bytes, void *s) {
    return calls::segmented_reduce(in.dtype, call_op(op), host<const void>(in), host<void>(out),
                                   static_cast<std::int64_t>(out.size), host<const std::int64_t>(offsets),
                                   temp, bytes, s);
  });
}

void select_flagged(Stream &stream, const Range &in, const Range &flags, const Range &out,
                    const Range &count) {
  check_common(stream, "select_flagged", {&in, &flags, &out, &count});
  require_size("select_flagged", flags, in.size, in);
  require(
      out.size >= in.size, ErrorKind::SizeMismatch, "select_flagged",
      fmt::format("'out' holds {} elements and 'in' {}: every element may be selected, so 'out' must be at "
                  "least as large",
                  out.size, in.size));
  require(count.size == 1, ErrorKind::SizeMismatch, "select_flagged",
          fmt::format("'count' holds {} elements; the number selected is one int64", count.size));
  for (const Range *r : {&in, &flags, &count})
    require_apart("select_flagged", out, *r);
  require_apart("select_flagged", count, in);
  require_apart("select_flagged", count, flags);
  if (context_of(stream).is_simulator()) {
    const auto *from = host<const std::byte>(in);
    const auto *flag = host<const std::uint8_t>(flags);
    auto *to = host<std::byte>(out);
    std::int64_t selected = 0;
    for (std::size_t i = 0; i < in.size; ++i)
      if (flag[i] != 0)
        std::memmove(to + (selected++) * in.element_bytes, from + i * in.element_bytes, in.element_bytes);
    *host<std::int64_t>(count) = selected;
    return;
  }
  run_on_gpu(stream, "cub::DeviceSelect::Flagged", [&](void *temp, std::size_t &bytes, void *s) {
    return calls::select_flagged(static_cast<std::uint32_t>(in.element_bytes), host<const void>(in),
                                 host<const std::uint8_t>(flags), host<void>(out), host<std::int64_t>(count),
                                 static_cast<std::int64_t>(in.size), temp, bytes, s);
  });
}

void partition_flagged(Stream &stream, const Range &in, const Range &flags, const Range &out,
                       const Range &count) {
  const char *what = "partition_flagged";
  check_common(stream, what, {&in, &flags, &out, &count});
  require_size(what, flags, in.size, in);
  require_size(what, out, in.size, in); // the rejected elements end at out[in.size - 1]
  require_count(what, count, "count", "the number selected");
  for (const Range *r : {&in, &flags, &count})
    require_apart(what, out, *r);
  require_apart(what, count, in);
  require_apart(what, count, flags);
  if (context_of(stream).is_simulator()) {
    // CUB's order: the selected elements at the front in order, the rejected ones from the back
    // inwards, so that they read in reverse order.
    const auto *from = host<const std::byte>(in);
    const auto *flag = host<const std::uint8_t>(flags);
    auto *to = host<std::byte>(out);
    const std::size_t w = in.element_bytes;
    std::size_t selected = 0, rejected = 0;
    for (std::size_t i = 0; i < in.size; ++i) {
      const std::size_t place = flag[i] != 0 ? selected++ : in.size - 1 - rejected++;
      std::memcpy(to + place * w, from + i * w, w);
    }
    *host<std::int64_t>(count) = static_cast<std::int64_t>(selected);
    return;
  }
  run_on_gpu(stream, "cub::DevicePartition::Flagged", [&](void *temp, std::size_t &bytes, void *s) {
    return calls::partition_flagged(
        static_cast<std::uint32_t>(in.element_bytes), host<const void>(in), host<const std::uint8_t>(flags),
        host<void>(out), host<std::int64_t>(count), static_cast<std::int64_t>(in.size), temp, bytes, s);
  });
}

void unique(Stream &stream, const Range &in, const Range &out, const Range &count) {
  check_common(stream, "unique", {&in, &out, &count});
  require_room("unique", in, out, "out");
  require_count("unique", count, "count", "the number of runs");
  require_apart("unique", out, in);
  require_apart("unique", count, in);
  require_apart("unique", count, out);
  if (context_of(stream).is_simulator()) {
    with_arithmetic(in.dtype, [&](auto zero) {
      using T = decltype(zero);
      const T *from = host<const T>(in);
      T *to = host<T>(out);
      std::int64_t runs = 0;
      for (std::size_t i = 0; i < in.size; ++i)
        if (i == 0 || !(from[i] == from[i - 1]))
          to[runs++] = from[i];
      *host<std::int64_t>(count) = runs;
    });
    return;
  }
  run_on_gpu(stream, "cub::DeviceSelect::Unique", [&](void *temp, std::size_t &bytes, void *s) {
    return calls::unique(in.dtype, host<const void>(in), host<void>(out), host<std::int64_t>(count),
                         static_cast<std::int64_t>(in.size), temp, bytes, s);
  });
}

void run_length_encode(Stream &stream, const Range &in, const Range &unique_out, const Range &lengths,
                       const Range &runs) {
  check_common(stream, "run_length_encode", {&in, &unique_out, &lengths, &runs});
  require_room("run_length_encode", in, unique_out, "unique_out");
  require_room("run_length_encode", in, lengths, "lengths");
  require_count("run_length_encode", runs, "runs", "the number of runs");
  for (const Range *written : {&unique_out, &lengths, &runs})
    for (const Range *other : {&in, &unique_out, &lengths, &runs})
      if (written != other)
        require_apart("run_length_encode", *written, *other);
  if (context_of(stream).is_simulator()) {
    with_arithmetic(in.dtype, [&](auto zero) {
      using T = decltype(zero);
      const T *from = host<const T>(in);
      T *values = host<T>(unique_out);
      auto *length = host<std::int64_t>(lengths);
      std::int64_t count = 0;
      for (std::size_t i = 0; i < in.size; ++i) {
        if (i == 0 || !(from[i] == from[i - 1])) {
          values[count] = from[i];
          length[count++] = 0;
        }
        ++length[count - 1];
      }
      *host<std::int64_t>(runs) = count;
    });
    return;
  }
  run_on_gpu(stream, "cub::DeviceRunLengthEncode::Encode", [&](void *temp, std::size_t &bytes, void *s) {
    return calls::run_length_encode(in.dtype, host<const void>(in), host<void>(unique_out),
                                    host<std::int64_t>(lengths), host<std::int64_t>(runs),
                                    static_cast<std::int64_t>(in.size), temp, bytes, s);
  });
}

void histogram_even(Stream &stream, const Range &samples, const Range &histogram, double lower,
                    double upper) {
  check_common(stream, "histogram_even", {&samples, &histogram});
  require(histogram.size >= 1 && histogram.size < std::size_t{1} << 31, ErrorKind::SizeMismatch,
          "histogram_even",
          fmt::format("'histogram' holds {} counters; it needs 1 to 2^31 - 1 bins", histogram.size));
  require(lower < upper, ErrorKind::Other, "histogram_even",
          fmt::format("the levels [{}, {}) are empty: lower must be below upper", lower, upper));
  require_apart("histogram_even", histogram, samples);
  if (context_of(stream).is_simulator()) {
    auto *counters = host<std::uint32_t>(histogram);
    std::fill(counters, counters + histogram.size, 0U);
    if (!oxide::detail::visit_dtype(oxide::detail::CubHistogramSamples{}, samples.dtype, [&](auto tag) {
          using T = typename decltype(tag)::type;
          using Level = oxide::detail::HistogramLevel<T>;
          const auto low = static_cast<Level>(lower), high = static_cast<Level>(upper);
          const T *from = host<const T>(samples);
          for (std::size_t i = 0; i < samples.size; ++i)
            if (from[i] >= low && from[i] < high)
              if (const std::size_t bin = histogram_bin(from[i], low, high, histogram.size);
                  bin < histogram.size)
                ++counters[bin]; // (a float just below `upper` may round to the bin past the last)
        }))
      throw Error(fmt::format("oxide::cub::histogram_even: unsupported sample type {}",
                              oxide::detail::dtype_name(samples.dtype)));
    return;
  }
  run_on_gpu(stream, "cub::DeviceHistogram::HistogramEven", [&](void *temp, std::size_t &bytes, void *s) {
    return calls::histogram_even(samples.dtype, host<const void>(samples), host<std::uint32_t>(histogram),
                                 static_cast<int>(histogram.size), lower, upper,
                                 static_cast<std::int64_t>(samples.size), temp, bytes, s);
  });
}

void histogram_range(Stream &stream, const Range &samples, const Range &levels, const Range &counters) {
  const char *what = "histogram_range";
  check_common(stream, what, {&samples, &levels, &counters});
  require(levels.size >= 2, ErrorKind::SizeMismatch, what,
          fmt::format("'levels' holds {} values; bin i is [levels[i], levels[i + 1]), so it needs at least 2",
                      levels.size));
  require(
      counters.size == levels.size - 1, ErrorKind::SizeMismatch, what,
      fmt::format("'counters' holds {} elements and 'levels' {} values; there is one bin fewer than levels",
                  counters.size, levels.size));
  require_apart(what, counters, samples);
  require_apart(what, counters, levels);
  if (context_of(stream).is_simulator()) {
    auto *counter = host<std::uint32_t>(counters);
    std::fill(counter, counter + counters.size, 0U);
    if (!oxide::detail::visit_dtype(oxide::detail::CubHistogramSamples{}, samples.dtype, [&](auto tag) {
          using T = typename decltype(tag)::type;
          using Level = oxide::detail::HistogramLevel<T>;
          const Level *level = host<const Level>(levels);
          const int count = static_cast<int>(levels.size), bins = count - 1;
          const T *from = host<const T>(samples);
          for (std::size_t i = 0; i < samples.size; ++i) {
            // As CUB: the bin before the first level above the sample, none below levels[0] or
            // at or above the last level (NaNs too).
            const int bin = upper_bound(level, count, static_cast<Level>(from[i])) - 1;
            if (bin >= 0 && bin < bins)
              ++counter[bin];
          }
        }))
      throw Error(fmt::format("oxide::cub::histogram_range: unsupported sample type {}",
                              oxide::detail::dtype_name(samples.dtype)));
    return;
  }
  run_on_gpu(stream, "cub::DeviceHistogram::HistogramRange", [&](void *temp, std::size_t &bytes, void *s) {
    return calls::histogram_range(samples.dtype, host<const void>(samples), host<std::uint32_t>(counters),
                                  static_cast<int>(levels.size), host<const void>(levels),
                                  static_cast<std::int64_t>(samples.size), temp, bytes, s);
  });
}

} // namespace oxide::cub::detail
