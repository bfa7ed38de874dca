// BabelStream-style kernels written with Oxide's safe API (contracts, witnesses, spans).
// Twin: stream_cuda.cu (same algorithms, same launch shapes). Prints one line per kernel:
//   RESULT <kernel> <bytes moved> <median ms> <check ok|FAIL>
// Built by benchmarks/gpu/build.sh with oxcc; run by run.sh on the GPU machine.
#include <oxide/oxide.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <functional>
#include <random>
#include <string>
#include <vector>

constexpr float kScalar = 0.4f;

[[kernel, oxide::launch_contract("domain = 1, block = 256, requires = (a.size() == c.size())")]] void
copy(oxide::Span<const float> a, oxide::DisjointSpan<float> c) {
  const auto i = oxide::thread::index_1d();
  if (float *o = c.get_mut(i))
    *o = a[i.get()];
}

[[kernel, oxide::launch_contract("domain = 1, block = 256, requires = (c.size() == b.size())")]] void
mul(oxide::Span<const float> c, oxide::DisjointSpan<float> b) {
  const auto i = oxide::thread::index_1d();
  if (float *o = b.get_mut(i))
    *o = kScalar * c[i.get()];
}

[[kernel, oxide::launch_contract(
              "domain = 1, block = 256, requires = (a.size() == c.size(), b.size() == c.size())")]] void
add(oxide::Span<const float> a, oxide::Span<const float> b, oxide::DisjointSpan<float> c) {
  const auto i = oxide::thread::index_1d();
  if (float *o = c.get_mut(i))
    *o = a[i.get()] + b[i.get()];
}

[[kernel, oxide::launch_contract(
              "domain = 1, block = 256, requires = (b.size() == a.size(), c.size() == a.size())")]] void
triad(oxide::Span<const float> b, oxide::Span<const float> c, oxide::DisjointSpan<float> a) {
  const auto i = oxide::thread::index_1d();
  if (float *o = a.get_mut(i))
    *o = b[i.get()] + kScalar * c[i.get()];
}

[[kernel, oxide::launch_contract("domain = 1, block = 256, requires = (a.size() == c.size())")]] void
copy_gs(oxide::Span<const float> a, oxide::DisjointSpan<float> c) {
  for (const auto &i : oxide::thread::grid_stride(c.size()))
    if (float *o = c.get_mut(i))
      *o = a[i.get()];
}

[[kernel, oxide::launch_contract(
              "domain = 1, block = 256, requires = (b.size() == a.size(), c.size() == a.size())")]] void
triad_gs(oxide::Span<const float> b, oxide::Span<const float> c, oxide::DisjointSpan<float> a) {
  for (const auto &i : oxide::thread::grid_stride(a.size()))
    if (float *o = a.get_mut(i))
      *o = b[i.get()] + kScalar * c[i.get()];
}

namespace {

/// CUDA events through the driver API (the Oxide runtime has no event type yet): device-side
/// timing as METHOD.md asks, on the launch stream.
class EventTimer {
  using Fn = int (*)(...);
  Fn create_, record_, sync_, elapsed_, destroy_;
  void *start_ = nullptr, *stop_ = nullptr;

