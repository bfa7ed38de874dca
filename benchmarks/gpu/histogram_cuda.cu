// The CUDA C++ twin of histogram_oxide.cpp: 32-bit words in a grid-stride loop, shared-memory
// bins with block-scope atomics, one device-scope atomic per bin and block into the call's slot;
// and histogram_packed: per-thread 8-bit counters packed 4 to a shared word, flushed into the
// block's 32-bit bins every 224 bytes.
#include "bench_cuda.cuh"

#include <cstdint>
#include <cstdio>
#include <string_view>

constexpr unsigned kBins = 256;
constexpr unsigned kBlock = 256;

// histogram_packed's shape (histogram_oxide.cpp): blocks of 128 with 33 KiB of shared memory, 6 an
// SM; 56 words (224 bytes) a thread between flushes, so an 8-bit counter never passes 224.
constexpr unsigned kPackedBlock = 128;
constexpr unsigned kPackedBlocksPerSm = 6;
constexpr unsigned kCounterWords = kBins / 4;
constexpr unsigned kWordsPerFlush = 224 / 4;
constexpr unsigned kBatch = 8; // words loaded before they are counted
static_assert(kWordsPerFlush % kBatch == 0);

__global__ void __launch_bounds__(256)
    histogram(const uint32_t *__restrict__ words, size_t n, uint32_t *bins, unsigned slot) {
  __shared__ uint32_t local[kBins];
  const unsigned t = threadIdx.x;
  local[t] = 0;
  __syncthreads();
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const uint32_t w = words[i];
    for (unsigned byte = 0; byte < 4; ++byte)
      atomicAdd_block(&local[(w >> (8 * byte)) & 0xff], 1u);
  }
  __syncthreads();
  if (const uint32_t count = local[t])
    atomicAdd(&bins[size_t{slot} * kBins + t], count);
}

// Twin of histogram_lanes: 32 lane-private copies of the bins, bin b of lane l at b * 32 + l,
// a rotated merge and one device-scope atomic per bin.
__global__ void __launch_bounds__(256)
    histogram_lanes(const uint32_t *__restrict__ words, size_t n, uint32_t *bins, unsigned slot) {
  __shared__ uint32_t local[kBins * 32];
  const unsigned t = threadIdx.x;
  const unsigned lane = t % 32;
  for (unsigned k = t; k < kBins * 32; k += kBlock)
    local[k] = 0;
  __syncthreads();
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const uint32_t w = words[i];
    for (unsigned byte = 0; byte < 4; ++byte)
      atomicAdd_block(&local[((w >> (8 * byte)) & 0xff) * 32 + lane], 1u);
  }
  __syncthreads();
  uint32_t count = 0;
  for (unsigned l = 0; l < 32; ++l)
    count += local[t * 32 + (l + t) % 32];
  if (count != 0)
    atomicAdd(&bins[size_t{slot} * kBins + t], count);
}

