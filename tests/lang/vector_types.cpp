// Language coverage, vector types: oxide::Float4, Float2, Int4, Int2, Double2, UChar4 and Short2
// read from input spans, written to DisjointSpan outputs, copied whole, picked with `c ? a : b`,
// passed through shared memory and a warp shuffle, and combined with the element-wise operators
// and dot(); packed 16-bit pairs (bfloat16x2, halfx2) converted, multiplied and fused; every
// result is compared with the same computation on the host.
//
//   oxcc run tests/lang/vector_types.cpp
#include "lang_check.hpp"

#include <cstdint>
#include <cstdio>

using oxide::Double2, oxide::Float2, oxide::Float4, oxide::Int2, oxide::Int4, oxide::Short2, oxide::UChar4;

constexpr std::size_t kN = 1000;
constexpr std::uint32_t kBlock = 64;

Float4 axpy_select(std::size_t i, float alpha, Float4 x, Float4 y) {
  const Float4 v = alpha * x + y - Float4{0.5f, 0.25f, 0.125f, 0.0f};
  return i % 3 == 0 ? -v : v / 2.0f;
}

[[kernel,
  oxide::launch_contract("domain = 1, requires = (x.size() == out.size(), y.size() == out.size())")]] void
float4_math(oxide::DisjointSpan<Float4> out, float alpha, oxide::Span<const Float4> x,
            oxide::Span<const Float4> y) {
  const auto i = oxide::thread::index_1d();
  if (Float4 *o = out.get_mut(i))
    *o = axpy_select(i.get(), alpha, x[i.get()], y[i.get()]);
}

// Whole-element selects between two inputs (one 16- or 8-byte load of the chosen element).
[[kernel,
  oxide::launch_contract("domain = 1, requires = (a.size() == out.size(), b.size() == out.size())")]] void
float4_select(oxide::DisjointSpan<Float4> out, oxide::Span<const Float4> a, oxide::Span<const Float4> b) {
  const auto i = oxide::thread::index_1d();
  if (Float4 *o = out.get_mut(i))
    *o = i.get() % 3 == 1 ? a[i.get()] : b[i.get()];
}
[[kernel,
  oxide::launch_contract("domain = 1, requires = (a.size() == out.size(), b.size() == out.size())")]] void
int2_select(oxide::DisjointSpan<Int2> out, oxide::Span<const Int2> a, oxide::Span<const Int2> b) {
  const auto i = oxide::thread::index_1d();
  if (Int2 *o = out.get_mut(i))
    *o = a[i.get()].x < b[i.get()].x ? a[i.get()] : b[i.get()];
}

// Each block reverses its elements through shared memory.
[[kernel, oxide::launch_contract("domain = 1, block = 64, requires = (in.size() == out.size())")]] void
int4_reverse(oxide::DisjointSpan<Int4> out, oxide::Span<const Int4> in) {
  auto tile = oxide::shared_array<Int4, kBlock>();
  const auto i = oxide::thread::index_1d();
  const std::uint32_t t = oxide::thread_idx().x;
  tile[t] = i.get() < in.size() ? in[i.get()] : Int4{-1, -1, -1, -1};
  oxide::sync_threads();
  if (Int4 *o = out.get_mut(i))
    *o = tile[kBlock - 1 - t] * 3 + oxide::make_vec(1, 2, 3, 4);
}

[[kernel,
  oxide::launch_contract("domain = 1, requires = (a.size() == out.size(), b.size() == out.size())")]] void
double2_dot(oxide::DisjointSpan<double> out, oxide::Span<const Double2> a, oxide::Span<const Double2> b) {
  const auto i = oxide::thread::index_1d();
  if (double *o = out.get_mut(i)) {
    Double2 d = a[i.get()] - b[i.get()];
    d *= 0.5;
    *o = dot(d, a[i.get()]);
  }
}

