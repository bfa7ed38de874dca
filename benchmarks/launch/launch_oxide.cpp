// Launch overhead and module load of Oxide kernels, measured against the CUDA driver API on the
// very same cubin, in one process.
//
//   launch_oxide launch   # (a) prepared launches, (b) oxide::unsafe_launch, (c) raw cuLaunchKernel
//   launch_oxide module   # oxide::prepare first/again, cuModuleLoadDataEx of the embedded cubin and PTX
//
// (c) loads the cubin that oxcc embedded in this executable (found through the kernel registry)
// with cuModuleLoadDataEx and launches its CUfunction with cuLaunchKernel on the same CUstream,
// so (a) - (c) is exactly what the Oxide runtime adds per launch. The driver is opened with dlopen
// like the runtime opens it. Without a GPU the program stops with an error, unless
// OXIDE_DEVICE=cpu asks for the CPU simulator: then (a) and (b) run there (simulator numbers,
// labelled backend=simulator) and (c) and the module loads are skipped.
//
// Settings: LAUNCH_N (launches per measurement, 100000),
// LAUNCH_BATCH (256), LAUNCH_REPS (5), LAUNCH_WARMUP (2000), MODULE_REPS (20).
#include <oxide/oxide.hpp>

#include <dlfcn.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "launch_common.hpp"

namespace lb = launchbench;

constexpr std::uint32_t kBlock = 32;
constexpr std::size_t kElements = kBlock; // the add kernel: one block, one element per thread
constexpr std::uint32_t kUnused = 7;      // the empty kernel's argument

/// Does nothing: the launch alone. (One unused scalar parameter: oxcc rejects a contract on a
/// kernel without parameters, "has a contract but no valid 'oxide.params' attribute".)
[[kernel, oxide::launch_contract("domain = 1, block = 32")]] void empty_kernel(std::uint32_t unused) {
  (void)unused;
}

/// c = a + b over 32 elements: three span arguments, a `requires` to evaluate and outputs to
/// check for overlap at every launch.
[[kernel, oxide::launch_contract(
              "domain = 1, block = 32, requires = (a.size() == c.size(), b.size() == c.size())")]] void
add_kernel(oxide::Span<const float> a, oxide::Span<const float> b, oxide::DisjointSpan<float> c) {
  const auto idx = oxide::thread::index_1d();
  if (float *out = c.get_mut(idx))
    *out = a[idx.get()] + b[idx.get()];
}

namespace {

/// The few driver functions the raw side needs, from libcuda.so.1 (already loaded by the runtime).
struct Driver {
  using CUresult = int;
  CUresult (*cuCtxSetCurrent)(void *) = nullptr;
  CUresult (*cuModuleLoadData)(void **, const void *) = nullptr;
  CUresult (*cuModuleLoadDataEx)(void **, const void *, unsigned, int *, void **) = nullptr;
  CUresult (*cuModuleGetFunction)(void **, void *, const char *) = nullptr;
  CUresult (*cuModuleUnload)(void *) = nullptr;
  CUresult (*cuFuncGetAttribute)(int *, int, void *) = nullptr;
  CUresult (*cuLaunchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             void *, void **, void **) = nullptr;
  CUresult (*cuStreamSynchronize)(void *) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char **) = nullptr;

  static Driver open() {
    void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      std::fprintf(stderr, "launch_oxide: dlopen(libcuda.so.1) failed: %s\n", dlerror());
      std::exit(2);
    }
    Driver d;
    resolve(library, d.cuCtxSetCurrent, "cuCtxSetCurrent");
    resolve(library, d.cuModuleLoadData, "cuModuleLoadData");
    resolve(library, d.cuModuleLoadDataEx, "cuModuleLoadDataEx");
    resolve(library, d.cuModuleGetFunction, "cuModuleGetFunction");
    resolve(library, d.cuModuleUnload, "cuModuleUnload");
    resolve(library, d.cuFuncGetAttribute, "cuFuncGetAttribute");
    resolve(library, d.cuLaunchKernel, "cuLaunchKernel");
    resolve(library, d.cuStreamSynchronize, "cuStreamSynchronize");
    resolve(library, d.cuCtxSynchronize, "cuCtxSynchronize");
    resolve(library, d.cuGetErrorName, "cuGetErrorName");
    return d;
  }

  void check(CUresult result, const char *what) const {
    if (result == 0)
      return;
    const char *name = nullptr;
    cuGetErrorName(result, &name);
    std::fprintf(stderr, "launch_oxide: %s failed: %s (%d)\n", what, name ? name : "?", result);
    std::exit(1);
  }

private:
  template <class F> static void resolve(void *library, F &f, const char *name) {
    f = reinterpret_cast<F>(dlsym(library, name));
    if (!f) {
      std::fprintf(stderr, "launch_oxide: libcuda.so.1 has no %s\n", name);
      std::exit(2);
    }
  }
};

