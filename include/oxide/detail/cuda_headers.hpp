// The CUDA headers of oxcc's device compile, for that compile only (Frontend.cpp includes this
// first in the in-memory device wrapper, where clang's driver would have force-included
// __clang_cuda_runtime_wrapper.h; the device compile passes -nocudainc for that).
//
// The device compile needs them: libdevice's declarations, the device maths behind <cmath>, the
// intrinsics under oxide::fast. But they also declare, in the global namespace, functions named
// like the ordinary ones a user writes: CUDA's `__device__ min(int, int)`, `all(bool)` and
// `rsqrt(double)`, and clang's host-only `static float rsqrt(float)` and its eight siblings. A
// user's `float rsqrt(float)` beside a kernel is implicitly host and device in the device
// compile, and clang refuses a host-device function that overloads a host-only or device-only
// one of the same signature. The device-only ones are allowed by
// -foffload-implicit-host-device-templates (an implicitly host-device function may share a
// signature with a device one; the user's own is the better match for its callers); the
// host-only float overloads, which device code never calls, are renamed out of the way here.
#pragma once
#pragma clang system_header

#pragma push_macro("rsqrt")
#pragma push_macro("rcbrt")
#pragma push_macro("sinpi")
#pragma push_macro("cospi")
#pragma push_macro("sincospi")
#pragma push_macro("erfcinv")
#pragma push_macro("normcdfinv")
#pragma push_macro("normcdf")
#pragma push_macro("erfcx")
#define rsqrt __oxide_cuda_rsqrt
#define rcbrt __oxide_cuda_rcbrt
#define sinpi __oxide_cuda_sinpi
#define cospi __oxide_cuda_cospi
#define sincospi __oxide_cuda_sincospi
#define erfcinv __oxide_cuda_erfcinv
#define normcdfinv __oxide_cuda_normcdfinv
#define normcdf __oxide_cuda_normcdf
#define erfcx __oxide_cuda_erfcx
#include <__clang_cuda_runtime_wrapper.h>
#pragma pop_macro("erfcx")
#pragma pop_macro("normcdf")
#pragma pop_macro("normcdfinv")
#pragma pop_macro("erfcinv")
#pragma pop_macro("sincospi")
#pragma pop_macro("cospi")
#pragma pop_macro("sinpi")
#pragma pop_macro("rcbrt")
#pragma pop_macro("rsqrt")

// The renaming above also renamed CUDA's device functions of those names (the double-precision
// ones): back under their names, as templates, so that a user's own function of the same name
// and signature is still the better match and does not collide (tests/lang/cuda_functions.cpp,
// tests/lang/cuda_names.cpp).
template <class = void> __device__ inline double rsqrt(double x) { return __oxide_cuda_rsqrt(x); }
template <class = void> __device__ inline double rcbrt(double x) { return __oxide_cuda_rcbrt(x); }
template <class = void> __device__ inline double sinpi(double x) { return __oxide_cuda_sinpi(x); }
template <class = void> __device__ inline double cospi(double x) { return __oxide_cuda_cospi(x); }
template <class = void> __device__ inline void sincospi(double x, double *s, double *c) {
  __oxide_cuda_sincospi(x, s, c);
}
template <class = void> __device__ inline double erfcinv(double x) { return __oxide_cuda_erfcinv(x); }
template <class = void> __device__ inline double normcdfinv(double x) { return __oxide_cuda_normcdfinv(x); }
template <class = void> __device__ inline double normcdf(double x) { return __oxide_cuda_normcdf(x); }
template <class = void> __device__ inline double erfcx(double x) { return __oxide_cuda_erfcx(x); }
