// The kernels that examples/python/*.py and tests/python call through the C ABI: a shared library
// built with
//
//   oxcc build --shared examples/python/kernels.cpp -o libkernels.so
//
// exports each kernel marked OXIDE_EXPORT (oxide/host/export.hpp) by name, with its parameters
// and contract, to C (oxide/c_api.h), to an nvcc-built program and to Python (python/oxide).
#include <oxide/oxide.hpp>

#include <cmath>
#include <cstdint>

// c = a + b: three tensors, the smallest launch (the overhead benchmark's kernel).
[[kernel, oxide::launch_contract("domain = 1, requires = (a.size() == c.size(), b.size() == c.size())")]]
void add(oxide::Span<const float> a, oxide::Span<const float> b, oxide::DisjointSpan<float> c) {
  const auto idx = oxide::thread::index_1d();
  if (float *out = c.get_mut(idx))
    *out = a[idx.get()] + b[idx.get()];
}
OXIDE_EXPORT(add);

// out = alpha * x + y, of any element type: a template kernel's instantiations, each exported
// under its own name.
template <class T>
[[kernel, oxide::launch_contract("domain = 1, requires = (x.size() == out.size(), y.size() == out.size())")]]
void axpy(T alpha, oxide::Span<const T> x, oxide::Span<const T> y, oxide::DisjointSpan<T> out) {
  const auto idx = oxide::thread::index_1d();
  if (T *o = out.get_mut(idx))
    *o = alpha * x[idx.get()] + y[idx.get()];
}
OXIDE_EXPORT_AS("axpy_f32", axpy<float>);
OXIDE_EXPORT_AS("axpy_f64", axpy<double>);
OXIDE_EXPORT_AS("axpy_i32", axpy<std::int32_t>);

// RMSNorm (LLaMA's): out[r, c] = x[r, c] / sqrt(mean(x[r, :]^2) + eps) * weight[c]. One warp per
// row, as examples/layernorm.cpp: the lanes stride over the row and reduce with shuffles, and
// each lane writes its columns of the row through out.row_mut(warp).
[[kernel, oxide::launch_contract("domain = 1, block = 256, "
                                 "requires = (x.size() == rows * cols, out.size() == rows * cols, "
                                 "weight.size() == cols)")]]
void rmsnorm(oxide::Span<const float> x, oxide::Span<const float> weight, oxide::DisjointSpan2D<float> out,
             std::uint32_t rows, std::uint32_t cols, float eps) {
  const std::uint32_t lane = oxide::warp::lane_id();
  for (const auto &w : oxide::warp::warp_stride(rows)) {
    const std::size_t row = w.get() * std::size_t{cols};
    float squares = 0.0f;
    for (std::uint32_t c = lane; c < cols; c += oxide::warp::kSize)
      squares += x[row + c] * x[row + c];
    const float scale = 1.0f / std::sqrt(oxide::warp::sum(squares) / float(cols) + eps);
    const auto mine = out.row_mut(w);
    for (std::size_t j = 0; j < mine.size(); ++j) {
      const std::size_t c = lane + std::size_t{oxide::warp::kSize} * j;
      if (float *o = mine.get_mut(j))
        *o = x[row + c] * scale * weight[c];
    }
  }
}
OXIDE_EXPORT(rmsnorm);

// out = x * s over a 2-D domain: the grid covers out's width x height.
[[kernel, oxide::launch_contract("domain = 2, block = (16, 16), requires = (x.size() == out.size())")]]
void scale_2d(oxide::Span<const float> x, float s, oxide::DisjointSpan2D<float> out) {
  const auto idx = oxide::thread::index_2d();
  if (float *o = out.get_mut(idx))
    *o = x[idx.y() * out.width() + idx.x()] * s;
}
OXIDE_EXPORT(scale_2d);

// A kernel that indexes out of bounds when `n` lies: the contract cannot see it (it takes a raw
// count), so the simulator's bounds check reports a KernelFault.
[[kernel, oxide::launch_contract("domain = 1")]]
void gather_first(oxide::Span<const float> x, std::uint32_t n, oxide::DisjointSpan<float> out) {
  const auto idx = oxide::thread::index_1d();
  if (float *o = out.get_mut(idx))
    *o = x[idx.get() + n];
}
OXIDE_EXPORT(gather_first);

// out[z, y, x] = x + 10 y + 100 z + offset over a 3-D domain: a (depth, height, width) tensor.
[[kernel, oxide::launch_contract("domain = 3, block = (8, 8, 4)")]]
void coordinates_3d(float offset, oxide::DisjointSpan3D<float> out) {
  const auto idx = oxide::thread::index_3d();
  if (float *o = out.get_mut(idx))
    *o = float(idx.x()) + 10.0f * float(idx.y()) + 100.0f * float(idx.z()) + offset;
}
OXIDE_EXPORT(coordinates_3d);

// counts[v % counts.size()] += 1 for each value: an AtomicSpan every thread updates.
[[kernel, oxide::launch_contract("domain = 1")]]
void histogram(oxide::Span<const std::uint32_t> values, oxide::AtomicSpan<std::uint32_t> counts) {
  for (const auto &i : oxide::thread::grid_stride(values.size()))
    counts.fetch_add(values[i.get()] % counts.size(), 1u);
}
OXIDE_EXPORT(histogram);

// y = a * x + y in half precision, y updated in place (each thread reads and rewrites its own
// element): a half scalar and half tensors.
[[kernel, oxide::launch_contract("domain = 1, requires = (x.size() == y.size())")]]
void axpy_inplace_f16(oxide::half a, oxide::Span<const oxide::half> x, oxide::DisjointSpan<oxide::half> y) {
  const auto idx = oxide::thread::index_1d();
  if (oxide::half *o = y.get_mut(idx))
    *o = a * x[idx.get()] + *o;
}
OXIDE_EXPORT(axpy_inplace_f16);

// A host function for C callers: how many kernels this file exports. extern "C" functions beside
// kernels are host code (docs/interop.md).
extern "C" int kernels_version() { return 1; }