  static void check(int rc, const char *what) {
    if (rc != 0) {
      std::fprintf(stderr, "stream_oxide: %s failed with CUDA error %d\n", what, rc);
      std::exit(2);
    }
  }

public:
  /// `context` is the Oxide context's CUcontext: the runtime does not leave it current.
  explicit EventTimer(void *context) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) {
      std::fprintf(stderr, "stream_oxide: needs a GPU (libcuda.so.1)\n");
      std::exit(2);
    }
    create_ = reinterpret_cast<Fn>(dlsym(lib, "cuEventCreate"));
    record_ = reinterpret_cast<Fn>(dlsym(lib, "cuEventRecord"));
    sync_ = reinterpret_cast<Fn>(dlsym(lib, "cuEventSynchronize"));
    elapsed_ = reinterpret_cast<Fn>(dlsym(lib, "cuEventElapsedTime"));
    destroy_ = reinterpret_cast<Fn>(dlsym(lib, "cuEventDestroy_v2"));
    auto set_current = reinterpret_cast<Fn>(dlsym(lib, "cuCtxSetCurrent"));
    check(set_current(context), "cuCtxSetCurrent");
    check(create_(&start_, 0u), "cuEventCreate");
    check(create_(&stop_, 0u), "cuEventCreate");
  }
  ~EventTimer() {
    destroy_(start_);
    destroy_(stop_);
  }
  float time_ms(void *stream, const std::function<void()> &work) {
    check(record_(start_, stream), "cuEventRecord");
    work();
    check(record_(stop_, stream), "cuEventRecord");
    check(sync_(stop_), "cuEventSynchronize");
    float ms = 0;
    check(elapsed_(&ms, start_, stop_), "cuEventElapsedTime");
    return ms;
  }
};

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv) try {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : std::size_t{1} << 27;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 20;
  auto ctx = oxide::Context::create();
  if (ctx.is_simulator()) {
    std::fprintf(stderr, "stream_oxide: needs a GPU\n");
    return 2;
  }
  auto stream = ctx.default_stream();
  std::mt19937 rng(12345);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> ha(n), hb(n), hc(n);
  for (std::size_t i = 0; i < n; ++i) {
    ha[i] = dist(rng);
    hb[i] = dist(rng);
    hc[i] = dist(rng);
  }
  auto a = oxide::DeviceBuffer<float>::from_host(stream, ha);
  auto b = oxide::DeviceBuffer<float>::from_host(stream, hb);
  auto c = oxide::DeviceBuffer<float>::from_host(stream, hc);
  const auto one_per_thread = oxide::LaunchConfig1D::for_elements(n, 256);
  const oxide::LaunchConfig1D grid_stride{132 * 8, 256}; // 8 blocks per SM of an H200
  EventTimer timer(ctx.native_handle());
  const std::size_t bytes2 = 2 * n * sizeof(float), bytes3 = 3 * n * sizeof(float);

  auto report = [&](const char *name, std::size_t bytes, const std::function<void()> &launch,
                    const std::function<bool()> &check) {
    for (int w = 0; w < 3; ++w)
      launch();
    stream.synchronize();
    std::vector<float> times;
    for (int r = 0; r < reps; ++r)
      times.push_back(timer.time_ms(stream.native_handle(), launch));
    std::printf("RESULT %s %zu %.5f %s\n", name, bytes, median(times), check() ? "ok" : "FAIL");
    std::fflush(stdout);
  };
  auto poison = [&](oxide::DeviceBuffer<float> &buf) {
    buf.copy_from_host(stream, std::vector<float>(n, std::nanf("")));
  };
  auto matches = [&](const oxide::DeviceBuffer<float> &buf, const std::function<float(std::size_t)> &ref) {
    const std::vector<float> got = buf.to_host(stream);
    for (std::size_t i = 0; i < n; i += 997)
      if (!(std::fabs(got[i] - ref(i)) <= 1e-6f * (1 + std::fabs(ref(i)))))
        return false;
    return !std::isnan(got[n - 1]);
  };

  {
    auto k = oxide::prepare(ctx, copy, one_per_thread);
    poison(c);
    report(
        "copy", bytes2, [&] { k(stream, a, c); },
        [&] { return matches(c, [&](std::size_t i) { return ha[i]; }); });
  }
  {
    auto k = oxide::prepare(ctx, copy_gs, grid_stride);
    poison(c);
    report(
        "copy_gridstride", bytes2, [&] { k(stream, a, c); },
        [&] { return matches(c, [&](std::size_t i) { return ha[i]; }); });
  }
  {
    auto k = oxide::prepare(ctx, mul, one_per_thread);
    poison(b);
    report(
        "mul", bytes2, [&] { k(stream, c, b); },
        [&] { return matches(b, [&](std::size_t i) { return kScalar * ha[i]; }); });
  }
  {
    auto k = oxide::prepare(ctx, add, one_per_thread);
    c.copy_from_host(stream, hc);
    b.copy_from_host(stream, hb);
    auto out = oxide::DeviceBuffer<float>::uninitialized(stream, n);
    poison(out);
    report(
        "add", bytes3, [&] { k(stream, a, b, out); },
        [&] { return matches(out, [&](std::size_t i) { return ha[i] + hb[i]; }); });
  }
  {
    auto k = oxide::prepare(ctx, triad, one_per_thread);
    poison(a);
    report(
        "triad", bytes3, [&] { k(stream, b, c, a); },
        [&] { return matches(a, [&](std::size_t i) { return hb[i] + kScalar * hc[i]; }); });
  }
  {
    auto k = oxide::prepare(ctx, triad_gs, grid_stride);
    poison(a);
    report(
        "triad_gridstride", bytes3, [&] { k(stream, b, c, a); },
        [&] { return matches(a, [&](std::size_t i) { return hb[i] + kScalar * hc[i]; }); });
  }
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
