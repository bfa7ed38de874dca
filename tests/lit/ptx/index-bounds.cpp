// Bounds checks of row-major indices that the launch contract's sizes prove are removed
// (ProveIndexBounds), and only those: each kernel below that lacks one fact of the proof keeps
// its check (the call to the bounds-failure path).
// RUN: oxcc build %s --emit=ptx -o - | FileCheck %s
#include <oxide/oxide.hpp>

#include <cstdint>

using In = oxide::Span<const float>;
using Out = oxide::DisjointSpan2D<float>;

/// out's element at (x, y) from the in element picked by `index(c, w)` (c = y * w + x), guarded
/// by the tests `interior(x, y, w, h)`.
template <class Interior, class Index> void apply(In in, Out out, Interior interior, Index index) {
  const auto p = oxide::thread::index_2d();
  float *o = out.get_mut(p);
  if (!o)
    return;
  const std::size_t w = out.width(), h = out.height(), x = p.x(), y = p.y(), c = y * w + x;
  if (interior(x, y, w, h))
    *o = in[index(c, w)];
}

struct Everywhere {
  bool operator()(std::size_t, std::size_t, std::size_t, std::size_t) const { return true; }
};
struct Inner {
  bool operator()(std::size_t x, std::size_t y, std::size_t w, std::size_t h) const {
    return !(x == 0 || y == 0 || x == w - 1 || y == h - 1);
  }
};

// The five-point stencil: all five checks go.
// CHECK-LABEL: .entry {{.*}}stencil
// CHECK-NOT: [__oxide_failure_record]
// CHECK: ret;
[[kernel, oxide::launch_contract("domain = 2, block = (32, 8), requires = (in.size() == out.size())")]] void
stencil(In in, Out out) {
  const auto p = oxide::thread::index_2d();
  float *o = out.get_mut(p);
  if (!o)
    return;
  const std::size_t w = out.width(), h = out.height(), x = p.x(), y = p.y(), c = y * w + x;
  if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
    *o = in[c];
  else
    *o = 0.5f * in[c] + 0.125f * (in[c - 1] + in[c + 1] + in[c - w] + in[c + w]);
}

// A transpose's read: row < height, col < width and width * height == in.size().
// CHECK-LABEL: .entry {{.*}}transpose_read
// CHECK-NOT: [__oxide_failure_record]
// CHECK: ret;
[[kernel, oxide::launch_contract("domain = 2, block = (32, 8), "
                                 "requires = (width * height == in.size(), in.size() == out.size())")]] void
transpose_read(std::uint32_t width, std::uint32_t height, In in, Out out) {
  const auto p = oxide::thread::index_2d();
  const std::uint32_t row = static_cast<std::uint32_t>(p.x()), col = static_cast<std::uint32_t>(p.y());
  float v = 0.0f;
  if (row < height && col < width)
    v = in[std::size_t{row} * width + col];
  if (float *o = out.get_mut(p))
    *o = v;
}

// The right neighbour without x != w - 1: at x == w - 1 it is the next row's first element, or
// past the end on the last row.
// CHECK-LABEL: .entry {{.*}}right_unguarded
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 2, block = (32, 8), requires = (in.size() == out.size())")]] void
right_unguarded(In in, Out out) {
  apply(in, out, Everywhere{}, [](std::size_t c, std::size_t) { return c + 1; });
}

// The left neighbour without x != 0: at c == 0 the index wraps around.
// CHECK-LABEL: .entry {{.*}}left_unguarded
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 2, block = (32, 8), requires = (in.size() == out.size())")]] void
left_unguarded(In in, Out out) {
  apply(in, out, Everywhere{}, [](std::size_t c, std::size_t) { return c - 1; });
}

// The row below without y != h - 1: past the end on the last row.
// CHECK-LABEL: .entry {{.*}}down_unguarded
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 2, block = (32, 8), requires = (in.size() == out.size())")]] void
down_unguarded(In in, Out out) {
  apply(in, out, Everywhere{}, [](std::size_t c, std::size_t w) { return c + w; });
}

// Two columns to the right with only x != w - 1 known: x == w - 2 reaches the next row.
// CHECK-LABEL: .entry {{.*}}two_right
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 2, block = (32, 8), requires = (in.size() == out.size())")]] void
two_right(In in, Out out) {
  apply(in, out, Inner{}, [](std::size_t c, std::size_t) { return c + 2; });
}

// Nothing relates in.size() to the output's extents.
// CHECK-LABEL: .entry {{.*}}unrelated
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 2, block = (32, 8)")]] void unrelated(In in, Out out) {
  apply(in, out, Everywhere{}, [](std::size_t c, std::size_t) { return c; });
}

