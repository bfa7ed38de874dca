// The loop over a thread's owned elements of a row (row_mut, as docs/programming-model.md
// writes it) keeps no branch inside (issue 41): the element guard of get_mut(j) holds for every
// j below the set's size (oxide-loop-bounds-checks proves it from the count), and each checked
// read of a column that steps through the loop is tested once, for the last column, before the
// loop; with the branches in it, layernorm's write loop ran at 0.82 of nvcc's on the H200. A
// block's row is then counted by its column (oxide-column-loops): one element an iteration, the
// column compared with the width less the block, no trip count and no unrolled copy, as nvcc's
// `for (c = t; c < cols; c += 1024)`. A warp's row is unrolled by LLVM.
// RUN: oxcc build %s --arch=sm_90 --emit=ptx -o - | FileCheck %s
#include <oxide/oxide.hpp>

#include <cstdint>

// CHECK-LABEL: .entry {{.*}}scale_rows
// The last column less the block, once: max(W, 1024) - 1024.
// CHECK: max.u64 [[ROOM:%rd[0-9]+]], {{%rd[0-9]+}}, 1024;
// CHECK: add.s64 [[LIMIT:%rd[0-9]+]], [[ROOM]], -1024;
// The reads of the last column, before the loop, with their reports:
// CHECK: setp.ge.u64
// CHECK: bra
// The loop: one element, the column stepped by 1024 and compared with the limit.
// CHECK: ld.global.nc.b32
// CHECK-NOT: bra
// CHECK: st.global.b32
// CHECK-NOT: st.global
// CHECK: add.s64 {{%rd[0-9]+}}, [[COLUMN:%rd[0-9]+]], 1024;
// CHECK-NEXT: setp.lt.u64 [[GOES_ON:%p[0-9]+]], [[COLUMN]], [[LIMIT]];
// CHECK-NOT: st.global
// CHECK: @[[GOES_ON]] bra
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1, block = 1024, requires = (in.size() == rows * cols, "
                                 "out.size() == rows * cols, weight.size() == cols)")]] void
scale_rows(std::uint32_t rows, std::uint32_t cols, oxide::Span<const float> in, oxide::Span<const float> weight,
           oxide::DisjointSpan2D<float> out) {
  const std::uint32_t t = oxide::thread_idx().x;
  for (const auto &b : oxide::block::block_stride(rows)) {
    const std::size_t row = b.get() * cols;
    const auto mine = out.row_mut(b);
    for (std::size_t j = 0; j < mine.size(); ++j) {
      const std::size_t c = t + std::size_t{1024} * j;
      if (float *o = mine.get_mut(j))
        *o = in[row + c] * weight[c];
    }
  }
}

// With the output's shape in the contract (out.width() == cols), the element guard's column bound
// is the reads' bound too: no check is left anywhere in the kernel.
// CHECK-LABEL: .entry {{.*}}scale_shaped_rows
// CHECK-NOT: [__oxide_failure_record]
// CHECK: ret;
[[kernel, oxide::launch_contract("domain = 1, block = 1024, requires = (in.size() == rows * cols, "
                                 "out.width() == cols, out.height() == rows, weight.size() == cols)")]] void
scale_shaped_rows(std::uint32_t rows, std::uint32_t cols, oxide::Span<const float> in,
                  oxide::Span<const float> weight, oxide::DisjointSpan2D<float> out) {
  const std::uint32_t t = oxide::thread_idx().x;
  for (const auto &b : oxide::block::block_stride(rows)) {
    const std::size_t row = b.get() * cols;
    const auto mine = out.row_mut(b);
    for (std::size_t j = 0; j < mine.size(); ++j) {
      const std::size_t c = t + std::size_t{1024} * j;
      if (float *o = mine.get_mut(j))
        *o = in[row + c] * weight[c];
    }
  }
}

// CHECK-LABEL: .entry {{.*}}divide_rows
// CHECK: ld.global.nc.b32
// CHECK-NOT: bra
// CHECK: st.global.b32
// CHECK-NOT: bra
// CHECK: st.global.b32
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1")]] void
divide_rows(std::uint32_t rows, std::uint32_t cols, oxide::Span<const float> in, oxide::DisjointSpan2D<float> out) {
  for (const auto &w : oxide::warp::warp_stride(rows)) {
    const auto row = out.row_mut(w);
    for (std::size_t j = 0; j < row.size(); ++j)
      if (float *o = row.get_mut(j))
        *o = in[w.get() * cols + oxide::warp::lane_id() + 32 * j] * 0.5f;
  }
}
