// constant_filter: a 15-tap FIR filter whose taps live in constant memory (oxide::constant),
// set from the host between launches, and timed per thread with the SM's cycle counter
// (oxide::clock64) and the device's nanosecond timer (oxide::global_timer_ns).
//
//   oxcc run examples/constant_filter.cpp
#include <oxide/oxide.hpp>

#include "problem_size.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

constexpr std::size_t kTaps = 15;
// Every thread reads the same tap at the same time: constant memory broadcasts it to the warp.
oxide::constant<std::array<float, kTaps>> taps;
// A constant with an initial value: kernels see 1.0 until the host sets another.
oxide::constant<float> gain{1.0f};

[[kernel, oxide::launch_contract("domain = 1, block = 256, "
                                 "requires = (in.size() == out.size() + 14, cycles.size() == out.size(), "
                                 "stamps.size() == out.size())")]] void
fir(oxide::Span<const float> in, oxide::DisjointSpan<float> out, oxide::DisjointSpan<std::uint64_t> cycles,
    oxide::DisjointSpan<std::uint64_t> stamps) {
  const auto i = oxide::thread::index_1d();
  float *o = out.get_mut(i);
  if (!o)
    return;
  const std::uint64_t start = oxide::clock64();
  float acc = 0.0f;
  for (std::size_t k = 0; k < kTaps; ++k)
    acc += taps[k] * in[i.get() + k];
  *o = acc * *gain;
  *cycles.get_mut(i) = oxide::clock64() - start;
  *stamps.get_mut(i) = oxide::global_timer_ns();
}

/// The same sum in the same order with one rounding per operation (the GPU fuses the multiply
/// and the add: std::fma does too).
std::vector<float> reference(const std::vector<float> &in, const std::array<float, kTaps> &h, float g) {
  std::vector<float> out(in.size() - (kTaps - 1));
  for (std::size_t i = 0; i < out.size(); ++i) {
    float acc = 0.0f;
    for (std::size_t k = 0; k < kTaps; ++k)
      acc = std::fma(h[k], in[i + k], acc);
    out[i] = acc * g;
  }
  return out;
}

int main() try {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  const std::size_t n = example::small_problem(ctx) ? (1u << 16) : (1u << 24);
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> signal(n + kTaps - 1);
  for (float &x : signal)
    x = dist(rng);
  std::array<float, kTaps> lowpass{}, highpass{};
  for (std::size_t k = 0; k < kTaps; ++k) {
    lowpass[k] = 1.0f / kTaps;
    highpass[k] = (k == kTaps / 2 ? 1.0f : 0.0f) - 1.0f / kTaps;
  }

  auto in = oxide::DeviceBuffer<float>::from_host(stream, signal);
  const std::vector<float> nan(n, std::numeric_limits<float>::quiet_NaN());
  auto low = oxide::DeviceBuffer<float>::from_host(stream, nan);
  auto high = oxide::DeviceBuffer<float>::from_host(stream, nan);
  auto cycles = oxide::DeviceBuffer<std::uint64_t>::zeroed(stream, n);
  auto stamps = oxide::DeviceBuffer<std::uint64_t>::zeroed(stream, n);
  auto filter = oxide::prepare(ctx, fir, oxide::LaunchConfig1D::for_elements(n, 256));

  // Stream order: the first launch reads the low-pass taps, the second the high-pass taps at
  // twice the gain, although both values are set before the host waits for anything.
  oxide::set_constant(stream, taps, lowpass);
  filter(stream, in, low, cycles, stamps);
  oxide::set_constant(stream, taps, highpass);
  oxide::set_constant(stream, gain, 2.0f);
  filter(stream, in, high, cycles, stamps);

  std::size_t wrong = 0;
  const auto check = [&](const char *name, const std::vector<float> &got,
                         const std::vector<float> &expected) {
    for (std::size_t i = 0; i < got.size(); ++i)
      if (!(std::fabs(got[i] - expected[i]) <= 1e-6f * (1.0f + std::fabs(expected[i]))) && wrong++ < 5)
        std::printf("%s[%zu]: got %.9g, expected %.9g\n", name, i, got[i], expected[i]);
  };
  check("low", low.to_host(stream), reference(signal, lowpass, 1.0f));
  check("high", high.to_host(stream), reference(signal, highpass, 2.0f));

  std::vector<std::uint64_t> c = cycles.to_host(stream), t = stamps.to_host(stream);
  const auto [first, last] = std::minmax_element(t.begin(), t.end());
  std::nth_element(c.begin(), c.begin() + c.size() / 2, c.end());
  const std::uint64_t median_cycles = c[c.size() / 2];
  if (*first == 0 || median_cycles == 0 || *last - *first > 10'000'000'000ull) {
    std::printf("FAIL: implausible timing: median %llu cycles, timer span %llu ns\n",
                static_cast<unsigned long long>(median_cycles),
                static_cast<unsigned long long>(*last - *first));
    return 1;
  }
  if (wrong != 0) {
    std::printf("FAIL: %zu outputs wrong\n", wrong);
    return 1;
  }
  std::printf("constant_filter: %zu outputs, %zu taps from constant memory, median %llu clocks per output, "
              "launch spanned %.1f us of the device timer on %s\nPASS\n",
              n, kTaps, static_cast<unsigned long long>(median_cycles), (*last - *first) / 1e3,
              ctx.device().name().c_str());
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
