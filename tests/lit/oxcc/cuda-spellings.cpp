// CUDA's spellings in a ported file are refused at their use with the Oxide equivalent
// (include/oxide/detail/cuda_spellings.def), not with "use of undeclared identifier" and clang's
// typo corrections (which suggested __sync_swap for __syncwarp). A porting shim of the user's
// own with a CUDA name is called as usual: -DOK builds and runs the file without the CUDA uses.
// RUN: not oxcc build %s -o %t 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: oxcc build %s -DOK -o %t.ok && env OXIDE_DEVICE=cpu %t.ok | FileCheck %s --check-prefix=OK
// OXIDE_NO_CUDA_SPELLINGS (for a host file that includes CUDA's own headers) turns them off:
// RUN: not oxcc check %s -DOXIDE_NO_CUDA_SPELLINGS 2>&1 | FileCheck %s --check-prefix=OFF
// OFF-NOT: is CUDA's
// OFF: unknown type name '__global__'
// OFF: use of undeclared identifier 'cudaMalloc'
#include <oxide/oxide.hpp>

#include <cstdio>
#include <vector>

// A shim of the user's own, named like CUDA's: the better match, never refused.
float atomicAdd(oxide::AtomicSpan<float> sums, float v) { return sums.fetch_add(0, v); }

// clang-format off
#ifndef OK
// CHECK: cuda-spellings.cpp:[[@LINE+2]]:1: error: '__global__' is unavailable: __global__ is CUDA's; in Oxide use {{\[\[}}kernel, oxide::launch_contract("domain = 1")]] on the function
// CHECK: cuda-spellings.cpp:[[@LINE+1]]:17: error: '__launch_bounds__' is unavailable: {{.*}}oxide::launch_contract("domain = 1, block = 256")
__global__ void __launch_bounds__(256) ported(float *out, const float *in) {
  // CHECK: cuda-spellings.cpp:[[@LINE+1]]:3: error: '__shared__' is unavailable: __shared__ is CUDA's; in Oxide use auto tile = oxide::shared_array<T, N>()
  __shared__ float tile[256];
  // CHECK: cuda-spellings.cpp:[[@LINE+3]]:18: error: 'blockIdx' is unavailable: blockIdx is CUDA's; in Oxide use oxide::block_idx()
  // CHECK: cuda-spellings.cpp:[[@LINE+2]]:31: error: 'blockDim' is unavailable: {{.*}} oxide::block_dim()
  // CHECK: cuda-spellings.cpp:[[@LINE+1]]:44: error: 'threadIdx' is unavailable: {{.*}}oxide::thread_idx(){{.*}}oxide::thread::index_1d()
  const int i = (blockIdx.x * blockDim.x + threadIdx.x);
  // CHECK: cuda-spellings.cpp:[[@LINE+1]]:13: error: '__ldg' is unavailable: {{.*}}span.load<oxide::cache::read_only>(i)
  tile[0] = __ldg(&in[i]);
  // CHECK: cuda-spellings.cpp:[[@LINE+1]]:3: error: '__syncthreads' is unavailable: __syncthreads is CUDA's; in Oxide use oxide::sync_threads()
  __syncthreads();
  // CHECK: cuda-spellings.cpp:[[@LINE+1]]:3: error: '__syncwarp' is unavailable: __syncwarp is CUDA's; in Oxide use oxide::warp::sync(mask)
  __syncwarp();
  // CHECK: cuda-spellings.cpp:[[@LINE+1]]:13: error: '__shfl_down_sync' is unavailable: {{.*}}oxide::warp::shuffle_down(value, delta, mask)
  float v = __shfl_down_sync(0xffffffffu, tile[0], 16);
  // CHECK: cuda-spellings.cpp:[[@LINE+1]]:3: error: 'atomicAdd' is unavailable: atomicAdd is CUDA's; in Oxide use oxide::AtomicRef<T>(x).fetch_add(v)
  atomicAdd(out, v);
}

void host_side() {
  float *d = nullptr;
  // CHECK: cuda-spellings.cpp:[[@LINE+1]]:3: error: 'cudaMalloc' is unavailable: {{.*}}oxide::DeviceBuffer<T>::uninitialized(stream, n)
  cudaMalloc(&d, 1024);
  // CHECK: cuda-spellings.cpp:[[@LINE+2]]:26: error: 'cudaMemcpyHostToDevice' is unavailable: {{.*}}buffer.copy_from_host(stream, host)
  // CHECK: cuda-spellings.cpp:[[@LINE+1]]:3: error: 'cudaMemcpy' is unavailable:
  cudaMemcpy(d, d, 1024, cudaMemcpyHostToDevice);
  // CHECK: cuda-spellings.cpp:[[@LINE+1]]:3: error: 'cudaStream_t' is unavailable: {{.*}}oxide::Stream (ctx.create_stream())
  cudaStream_t stream{};
  (void)stream;
}
// CHECK: 15 errors generated.
#endif
// clang-format on

[[kernel, oxide::launch_contract("domain = 1")]] void sum(oxide::Span<const float> in,
                                                          oxide::AtomicSpan<float> sums) {
  const std::size_t i = oxide::thread::index_1d().get();
  if (i < in.size())
    atomicAdd(sums, in[i]); // the shim above
}

int main() {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  auto in = oxide::DeviceBuffer<float>::from_host(stream, std::vector<float>(100, 0.5f));
  auto sums = oxide::DeviceBuffer<float>::zeroed(stream, 1);
  oxide::prepare(ctx, sum, oxide::LaunchConfig1D::for_elements(100))(stream, in, sums);
  // OK: sum = 50
  std::printf("sum = %g\n", sums.to_host(stream)[0]);
}
