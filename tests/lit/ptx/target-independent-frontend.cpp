// The device module is optimised twice: by the frontend without a target's cost model (for the
// MLIR stage), then by the NVPTX back end with it. NVPTX's unrolling choices belong to the
// second: made in the first as well (the frontend used to see NVPTX's cost model once the
// targets were registered), they cost SGEMM 3 % on the H200. A loop with a runtime trip count
// stays rolled in the frontend's module and is unrolled in the back end's.
// RUN: rm -rf %t && oxcc build %s --arch=sm_90 --no-cache --save-temps=%t -o %t/a.out
// RUN: FileCheck %s --check-prefix=FRONTEND < %t/target-independent-frontend.sm_90.device.ll
// RUN: FileCheck %s --check-prefix=BACKEND < %t/target-independent-frontend.sm_90.opt.ll
#include <oxide/oxide.hpp>

// FRONTEND-LABEL: define {{.*}}sum_column
// FRONTEND: fadd
// FRONTEND-NOT: fadd
// BACKEND-LABEL: define {{.*}}sum_column
// BACKEND-COUNT-8: fadd
[[kernel, oxide::launch_bounds(32)]] void sum_column(std::uint32_t n, const float *__restrict__ in,
                                                     float *__restrict__ out) {
  const std::uint32_t t = oxide::thread_idx().x;
  float acc = 0;
  for (std::uint32_t i = 0; i < n; ++i)
    acc += in[std::size_t{i} * 32 + t];
  out[t] = acc;
}

int main() {}
