// The instructions behind the active mask, the lane masks, 64-bit matches and cooperative groups:
// activemask.b32, %lanemask_*, match.*.sync.b64, and tiles whose shuffles carry the tile's
// segment in shfl.sync's c operand ((32 - N) << 8 | clamp) and whose reductions are one
// redux.sync with the tile's mask; tiles of tiles, groups of a run-time size and 16-byte
// shuffles. The kernels are contracted: none of this writes memory, so the safety verifier
// accepts them.
// RUN: oxcc build %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: FileCheck %s --check-prefix=TILE8 < %t.ptx
// RUN: FileCheck %s --check-prefix=TILE16 < %t.ptx
// RUN: FileCheck %s --check-prefix=COALESCED < %t.ptx
// RUN: FileCheck %s --check-prefix=SUBTILE < %t.ptx
// RUN: FileCheck %s --check-prefix=WIDE < %t.ptx
#include <oxide/oxide.hpp>

#include <cstdint>

namespace cg = oxide::cg;
namespace warp = oxide::warp;

// CHECK-LABEL: .entry {{.*}}masks
// CHECK-DAG: activemask.b32
// CHECK-DAG: mov.u32 {{%r[0-9]+}}, %lanemask_lt;
// CHECK-DAG: mov.u32 {{%r[0-9]+}}, %lanemask_le;
// CHECK-DAG: mov.u32 {{%r[0-9]+}}, %lanemask_eq;
// CHECK-DAG: mov.u32 {{%r[0-9]+}}, %lanemask_ge;
// CHECK-DAG: mov.u32 {{%r[0-9]+}}, %lanemask_gt;
// CHECK-DAG: match.any.sync.b64
// CHECK-DAG: match.all.sync.b64
// CHECK: ret;
[[kernel, oxide::launch_contract("domain = 1, block = 64, requires = (in.size() == out.size())")]] void
masks(oxide::Span<const std::uint64_t> in, oxide::DisjointSpan<std::uint32_t> out) {
  const auto i = oxide::thread::index_1d();
  const std::uint64_t key = in[i.get()];
  const std::uint32_t r = warp::active_mask() ^ warp::lane_mask_lt() ^ (warp::lane_mask_le() << 1) ^
                          (warp::lane_mask_eq() << 2) ^ (warp::lane_mask_ge() << 3) ^
                          (warp::lane_mask_gt() << 4) ^ warp::match_any(key) ^ (warp::match_all(key) << 5);
  if (std::uint32_t *o = out.get_mut(i))
    *o = r;
}

// A tile of 8: xor and down shuffles clamp at the tile's last lane (c = 24 << 8 | 31 = 6175),
// idx ones read rank % 8 (the same c); up clamps at its first (c = 24 << 8 = 6144); the integer
// sum is one redux.sync with the tile's mask, the float sum three xor shuffles.
// TILE8-LABEL: .entry {{.*}}tile8
// TILE8-DAG: shfl.sync.bfly.b32 {{.*}}, 6175, {{%r[0-9]+}};
// TILE8-DAG: shfl.sync.down.b32 {{.*}}, 6175, {{%r[0-9]+}};
// TILE8-DAG: shfl.sync.idx.b32 {{.*}}, 6175, {{%r[0-9]+}};
// TILE8-DAG: shfl.sync.up.b32 {{.*}}, 6144, {{%r[0-9]+}};
// TILE8-DAG: redux.sync.add.s32 {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}};
// TILE8-DAG: vote.sync.ballot.b32
// TILE8-DAG: match.any.sync.b32
// TILE8: ret;
[[kernel, oxide::launch_contract("domain = 1, block = 64, requires = (in.size() == out.size())")]] void
tile8(oxide::Span<const float> in, oxide::DisjointSpan<float> out) {
  const auto i = oxide::thread::index_1d();
  const float v = in[i.get()];
  const auto tile = cg::tiled_partition<8>(cg::this_thread_block());
  const float sum = cg::reduce(tile, v, cg::plus<float>());
  const int count = cg::reduce(tile, static_cast<int>(v), cg::plus<int>());
  const float scan = cg::inclusive_scan(tile, v, cg::plus<float>());
  const float right = tile.shfl_down(v, 1) + tile.shfl(v, 3);
  const std::uint32_t bits = tile.ballot(v > 0) ^ tile.match_any(static_cast<int>(v));
  if (float *o = out.get_mut(i))
    *o = sum + static_cast<float>(count) + scan + right + static_cast<float>(bits);
}

