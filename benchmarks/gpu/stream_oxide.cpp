// BabelStream-style kernels written with Oxide's safe API (contracts, witnesses, spans; the dot
// products' partial sums through block witnesses), and unsafe-tier baselines of the dot products
// (oxide::unsafe_launch). Twin: stream_cuda.cu (same algorithms, same launch shapes). Every
// kernel reads the read-only inputs a, b, c (2^27 floats = 512 MiB each) and writes `out`,
// NaN-poisoned first and checked against the host after the timed runs.
//
//   stream_oxide [floats, default 2^27]    prints RESULT lines (bench_common.hpp)
#include "bench_oxide.hpp"

#include <cstdint>
#include <cstdio>
#include <span>

constexpr float kScalar = 0.4f;
constexpr std::uint32_t kBlock = 256;

// ---- one element per thread (block 256) ---------------------------------------------------

[[kernel, oxide::launch_contract("domain = 1, block = 256, requires = (a.size() == out.size())")]] void
copy(oxide::Span<const float> a, oxide::DisjointSpan<float> out) {
  const auto i = oxide::thread::index_1d();
  if (float *o = out.get_mut(i))
    *o = a[i.get()];
}

[[kernel, oxide::launch_contract("domain = 1, block = 256, requires = (c.size() == out.size())")]] void
mul(oxide::Span<const float> c, oxide::DisjointSpan<float> out) {
  const auto i = oxide::thread::index_1d();
  if (float *o = out.get_mut(i))
    *o = kScalar * c[i.get()];
}

[[kernel, oxide::launch_contract(
              "domain = 1, block = 256, requires = (a.size() == out.size(), b.size() == out.size())")]] void
add(oxide::Span<const float> a, oxide::Span<const float> b, oxide::DisjointSpan<float> out) {
  const auto i = oxide::thread::index_1d();
  if (float *o = out.get_mut(i))
    *o = a[i.get()] + b[i.get()];
}

[[kernel, oxide::launch_contract(
              "domain = 1, block = 256, requires = (b.size() == out.size(), c.size() == out.size())")]] void
triad(oxide::Span<const float> b, oxide::Span<const float> c, oxide::DisjointSpan<float> out) {
  const auto i = oxide::thread::index_1d();
  if (float *o = out.get_mut(i))
    *o = b[i.get()] + kScalar * c[i.get()];
}

// Thread 0 of each block writes the block's partial sum: the block's witness (block::index())
// owns element b of `sums`, so the kernel has a contract like the others.
[[kernel, oxide::launch_contract("domain = 1, block = 256, requires = (a.size() == b.size())")]] void
dot(oxide::Span<const float> a, oxide::Span<const float> b, oxide::DisjointSpan<float> sums) {
  const std::size_t i = oxide::thread::index_1d().get();
  const float sum = bench::block_sum<kBlock>(i < a.size() ? a[i] * b[i] : 0.0f);
  if (float *o = sums.get_mut(oxide::block::index()))
    *o = sum;
}

// Baseline: `dot` in the unsafe tier, as it had to be written before the group witnesses: `sums`
// a mutable Span written at block_idx().x, no contract, oxide::unsafe_launch. Kept to compare
// the two tiers in the same run (dot_unsafe, a diagnostic row).
[[kernel, oxide::launch_bounds(256)]] void dot_unsafe(oxide::Span<const float> a, oxide::Span<const float> b,
                                                      oxide::Span<float> sums) {
  const std::size_t i = oxide::thread::index_1d().get();
  const float sum = bench::block_sum<kBlock>(i < a.size() && i < b.size() ? a[i] * b[i] : 0.0f);
  if (oxide::thread_idx().x == 0)
    sums[oxide::block_idx().x] = sum;
}

