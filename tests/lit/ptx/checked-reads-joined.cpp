// Checked reads in an unrolled loop cost one branch, not one per read (issue 41): NVIDIA's
// transposeCoalesced written as the docs present safe reads, with Span's checked subscript and no
// `if`. oxide-hoist-bounds-checks joins the four checks into one branch to the report ahead of
// the loads, so the four global loads and shared stores form one block and ptxas issues the
// loads back to back; with a check between each load and the store before the next, the kernel
// ran at 0.74 of nvcc's on the H200. The bounds test itself stays.
// RUN: oxcc build %s --arch=sm_90 --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
#include <oxide/oxide.hpp>
#include <cstdint>

constexpr std::uint32_t kTile = 32, kPitch = 33, kRows = 8;

// CHECK-LABEL: .entry _Z15transpose_plainjjN5oxide4SpanIKfEENS_14DisjointSpan2DIfEE(
// CHECK: setp.{{(lt|ge)}}.u64
// CHECK: @%p{{[0-9]+}} bra
// CHECK-NEXT: bra.uni
// CHECK: ld.global.nc.b32
// CHECK-NOT: {{bra|setp}}
// CHECK: ld.global.nc.b32
// CHECK-NOT: {{bra|setp}}
// CHECK: ld.global.nc.b32
// CHECK-NOT: {{bra|setp}}
// CHECK: ld.global.nc.b32
// CHECK-NOT: {{bra|setp}}
// CHECK: bar.sync 0;
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 2, block = (32, 8), "
                                 "requires = (width * height == in.size(), in.size() == out.size())")]] void
transpose_plain(std::uint32_t width, std::uint32_t height, oxide::Span<const float> in,
                oxide::DisjointSpan2D<float> out) {
  auto tile = oxide::shared_array<float, std::size_t{kTile} * kPitch>();
  const oxide::Dim3 t = oxide::thread_idx(), b = oxide::block_idx();
  const std::uint32_t in_col = b.y * kTile + t.x;
  for (std::uint32_t k = 0; k < kTile; k += kRows)
    tile[(t.y + k) * kPitch + t.x] = in[std::size_t{b.x * kTile + t.y + k} * width + in_col];
  oxide::sync_threads();
  const auto mine = out.strided_rows_mut<kTile / kRows>(oxide::thread::index_2d());
  for (std::size_t j = 0; j < mine.size(); ++j)
    if (float *element = mine.get_mut(j))
      *element = tile[t.x * kPitch + t.y + kRows * j];
}

// Eight checked reads of one row at offsets 0, 128, ... 896 (histogram_packed's batch of loads,
// which go on to be summed, not only moved): two tests, not eight. The last index against the
// size, and the first against 2^64 - 1 - 896, so that none between them wraps.
// CHECK-LABEL: .entry _Z11batch_readsN5oxide4SpanIKjEENS_12DisjointSpanIjEEm(
// CHECK: add.s64 [[LAST:%rd[0-9]+]], [[FIRST:%rd[0-9]+]], 896;
// CHECK-NEXT: setp.lt.u64 {{%p[0-9]+}}, [[LAST]], {{%rd[0-9]+}};
// CHECK-NEXT: setp.lt.u64 {{%p[0-9]+}}, [[FIRST]], -896;
// CHECK-NOT: {{add.s64 .*, (128|256|384|512|640|768);}}
// CHECK: ld.global.nc.b32
// CHECK: [__oxide_failure_record]
[[kernel, oxide::launch_contract("domain = 1, block = 128")]] void
batch_reads(oxide::Span<const std::uint32_t> words, oxide::DisjointSpan<std::uint32_t> out, std::uint64_t start) {
  const std::uint32_t t = oxide::thread_idx().x;
  std::uint32_t sum = 0;
#pragma unroll
  for (std::uint32_t k = 0; k < 8; ++k)
    sum += words[start + k * 128 + t] * (k + 1);
  if (std::uint32_t *o = out.get_mut(oxide::thread::index_1d()))
    *o = sum;
}

int main() {}