/// The host layout of a Span / DisjointSpan kernel parameter: data pointer, element count.
struct RawSpan {
  std::uint64_t data;
  std::size_t size;
};
static_assert(sizeof(RawSpan) == sizeof(oxide::Span<const float>));
static_assert(sizeof(RawSpan) == sizeof(oxide::DisjointSpan<float>));

/// The GPU by default (an error without one); the simulator only when OXIDE_DEVICE asks for it.
oxide::Context make_context() {
  return std::getenv("OXIDE_DEVICE") ? oxide::Context::create() : oxide::Context::create(0);
}

/// The entry name and the code objects oxcc embedded for `kernel`.
struct EmbeddedCode {
  std::string entry;
  const oxide::detail::CodeObject *cubin = nullptr; ///< for the device's exact arch
  const oxide::detail::CodeObject *ptx = nullptr;   ///< the newest PTX not newer than the device
};

template <class... P> EmbeddedCode embedded_code(void (*kernel)(P...), int arch) {
  const auto registered = oxide::detail::find_kernel(reinterpret_cast<const void *>(kernel));
  if (!registered) {
    std::fprintf(stderr, "launch_oxide: kernel not registered\n");
    std::exit(1);
  }
  EmbeddedCode code{registered->entry_name()};
  for (const auto &object : registered->image->code) {
    if (object.kind == oxide::detail::CodeKind::Cubin && static_cast<int>(object.arch) == arch)
      code.cubin = &object;
    if (object.kind == oxide::detail::CodeKind::Ptx && static_cast<int>(object.arch) <= arch &&
        (!code.ptx || object.arch > code.ptx->arch))
      code.ptx = &object;
  }
  return code;
}

const char *backend_of(const oxide::Context &ctx) { return ctx.is_simulator() ? "simulator" : "gpu"; }

void print_device(const oxide::Context &ctx) {
  lb::print_device("oxide", backend_of(ctx), ctx.device().name().c_str());
}

// ---- launch: (a) prepared, (b) unsafe_launch, (c) raw cuLaunchKernel --------------------------------