// Diagnostic: `dot` written like its CUDA twin, with raw __restrict__ pointers (allowed without a
// contract). Its loads become ld.global.nc, which Span<const T> parameters of kernels without a
// contract do not get, and only the shared-memory check of bench::block_sum remains. The gap
// to `dot_unsafe` is what those cost (README.md).
[[kernel, oxide::launch_bounds(256)]] void dot_raw(const float *__restrict__ a, const float *__restrict__ b,
                                                   float *__restrict__ sums, std::size_t n) {
  const std::size_t i = oxide::thread::index_1d().get();
  const float sum = bench::block_sum<kBlock>(i < n ? a[i] * b[i] : 0.0f);
  if (oxide::thread_idx().x == 0)
    sums[oxide::block_idx().x] = sum;
}

// ---- grid-stride (SMs * 8 blocks of 256) ----------------------------------------------------

[[kernel, oxide::launch_contract("domain = 1, block = 256, requires = (a.size() == out.size())")]] void
copy_gs(oxide::Span<const float> a, oxide::DisjointSpan<float> out) {
  for (const auto &i : oxide::thread::grid_stride(out.size()))
    if (float *o = out.get_mut(i))
      *o = a[i.get()];
}

[[kernel, oxide::launch_contract(
              "domain = 1, block = 256, requires = (b.size() == out.size(), c.size() == out.size())")]] void
triad_gs(oxide::Span<const float> b, oxide::Span<const float> c, oxide::DisjointSpan<float> out) {
  for (const auto &i : oxide::thread::grid_stride(out.size()))
    if (float *o = out.get_mut(i))
      *o = b[i.get()] + kScalar * c[i.get()];
}

// ---- float4, grid-stride ----------------------------------------------------------------------
// The device API has no vector types: Float4 is an ordinary 16-byte-aligned aggregate. Built
// member by member, its loads and stores become ld.global.nc.v4 / st.global.v4; assigned whole
// (copy_f4_assign) it is a 16-byte memcpy, which NVPTX splits into two 64-bit loads and stores
// without .nc (see the README).
struct alignas(16) Float4 {
  float x, y, z, w;
};

[[kernel, oxide::launch_contract("domain = 1, block = 256, requires = (a.size() == out.size())")]] void
copy_f4(oxide::Span<const Float4> a, oxide::DisjointSpan<Float4> out) {
  for (const auto &i : oxide::thread::grid_stride(out.size()))
    if (Float4 *o = out.get_mut(i)) {
      const Float4 v = a[i.get()];
      *o = Float4{v.x, v.y, v.z, v.w};
    }
}

[[kernel, oxide::launch_contract("domain = 1, block = 256, requires = (a.size() == out.size())")]] void
copy_f4_assign(oxide::Span<const Float4> a, oxide::DisjointSpan<Float4> out) {
  for (const auto &i : oxide::thread::grid_stride(out.size()))
    if (Float4 *o = out.get_mut(i))
      *o = a[i.get()];
}

[[kernel, oxide::launch_contract("domain = 1, block = 256, requires = (c.size() == out.size())")]] void
mul_f4(oxide::Span<const Float4> c, oxide::DisjointSpan<Float4> out) {
  for (const auto &i : oxide::thread::grid_stride(out.size()))
    if (Float4 *o = out.get_mut(i)) {
      const Float4 v = c[i.get()];
      *o = Float4{kScalar * v.x, kScalar * v.y, kScalar * v.z, kScalar * v.w};
    }
}

[[kernel, oxide::launch_contract(
              "domain = 1, block = 256, requires = (a.size() == out.size(), b.size() == out.size())")]] void
add_f4(oxide::Span<const Float4> a, oxide::Span<const Float4> b, oxide::DisjointSpan<Float4> out) {
  for (const auto &i : oxide::thread::grid_stride(out.size()))
    if (Float4 *o = out.get_mut(i)) {
      const Float4 x = a[i.get()], y = b[i.get()];
      *o = Float4{x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w};
    }
}

[[kernel, oxide::launch_contract(
              "domain = 1, block = 256, requires = (b.size() == out.size(), c.size() == out.size())")]] void
