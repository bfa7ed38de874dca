// oxide::cub's host side, shared by its files (cub_algorithms.cpp, segmented_sort.cpp): the
// argument checks, the GPU path's two CUB calls with temporary storage in stream order, and the
// simulator's sort. The segmented sorts are a file of their own so that a program links their
// CUB kernels (the largest part of liboxide_cub.a) only when it calls them.
#pragma once

#include "oxide/cub.hpp"
#include "oxide/detail/radix_key.hpp"
#include "oxide/host/error.hpp"

#include "../context_state.hpp"
#include "cub_calls.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

namespace oxide::cub::detail::host_side {

using oxide::Error;
using oxide::ErrorKind;
using oxide::detail::ContextState;

inline const ContextState &context_of(const Stream &stream) {
  return *oxide::detail::StreamAccess::context_state(stream);
}

inline void require(bool ok, ErrorKind kind, const std::string &what, const std::string &message) {
  if (!ok)
    throw Error(kind, fmt::format("oxide::cub::{}: {}", what, message));
}

/// Every range of `ranges` in the stream's context, of at most 2^31 - 1 elements, aligned for
/// its elements.
inline void check_common(const Stream &stream, const char *what,
                         std::initializer_list<const Range *> ranges) {
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

inline void require_size(const char *what, const Range &r, std::size_t size, const Range &of) {
  require(r.size == size, ErrorKind::SizeMismatch, what,
          fmt::format("'{}' holds {} elements and '{}' {}; they must be the same size", r.role, r.size,
                      of.role, of.size));
}

/// `written` shares no byte with `other` (an input it is not allowed to be).
inline void require_apart(const char *what, const Range &written, const Range &other) {
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

/// `f(T{})` for the arithmetic element type `dtype` names.
template <class F> void with_arithmetic(std::int32_t dtype, F &&f) {
  if (!oxide::detail::visit_dtype(oxide::detail::CubArithmetic{}, dtype,
                                  [&](auto tag) { f(typename decltype(tag)::type{}); }))
    throw Error(fmt::format("oxide::cub: unsupported element type {}", oxide::detail::dtype_name(dtype)));
}

/// The simulator's sort of n keys (and values of `value_bytes` bytes, 0: none): a stable sort of
/// the positions by the keys' bits [begin, end). The outputs overlap no input.
template <class K>
void sort_on_host(const K *in, K *out, const std::byte *values_in, std::byte *values_out,
                  std::size_t value_bytes, std::size_t n, Order order, int begin, int end) {
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
  for (std::size_t i = 0; i < n; ++i)
    out[i] = in[position[i]];
  if (value_bytes != 0)
    for (std::size_t i = 0; i < n; ++i)
      std::memcpy(values_out + i * value_bytes, values_in + position[i] * value_bytes, value_bytes);
}

/// A sort's and a segmented sort's checks of its keys and values (all the size of 'keys_in'; the
/// outputs overlapping no input and not each other).
inline void check_sort_ranges(const Stream &stream, const char *what, const Range &keys_in,
                              const Range &keys_out, const Range *values_in, const Range *values_out) {
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
}

/// What the nvcc-built sorts take (cub_calls.hpp) for a sort's or a segmented sort's ranges,
/// the key bits [begin_bit, end_bit) and the order.
inline calls::SortArgs sort_args(const Range &keys_in, const Range &keys_out, const Range *values_in,
                                 const Range *values_out, int begin_bit, int end_bit, Order order) {
  return {keys_in.dtype,
          host<const void>(keys_in),
          host<void>(keys_out),
          values_in ? static_cast<std::uint32_t>(values_in->element_bytes) : 0U,
          values_in ? host<const void>(*values_in) : nullptr,
          values_out ? host<void>(*values_out) : nullptr,
          static_cast<std::int64_t>(keys_in.size),
          begin_bit,
          end_bit,
          order == Order::descending};
}

/// On the simulator: each of the `segments` segments [bounds[s], bounds[s + 1]) inside the `size`
/// elements of `role`, none ending before it begins (the GPU reads them unchecked).
inline void check_segments(const char *what, const std::int64_t *bounds, std::size_t segments,
                           std::size_t size, const char *role) {
  for (std::size_t s = 0; s < segments; ++s)
    require(bounds[s] >= 0 && bounds[s] <= bounds[s + 1] && static_cast<std::uint64_t>(bounds[s + 1]) <= size,
            ErrorKind::Other, what,
            fmt::format("segment {} is [{}, {}), not inside the {} elements of '{}'", s, bounds[s],
                        bounds[s + 1], size, role));
}

} // namespace oxide::cub::detail::host_side
