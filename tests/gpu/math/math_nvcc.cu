// The nvcc twin of math_oxide.cpp: the same inputs and functions, compiled with nvcc's defaults
// (nvcc -O3 -arch=sm_90); writes the float then the double results to the file named by argv[1].
#include <cstdio>
#include <vector>

#include "math_inputs.hpp"

using namespace math_test;

/// CUDA's intrinsic functions in float; in double the accurate ones (math_oxide.cpp's evaluate_fast).
__device__ float evaluate_fast(int f, float a, float b) {
  switch (f) {
  case FastExp:
    return __expf(a);
  case FastExp10:
    return __exp10f(a);
  case FastExp2: { // exp2f under --use_fast_math
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(a));
    return r;
  }
  case FastLog:
    return __logf(a);
  case FastLog2:
    return __log2f(a);
  case FastLog10:
    return __log10f(a);
  case FastSin:
    return __sinf(a);
  case FastCos:
    return __cosf(a);
  case FastTan:
    return __tanf(a);
  case FastPow:
    return __powf(a, b);
  case FastDiv:
    return __fdividef(a, b);
  case FastRsqrt:
    return rsqrtf(a);
  default:
    return __saturatef(a);
  }
}
__device__ double evaluate_fast(int f, double a, double b) {
  switch (f) {
  case FastExp:
    return exp(a);
  case FastExp10:
    return pow(10.0, a);
  case FastExp2:
    return exp2(a);
  case FastLog:
    return log(a);
  case FastLog2:
    return log2(a);
  case FastLog10:
    return log10(a);
  case FastSin:
    return sin(a);
  case FastCos:
    return cos(a);
  case FastTan:
    return tan(a);
  case FastPow:
    return pow(a, b);
  case FastDiv:
    return a / b;
  case FastRsqrt:
    return rsqrt(a);
  default:
    return fmin(fmax(a, 0.0), 1.0);
  }
}

template <class T> __device__ T evaluate(int f, T a, T b) {
  switch (f) {
  case Sqrt:
    return sqrt(a);
  case Div:
    return a / b;
  case Exp:
    return exp(a);
  case Exp2:
    return exp2(a);
  case Log:
    return log(a);
  case Log2:
    return log2(a);
  case Sin:
    return sin(a);
  case Cos:
    return cos(a);
  case Tan:
    return tan(a);
  case Pow:
    return pow(a, b);
  case Tanh:
    return tanh(a);
  case Erf:
    return erf(a);
  case Atan2:
    return atan2(a, b);
  case Cbrt:
    return cbrt(a);
  default:
    return evaluate_fast(f, a, b);
  }
}

template <class T> __global__ void eval(int f, const T *a, const T *b, T *out, std::size_t n) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = evaluate(f, a[i], b[i]);
}

template <class T> std::vector<T> run(int f, const std::vector<T> &a, const std::vector<T> &b) {
  const std::size_t n = a.size();
  T *da, *db, *dout;
  cudaMalloc(&da, n * sizeof(T));
  cudaMalloc(&db, n * sizeof(T));
  cudaMalloc(&dout, n * sizeof(T));
  cudaMemcpy(da, a.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  eval<<<(n + 255) / 256, 256>>>(f, da, db, dout, n);
  std::vector<T> out(n);
  cudaMemcpy(out.data(), dout, n * sizeof(T), cudaMemcpyDeviceToHost);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dout);
  return out;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: math_nvcc OUTPUT\n");
    return 2;
  }
  const std::size_t n = kCount;
  std::vector<float> all_float;
  std::vector<double> all_double;
  for (int f = 0; f < kFunctions; ++f) {
    const auto [af, bf, ad, bd] = make_inputs(f, n);
    const std::vector<float> rf = run(f, af, bf);
    const std::vector<double> rd = run(f, ad, bd);
    all_float.insert(all_float.end(), rf.begin(), rf.end());
    all_double.insert(all_double.end(), rd.begin(), rd.end());
  }
  if (cudaGetLastError() != cudaSuccess) {
    std::fprintf(stderr, "math_nvcc: CUDA error\n");
    return 1;
  }
  FILE *file = std::fopen(argv[1], "wb");
  if (!file || std::fwrite(all_float.data(), sizeof(float), all_float.size(), file) != all_float.size() ||
      std::fwrite(all_double.data(), sizeof(double), all_double.size(), file) != all_double.size()) {
    std::fprintf(stderr, "math_nvcc: cannot write %s\n", argv[1]);
    return 1;
  }
  std::fclose(file);
  return 0;
}