triad_f4(oxide::Span<const Float4> b, oxide::Span<const Float4> c, oxide::DisjointSpan<Float4> out) {
  for (const auto &i : oxide::thread::grid_stride(out.size()))
    if (Float4 *o = out.get_mut(i)) {
      const Float4 x = b[i.get()], y = c[i.get()];
      *o = Float4{x.x + kScalar * y.x, x.y + kScalar * y.y, x.z + kScalar * y.z, x.w + kScalar * y.w};
    }
}

// ---- float4, one element per thread (block 256) ---------------------------------------------
// The shape that moves the most bytes on the H200: every load is issued at once, nothing loops.

[[kernel, oxide::launch_contract("domain = 1, block = 256, requires = (a.size() == out.size())")]] void
copy_f4_flat(oxide::Span<const Float4> a, oxide::DisjointSpan<Float4> out) {
  const auto i = oxide::thread::index_1d();
  if (Float4 *o = out.get_mut(i)) {
    const Float4 v = a[i.get()];
    *o = Float4{v.x, v.y, v.z, v.w};
  }
}

[[kernel, oxide::launch_contract(
              "domain = 1, block = 256, requires = (b.size() == out.size(), c.size() == out.size())")]] void
triad_f4_flat(oxide::Span<const Float4> b, oxide::Span<const Float4> c, oxide::DisjointSpan<Float4> out) {
  const auto i = oxide::thread::index_1d();
  if (Float4 *o = out.get_mut(i)) {
    const Float4 x = b[i.get()], y = c[i.get()];
    *o = Float4{x.x + kScalar * y.x, x.y + kScalar * y.y, x.z + kScalar * y.z, x.w + kScalar * y.w};
  }
}

// One partial sum per block, through the block's witness, as in `dot`.
[[kernel, oxide::launch_contract("domain = 1, block = 256, requires = (a.size() == b.size())")]] void
dot_f4(oxide::Span<const Float4> a, oxide::Span<const Float4> b, oxide::DisjointSpan<float> sums) {
  float sum = 0.0f;
  for (const auto &i : oxide::thread::grid_stride(a.size())) {
    const Float4 x = a[i.get()], y = b[i.get()];
    sum += x.x * y.x + x.y * y.y + x.z * y.z + x.w * y.w;
  }
  sum = bench::block_sum<kBlock>(sum);
  if (float *o = sums.get_mut(oxide::block::index()))
    *o = sum;
}

// Baseline: `dot_f4` in the unsafe tier (a mutable Span written at block_idx().x), as
// `dot_unsafe` is for `dot` (dot_f4_unsafe, a diagnostic row).
[[kernel, oxide::launch_bounds(256)]] void
dot_f4_unsafe(oxide::Span<const Float4> a, oxide::Span<const Float4> b, oxide::Span<float> sums) {
  float sum = 0.0f;
  for (const auto &i : oxide::thread::grid_stride(a.size() < b.size() ? a.size() : b.size())) {
    const Float4 x = a[i.get()], y = b[i.get()];
    sum += x.x * y.x + x.y * y.y + x.z * y.z + x.w * y.w;
  }
  sum = bench::block_sum<kBlock>(sum);
  if (oxide::thread_idx().x == 0)
    sums[oxide::block_idx().x] = sum;
}