// A smaller input than the output: in.size() <= out.size() is not equality.
// CHECK-LABEL: .entry {{.*}}smaller_input
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 2, block = (32, 8), requires = (in.size() <= out.size())")]] void
smaller_input(In in, Out out) {
  apply(in, out, Everywhere{}, [](std::size_t c, std::size_t) { return c; });
}

// The transposed index, y * h + x: neither extent bounds x and y the right way round.
// CHECK-LABEL: .entry {{.*}}swapped
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 2, block = (32, 8), requires = (in.size() == out.size())")]] void
swapped(In in, Out out) {
  const auto p = oxide::thread::index_2d();
  float *o = out.get_mut(p);
  if (!o)
    return;
  *o = in[p.y() * out.height() + p.x()];
}

// Row-wise kernels: the row comes from a block-stride loop (b < rows at its entry and latch),
// the column from a thread-stride loop (c < cols likewise), so b * cols + c < rows * cols: both
// loops' induction variables are bounded on every edge into their headers.
// CHECK-LABEL: .entry {{.*}}row_sums
// CHECK-NOT: [__oxide_failure_record]
// CHECK: ret;
[[kernel, oxide::launch_contract("domain = 1, block = 256, "
                                 "requires = (in.size() == rows * cols, sums.size() == rows)")]] void
row_sums(std::uint32_t rows, std::uint32_t cols, In in, oxide::DisjointSpan<float> sums) {
  for (const auto &b : oxide::block::block_stride(rows)) {
    float s = 0.0f;
    for (std::uint32_t c = oxide::thread_idx().x; c < cols; c += 256)
      s += in[b.get() * cols + c];
    s = oxide::warp::sum(s);
    if (float *o = sums.get_mut(b))
      *o = s;
  }
}

// The column loop runs to c <= cols: its last step is the next row's first element.
// CHECK-LABEL: .entry {{.*}}row_sums_inclusive
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1, block = 256, "
                                 "requires = (in.size() == rows * cols, sums.size() == rows)")]] void
row_sums_inclusive(std::uint32_t rows, std::uint32_t cols, In in, oxide::DisjointSpan<float> sums) {
  for (const auto &b : oxide::block::block_stride(rows)) {
    float s = 0.0f;
    for (std::uint32_t c = oxide::thread_idx().x; c <= cols; c += 256)
      s += in[b.get() * cols + c];
    if (float *o = sums.get_mut(b))
      *o = s;
  }
}

// The column starts one past the thread's index, untested: only the latch bounds it.
// CHECK-LABEL: .entry {{.*}}row_sums_unchecked_start
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1, block = 256, "
                                 "requires = (in.size() == rows * cols, sums.size() == rows)")]] void
row_sums_unchecked_start(std::uint32_t rows, std::uint32_t cols, In in, oxide::DisjointSpan<float> sums) {
  for (const auto &b : oxide::block::block_stride(rows)) {
    float s = 0.0f;
    std::uint32_t c = oxide::thread_idx().x;
    do {
      s += in[b.get() * cols + c];
      c += 256;
    } while (c < cols);
    if (float *o = sums.get_mut(b))
      *o = s;
  }
}

// A thread-stride loop over a row's columns: c < cols on every edge into the loop bounds c
// itself (weight.size() == cols), with no product in the index.
// CHECK-LABEL: .entry {{.*}}scaled_row_sums
// CHECK-NOT: [__oxide_failure_record]
// CHECK: ret;
[[kernel, oxide::launch_contract("domain = 1, block = 256, "
                                 "requires = (in.size() == rows * cols, weight.size() == cols, "
                                 "sums.size() == rows)")]] void
scaled_row_sums(std::uint32_t rows, std::uint32_t cols, In in, In weight, oxide::DisjointSpan<float> sums) {
  for (const auto &b : oxide::block::block_stride(rows)) {
    float s = 0.0f;
    for (std::uint32_t c = oxide::thread_idx().x; c < cols; c += 256)
      s += in[b.get() * cols + c] * weight[c];
    s = oxide::warp::sum(s);
    if (float *o = sums.get_mut(b))
      *o = s;
  }
}

// The weights are one shorter than the row: the last column reads past them.
// CHECK-LABEL: .entry {{.*}}scaled_row_sums_short
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1, block = 256, "
                                 "requires = (in.size() == rows * cols, weight.size() + 1 == cols, "
                                 "sums.size() == rows)")]] void
scaled_row_sums_short(std::uint32_t rows, std::uint32_t cols, In in, In weight,
                      oxide::DisjointSpan<float> sums) {
  for (const auto &b : oxide::block::block_stride(rows)) {
    float s = 0.0f;
    for (std::uint32_t c = oxide::thread_idx().x; c < cols; c += 256)
      s += in[b.get() * cols + c] * weight[c];
    if (float *o = sums.get_mut(b))
      *o = s;
  }
}
