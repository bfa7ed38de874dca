// oxide::cub (include/oxide/cub.hpp): the argument checks, the CPU simulator's algorithms, and
// the GPU path, which runs CUB (cub_calls.hpp, the *.cu files) on the stream with temporary
// storage allocated in its order.
#include "oxide/cub.hpp"
#include "oxide/detail/radix_key.hpp"
#include "oxide/host/error.hpp"

#include "../context_state.hpp"
#include "cub_calls.hpp"

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
namespace {

using oxide::Error;
using oxide::ErrorKind;
using oxide::detail::ContextState;

const ContextState &context_of(const Stream &stream) {
  return *oxide::detail::StreamAccess::context_state(stream);
}

void require(bool ok, ErrorKind kind, const std::string &what, const std::string &message) {
  if (!ok)
    throw Error(kind, fmt::format("oxide::cub::{}: {}", what, message));
}

/// Every range of `ranges` in the stream's context, of at most 2^31 - 1 elements, aligned for
/// its elements.
void check_common(const Stream &stream, const char *what, std::initializer_list<const Range *> ranges) {
  const ContextState &context = context_of(stream);
  for (const Range *r : ranges) {
    require(
        r->context == nullptr || r->context == &context || r->size == 0, ErrorKind::WrongContext, what,
        fmt::format("'{}' belongs to another context than the stream; use buffers of the stream's context",
                    r->role));
    require(r->size <= static_cast<std::size_t>(INT_MAX), ErrorKind::Other, what,
            fmt::format("'{}' holds {} elements, more than CUB's int counts take (2^31 - 1); work in parts",
                        r->role, r->size));
    require(
        r->address % r->element_bytes == 0 || r->size == 0, ErrorKind::Other, what,
        fmt::format("'{}' is not aligned to its {}-byte elements (a slice at an odd offset); pass an aligned "
                    "slice",
                    r->role, r->element_bytes));
  }
}

void require_size(const char *what, const Range &r, std::size_t size, const Range &of) {
  require(r.size == size, ErrorKind::SizeMismatch, what,
          fmt::format("'{}' holds {} elements and '{}' {}; they must be the same size", r.role, r.size,
                      of.role, of.size));
}

/// `written` shares no byte with `other` (an input it is not allowed to be).
void require_apart(const char *what, const Range &written, const Range &other) {
  const std::uint64_t a = written.address, b = other.address;
  const std::uint64_t a_end = a + written.size * written.element_bytes,
                      b_end = b + other.size * other.element_bytes;
  require(
      written.size == 0 || other.size == 0 || a_end <= b || b_end <= a, ErrorKind::OverlappingArguments, what,
      fmt::format("'{}' overlaps '{}'; CUB writes its output while it reads the other: use separate buffers",
                  written.role, other.role));
}

/// Runs a CUB call twice (the temporary storage's size, then the work) with the stream's
/// context current, the storage allocated in the stream's order; throws oxide::Error naming
/// `api` if CUB fails.
template <class Call> void run_on_gpu(Stream &stream, const char *api, Call &&call) {
  const oxide::detail::ScopedCurrent current(context_of(stream));
  void *cu_stream = stream.native_handle();
  std::size_t bytes = 0;
  int error = call(nullptr, bytes, cu_stream);
  if (error == 0) {
    DeviceBuffer<std::byte> temp =
        DeviceBuffer<std::byte>::allocate_async(stream, std::max<std::size_t>(bytes, 1));
    error = call(reinterpret_cast<void *>(static_cast<std::uintptr_t>(temp.device_ptr())), bytes, cu_stream);
  }
  if (error != 0)
    throw Error::driver(api, error, calls::error_name(error), calls::error_description(error));
}

template <class T> T *host(const Range &r) {
  return reinterpret_cast<T *>(static_cast<std::uintptr_t>(r.address));
}

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

/// `f(T{})` for the arithmetic element type `dtype` names.
template <class F> void with_arithmetic(std::int32_t dtype, F &&f) {
  if (!oxide::detail::visit_dtype(oxide::detail::CubArithmetic{}, dtype,
                                  [&](auto tag) { f(typename decltype(tag)::type{}); }))
    throw Error(fmt::format("oxide::cub: unsupported element type {}", oxide::detail::dtype_name(dtype)));
}

/// The simulator's sort: a stable sort of the positions by the keys' bits [begin, end).
template <class K>
void sort_on_host(const Range &keys_in, const Range &keys_out, const Range *values_in,
                  const Range *values_out, Order order, int begin, int end) {
  const std::size_t n = keys_in.size;
  const K *in = host<const K>(keys_in);
  using U = decltype(oxide::detail::radix_key(K{}));
  const int width = end - begin;
  const U mask = width >= int(8 * sizeof(U)) ? ~U{0} : static_cast<U>((U{1} << width) - 1);
  std::vector<U> digits(n);
  for (std::size_t i = 0; i < n; ++i)
    digits[i] = static_cast<U>(oxide::detail::radix_key(in[i]) >> begin) & mask;
  std::vector<std::size_t> position(n);
  std::iota(position.begin(), position.end(), std::size_t{0});
  // Stable: equal digits keep their positions' order (std::sort with the position as the tie).
  const bool ascending = order == Order::ascending;
  std::sort(position.begin(), position.end(), [&](std::size_t a, std::size_t b) {
    if (digits[a] != digits[b])
      return ascending == (digits[a] < digits[b]);
    return a < b;
  });
  std::vector<K> keys(n);
  for (std::size_t i = 0; i < n; ++i)
    keys[i] = in[position[i]];
  std::memcpy(host<K>(keys_out), keys.data(), n * sizeof(K));
  if (values_in) {
    const std::size_t w = values_in->element_bytes;
    const auto *from = host<const std::byte>(*values_in);
    std::vector<std::byte> values(n * w);
    for (std::size_t i = 0; i < n; ++i)
      std::memcpy(&values[i * w], from + position[i] * w, w);
    std::memcpy(host<std::byte>(*values_out), values.data(), values.size());
  }
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
  check_common(stream, what, {&keys_in, &keys_out});
  require_size(what, keys_out, keys_in.size, keys_in);
  require_apart(what, keys_out, keys_in);
  if (values_in) {
    check_common(stream, what, {values_in, values_out});
    require_size(what, *values_in, keys_in.size, keys_in);
    require_size(what, *values_out, keys_in.size, keys_in);
    for (const Range *r : {&keys_in, &keys_out, values_in})
      require_apart(what, *values_out, *r);
    require_apart(what, keys_out, *values_in);
  }
  const int key_bits = static_cast<int>(8 * keys_in.element_bytes);
  const int end = bits.end < 0 ? key_bits : bits.end;
  require(
      bits.begin >= 0 && bits.begin < end && end <= key_bits, ErrorKind::Other, what,
      fmt::format("key bits [{}, {}) are not a range inside the key's {} bits", bits.begin, end, key_bits));
  if (keys_in.size == 0)
    return;
  if (context_of(stream).is_simulator()) {
    with_arithmetic(keys_in.dtype, [&](auto key) {
      sort_on_host<decltype(key)>(keys_in, keys_out, values_in, values_out, order, bits.begin, end);
    });
    return;
  }
  const calls::SortArgs args{keys_in.dtype,
                             host<const void>(keys_in),
                             host<void>(keys_out),
                             values_in ? static_cast<std::uint32_t>(values_in->element_bytes) : 0U,
                             values_in ? host<const void>(*values_in) : nullptr,
                             values_out ? host<void>(*values_out) : nullptr,
                             static_cast<std::int64_t>(keys_in.size),
                             bits.begin,
                             end,
                             order == Order::descending};
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
    for (std::size_t s = 0; s < out.size; ++s)
      require(bounds[s] >= 0 && bounds[s] <= bounds[s + 1] &&
                  static_cast<std::uint64_t>(bounds[s + 1]) <= in.size,
              ErrorKind::Other, what,
              fmt::format("segment {} is [{}, {}), not inside the {} elements of 'in'", s, bounds[s],
                          bounds[s + 1], in.size));
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

} // namespace oxide::cub::detail