int launch_mode() {
  oxide::Context ctx = make_context();
  const bool sim = ctx.is_simulator();
  const char *backend = backend_of(ctx);
  print_device(ctx);
  const lb::Settings s = lb::settings(100000);
  oxide::Stream stream = ctx.create_stream();

  std::vector<float> ha(kElements), hb(kElements);
  for (std::size_t i = 0; i < kElements; ++i) {
    ha[i] = static_cast<float>(i);
    hb[i] = 0.5f * static_cast<float>(i);
  }
  auto a = oxide::DeviceBuffer<float>::from_host(stream, ha);
  auto b = oxide::DeviceBuffer<float>::from_host(stream, hb);
  auto c = oxide::DeviceBuffer<float>::zeroed(stream, kElements);
  stream.synchronize();

  const oxide::LaunchConfig1D config{1, kBlock, 0};
  const auto empty_launch = oxide::prepare(ctx, empty_kernel, config);
  const auto add_launch = oxide::prepare(ctx, add_kernel, config);

  // (c): this executable's own cubin, loaded next to the runtime's copy, on the same stream.
  Driver driver{};
  void *raw_empty = nullptr, *raw_add = nullptr, *raw_stream = stream.native_handle();
  RawSpan raw_a{a.device_ptr(), kElements}, raw_b{b.device_ptr(), kElements},
      raw_c{c.device_ptr(), kElements};
  std::array<void *, 3> raw_args{&raw_a, &raw_b, &raw_c};
  std::uint32_t raw_unused = kUnused;
  std::array<void *, 1> raw_empty_args{&raw_unused};
  if (!sim) {
    driver = Driver::open();
    driver.check(driver.cuCtxSetCurrent(ctx.native_handle()), "cuCtxSetCurrent");
    const int arch = ctx.device().compute_capability().as_int();
    const EmbeddedCode empty_code = embedded_code(empty_kernel, arch),
                       add_code = embedded_code(add_kernel, arch);
    const oxide::detail::CodeObject *object = empty_code.cubin ? empty_code.cubin : empty_code.ptx;
    if (!object) {
      std::fprintf(stderr, "launch_oxide: no code for sm_%d embedded\n", arch);
      return 1;
    }
    if (!empty_code.cubin)
      std::fprintf(stderr, "launch_oxide: no sm_%d cubin embedded; the raw side JIT-compiles the PTX\n",
                   arch);
    void *module = nullptr;
    driver.check(driver.cuModuleLoadData(&module, object->bytes.c_str()), "cuModuleLoadData");
    driver.check(driver.cuModuleGetFunction(&raw_empty, module, empty_code.entry.c_str()),
                 "cuModuleGetFunction(empty_kernel)");
    driver.check(driver.cuModuleGetFunction(&raw_add, module, add_code.entry.c_str()),
                 "cuModuleGetFunction(add_kernel)");
  }

  auto sync = [&] { stream.synchronize(); };
  auto raw_sync = [&] { driver.check(driver.cuStreamSynchronize(raw_stream), "cuStreamSynchronize"); };
  auto raw_launch = [&](void *function, void **args) {
    driver.check(driver.cuLaunchKernel(function, 1, 1, 1, kBlock, 1, 1, 0, raw_stream, args, nullptr),
                 "cuLaunchKernel");
  };

  struct Variant {
    const char *variant;
    const char *kernel;
  };
  static constexpr std::array<Variant, 6> variants{{{"oxide_prepared", "empty"},
                                                    {"oxide_unsafe_launch", "empty"},
                                                    {"raw_cuLaunchKernel", "empty"},
                                                    {"oxide_prepared", "add3"},
                                                    {"oxide_unsafe_launch", "add3"},
                                                    {"raw_cuLaunchKernel", "add3"}}};
  auto run = [&](std::size_t v, bool warm) -> lb::Sample {
    auto go = [&](auto &&launch, auto &&wait) {
      if (warm) {
        lb::warm_up(s, launch, wait);
        return lb::Sample{};
      }
      return lb::measure(s, launch, wait);
    };
    switch (v) {
    case 0:
      return go([&] { empty_launch(stream, kUnused); }, sync);
    case 1:
      return go([&] { oxide::unsafe_launch(stream, empty_kernel, config, kUnused); }, sync);
    case 2:
      return go([&] { raw_launch(raw_empty, raw_empty_args.data()); }, raw_sync);
    case 3:
      return go([&] { add_launch(stream, a, b, c); }, sync);
    case 4:
      return go([&] { oxide::unsafe_launch(stream, add_kernel, config, a, b, c); }, sync);
    default:
      return go([&] { raw_launch(raw_add, raw_args.data()); }, raw_sync);
    }
  };
  auto available = [&](std::size_t v) {
    return !sim || std::string_view(variants[v].variant) != "raw_cuLaunchKernel";
  };

  for (std::size_t v = 0; v < variants.size(); ++v)
    if (available(v))
      run(v, true);
  // Each repetition runs every variant once, the order rotated by one each time, so no variant
  // always runs first.
  for (long rep = 0; rep < s.reps; ++rep)
    for (std::size_t k = 0; k < variants.size(); ++k) {
      const std::size_t v = (k + static_cast<std::size_t>(rep)) % variants.size();
      if (available(v))
        lb::print_launch("oxide", backend, variants[v].variant, variants[v].kernel, rep, s, run(v, false));
    }
  if (sim)
    std::printf("RESULT section=note side=oxide backend=simulator text=raw_cuLaunchKernel_needs_a_GPU\n");

  // The add kernel really ran: c = a + b.
  const std::vector<float> hc = c.to_host(stream);
  for (std::size_t i = 0; i < kElements; ++i)
    if (hc[i] != ha[i] + hb[i]) {
      std::fprintf(stderr, "launch_oxide: FAIL: c[%zu] = %g, expected %g\n", i, hc[i], ha[i] + hb[i]);
      return 1;
    }
  return 0;
}

// ---- module: what loading the device code costs ---------------------------------------------------

