// Maths precision follows nvcc: IEEE sqrt and division with FMA contraction by default;
// --fast-math approximates and flushes denormals; --no-fmad keeps multiply and add separate.
// RUN: oxcc build %s --emit=ptx -o - | FileCheck %s --check-prefix=DEFAULT
// RUN: oxcc build %s --fast-math --emit=ptx -o - | FileCheck %s --check-prefix=FAST
// RUN: oxcc build %s --no-fmad --emit=ptx -o - | FileCheck %s --check-prefix=NOFMAD
#include <oxide/oxide.hpp>
#include <cmath>

[[kernel, oxide::launch_contract("domain = 1, requires = (a.size() == out.size(), b.size() == out.size())")]]
void maths(oxide::Span<const float> a, oxide::Span<const float> b, oxide::DisjointSpan<float> out) {
  const auto idx = oxide::thread::index_1d();
  const float x = a[idx.get()], y = b[idx.get()];
  if (float *o = out.get_mut(idx))
    *o = std::sqrt(x) + x / y + x * y + 1.0f;
}

// DEFAULT: sqrt.rn.f32
// DEFAULT: div.rn.f32
// DEFAULT: fma.rn.f32

// FAST: sqrt.approx.ftz.f32
// FAST: div.approx.ftz.f32
// FAST: fma.rn.ftz.f32

// NOFMAD-NOT: fma.rn
// NOFMAD: mul.rn.f32
