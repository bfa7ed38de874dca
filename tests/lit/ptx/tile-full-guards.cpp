// A thread's tile (tile_mut) tested full() once stores its elements with no branch between them
// (issue 41): each element's guard is `r < extent` with the tile's extent as DisjointTile2D
// computes rows(), and full() asks the guard of the tile's last element, so under
// `if (tile.full())` the guards of the unrolled elements follow from it (r < 4 <= extent). With
// the guard as a division per element (coordinate < ceil((extent - r) / rows)),
// transpose_32x8_tile kept a test and a branch after its first store and ran at 0.91 of nvcc's
// speed.
// RUN: oxcc build %s --arch=sm_90 --emit=ptx -o - | FileCheck %s
#include <oxide/oxide.hpp>

#include <cstdint>

// transposeCoalesced with each thread owning 4 consecutive rows (issue 41's held-out form).
// CHECK-LABEL: .entry {{.*}}transpose_rows_of_four
// CHECK: bar.sync
// CHECK: setp.gt.u64 {{%p[0-9]+}}, {{%rd[0-9]+}}, 3;
// CHECK: @{{%p[0-9]+}} bra [[FULL:\$L__BB[0-9_]+]];
// CHECK: [[FULL]]:
// CHECK-NOT: bra
// CHECK: ld.shared.b32
// CHECK-NEXT: st.global.b32
// CHECK-NOT: bra
// CHECK: ld.shared.b32
// CHECK-NEXT: st.global.b32
// CHECK-NOT: bra
// CHECK: ld.shared.b32
// CHECK-NEXT: st.global.b32
// CHECK-NOT: bra
// CHECK: ld.shared.b32
// CHECK-NEXT: st.global.b32
// CHECK-NEXT: bra
[[kernel, oxide::launch_contract("domain = 2, block = (32, 8), "
                                 "requires = (width * height == in.size(), in.size() == out.size())")]] void
transpose_rows_of_four(std::uint32_t width, std::uint32_t height, oxide::Span<const float> in,
                       oxide::DisjointSpan2D<float> out) {
  auto tile = oxide::shared_array<float, 32 * 33>();
  const oxide::Dim3 t = oxide::thread_idx(), b = oxide::block_idx();
  for (std::uint32_t k = 0; k < 32; k += 8)
    tile[(t.y + k) * 33 + t.x] = in[std::size_t{b.x * 32 + t.y + k} * width + b.y * 32 + t.x];
  oxide::sync_threads();
  const auto mine = out.tile_mut<4, 1>(oxide::thread::index_2d());
  if (mine.full()) {
    for (std::uint32_t r = 0; r < 4; ++r)
      mine(r, 0) = tile[t.x * 33 + 4 * t.y + r];
  } else if (!mine.empty()) {
    for (std::size_t r = 0; r < mine.rows(); ++r)
      mine(r, 0) = tile[t.x * 33 + 4 * t.y + r];
  }
}

// The tile after a checked read, its values computed per element: the same four stores. LLVM
// joins the column's test with the tile's as `freeze(x < width) & rows() > 3`; the audit of the
// optimised code does not take a frozen test as a fact (a poison test freezes to either value),
// so each store is tested again on its address (docs/internals/open-gaps.md, issue 36).
// CHECK-LABEL: .entry {{.*}}rows_of_four
// CHECK: @{{%p[0-9]+}} bra
// CHECK-COUNT-4: st.global.b32
[[kernel, oxide::launch_contract("domain = 2, block = (32, 8), requires = (in.size() == out.size())")]] void
rows_of_four(oxide::Span<const float> in, oxide::DisjointSpan2D<float> out) {
  const auto mine = out.tile_mut<4, 1>(oxide::thread::index_2d());
  const std::size_t x = oxide::thread::index_2d().x(), y = oxide::thread::index_2d().y();
  const float v = in[x];
  if (mine.full()) {
    for (std::uint32_t r = 0; r < 4; ++r)
      mine(r, 0) = v + float(4 * y + r);
  } else {
    for (std::size_t r = 0; r < mine.rows(); ++r)
      mine(r, 0) = v;
  }
}

// The 1-D tile (tile_mut<N>) likewise: its guard is `j < size()`.
// CHECK-LABEL: .entry {{.*}}runs_of_four
// CHECK: st.global.b32
// CHECK-NOT: bra
// CHECK: st.global.b32
// CHECK-NOT: bra
// CHECK: st.global.b32
// CHECK-NOT: bra
// CHECK: st.global.b32
[[kernel, oxide::launch_contract("domain = 1")]] void runs_of_four(oxide::DisjointSpan<float> out) {
  const auto mine = out.tile_mut<4>(oxide::thread::index_1d());
  if (mine.full()) {
    for (std::uint32_t j = 0; j < 4; ++j)
      mine[j] = float(j);
  }
}
