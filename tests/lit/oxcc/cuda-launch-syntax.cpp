// CUDA's launch syntax in an Oxide file: one error a launch, at its `<<<` in the user's file, that
// names the Oxide call (clang alone says "expected expression" at the third `<` and again at the
// third `>`), in every spelling a port brings: a plain kernel, a template, spaces, four arguments.
// Shifts are left alone (-DOK builds and runs).
// RUN: not oxcc build %s -o %t 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// RUN: not oxcc check %s 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: oxcc build %s -DOK -o %t.ok && env OXIDE_DEVICE=cpu %t.ok | FileCheck %s --check-prefix=OK
#include <oxide/oxide.hpp>

#include <cstdio>

template <class T>
[[kernel, oxide::launch_contract("domain = 1")]] void fill(oxide::DisjointSpan<T> out) {
  if (T *o = out.get_mut(oxide::thread::index_1d()))
    *o = T(1);
}

int main() {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  auto out = oxide::DeviceBuffer<float>::zeroed(stream, 256);
  unsigned shifted = 1u << 3 >> 1;
  shifted = shifted << 2 >> 2;
#ifndef OK
  // clang-format off
  fill<float><<<1, 256>>>(out);
  // CHECK: cuda-launch-syntax.cpp:[[@LINE-1]]:14: error: CUDA's launch syntax 'kernel<<<grid, block>>>(args...)' is not C++: launch through 'oxide::prepare(ctx, kernel, oxide::LaunchConfig1D{blocks, threads})(stream, args...)' (docs/cuda-to-oxide.md, "Launch syntax")
  // CHECK-NEXT: {{^}}   [[@LINE-2]] |   fill<float><<<1, 256>>>(out);
  // CHECK-NEXT: {{^}}      |              ^{{$}}
  fill<float> <<< 2, 128, 0, stream >>> (out);
  // CHECK: cuda-launch-syntax.cpp:[[@LINE-1]]:15: error: CUDA's launch syntax
  // clang-format on
#endif
  oxide::prepare(ctx, fill<float>, oxide::LaunchConfig1D{1, 256})(stream, out);
  std::printf("%g %u\n", out.to_host(stream)[255], shifted);
  // OK: 1 4
}
// CHECK: 2 errors generated.

// A `>>>` with no launch before it keeps clang's own error (nothing is dropped unsaid).
// RUN: printf 'int main() { int x = 8; return x >>> 1; }\n' > %t.shift.cpp
// RUN: not oxcc check %t.shift.cpp 2>&1 | FileCheck %s --check-prefix=SHIFT
// SHIFT: shift.cpp:1:{{[0-9]+}}: error: expected expression
// SHIFT: 1 error generated.
