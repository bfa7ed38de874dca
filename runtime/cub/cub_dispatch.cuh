// Shared by the CUB call files (*.cu): the element type an OXIDE_DTYPE_* code names, and the
// cudaStream_t a CUstream is. Compiled by clang in CUDA mode only.
#pragma once

#include "cub_calls.hpp"
#include "oxide/c_api.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace oxide::cub::calls {

inline cudaStream_t stream_of(void *stream) { return static_cast<cudaStream_t>(stream); }

template <class T> struct Tag {
  using type = T;
};

/// Calls `f(Tag<T>{})` with the arithmetic type `dtype` names among `Types`; cudaErrorInvalidValue
/// for another.
template <class... Types, class F> int with_type(std::int32_t dtype, F &&f) {
  int result = cudaErrorInvalidValue;
  const auto code = [](auto tag) {
    using T = typename decltype(tag)::type;
    return OXIDE_DTYPE(std::is_floating_point_v<T> ? 2 : std::is_signed_v<T> ? 0 : 1, 8 * int(sizeof(T)));
  };
  (void)((code(Tag<Types>{}) == dtype ? (result = f(Tag<Types>{}), true) : false) || ...);
  return result;
}

/// The arithmetic types the scans and reductions take.
template <class F> int with_arithmetic(std::int32_t dtype, F &&f) {
  return with_type<std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, float, double>(dtype, f);
}

} // namespace oxide::cub::calls
