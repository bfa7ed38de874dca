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
// called, and returns a value convertible to any type, so that the use gives this error only.
//
// A program may include CUDA's own headers (<curand_kernel.h>, <vector_types.h>: oxcc's host
// compile finds them after the user's and the system's): their types (`float4`, `dim3`) are then
// CUDA's on both sides, and the rest of these names is still refused where the user's code uses
// them (CUDA's runtime API is not linked; the built-in variables do not exist on the host).
// OXIDE_NO_CUDA_SPELLINGS, defined before including Oxide, turns the refusals off.
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

} // namespace oxide::detail::cuda_spelling

// The functions are declared here, as C variadic overloads: CUDA's own declarations (a program
// that includes <curand_kernel.h> gets CUDA's runtime API with it) overload them instead of
// clashing, and `enable_if` makes ours the better of two that tie (`cudaDeviceSynchronize()`
// against CUDA's `cudaDeviceSynchronize(void)`). The built-in variables, constants and types
// are declared by oxcc's host compile when a lookup finds no other declaration
// (compiler/ast/CudaSpellings.cpp): a declaration here would clash with CUDA's (`struct float4`,
// `extern const uint3 threadIdx`) in such a program.
#define OXIDE_CUDA_QUALIFIER(name, text)
#define OXIDE_CUDA_BUILTIN(name, text)
#define OXIDE_CUDA_VARIABLE(name, text)
#define OXIDE_CUDA_FUNCTION(name, text)                                                                      \
  ::oxide::detail::cuda_spelling::Anything name(...)                                                         \
      __attribute__((enable_if(true, ""), unavailable(#name " is CUDA's; in Oxide " text)));
#define OXIDE_CUDA_TYPE(name, text)
#define OXIDE_CUDA_SECTION(title)
#include "oxide/detail/cuda_spellings.def"
#undef OXIDE_CUDA_QUALIFIER
#undef OXIDE_CUDA_BUILTIN
#undef OXIDE_CUDA_VARIABLE
#undef OXIDE_CUDA_FUNCTION
#undef OXIDE_CUDA_TYPE
#undef OXIDE_CUDA_SECTION

// The qualifiers expand to nothing, as CUDA's own headers define them for a host compiler (which
// therefore keep these definitions); oxcc's host compile reports each expansion in the user's
// files (compiler/ast/CudaSpellings.cpp). One #define per OXIDE_CUDA_QUALIFIER of the table
// (scripts/cuda_spellings.py --check checks that they match).
#ifndef __global__
#define __global__
#endif
#ifndef __device__
#define __device__
#endif
#ifndef __host__
#define __host__
#endif
#ifndef __shared__
#define __shared__
#endif
#ifndef __constant__
#define __constant__
#endif
#ifndef __managed__
#define __managed__
#endif
#ifndef __forceinline__
#define __forceinline__
#endif
#ifndef __launch_bounds__
#define __launch_bounds__(...)
#endif

#endif