int module_mode() {
  using Clock = lb::Clock;
  const Clock::time_point t0 = Clock::now();
  oxide::Context ctx = make_context();
  const Clock::time_point t1 = Clock::now();
  // The first prepare() in a fresh context loads the module (cuModuleLoadDataEx of the embedded
  // cubin) and the function (cuModuleGetFunction, attributes); later ones hit the context's caches.
  const oxide::LaunchConfig1D config{1, kBlock, 0};
  const auto first = oxide::prepare(ctx, empty_kernel, config);
  const Clock::time_point t2 = Clock::now();
  const auto again = oxide::prepare(ctx, empty_kernel, config);
  const Clock::time_point t3 = Clock::now();
  const auto other = oxide::prepare(ctx, add_kernel, config); // module loaded, function not yet
  const Clock::time_point t4 = Clock::now();
  oxide::Stream stream = ctx.default_stream();
  first(stream, kUnused);
  stream.synchronize();
  const Clock::time_point t5 = Clock::now();
  (void)again;
  (void)other;
  const char *backend = backend_of(ctx);
  print_device(ctx);
  std::printf("RESULT section=prepare side=oxide backend=%s context_create_us=%.1f prepare_first_us=%.1f "
              "prepare_again_us=%.2f prepare_other_kernel_us=%.1f first_launch_sync_us=%.1f\n",
              backend, lb::us_between(t0, t1), lb::us_between(t1, t2), lb::us_between(t2, t3),
              lb::us_between(t3, t4), lb::us_between(t4, t5));
  // What oxcc embedded in this executable: one entry per code object.
  if (const auto registered = oxide::detail::find_kernel(reinterpret_cast<const void *>(&empty_kernel)))
    for (const auto &object : registered->image->code)
      std::printf("RESULT section=image side=oxide backend=%s code=%s arch=%u bytes=%zu\n", backend,
                  object.kind == oxide::detail::CodeKind::Cubin ? "cubin" : "ptx", object.arch,
                  object.bytes.size());
  if (ctx.is_simulator()) {
    std::printf("RESULT section=note side=oxide backend=simulator text=module_loads_need_a_GPU\n");
    return 0;
  }

  const Driver driver = Driver::open();
  driver.check(driver.cuCtxSetCurrent(ctx.native_handle()), "cuCtxSetCurrent");
  const int arch = ctx.device().compute_capability().as_int();
  const EmbeddedCode code = embedded_code(empty_kernel, arch);
  const char *cache =
      std::getenv("CUDA_CACHE_DISABLE") && std::string_view(std::getenv("CUDA_CACHE_DISABLE")) == "1" ? "off"
                                                                                                      : "on";
  const char *lazy = std::getenv("CUDA_MODULE_LOADING") ? std::getenv("CUDA_MODULE_LOADING") : "default";
  const long reps = lb::env_long("MODULE_REPS", 20);
  struct Load {
    const char *name;
    const oxide::detail::CodeObject *object;
  };
  const std::array<Load, 2> loads{{{"cubin", code.cubin}, {"ptx", code.ptx}}};
  for (long rep = 0; rep < reps; ++rep)
    for (const Load &load : loads) {
      if (!load.object) {
        if (rep == 0)
          std::fprintf(stderr, "launch_oxide: no embedded %s for sm_%d\n", load.name, arch);
        continue;
      }
      // The runtime's own call (runtime/module.cpp): cuModuleLoadDataEx with JIT log buffers.
      std::array<char, 16384> error_log{};
      std::array<char, 4096> info_log{};
      std::array<int, 4> options{5, 6, 3, 4}; // CU_JIT_{ERROR,INFO}_LOG_BUFFER{,_SIZE_BYTES}
      std::array<void *, 4> values{error_log.data(), reinterpret_cast<void *>(error_log.size()),
                                   info_log.data(), reinterpret_cast<void *>(info_log.size())};
      void *module = nullptr, *function = nullptr;
      int max_threads = 0;
      const Clock::time_point l0 = Clock::now();
      driver.check(
          driver.cuModuleLoadDataEx(&module, load.object->bytes.c_str(), 4, options.data(), values.data()),
          "cuModuleLoadDataEx");
      const Clock::time_point l1 = Clock::now();
      driver.check(driver.cuModuleGetFunction(&function, module, code.entry.c_str()), "cuModuleGetFunction");
      driver.check(driver.cuFuncGetAttribute(&max_threads, 0, function), "cuFuncGetAttribute");
      const Clock::time_point l2 = Clock::now();
      std::uint32_t unused = kUnused;
      void *args[] = {&unused};
      driver.check(driver.cuLaunchKernel(function, 1, 1, 1, kBlock, 1, 1, 0, nullptr, args, nullptr),
                   "cuLaunchKernel");
      driver.check(driver.cuCtxSynchronize(), "cuCtxSynchronize");
      const Clock::time_point l3 = Clock::now();
      driver.check(driver.cuModuleUnload(module), "cuModuleUnload");
      std::printf("RESULT section=module side=oxide backend=%s code=%s arch=%u bytes=%zu jit_cache=%s "
                  "module_loading=%s rep=%ld load_us=%.1f get_function_us=%.1f first_launch_sync_us=%.1f\n",
                  backend, load.name, load.object->arch, load.object->bytes.size(), cache, lazy, rep,
                  lb::us_between(l0, l1), lb::us_between(l1, l2), lb::us_between(l2, l3));
    }
  return 0;
}

} // namespace

int main(int argc, char **argv) try {
  const std::string_view mode = argc > 1 ? argv[1] : "launch";
  if (mode == "launch")
    return launch_mode();
  if (mode == "module")
    return module_mode();
  std::fprintf(stderr, "usage: %s [launch|module]\n", argv[0]);
  return 2;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "launch_oxide: %s\n", e.what());
  if (e.kind() == oxide::ErrorKind::NoDevice)
    std::fprintf(stderr, "launch_oxide: no CUDA GPU here; OXIDE_DEVICE=cpu runs the Oxide launches on the "
                         "CPU simulator (simulator numbers, not GPU ones)\n");
  return 2;
}
