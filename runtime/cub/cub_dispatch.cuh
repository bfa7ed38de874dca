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

} // namespace oxide::cub::calls
