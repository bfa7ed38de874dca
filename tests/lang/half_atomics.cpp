// 16-bit float atomics: oxide::half and oxide::bfloat16 through AtomicSpan (global memory),
// AtomicRef with block scope (shared memory) and device_global::atomic(), many threads adding
// into few bins.
//  - exact sums: every value is a small multiple of 1/2 and every partial sum stays inside the
//    range where the type holds such numbers exactly, so the result does not depend on the order
//    of the additions and must equal the host's sum bit for bit; a lost update (a non-atomic
//    read-modify-write) shows as a wrong bin;
//  - rounded sums: values in [0, 1), so each addition rounds; compared with the host's sum in
//    double within the error bound of that many roundings ((m - 1) * 2^-p relative);
//  - fetch_min/fetch_max/exchange/compare_exchange (compare-and-swap loops on the GPU).
//
//   oxcc run tests/lang/half_atomics.cpp
#include "lang_check.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

constexpr std::uint32_t kBlock = 128;

// Each thread adds in[i] to bins[i % bins.size()] (fetch_add on global memory).
template <class T>
[[kernel, oxide::launch_contract("domain = 1")]] void add_to_bins(oxide::Span<const T> in,
                                                                  oxide::AtomicSpan<T> bins) {
  const std::size_t i = oxide::thread::index_1d().get();
  if (i < in.size())
    bins.fetch_add(i % bins.size(), in[i]);
}

// The same through a block's shared bins (block scope), then one global add per bin and block.
template <class T>
[[kernel, oxide::launch_contract("domain = 1, block = 128")]] void
add_through_shared(oxide::Span<const T> in, oxide::AtomicSpan<T> bins) {
  auto local = oxide::shared_array<T, 8>();
  const std::uint32_t t = oxide::thread_idx().x;
  if (t < 8)
    local[t] = T(0);
  oxide::sync_threads();
  const std::size_t i = oxide::thread::index_1d().get();
  if (i < in.size())
    oxide::AtomicRef<T, oxide::Scope::block>(local[i % 8]).fetch_add(in[i]);
  oxide::sync_threads();
  if (t < 8 && t < bins.size())
    bins[t].fetch_add(local[t]);
}

oxide::device_global<oxide::half> global_sum;

// Every thread adds into one device global.
[[kernel, oxide::launch_contract("domain = 1")]] void add_to_global(oxide::Span<const oxide::half> in) {
  const std::size_t i = oxide::thread::index_1d().get();
  if (i < in.size())
    global_sum.atomic().fetch_add(in[i]);
}

// bins[0] gets the minimum, bins[1] the maximum, bins[2] the last value exchanged in (one of
// the inputs), bins[3] counts successful compare_exchange increments (exact while small).
template <class T>
[[kernel, oxide::launch_contract("domain = 1")]] void other_ops(oxide::Span<const T> in,
                                                                oxide::AtomicSpan<T> bins) {
  const std::size_t i = oxide::thread::index_1d().get();
  if (i >= in.size())
    return;
  bins.fetch_min(0, in[i]);
  bins.fetch_max(1, in[i]);
  (void)bins[2].exchange(in[i]);
  if (i < 64) {
    T seen = bins.load(3);
    while (!bins[3].compare_exchange(seen, T(float(seen) + 1.0f))) {
    }
  }
}

template <class T> const char *type_name() { return std::is_same_v<T, oxide::half> ? "half" : "bfloat16"; }

// Fails `c` unless |got - want| <= tolerance (0: bit-exact) for every bin.
void expect(lang::Checker &c, const std::string &name, const std::vector<float> &got,
            const std::vector<double> &want, double relative_tolerance) {
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < got.size(); ++k) {
    ++c.checks;
    const double tolerance = relative_tolerance * std::fabs(want[k]);
    if (!(std::fabs(double(got[k]) - want[k]) <= tolerance)) {
      if (wrong++ < 4)
        std::printf("%s: mismatch at %zu: got %.9g, expected %.9g (tolerance %.3g)\n", name.c_str(), k,
                    got[k], want[k], tolerance);
    }
  }
  if (wrong != 0) {
    std::printf("%s: %zu of %zu wrong\n", name.c_str(), wrong, got.size());
    ++c.failures;
  }
}

template <class T> std::vector<float> as_float(const std::vector<T> &v) {
  std::vector<float> out;
  for (T x : v)
    out.push_back(float(x));
  return out;
}

