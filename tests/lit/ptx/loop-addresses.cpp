// A loop that reads three inputs and writes an output at the same column keeps one induction
// variable and computes each address from it (issue 41): loop strength reduction would give
// every address its own 64-bit induction variable, and the layer normalisation kernels took 52
// registers with it instead of 32, half the occupancy of a block of 1024 threads. Each step of
// the column loop below adds the stride to the column alone, never 4096 bytes to a pointer.
// RUN: oxcc build %s --emit=ptx -o - | FileCheck %s
#include <oxide/oxide.hpp>

#include <cstdint>

// CHECK-LABEL: .entry {{.*}}scale_rows
// CHECK-NOT: add.s64 {{.*}}, 4096;
// CHECK: ret;
[[kernel,
  oxide::launch_contract("domain = 1, block = 1024, requires = (in.size() == rows * cols, "
                         "out.size() == rows * cols, weight.size() == cols, bias.size() == cols)")]] void
scale_rows(std::uint32_t rows, std::uint32_t cols, oxide::Span<const float> in,
           oxide::Span<const float> weight, oxide::Span<const float> bias, oxide::DisjointSpan2D<float> out) {
  for (const auto &b : oxide::block::block_stride(rows)) {
    const std::size_t row = b.get() * cols;
    const auto mine = out.row_mut(b);
    for (std::size_t j = 0; j < mine.size(); ++j) {
      const std::size_t c = oxide::thread_idx().x + std::size_t{1024} * j;
      if (c >= cols)
        break;
      if (float *o = mine.get_mut(j))
        *o = in[row + c] * weight[c] + bias[c];
    }
  }
}
