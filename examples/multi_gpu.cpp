// multi_gpu: one vecadd of 2^28 floats (or argv[1]) split over every GPU, one chunk per device,
// then a sum of each chunk's result on its own device. Each device has its own context, stream,
// buffers and prepared kernels; the host checks every element and the sum, and prints each
// device's bandwidth and the total with all devices running at once. With two or more devices it
// also copies device 1's result to device 0 (peer-to-peer when the devices allow it, else staged
// through pinned host memory) and checks the copy. Without a GPU, or with OXIDE_DEVICE set, it
// runs on the one context Context::create() gives (the CPU simulator when there is no GPU).
//
//   oxcc run examples/multi_gpu.cpp [elements]
#include <oxide/oxide.hpp>

#include "problem_size.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <span>
#include <string>
#include <vector>

[[kernel, oxide::launch_contract(
              "domain = 1, block = 256, requires = (a.size() == c.size(), b.size() == c.size())")]] void
vecadd(oxide::Span<const float> a, oxide::Span<const float> b, oxide::DisjointSpan<float> c) {
  const auto idx = oxide::thread::index_1d(); // this thread's own index: the only way to write c
  if (float *out = c.get_mut(idx))            // nullptr past the end of c
    *out = a[idx.get()] + b[idx.get()];
}

// Thread i adds in[i], in[i + P], in[i + 2P]... (P = partial.size(), so neighbouring threads read
// neighbouring elements) and writes the sum at its own index; the host adds the P partial sums.
[[kernel, oxide::launch_contract("domain = 1, block = 256")]] void
partial_sums(oxide::Span<const float> in, oxide::DisjointSpan<float> partial) {
  const auto idx = oxide::thread::index_1d();
  if (float *out = partial.get_mut(idx)) {
    float sum = 0.0f;
    for (std::size_t i = idx.get(); i < in.size(); i += partial.size())
      sum += in[i];
    *out = sum;
  }
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Cheap deterministic inputs in [-1, 1): 2^28 values from a random engine take seconds.
float input_a(std::size_t i) { return static_cast<float>((i * 2654435761u) % 2048) / 1024.0f - 1.0f; }
float input_b(std::size_t i) { return static_cast<float>((i * 40503u + 17) % 4096) / 2048.0f - 1.0f; }

struct DeviceWork {
  oxide::Context context;
  oxide::Stream stream;
  std::size_t begin = 0, count = 0; // this device's chunk of the whole vector
  oxide::DeviceBuffer<float> a, b, c, partial;
  std::vector<float> poison; // NaN: an element the kernel never wrote cannot pass the check
  oxide::PreparedLaunch<oxide::Span<const float>, oxide::Span<const float>, oxide::DisjointSpan<float>> add;
  oxide::PreparedLaunch<oxide::Span<const float>, oxide::DisjointSpan<float>> reduce;
};

/// Every GPU, unless OXIDE_DEVICE picks one device (or the simulator) or there is none.
std::vector<oxide::Context> open_devices() {
  std::vector<oxide::Context> contexts;
  if (const int gpus = oxide::Device::count(); gpus > 0 && !std::getenv("OXIDE_DEVICE"))
    for (int ordinal = 0; ordinal < gpus; ++ordinal)
      contexts.push_back(oxide::Context::create(ordinal));
  else
    contexts.push_back(oxide::Context::create());
  return contexts;
}

/// Device `d` of `devices`: its chunk of `ha` and `hb`, context, stream, buffers and prepared
/// kernels.
DeviceWork prepare_device(oxide::Context ctx, std::size_t d, std::size_t devices,
                          const std::vector<float> &ha, const std::vector<float> &hb) {
  const std::size_t n = ha.size(), begin = n * d / devices, end = n * (d + 1) / devices;
  oxide::Stream stream = ctx.create_stream();
  const std::size_t count = end - begin,
                    partials = std::max<std::size_t>(1, std::min<std::size_t>(count, 256 * 1024));
  auto a = oxide::DeviceBuffer<float>::from_host(stream, std::span<const float>(ha).subspan(begin, count));
  auto b = oxide::DeviceBuffer<float>::from_host(stream, std::span<const float>(hb).subspan(begin, count));
  std::vector<float> poison(count, std::numeric_limits<float>::quiet_NaN());
  auto c = oxide::DeviceBuffer<float>::from_host(stream, poison);
  auto partial = oxide::DeviceBuffer<float>::from_host(
      stream, std::vector<float>(partials, std::numeric_limits<float>::quiet_NaN()));
  auto add = oxide::prepare(ctx, vecadd, oxide::LaunchConfig1D::for_elements(count));
  auto reduce = oxide::prepare(ctx, partial_sums, oxide::LaunchConfig1D::for_elements(partials));
  return DeviceWork{std::move(ctx), std::move(stream),  begin,
                    count,          std::move(a),       std::move(b),
                    std::move(c),   std::move(partial), std::move(poison),
                    std::move(add), std::move(reduce)};
}

double bytes_of(const DeviceWork &w) { return 3.0 * sizeof(float) * static_cast<double>(w.count); }

/// Each device alone: a warm-up launch, then `reps` timed launches and a synchronize.
void time_each(std::vector<DeviceWork> &work, int reps) {
  for (std::size_t d = 0; d < work.size(); ++d) {
    DeviceWork &w = work[d];
    w.add(w.stream, w.a, w.b, w.c);
    w.stream.synchronize();
    const auto start = Clock::now();
    for (int r = 0; r < reps; ++r)
      w.add(w.stream, w.a, w.b, w.c);
    w.stream.synchronize();
    const double s = seconds_since(start);
    std::printf("device %zu (%s): %zu elements, %.1f GB/s\n", d, w.context.device().name().c_str(), w.count,
                reps * bytes_of(w) / s / 1e9);
  }
}

/// All devices at once, on freshly poisoned outputs: launch everywhere, then wait for all.
void time_all(std::vector<DeviceWork> &work, int reps, std::size_t n) {
  for (DeviceWork &w : work) {
    w.c.copy_from_host(w.stream, w.poison);
    w.stream.synchronize();
  }
  double total_bytes = 0.0;
  const auto start = Clock::now();
  for (int r = 0; r < reps; ++r)
    for (DeviceWork &w : work)
      w.add(w.stream, w.a, w.b, w.c);
  for (DeviceWork &w : work) {
    w.stream.synchronize();
    total_bytes += reps * bytes_of(w);
  }
  const double total_seconds = seconds_since(start);
  std::printf("all %zu device(s): %zu elements, %.1f GB/s\n", work.size(), n,
              total_bytes / total_seconds / 1e9);
}

/// Gathers and checks every element, and the sum of the partial sums against a double-precision
/// host sum; false (after saying why) if anything is wrong.
bool check_results(std::vector<DeviceWork> &work, const std::vector<float> &ha,
                   const std::vector<float> &hb) {
  std::size_t wrong = 0;
  double device_sum = 0.0, host_sum = 0.0, magnitude = 0.0;
  for (DeviceWork &w : work) {
    const std::vector<float> hc = w.c.to_host(w.stream);
    for (std::size_t i = 0; i < w.count; ++i) {
      const std::size_t g = w.begin + i;
      const float expected = ha[g] + hb[g];
      if (hc[i] != expected && wrong++ < 5)
        std::printf("mismatch at %zu: got %g, expected %g\n", g, hc[i], expected);
      host_sum += expected;
      magnitude += std::abs(expected);
    }
    for (const float p : w.partial.to_host(w.stream))
      device_sum += p;
  }
  if (wrong != 0) {
    std::printf("FAIL: %zu of %zu elements wrong\n", wrong, ha.size());
    return false;
  }
  // Float partial sums in another order differ in the last bits: allow for that, relative to the
  // sum of magnitudes. (NaN, from a partial sum never written, fails the comparison.)
  if (!(std::abs(device_sum - host_sum) <= 1e-5 * magnitude + 1e-3)) {
    std::printf("FAIL: the sum is %.6f, expected %.6f\n", device_sum, host_sum);
    return false;
  }
  std::printf("sum: %.6f (host %.6f)\n", device_sum, host_sum);
  return true;
}

/// Device 1's result copied to device 0: peer-to-peer where the devices allow it. False (after
/// saying why) if the copy is wrong.
bool copy_to_device0(std::vector<DeviceWork> &work, const std::vector<float> &ha,
                     const std::vector<float> &hb) {
  DeviceWork &to = work[0], &from = work[1];
  const bool peer = to.context.can_access_peer(from.context) && from.context.can_access_peer(to.context);
  if (peer) {
    to.context.enable_peer_access(from.context);
    from.context.enable_peer_access(to.context);
  }
  auto copy = oxide::DeviceBuffer<float>::uninitialized(to.stream, from.count);
  copy.copy_from(to.stream, from.c); // warm-up (first use of the peer mapping)
  const auto copy_start = Clock::now();
  copy.copy_from(to.stream, from.c); // complete on return
  const double copy_seconds = seconds_since(copy_start);
  const std::vector<float> copied = copy.to_host(to.stream);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < from.count; ++i)
    if (copied[i] != ha[from.begin + i] + hb[from.begin + i] && wrong++ < 5)
      std::printf("copy mismatch at %zu\n", i);
  if (wrong != 0) {
    std::printf("FAIL: the copy from device 1 to device 0 is wrong\n");
    return false;
  }
  std::printf("copy device 1 -> device 0 (%s): %zu elements, %.1f GB/s\n",
              peer ? "peer-to-peer" : "staged through pinned host memory", from.count,
              sizeof(float) * static_cast<double>(from.count) / copy_seconds / 1e9);
  return true;
}

} // namespace

