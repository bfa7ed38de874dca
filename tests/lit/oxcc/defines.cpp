// -D and -I reach both the host and the device compile.
// RUN: oxcc build %s -DSCALE=3 -I %S/Inputs --emit=ptx -o - | FileCheck %s
// RUN: not oxcc build %s -I %S/Inputs --emit=ptx -o - 2>&1 | FileCheck %s --check-prefix=NODEF
#include <oxide/oxide.hpp>
#include "scale_helper.hpp"

#ifndef SCALE
#error SCALE must be defined
#endif

// CHECK: .entry _Z6scaledN5oxide12DisjointSpanIiEE(
// CHECK: st.global.b32 [{{.*}}], 3;
[[kernel]] void scaled(oxide::DisjointSpan<int> out) {
  const auto idx = oxide::thread::index_1d();
  if (int *o = out.get_mut(idx))
    *o = scale_helper(SCALE);
}
// NODEF: defines.cpp:8:2: error: SCALE must be defined

int main() {}
