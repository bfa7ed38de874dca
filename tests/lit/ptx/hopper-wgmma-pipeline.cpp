// The main loop of a Hopper GEMM: one warpgroup keeps a 64 x 256 f32 accumulator (128 registers
// per thread) in flight across the wgmmas of a K loop (fence; 4 x m64n256k16 bf16 with
// accumulate; commit; wait 0). ptxas must neither serialise the wgmmas (its warnings C7510 and
// C7515: "wgmma.mma_async instructions are serialized due to ...") nor spill: the accumulator
// flows from one wgmma's tied registers to the next, with no copies between them. (On
// 2026-12-01, ptxas 13.0: "Used 154 registers, used 1 barriers, 40960 bytes smem", 0 bytes
// stack frame, 0 bytes spill stores, 0 bytes spill loads.)
// REQUIRES: ptxas
// RUN: oxcc build %s --emit=ptx --arch=sm_90 -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas -arch=sm_90a -O3 -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: oxcc build %s --emit=cubin --arch=sm_90 -o %t.oxcc.cubin 2>&1 | FileCheck %s --check-prefix=OXCC --allow-empty
#include <oxide/oxide.hpp>

#include <cstdint>

// PTX: .target sm_90a
// PTX-LABEL: .entry {{.*}}gemm_main_loop
// PTX-NOT: .local
// PTX: bar.sync
// PTX-NOT: mov.
// PTX: wgmma.fence.sync.aligned;
// PTX-NOT: mov.
// PTX: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// PTX-NOT: mov.
// PTX: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// PTX-NOT: mov.
// PTX: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// PTX-NOT: mov.
// PTX: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// PTX-NOT: mov.
// PTX: wgmma.commit_group.sync.aligned;
// PTX-NOT: mov.
// PTX: wgmma.wait_group.sync.aligned 0;
// PTX-NOT: wgmma.mma_async

// PTXAS-NOT: warning
// PTXAS: Compiling entry function '{{.*}}gemm_main_loop{{.*}}' for 'sm_90a'
// PTXAS-NOT: warning
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: warning

// oxcc passes on what ptxas warns of; here it has nothing to say.
// OXCC-NOT: warning

namespace {
/// A K-major, 128-byte-swizzled shared-memory matrix descriptor for the tile at `tile`.
std::uint64_t descriptor(const void *tile) {
  const std::uint64_t address = __oxide_shared_address(tile);
  return ((address & 0x3ffff) >> 4) | (std::uint64_t{1} << 16) | (std::uint64_t{64} << 32) |
         (std::uint64_t{1} << 62);
}
} // namespace

[[kernel]] void gemm_main_loop(float *out, std::uint32_t k_tiles) {
  struct alignas(1024) Tiles {
    oxide::bfloat16 a[64 * 64], b[256 * 64];
  };
  Tiles &tiles = oxide::shared_array<Tiles, 1>()[0];
  const std::uint64_t da = descriptor(tiles.a), db = descriptor(tiles.b);
  float acc[128];
#pragma unroll
  for (float &v : acc)
    v = 0.0f;
  for (std::uint32_t k = 0; k < k_tiles; ++k) {
    oxide::sync_threads(); // the producer's tile is in shared memory
    __oxide_wgmma_fence();
#pragma unroll
    for (std::uint32_t kk = 0; kk < 4; ++kk) // 16 bf16 of K (32 bytes, 2 descriptor units) each
      __oxide_wgmma(acc, da + 2 * kk, db + 2 * kk, 256, oxide::intrinsic::code(oxide::intrinsic::WgmmaType::bf16),
                    1, 0, 0);
    __oxide_wgmma_commit_group();
    __oxide_wgmma_wait_group(0);
  }
  const std::uint32_t t = oxide::thread_idx().x;
#pragma unroll
  for (std::uint32_t i = 0; i < 128; ++i)
    out[i * 128 + t] = acc[i];
}

int main() {}