// TILE16-LABEL: .entry {{.*}}tile16
// TILE16-DAG: shfl.sync.up.b32 {{.*}}, 4096, {{%r[0-9]+}};
// TILE16-DAG: redux.sync.min.s32
// TILE16: ret;
[[kernel, oxide::launch_contract("domain = 1, block = 64, requires = (in.size() == out.size())")]] void
tile16(oxide::Span<const int> in, oxide::DisjointSpan<int> out) {
  const auto i = oxide::thread::index_1d();
  const auto tile = cg::tiled_partition<16>(cg::this_thread_block());
  const int v = in[i.get()];
  const int r = cg::exclusive_scan(tile, v, cg::plus<int>()) + cg::reduce(tile, v, cg::less<int>());
  if (int *o = out.get_mut(i))
    *o = r;
}

// A coalesced group's mask is activemask's; its integer sum is one redux.sync with it.
// COALESCED-LABEL: .entry {{.*}}coalesced
// COALESCED: activemask.b32 [[MASK:%r[0-9]+]];
// COALESCED: redux.sync.add.s32 {{%r[0-9]+}}, {{%r[0-9]+}}, [[MASK]];
// COALESCED: ret;
[[kernel, oxide::launch_contract("domain = 1, block = 64, requires = (in.size() == out.size())")]] void
coalesced(oxide::Span<const int> in, oxide::DisjointSpan<int> out) {
  const auto i = oxide::thread::index_1d();
  const int v = in[i.get()];
  int r = 0;
  if (v > 0) {
    const cg::coalesced_group active = cg::coalesced_threads();
    r = cg::reduce(active, v, cg::plus<int>()) + static_cast<int>(active.thread_rank());
  }
  if (int *o = out.get_mut(i))
    *o = r;
}

// A tile of 4 of a warp's tile: the same instructions as a block's tile of 4 (c = 28 << 8 | 31 =
// 7199), its rank among the warp's tiles from %laneid alone. A group of a size known at run
// time: __syncwarp with the mask computed from it, and a trap for a size that is no tile's.
// SUBTILE-LABEL: .entry {{.*}}subtile
// SUBTILE-DAG: shfl.sync.bfly.b32 {{.*}}, 7199, {{%r[0-9]+}};
// SUBTILE-DAG: redux.sync.add.s32
// SUBTILE-DAG: bar.warp.sync
// SUBTILE: ret;
// SUBTILE: trap;
[[kernel, oxide::launch_contract("domain = 1, block = 64, requires = (in.size() == out.size())")]] void
subtile(oxide::Span<const float> in, oxide::DisjointSpan<float> out, std::uint32_t size) {
  const auto i = oxide::thread::index_1d();
  const float v = in[i.get()];
  const auto quad = cg::tiled_partition<4>(cg::tiled_partition<32>(cg::this_thread_block()));
  const float sum = cg::reduce(quad, v, cg::plus<float>());
  const int count = cg::reduce(quad, static_cast<int>(v), cg::plus<int>());
  const cg::thread_group group = cg::tiled_partition(cg::this_thread_block(), size);
  group.sync();
  if (float *o = out.get_mut(i))
    *o = sum + static_cast<float>(count + quad.meta_group_rank() + group.thread_rank());
}

// A 16-byte shuffle is four 32-bit shfl.sync, in registers: no local memory.
// WIDE-LABEL: .entry {{.*}}wide
// WIDE-NOT: .local
// WIDE-COUNT-4: shfl.sync.idx.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, 31, -1;
// WIDE-NOT: shfl.sync
// WIDE-NOT: .local
// WIDE: ret;
[[kernel, oxide::launch_contract("domain = 1, block = 64, requires = (in.size() == out.size())")]] void
wide(oxide::Span<const oxide::Float4> in, oxide::DisjointSpan<oxide::Float4> out) {
  const auto i = oxide::thread::index_1d();
  const oxide::Float4 v = warp::shuffle(in[i.get()], (warp::lane_id() + 1) % 32);
  if (oxide::Float4 *o = out.get_mut(i))
    *o = v;
}
