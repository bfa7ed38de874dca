// Probe (not a pair): times row-softmax kernels given as cubins, so that hand-edited PTX (one
// change at a time to what oxcc or nvcc wrote) can be compared in one run on the GPU machine,
// which has no LLVM. Each kernel takes (rows, cols, input, output) for 262144 rows of 1024
// floats, one block of 1024 threads per row, and is checked against a CPU softmax on every 61st
// row after its output was poisoned.
//
//   nvcc -O3 -arch=sm_90 -std=c++17 ptx_ab.cu -o ptx_ab -lcuda
//   ptxas -arch=sm_90 -O3 variant.ptx -o variant.cubin
//   ptx_ab variant.cubin:ENTRY:FORM[:LABEL] ...
//
// FORM is how the kernel takes its pointers: `ptr` (const float *, float *), `span` (oxide::Span
// {data, size} for both) or `span2d` (an oxide::Span input, an oxide::DisjointSpan2D {data, width,
// height} output).
#include <cuda.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

void check(CUresult r, const char *what) {
  if (r == CUDA_SUCCESS)
    return;
  const char *text = nullptr;
  cuGetErrorString(r, &text);
  std::fprintf(stderr, "ptx_ab: %s: %s\n", what, text ? text : "unknown error");
  std::exit(1);
}

struct Span {
  CUdeviceptr data;
  std::size_t size;
};
struct Span2D {
  CUdeviceptr data;
  std::size_t width, height;
};

struct Variant {
  std::string cubin, entry, form, label;
};

Variant parse(const std::string &arg) {
  Variant v;
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t colon; (colon = arg.find(':', start)) != std::string::npos; start = colon + 1)
    parts.push_back(arg.substr(start, colon - start));
  parts.push_back(arg.substr(start));
  if (parts.size() < 3 || (parts[2] != "ptr" && parts[2] != "span" && parts[2] != "span2d")) {
    std::fprintf(stderr, "ptx_ab: '%s' is not CUBIN:ENTRY:FORM[:LABEL] (FORM ptr, span or span2d)\n",
                 arg.c_str());
    std::exit(2);
  }
  v.cubin = parts[0];
  v.entry = parts[1];
  v.form = parts[2];
  v.label = parts.size() > 3 ? parts[3] : parts[1];
  return v;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: ptx_ab CUBIN:ENTRY:FORM[:LABEL]...\n");
    return 2;
  }
  constexpr unsigned kCols = 1024, kRows = 262144;
  constexpr std::size_t n = std::size_t{kRows} * kCols;
  check(cuInit(0), "cuInit");
  CUdevice dev;
  check(cuDeviceGet(&dev, 0), "cuDeviceGet");
  CUcontext ctx;
  check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");

  std::vector<float> host(n);
  std::mt19937 rng(6);
  std::uniform_real_distribution<float> dist(-8.0f, 8.0f);
  for (float &x : host)
    x = dist(rng);
  CUdeviceptr in, out;
  check(cuMemAlloc(&in, n * sizeof(float)), "cuMemAlloc");
  check(cuMemAlloc(&out, n * sizeof(float)), "cuMemAlloc");
  check(cuMemcpyHtoD(in, host.data(), n * sizeof(float)), "cuMemcpyHtoD");
  CUevent start, stop;
  check(cuEventCreate(&start, 0), "cuEventCreate");
  check(cuEventCreate(&stop, 0), "cuEventCreate");

  for (int a = 1; a < argc; ++a) {
    const Variant v = parse(argv[a]);
    CUmodule module;
    check(cuModuleLoad(&module, v.cubin.c_str()), v.cubin.c_str());
    CUfunction fn;
    check(cuModuleGetFunction(&fn, module, v.entry.c_str()), v.entry.c_str());
    unsigned rows = kRows, cols = kCols;
    CUdeviceptr inPtr = in, outPtr = out;
    Span inSpan{in, n}, outSpan{out, n};
    Span2D out2d{out, kCols, kRows};
    void *params[4] = {&rows, &cols, nullptr, nullptr};
    if (v.form == "ptr") {
      params[2] = &inPtr;
      params[3] = &outPtr;
    } else {
      params[2] = &inSpan;
      params[3] = v.form == "span" ? static_cast<void *>(&outSpan) : static_cast<void *>(&out2d);
    }
    auto launch = [&] {
      check(cuLaunchKernel(fn, kRows, 1, 1, kCols, 1, 1, 0, nullptr, params, nullptr), "launch");
    };
    check(cuMemsetD32(out, 0x7fc00000u, n), "poison"); // NaN everywhere
    for (int w = 0; w < 3; ++w)
      launch();
    std::vector<float> times;
    for (int r = 0; r < 20; ++r) {
      check(cuEventRecord(start, nullptr), "record");
      launch();
      check(cuEventRecord(stop, nullptr), "record");
      check(cuEventSynchronize(stop), "sync");
      float ms = 0;
      check(cuEventElapsedTime(&ms, start, stop), "elapsed");
      times.push_back(ms);
    }
    std::sort(times.begin(), times.end());
    std::vector<float> got(n);
    check(cuMemsetD32(out, 0x7fc00000u, n), "poison");
    launch();
    check(cuMemcpyDtoH(got.data(), out, n * sizeof(float)), "cuMemcpyDtoH");
    std::size_t bad = 0;
    for (std::size_t r = 0; r < kRows; r += 61) {
      const float *x = &host[r * kCols];
      const double m = *std::max_element(x, x + kCols);
      double sum = 0;
      for (unsigned c = 0; c < kCols; ++c)
        sum += std::exp(x[c] - m);
      for (unsigned c = 0; c < kCols; ++c) {
        const double want = std::exp(x[c] - m) / sum, g = got[r * kCols + c];
        if (!(std::fabs(g - want) <= 1e-5 * want + 1e-9))
          ++bad;
      }
    }
    std::printf("RESULT %-28s median %.4f ms  min %.4f ms  %s\n", v.label.c_str(), times[times.size() / 2],
                times.front(), bad == 0 ? "PASS" : "FAIL");
    check(cuModuleUnload(module), "cuModuleUnload");
  }
  return 0;
}