template <class T> void check_type(lang::Checker &c) {
  auto &stream = c.stream;
  const std::string name = type_name<T>();
  constexpr bool is_half = std::is_same_v<T, oxide::half>;
  // Exact: half holds multiples of 1/2 up to 1024 exactly, bfloat16 integers up to 256.
  const std::size_t n = 1 << 14, bins = is_half ? 16 : 128; // 1024 or 128 values per bin
  std::vector<T> exact(n);
  std::vector<double> exact_sum(bins, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const double v =
        is_half ? 0.5 * double((i * 7) % 3) : double((i / bins) % 2 + (i % 3 == 0)); // sums <= 1024 / 256
    exact[i] = T(float(v));
    exact_sum[i % bins] += v;
  }
  auto in = oxide::DeviceBuffer<T>::from_host(stream, exact);
  auto out = oxide::DeviceBuffer<T>::zeroed(stream, bins);
  oxide::prepare(c.ctx, add_to_bins<T>, oxide::LaunchConfig1D::for_elements(n, 256))(stream, in, out);
  expect(c, "add_to_bins<" + name + "> exact", as_float(out.to_host(stream)), exact_sum, 0.0);

  // Rounded: values in [0, 1), 64 into each of 256 bins; every addition rounds to p bits. A sum
  // of m terms rounded after each addition is within (m - 1) * u of the exact one, relative to
  // the sum of the terms (u = 2^-p, the unit roundoff; the real error is far smaller). A lost
  // update of a value exceeds it only in aggregate, which the exact case catches.
  const std::size_t rbins = 256;
  std::vector<T> frac(n);
  std::vector<double> frac_sum(rbins, 0.0);
  std::uint32_t seed = 12345;
  for (std::size_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    frac[i] = T(float(seed >> 8) / float(1u << 24));
    frac_sum[i % rbins] += double(float(frac[i]));
  }
  const double u = is_half ? std::ldexp(1.0, -11) : std::ldexp(1.0, -8);
  auto fin = oxide::DeviceBuffer<T>::from_host(stream, frac);
  auto fout = oxide::DeviceBuffer<T>::zeroed(stream, rbins);
  oxide::prepare(c.ctx, add_to_bins<T>, oxide::LaunchConfig1D::for_elements(n, 256))(stream, fin, fout);
  expect(c, "add_to_bins<" + name + "> rounded", as_float(fout.to_host(stream)), frac_sum,
         double(n / rbins - 1) * u);

  // Shared memory, block scope: 8 bins of 0s and 1s (sums up to 1024 for half, 128 for
  // bfloat16: exact), every block adds its 8 partial sums to the global bins.
  const std::size_t ns = is_half ? 8192 : 1024;
  std::vector<T> ones(ns);
  std::vector<double> shared_sum(8, 0.0);
  for (std::size_t i = 0; i < ns; ++i) {
    ones[i] = T(float((i * 5 / 8) % 2));
    shared_sum[i % 8] += double(float(ones[i]));
  }
  auto shin = oxide::DeviceBuffer<T>::from_host(stream, ones);
  auto sout = oxide::DeviceBuffer<T>::zeroed(stream, 8);
  oxide::prepare(c.ctx, add_through_shared<T>, oxide::LaunchConfig1D::for_elements(ns, kBlock))(stream, shin,
                                                                                                sout);
  expect(c, "add_through_shared<" + name + ">", as_float(sout.to_host(stream)), shared_sum, 0.0);

  // Min, max, exchange, compare_exchange on 64 threads' increments.
  std::vector<T> mixed(n);
  for (std::size_t i = 0; i < n; ++i)
    mixed[i] = T(float(int((i * 37) % 201) - 100)); // -100..100, exact in both types
  auto min_in = oxide::DeviceBuffer<T>::from_host(stream, mixed);
  auto ops =
      oxide::DeviceBuffer<T>::from_host(stream, std::vector<T>{T(1000.0f), T(-1000.0f), T(0.5f), T(0.0f)});
  oxide::prepare(c.ctx, other_ops<T>, oxide::LaunchConfig1D::for_elements(n, 256))(stream, min_in, ops);
  const std::vector<float> got = as_float(ops.to_host(stream));
  expect(c, "other_ops<" + name + "> min/max/cas", {got[0], got[1], got[3]}, {-100.0, 100.0, 64.0}, 0.0);
  ++c.checks;
  if (!(got[2] == std::round(got[2]) && got[2] >= -100 && got[2] <= 100)) {
    std::printf("other_ops<%s> exchange: %g is none of the inputs\n", name.c_str(), got[2]);
    ++c.failures;
  }
}

int main() {
  return lang::run_group("half_atomics", [](lang::Checker &c) {
    check_type<oxide::half>(c);
    check_type<oxide::bfloat16>(c);

    // A device global: 2048 threads add 0.5 (exact up to 1024).
    std::vector<oxide::half> halves(2048, oxide::half(0.5f));
    auto in = oxide::DeviceBuffer<oxide::half>::from_host(c.stream, halves);
    oxide::set_global(c.stream, global_sum, oxide::half(0.0f));
    oxide::prepare(c.ctx, add_to_global, oxide::LaunchConfig1D::for_elements(halves.size(), 256))(c.stream,
                                                                                                  in);
    expect(c, "add_to_global<half>", {float(oxide::get_global(c.stream, global_sum))}, {1024.0}, 0.0);
  });
}