// Lane l gets lane l + 1's Float2 (a 64-bit shuffle); small integer vectors wrap like their
// elements.
[[kernel, oxide::launch_contract("domain = 1, block = 64, requires = (in.size() == out.size())")]] void
float2_rotate(oxide::DisjointSpan<Float2> out, oxide::Span<const Float2> in) {
  const auto i = oxide::thread::index_1d();
  const Float2 mine = i.get() < in.size() ? in[i.get()] : Float2{};
  const Float2 next = oxide::warp::shuffle(mine, oxide::warp::lane_id() + 1);
  if (Float2 *o = out.get_mut(i))
    *o = next;
}
[[kernel, oxide::launch_contract("domain = 1")]] void small_ints(oxide::DisjointSpan<UChar4> out,
                                                                 oxide::DisjointSpan<Short2> out2) {
  const auto i = oxide::thread::index_1d();
  const auto k = static_cast<unsigned char>(i.get());
  if (UChar4 *o = out.get_mut(i))
    *o = UChar4{k, 1, 2, 3} * static_cast<unsigned char>(200) + UChar4{0, 0, 0, 100};
  if (Short2 *o = out2.get_mut(i))
    *o = -Short2{static_cast<std::int16_t>(i.get()), 7} / Short2{2, 2};
}

// Packed 16-bit pairs: a conversion of two floats, an fma and a product of both lanes at once.
// The inputs are multiples of 1/4 below 8 and the scales powers of two plus one, so every
// result is exact in bfloat16 and half, on the GPU and on the host alike.
[[kernel, oxide::launch_contract("domain = 1, requires = (in.size() == 2 * out.size(), "
                                 "hout.size() == out.size())")]] void
packed16(oxide::DisjointSpan<oxide::bfloat16x2> out, oxide::DisjointSpan<oxide::halfx2> hout,
         oxide::Span<const float> in, oxide::bfloat16x2 scale) {
  const auto i = oxide::thread::index_1d();
  const std::size_t k = 2 * i.get();
  if (oxide::bfloat16x2 *o = out.get_mut(i)) {
    const oxide::bfloat16x2 p = oxide::to_bfloat16x2(in[k], in[k + 1]);
    *o = oxide::fma(p, scale, p);
  }
  if (oxide::halfx2 *o = hout.get_mut(i))
    *o = oxide::to_halfx2(in[k], in[k + 1]) * oxide::to_halfx2(2.0f, 0.5f);
}

template <class T> std::vector<T> generate(std::size_t n, T (*f)(std::size_t)) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = f(i);
  return v;
}

/// Counts the elements of `got` that differ from want(i) (bit for bit: the operations are exact
/// or the same correctly rounded ones on both sides).
template <class T, class Want>
void expect(lang::Checker &c, const char *name, const std::vector<T> &got, Want want) {
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < got.size(); ++i, ++c.checks)
    if (!(got[i] == want(i)) && wrong++ < 4)
      std::printf("%s: mismatch at %zu\n", name, i);
  if (wrong != 0) {
    std::printf("%s: %zu of %zu wrong\n", name, wrong, got.size());
    ++c.failures;
  }
}

