// An nvcc-built program that launches Oxide kernels from libkernels.so on its own CUDA stream,
// with its own cudaMalloc'd memory, beside its own CUDA kernels; records them in a CUDA graph
// with cudaStreamBeginCapture; shows a contract error as a status and message; and times the
// host cost of an Oxide launch against a bare <<<>>> launch of the same work. Prints PASS.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "kernels.h" // python3 -m oxide.header libkernels.so -o kernels.h

#define CHECK_CUDA(call)                                                                                     \
  do {                                                                                                       \
    cudaError_t e_ = (call);                                                                                 \
    if (e_ != cudaSuccess) {                                                                                 \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                                       \
      std::exit(1);                                                                                          \
    }                                                                                                        \
  } while (0)

#define CHECK_OXIDE(call)                                                                                    \
  do {                                                                                                       \
    int s_ = (call);                                                                                         \
    if (s_ != OXIDE_OK) {                                                                                    \
      std::fprintf(stderr, "%s: %s: %s\n", #call, oxide_status_name(s_), oxide_last_error());                \
      std::exit(1);                                                                                          \
    }                                                                                                        \
  } while (0)

__global__ void fill(float *x, float value, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = value + i % 7;
}

__global__ void native_add(const float *a, const float *b, float *c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

int main() {
  const int n = 1 << 20;
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float *a, *b, *c;
  CHECK_CUDA(cudaMalloc(&a, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&b, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&c, n * sizeof(float)));
  int device = 0;
  CHECK_CUDA(cudaGetDevice(&device));

  oxide_launch_config config = {};
  config.device = device;
  config.stream = stream; // the caller's stream: ordered after fill, before the copy

  fill<<<(n + 255) / 256, 256, 0, stream>>>(a, 1.0f, n);
  fill<<<(n + 255) / 256, 256, 0, stream>>>(b, 2.0f, n);
  CHECK_OXIDE(kernels_add(a, n, b, n, c, n, &config));
  CHECK_OXIDE(kernels_axpy_f32(0.5f, c, n, a, n, b, n, &config)); // b = 0.5 * c + a
  std::vector<float> host(n);
  CHECK_CUDA(cudaMemcpyAsync(host.data(), b, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  for (int i = 0; i < n; ++i) {
    const float ai = 1.0f + i % 7, bi = 2.0f + i % 7;
    if (host[i] != 0.5f * (ai + bi) + ai) {
      std::printf("FAIL: b[%d] = %g\n", i, host[i]);
      return 1;
    }
  }
  std::printf("nvcc_app: add and axpy on the program's own stream and memory match\n");

  // The contract is checked on borrowed memory too: nothing is enqueued.
  int status = kernels_add(a, n, b, n / 2, c, n, &config);
  std::printf("nvcc_app: a short input: %s: %s\n", oxide_status_name(status), oxide_last_error());
  if (status == OXIDE_OK)
    return 1;
  status = kernels_add(a, n, b, n, a, n, &config);
  std::printf("nvcc_app: an output aliasing an input: %s: %s\n", oxide_status_name(status),
              oxide_last_error());
  if (status == OXIDE_OK)
    return 1;

  // A CUDA graph captured around Oxide launches and the program's own kernels.
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  fill<<<(n + 255) / 256, 256, 0, stream>>>(a, 3.0f, n);
  if (kernels_add(a, n, b, 0, c, 0, &config) == OXIDE_OK) { // refused inside a capture too
    std::printf("FAIL: a launch that breaks its contract was accepted\n");
    return 1;
  }
  CHECK_OXIDE(kernels_add(a, n, b, n, c, n, &config));
  CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
  CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int i = 0; i < 3; ++i)
    CHECK_CUDA(cudaGraphLaunch(exec, stream));
  CHECK_CUDA(cudaMemcpyAsync(host.data(), c, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  size_t nodes = 0;
  CHECK_CUDA(cudaGraphGetNodes(graph, nullptr, &nodes));
  for (int i = 0; i < n; ++i) {
    const float ai = 3.0f + i % 7, bi = 0.5f * (1.0f + i % 7 + 2.0f + i % 7) + 1.0f + i % 7;
    if (host[i] != ai + bi) {
      std::printf("FAIL: graph c[%d] = %g, expected %g\n", i, host[i], ai + bi);
      return 1;
    }
  }
  std::printf("nvcc_app: a graph of %zu nodes (captured with cudaStreamBeginCapture) replays correctly\n",
              nodes);

  // Host cost per launch: Oxide's C ABI (argument checks, contract) against <<<>>>.
  const int small = 4096, launches = 20000;
  auto time_host = [&](auto &&launch) {
    double best = 1e30;
    for (int round = 0; round < 5; ++round) {
      CHECK_CUDA(cudaStreamSynchronize(stream));
      const auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < launches / 20; ++i) // few enough that the launch queue never fills
        launch();
      const auto stop = std::chrono::steady_clock::now();
      best =
          std::min(best, std::chrono::duration<double, std::micro>(stop - start).count() / (launches / 20));
    }
    return best;
  };
  const double oxide_us = time_host([&] { CHECK_OXIDE(kernels_add(a, small, b, small, c, small, &config)); });
  const double native_us = time_host([&] { native_add<<<small / 256, 256, 0, stream>>>(a, b, c, small); });
  CHECK_CUDA(cudaStreamSynchronize(stream));
  std::printf(
      "nvcc_app: host time per launch: Oxide C ABI %.2f us, nvcc <<<>>> %.2f us (difference %.2f us)\n",
      oxide_us, native_us, oxide_us - native_us);

  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(graph));
  CHECK_CUDA(cudaFree(a));
  CHECK_CUDA(cudaFree(b));
  CHECK_CUDA(cudaFree(c));
  CHECK_CUDA(cudaStreamDestroy(stream));
  std::printf("PASS\n");
  return 0;
}