int main(int argc, char **argv) try {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : std::size_t{1} << 27;
  if (n % 4 != 0) {
    std::fprintf(stderr, "stream_oxide: the size must be a multiple of 4\n");
    return 2;
  }
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  bench::EventTimer timer(ctx);
  const std::vector<float> ha = bench::uniform_vector(1, n), hb = bench::uniform_vector(2, n),
                           hc = bench::uniform_vector(3, n);
  const std::size_t bytes2 = 2 * n * sizeof(float), bytes3 = 3 * n * sizeof(float);
  const std::string size = std::to_string(n);
  const auto one_per_thread = oxide::LaunchConfig1D::for_elements(n, kBlock);
  const oxide::LaunchConfig1D grid_stride{std::uint32_t(ctx.device().sm_count()) * 8, kBlock};

  bench::report_memcpy(timer, stream, n);
  double want = 0, scale = 0; // the dot product of a and b, and the sum of its terms' magnitudes
  for (std::size_t i = 0; i < n; ++i) {
    want += double(ha[i]) * hb[i];
    scale += std::fabs(double(ha[i]) * hb[i]);
  }
  // Times launch(sums) (one partial sum per block of `config`), then checks the partials' total.
  auto run_dot = [&](const char *name, const char *api, const oxide::LaunchConfig1D &config, auto &&launch) {
    auto sums = oxide::DeviceBuffer<float>::uninitialized(stream, config.grid);
    bench::poison(timer, stream, sums);
    const float ms = timer.median_ms(stream, [&](int) { launch(sums); });
    double got = 0;
    for (float s : sums.to_host(stream))
      got += s;
    const bool ok = bench::close(got, want, scale);
    if (!ok)
      bench::mismatch(name, 0, got, want);
    bench::report(name, size, "bytes", double(bytes2), ms, ok, api);
  };
  {
    auto a = oxide::DeviceBuffer<float>::from_host(stream, ha);
    auto b = oxide::DeviceBuffer<float>::from_host(stream, hb);
    auto c = oxide::DeviceBuffer<float>::from_host(stream, hc);
    auto out = oxide::DeviceBuffer<float>::uninitialized(stream, n);
    // Times `launch`, then checks `out` against ref(i).
    auto run = [&](const char *name, std::size_t bytes, const char *api, auto &&launch, auto &&ref) {
      bench::poison(timer, stream, out);
      const float ms = timer.median_ms(stream, launch);
      const std::vector<float> got = out.to_host(stream);
      bench::report(name, size, "bytes", double(bytes), ms, bench::check_sampled(name, got.data(), n, ref),
                    api);
    };
    auto k_copy = oxide::prepare(ctx, copy, one_per_thread);
    run("copy", bytes2, "safe", [&](int) { k_copy(stream, a, out); }, [&](std::size_t i) { return ha[i]; });
    auto k_mul = oxide::prepare(ctx, mul, one_per_thread);
    run(
        "mul", bytes2, "safe", [&](int) { k_mul(stream, c, out); },
        [&](std::size_t i) { return kScalar * hc[i]; });
    auto k_add = oxide::prepare(ctx, add, one_per_thread);
    run(
        "add", bytes3, "safe", [&](int) { k_add(stream, a, b, out); },
        [&](std::size_t i) { return ha[i] + hb[i]; });
    auto k_triad = oxide::prepare(ctx, triad, one_per_thread);
    run(
        "triad", bytes3, "safe", [&](int) { k_triad(stream, b, c, out); },
        [&](std::size_t i) { return hb[i] + kScalar * hc[i]; });
    auto k_copy_gs = oxide::prepare(ctx, copy_gs, grid_stride);
    run(
        "copy_gridstride", bytes2, "safe", [&](int) { k_copy_gs(stream, a, out); },
        [&](std::size_t i) { return ha[i]; });
    auto k_triad_gs = oxide::prepare(ctx, triad_gs, grid_stride);
    run(
        "triad_gridstride", bytes3, "safe", [&](int) { k_triad_gs(stream, b, c, out); },
        [&](std::size_t i) { return hb[i] + kScalar * hc[i]; });

    auto k_dot = oxide::prepare(ctx, dot, one_per_thread);
    run_dot("dot", "safe", one_per_thread,
            [&](oxide::DeviceBuffer<float> &sums) { k_dot(stream, a, b, sums); });
    run_dot("dot_unsafe", "unsafe", one_per_thread, [&](oxide::DeviceBuffer<float> &sums) {
      oxide::unsafe_launch(stream, dot_unsafe, one_per_thread, a, b, sums);
    });
    run_dot("dot_raw", "unsafe", one_per_thread, [&](oxide::DeviceBuffer<float> &sums) {
      oxide::unsafe_launch(stream, dot_raw, one_per_thread, a, b, sums, n);
    });
  }
  {
    auto as4 = [&](const std::vector<float> &v) {
      return std::span<const Float4>(reinterpret_cast<const Float4 *>(v.data()), v.size() / 4);
    };
    auto a = oxide::DeviceBuffer<Float4>::from_host(stream, as4(ha));
    auto b = oxide::DeviceBuffer<Float4>::from_host(stream, as4(hb));
    auto c = oxide::DeviceBuffer<Float4>::from_host(stream, as4(hc));
    auto out = oxide::DeviceBuffer<Float4>::uninitialized(stream, n / 4);
    auto run = [&](const char *name, std::size_t bytes, const char *api, auto &&launch, auto &&ref) {
      bench::poison(timer, stream, out);
      const float ms = timer.median_ms(stream, launch);
      const std::vector<Float4> got = out.to_host(stream);
      bench::report(name, size, "bytes", double(bytes), ms,
                    bench::check_sampled(name, reinterpret_cast<const float *>(got.data()), n, ref), api);
    };
    auto k_copy = oxide::prepare(ctx, copy_f4, grid_stride);
    run(
        "copy_f4", bytes2, "safe", [&](int) { k_copy(stream, a, out); },
        [&](std::size_t i) { return ha[i]; });
    auto k_copy_assign = oxide::prepare(ctx, copy_f4_assign, grid_stride);
    run(
        "copy_f4_assign", bytes2, "safe", [&](int) { k_copy_assign(stream, a, out); },
        [&](std::size_t i) { return ha[i]; });
    auto k_mul = oxide::prepare(ctx, mul_f4, grid_stride);
    run(
        "mul_f4", bytes2, "safe", [&](int) { k_mul(stream, c, out); },
        [&](std::size_t i) { return kScalar * hc[i]; });
    auto k_add = oxide::prepare(ctx, add_f4, grid_stride);
    run(
        "add_f4", bytes3, "safe", [&](int) { k_add(stream, a, b, out); },
        [&](std::size_t i) { return ha[i] + hb[i]; });
    auto k_triad = oxide::prepare(ctx, triad_f4, grid_stride);
    run(
        "triad_f4", bytes3, "safe", [&](int) { k_triad(stream, b, c, out); },
        [&](std::size_t i) { return hb[i] + kScalar * hc[i]; });

    const auto one_float4_per_thread = oxide::LaunchConfig1D::for_elements(n / 4, kBlock);
    auto k_copy_flat = oxide::prepare(ctx, copy_f4_flat, one_float4_per_thread);
    run(
        "copy_f4_flat", bytes2, "safe", [&](int) { k_copy_flat(stream, a, out); },
        [&](std::size_t i) { return ha[i]; });
    auto k_triad_flat = oxide::prepare(ctx, triad_f4_flat, one_float4_per_thread);
    run(
        "triad_f4_flat", bytes3, "safe", [&](int) { k_triad_flat(stream, b, c, out); },
        [&](std::size_t i) { return hb[i] + kScalar * hc[i]; });

    auto k_dot = oxide::prepare(ctx, dot_f4, grid_stride);
    run_dot("dot_f4", "safe", grid_stride,
            [&](oxide::DeviceBuffer<float> &sums) { k_dot(stream, a, b, sums); });
    run_dot("dot_f4_unsafe", "unsafe", grid_stride, [&](oxide::DeviceBuffer<float> &sums) {
      oxide::unsafe_launch(stream, dot_f4_unsafe, grid_stride, a, b, sums);
    });
  }
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "stream_oxide: %s\n", e.what());
  return 1;
}