int main() {
  return lang::run_group("vector_types", [](lang::Checker &c) {
    static_assert(alignof(Float4) == 16 && alignof(Int2) == 8 && alignof(Double2) == 16);
    auto &stream = c.stream;
    const auto config = oxide::LaunchConfig1D::for_elements(kN, kBlock);

    const auto hx = generate<Float4>(kN, [](std::size_t i) {
      const float f = static_cast<float>(i);
      return Float4{f, -f, f * 0.5f, 1.0f};
    });
    const auto hy = generate<Float4>(kN, [](std::size_t i) {
      const float f = static_cast<float>(i % 17);
      return oxide::make_vec(f, f + 1.0f, f + 2.0f, -f);
    });
    auto x = oxide::DeviceBuffer<Float4>::from_host(stream, hx);
    auto y = oxide::DeviceBuffer<Float4>::from_host(stream, hy);
    auto out4 = oxide::DeviceBuffer<Float4>::zeroed(stream, kN);
    oxide::prepare(c.ctx, float4_math, config)(stream, out4, 3.0f, x, y);
    expect(c, "float4_math", out4.to_host(stream),
           [&](std::size_t i) { return axpy_select(i, 3.0f, hx[i], hy[i]); });
    oxide::prepare(c.ctx, float4_select, config)(stream, out4, x, y);
    expect(c, "float4_select", out4.to_host(stream),
           [&](std::size_t i) { return i % 3 == 1 ? hx[i] : hy[i]; });

    const auto ha = generate<Int2>(kN, [](std::size_t i) { return Int2{int(i * 7 % 31), int(i)}; });
    const auto hb = generate<Int2>(kN, [](std::size_t i) { return Int2{int(i * 5 % 29), -int(i)}; });
    auto a2 = oxide::DeviceBuffer<Int2>::from_host(stream, ha);
    auto b2 = oxide::DeviceBuffer<Int2>::from_host(stream, hb);
    auto out2 = oxide::DeviceBuffer<Int2>::zeroed(stream, kN);
    oxide::prepare(c.ctx, int2_select, config)(stream, out2, a2, b2);
    expect(c, "int2_select", out2.to_host(stream),
           [&](std::size_t i) { return ha[i].x < hb[i].x ? ha[i] : hb[i]; });

    const auto hi =
        generate<Int4>(kN, [](std::size_t i) { return oxide::make_vec(int(i), 2, -int(i), int(i / 3)); });
    auto in4 = oxide::DeviceBuffer<Int4>::from_host(stream, hi);
    auto outi = oxide::DeviceBuffer<Int4>::zeroed(stream, kN);
    oxide::prepare(c.ctx, int4_reverse, config)(stream, outi, in4);
    expect(c, "int4_reverse", outi.to_host(stream), [&](std::size_t i) {
      const std::size_t j = i / kBlock * kBlock + kBlock - 1 - i % kBlock;
      return (j < kN ? hi[j] : Int4{-1, -1, -1, -1}) * 3 + Int4{1, 2, 3, 4};
    });

    const auto hd = generate<Double2>(kN, [](std::size_t i) { return Double2{double(i) * 0.25, 3.0}; });
    const auto he = generate<Double2>(kN, [](std::size_t i) { return Double2{1.0, double(i % 9)}; });
    auto d = oxide::DeviceBuffer<Double2>::from_host(stream, hd);
    auto e = oxide::DeviceBuffer<Double2>::from_host(stream, he);
    auto outd = oxide::DeviceBuffer<double>::zeroed(stream, kN);
    oxide::prepare(c.ctx, double2_dot, config)(stream, outd, d, e);
    expect(c, "double2_dot", outd.to_host(stream),
           [&](std::size_t i) { return dot((hd[i] - he[i]) * 0.5, hd[i]); });

    const auto hf = generate<Float2>(kN, [](std::size_t i) { return Float2{float(i), float(i) * -2.0f}; });
    auto f = oxide::DeviceBuffer<Float2>::from_host(stream, hf);
    auto outf = oxide::DeviceBuffer<Float2>::zeroed(stream, kN);
    oxide::prepare(c.ctx, float2_rotate, config)(stream, outf, f);
    expect(c, "float2_rotate", outf.to_host(stream), [&](std::size_t i) {
      const std::size_t j = i / 32 * 32 + (i + 1) % 32;
      return j < kN ? hf[j] : Float2{};
    });

    auto outc = oxide::DeviceBuffer<UChar4>::zeroed(stream, kN);
    auto outs = oxide::DeviceBuffer<Short2>::zeroed(stream, kN);
    oxide::prepare(c.ctx, small_ints, config)(stream, outc, outs);
    expect(c, "small_ints", outc.to_host(stream), [](std::size_t i) {
      const auto k = static_cast<unsigned char>(i);
      return UChar4{static_cast<unsigned char>(k * 200), 200, 144, 188};
    });
    expect(c, "small_ints (Short2)", outs.to_host(stream),
           [](std::size_t i) { return Short2{static_cast<std::int16_t>(-static_cast<int>(i) / 2), -3}; });

    static_assert(sizeof(oxide::bfloat16x2) == 4 && alignof(oxide::halfx2) == 4);
    const auto hp = generate<float>(2 * kN, [](std::size_t i) { return 0.25f * float(i % 29) - 3.0f; });
    auto pin = oxide::DeviceBuffer<float>::from_host(stream, hp);
    auto outb = oxide::DeviceBuffer<oxide::bfloat16x2>::zeroed(stream, kN);
    auto outh = oxide::DeviceBuffer<oxide::halfx2>::zeroed(stream, kN);
    oxide::prepare(c.ctx, packed16, config)(stream, outb, outh, pin, oxide::to_bfloat16x2(3.0f, 0.5f));
    auto as_float2 = [](const auto &pairs) {
      std::vector<Float2> v;
      for (const auto &p : pairs)
        v.push_back(oxide::to_float2(p));
      return v;
    };
    expect(c, "packed16 (bfloat16x2)", as_float2(outb.to_host(stream)),
           [&](std::size_t i) { return Float2{4.0f * hp[2 * i], 1.5f * hp[2 * i + 1]}; });
    expect(c, "packed16 (halfx2)", as_float2(outh.to_host(stream)),
           [&](std::size_t i) { return Float2{2.0f * hp[2 * i], 0.5f * hp[2 * i + 1]}; });
  });
}
