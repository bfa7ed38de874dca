// Shared by the CUB call files (*.cu): the element type an OXIDE_DTYPE_* code names, and the
// cudaStream_t a CUstream is. Compiled in CUDA mode only (nvcc, or clang with
// OXIDE_CUB_COMPILER=clang).
#pragma once

#include "cub_calls.hpp"
#include "oxide/detail/element_types.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace oxide::cub::calls {

inline cudaStream_t stream_of(void *stream) { return static_cast<cudaStream_t>(stream); }

/// `f(TypeTag<T>{})` for the type T among oxide::cub's arithmetic element types (keys, scans,
/// reductions) that `dtype` names and for which `Accepts<T>` holds; cudaErrorInvalidValue for
/// another.
template <template <class> class Accepts = std::is_arithmetic, class F>
int with_arithmetic(std::int32_t dtype, F &&f) {
  int result = cudaErrorInvalidValue;
  oxide::detail::visit_dtype(
      oxide::detail::CubArithmetic{}, dtype,
      [&](auto tag) {
        if constexpr (Accepts<typename decltype(tag)::type>::value)
          return f(tag);
        else
          return int(cudaErrorInvalidValue);
      },
      result);
  return result;
}

/// A 16-byte element, moved as a whole.
struct alignas(16) Bytes16 {
  std::uint64_t lo, hi;
};

/// `f(TypeTag<W>{})` for the word type W of `element_bytes` bytes (1, 2, 4, 8 or 16): what the
/// selections and partitions move elements of any trivially copyable type as;
/// cudaErrorInvalidValue for another size.
template <class F> int with_element_bytes(std::uint32_t element_bytes, F &&f) {
  switch (element_bytes) {
  case 1:
    return f(oxide::detail::TypeTag<std::uint8_t>{});
  case 2:
    return f(oxide::detail::TypeTag<std::uint16_t>{});
  case 4:
    return f(oxide::detail::TypeTag<std::uint32_t>{});
  case 8:
    return f(oxide::detail::TypeTag<std::uint64_t>{});
  case 16:
    return f(oxide::detail::TypeTag<Bytes16>{});
  default:
    return int(cudaErrorInvalidValue);
  }
}

} // namespace oxide::cub::calls
