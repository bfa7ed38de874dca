// CUDA's spellings in an Oxide program name their Oxide equivalent. A ported kernel that says
// `threadIdx.x`, `__syncthreads()`, `atomicAdd(...)`, `__shared__` or `cudaMalloc(...)` is
// refused at that use with the equivalent:
//
//   k.cpp:3:16: error: 'threadIdx' is unavailable: threadIdx is CUDA's; in Oxide use
//               oxide::thread_idx() (an oxide::Dim3: .x .y .z); ...
//
// instead of clang's "use of undeclared identifier" (whose typo correction suggested
// `__sync_swap` for `__syncwarp`). The names and texts are in cuda_spellings.def, the one table
// docs/cuda-to-oxide.md is made from too.
//
// For the host compile (plain C++: the host code and the CPU simulator's kernels), which every
// `oxcc build`, `run` and `check` runs first and whose errors stop the build. The device compile
// keeps CUDA's own declarations of these names (it compiles with CUDA's headers,
// cuda_headers.hpp), so device-only code under `#ifdef __CUDA_ARCH__` in a kernel without a
// contract can still call CUDA's intrinsics (the safety rules refuse that in contracted kernels:
// docs/safety.md, simulator-divergence); `oxcc build --emit=ptx`, which runs only the device
// compile, does not refuse them.
//
// Each function takes any arguments as a C variadic function, so that a user's own function of
// the same name (a porting shim: `float atomicAdd(float *, float)`) is the better match and is
// called, and returns a value convertible to any type, so that the use gives this error only. A program
// that must see CUDA's own declarations on the host (it includes <cuda_runtime.h> itself)
// defines OXIDE_NO_CUDA_SPELLINGS before including Oxide.
#pragma once

#if !defined(__CUDA__) && !defined(OXIDE_NO_CUDA_SPELLINGS)

namespace oxide::detail::cuda_spelling {

/// What a refused function returns and a refused constant is: converts to anything.
struct Anything {
  template <class T> operator T() const noexcept;
};
/// What threadIdx, blockIdx, blockDim and gridDim are, so that `threadIdx.x` gives one error.
struct Builtin {
  unsigned x, y, z;
};

// The qualifiers: `__shared__` expands to an attribute whose argument names the unavailable
// constant below, so the error is at the qualifier (and names it) and the declaration still
// parses.
#define OXIDE_CUDA_QUALIFIER(name, text)                                                                     \
  inline constexpr int name __attribute__((unavailable(#name " is CUDA's; in Oxide " text))) = 1;
#define OXIDE_CUDA_BUILTIN(name, text)
#define OXIDE_CUDA_VARIABLE(name, text)
#define OXIDE_CUDA_FUNCTION(name, text)
#define OXIDE_CUDA_TYPE(name, text)
#define OXIDE_CUDA_SECTION(title)
#include "oxide/detail/cuda_spellings.def"
#undef OXIDE_CUDA_QUALIFIER
#undef OXIDE_CUDA_BUILTIN
#undef OXIDE_CUDA_VARIABLE
#undef OXIDE_CUDA_FUNCTION
#undef OXIDE_CUDA_TYPE
#undef OXIDE_CUDA_SECTION

} // namespace oxide::detail::cuda_spelling

#define OXIDE_CUDA_QUALIFIER(name, text)
#define OXIDE_CUDA_BUILTIN(name, text)                                                                       \
  extern const ::oxide::detail::cuda_spelling::Builtin name                                                  \
      __attribute__((unavailable(#name " is CUDA's; in Oxide " text)));
#define OXIDE_CUDA_VARIABLE(name, text)                                                                      \
  extern const ::oxide::detail::cuda_spelling::Anything name                                                 \
      __attribute__((unavailable(#name " is CUDA's; in Oxide " text)));
#define OXIDE_CUDA_FUNCTION(name, text)                                                                      \
  ::oxide::detail::cuda_spelling::Anything name(...)                                                         \
      __attribute__((unavailable(#name " is CUDA's; in Oxide " text)));
#define OXIDE_CUDA_TYPE(name, text)                                                                          \
  using name __attribute__((unavailable(#name " is CUDA's; in Oxide " text))) =                              \
      ::oxide::detail::cuda_spelling::Anything;
#define OXIDE_CUDA_SECTION(title)
#include "oxide/detail/cuda_spellings.def"
#undef OXIDE_CUDA_QUALIFIER
#undef OXIDE_CUDA_BUILTIN
#undef OXIDE_CUDA_VARIABLE
#undef OXIDE_CUDA_FUNCTION
#undef OXIDE_CUDA_TYPE
#undef OXIDE_CUDA_SECTION

// One #define per OXIDE_CUDA_QUALIFIER of the table (scripts/cuda_spellings.py --check checks
// that they match). `aligned(1)` changes nothing where it is allowed (variables, functions).
#define OXIDE_CUDA_REFUSED_QUALIFIER(name) __attribute__((aligned(::oxide::detail::cuda_spelling::name)))
#define __global__ OXIDE_CUDA_REFUSED_QUALIFIER(__global__)
#define __device__ OXIDE_CUDA_REFUSED_QUALIFIER(__device__)
#define __host__ OXIDE_CUDA_REFUSED_QUALIFIER(__host__)
#define __shared__ OXIDE_CUDA_REFUSED_QUALIFIER(__shared__)
#define __constant__ OXIDE_CUDA_REFUSED_QUALIFIER(__constant__)
#define __managed__ OXIDE_CUDA_REFUSED_QUALIFIER(__managed__)
#define __forceinline__ OXIDE_CUDA_REFUSED_QUALIFIER(__forceinline__)
#define __launch_bounds__(...) OXIDE_CUDA_REFUSED_QUALIFIER(__launch_bounds__)

#endif