int main(int argc, char **argv) try {
  std::vector<oxide::Context> contexts = open_devices();
  const std::size_t devices = contexts.size();
  const bool small = example::small_problem(contexts.front()); // the simulator, compute-sanitizer
  // 1 GiB per vector on GPUs; the simulator's threads are fibers on a few cores, so it (and a
  // compute-sanitizer run) gets a size it runs in about a second.
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : std::size_t{1} << (small ? 20 : 28);
  if (n == 0) {
    std::fprintf(stderr, "usage: multi_gpu [elements > 0]\n");
    return 2;
  }
  const int reps = small ? 1 : 10; // timed launches per measurement

  std::vector<float> ha(n), hb(n);
  for (std::size_t i = 0; i < n; ++i) {
    ha[i] = input_a(i);
    hb[i] = input_b(i);
  }
  std::vector<DeviceWork> work;
  work.reserve(devices);
  for (std::size_t d = 0; d < devices; ++d)
    work.push_back(prepare_device(std::move(contexts[d]), d, devices, ha, hb));

  time_each(work, reps);
  time_all(work, reps, n);
  // The sum of each chunk of c, on its device; the host adds the partial sums.
  for (DeviceWork &w : work)
    w.reduce(w.stream, w.c, w.partial);
  if (!check_results(work, ha, hb))
    return 1;
  if (devices >= 2 && !copy_to_device0(work, ha, hb))
    return 1;

  std::printf("multi_gpu: %zu elements on %zu device(s), first %s\nPASS\n", n, devices,
              work.front().context.device().name().c_str());
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