// Twin of histogram_packed: bin b of thread t is byte b % 4 of counters[(b / 4) * 128 + t]; the
// blocks take chunks of 128 * 56 words in turn, a whole chunk 8 loads at a time; the flush sums a
// word column over half of the threads as two 16-bit lanes (even and odd bytes) from a rotated
// start, adds 4 bins with block-scope atomics, and each thread clears its own counters.
__global__ void __launch_bounds__(kPackedBlock)
    histogram_packed(const uint32_t *__restrict__ words, size_t n, uint32_t *bins, unsigned slot) {
  __shared__ uint32_t counters[kCounterWords * kPackedBlock];
  __shared__ uint32_t local[kBins];
  const unsigned t = threadIdx.x;
  for (unsigned q = 0; q < kCounterWords; ++q)
    counters[q * kPackedBlock + t] = 0;
  for (unsigned k = t; k < kBins; k += kPackedBlock)
    local[k] = 0;
  __syncthreads();
  constexpr size_t kChunk = size_t{kPackedBlock} * kWordsPerFlush;
  const unsigned column = t % kCounterWords, first = t / kCounterWords * kCounterWords;
  const auto tally = [&](uint32_t w) {
    for (unsigned byte = 0; byte < 4; ++byte) {
      const unsigned bin = (w >> (8 * byte)) & 0xff;
      counters[bin / 4 * kPackedBlock + t] += 1u << (8 * (bin % 4));
    }
  };
  for (size_t chunk = blockIdx.x; chunk < (n + kChunk - 1) / kChunk; chunk += gridDim.x) {
    const size_t start = chunk * kChunk;
    if (start + kChunk <= n) {
      for (unsigned j = 0; j < kWordsPerFlush; j += kBatch) {
        uint32_t w[kBatch];
#pragma unroll
        for (unsigned k = 0; k < kBatch; ++k)
          w[k] = words[start + (j + k) * kPackedBlock + t];
#pragma unroll
        for (unsigned k = 0; k < kBatch; ++k)
          tally(w[k]);
      }
    } else {
      for (size_t i = start + t; i < n; i += kPackedBlock)
        tally(words[i]);
    }
    __syncthreads();
    uint32_t even = 0, odd = 0;
    for (unsigned k = 0; k < kCounterWords; ++k) {
      const uint32_t w = counters[column * kPackedBlock + first + (k + column) % kCounterWords];
      even += w & 0x00ff00ff;
      odd += (w >> 8) & 0x00ff00ff;
    }
    const uint32_t sums[4] = {even & 0xffff, odd & 0xffff, even >> 16, odd >> 16};
    for (unsigned byte = 0; byte < 4; ++byte)
      if (sums[byte] != 0)
        atomicAdd_block(&local[4 * column + byte], sums[byte]);
    __syncthreads();
    for (unsigned q = 0; q < kCounterWords; ++q)
      counters[q * kPackedBlock + t] = 0;
  }
  for (unsigned k = t; k < kBins; k += kPackedBlock)
    if (const uint32_t count = local[k])
      atomicAdd(&bins[size_t{slot} * kBins + k], count);
}

int main(int argc, char **argv) {
  const size_t bytes = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : size_t{1} << 30;
  const size_t n = bytes / 4;
  bench::EventTimer timer;
  std::vector<uint32_t> host(n);
  for (size_t i = 0; i < n; ++i)
    host[i] = uint32_t(bench::mix(i));
  std::vector<uint64_t> want(kBins, 0);
  for (uint32_t w : host)
    for (int byte = 0; byte < 4; ++byte)
      ++want[(w >> (8 * byte)) & 0xff];
  const int calls = bench::kWarmups + bench::reps();
  bench::DeviceArray<uint32_t> words(host);
  const unsigned grid = unsigned(bench::sm_count()) * 8;
  const unsigned packed_grid = unsigned(bench::sm_count()) * kPackedBlocksPerSm;
  // histogram_unsafe is the Oxide unsafe-tier version (see histogram_oxide.cpp); its twin is this kernel.
  for (const char *name : {"histogram", "histogram_lanes", "histogram_packed", "histogram_unsafe"}) {
    bench::DeviceArray<uint32_t> bins(size_t{kBins} * calls);
    bins.zero();
    const std::string_view kernel = name;
    const float ms = timer.median_ms([&](int call) {
      if (kernel == "histogram_lanes")
        histogram_lanes<<<grid, kBlock>>>(words.ptr, n, bins.ptr, unsigned(call));
      else if (kernel == "histogram_packed")
        histogram_packed<<<packed_grid, kPackedBlock>>>(words.ptr, n, bins.ptr, unsigned(call));
      else
        histogram<<<grid, kBlock>>>(words.ptr, n, bins.ptr, unsigned(call));
    });
    const std::vector<uint32_t> got = bins.download();
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i)
      if (got[i] != want[i % kBins] && bad++ < 3)
        bench::mismatch(name, i, got[i], double(want[i % kBins]));
    bench::report(name, std::to_string(n * 4), "bytes", double(n * 4), ms, bad == 0, "cuda");
  }
  return 0;
}
