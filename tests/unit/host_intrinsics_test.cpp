// Host definitions of the device intrinsics outside a launch, and with a hand-made thread.
#include <gtest/gtest.h>

#include "oxide/device.hpp"
#include "sim/sim_thread.hpp"

namespace {

using oxide::detail::SpanAccess;
using oxide::detail::sim::current_sim_thread;
using oxide::detail::sim::SimThread;

/// Runs `body` as if it were simulated GPU thread `index` (geometry only: no block to sync).
template <class F> void as_sim_thread(std::size_t index, F body) {
  static const oxide::detail::sim::BlockGeometry geometry;
  SimThread thread;
  thread.index_1d = index;
  thread.geometry = &geometry;
  current_sim_thread = &thread;
  body();
  current_sim_thread = nullptr;
}

TEST(HostIntrinsics, RuntimeDefinesEveryIntrinsic) {
  // Taking each address makes the link fail if the runtime lacks a definition; keep this list
  // in step with oxide/device/intrinsics.hpp.
  const void *const intrinsics[] = {
      reinterpret_cast<const void *>(&__oxide_thread_idx),
      reinterpret_cast<const void *>(&__oxide_block_idx),
      reinterpret_cast<const void *>(&__oxide_block_dim),
      reinterpret_cast<const void *>(&__oxide_grid_dim),
      reinterpret_cast<const void *>(&__oxide_index_1d),
      reinterpret_cast<const void *>(&__oxide_thread_index),
      reinterpret_cast<const void *>(&__oxide_grid_stride_next),
      reinterpret_cast<const void *>(&__oxide_disjoint_get),
      reinterpret_cast<const void *>(&__oxide_disjoint_tile),
      reinterpret_cast<const void *>(&__oxide_disjoint_get_2d),
      reinterpret_cast<const void *>(&__oxide_disjoint_tile_2d),
      reinterpret_cast<const void *>(&__oxide_disjoint_get_3d),
      reinterpret_cast<const void *>(&__oxide_span_elem),
      reinterpret_cast<const void *>(&__oxide_sync_threads),
      reinterpret_cast<const void *>(&__oxide_fence),
      reinterpret_cast<const void *>(&__oxide_shared_alloc),
      reinterpret_cast<const void *>(&__oxide_dynamic_shared),
      reinterpret_cast<const void *>(&__oxide_dynamic_shared_size),
      reinterpret_cast<const void *>(&__oxide_lane_id),
      reinterpret_cast<const void *>(&__oxide_warp_shuffle),
      reinterpret_cast<const void *>(&__oxide_warp_vote),
      reinterpret_cast<const void *>(&__oxide_warp_sync),
      reinterpret_cast<const void *>(&__oxide_bounds_fail),
      reinterpret_cast<const void *>(&__oxide_trap),
  };
  for (const void *intrinsic : intrinsics)
    EXPECT_NE(intrinsic, nullptr);
}

TEST(HostIntrinsics, SimulatedThreadSuppliesTheIndex) {
  for (std::size_t i = 0; i < 6; ++i)
    as_sim_thread(i, [&] {
      EXPECT_EQ(oxide::thread::index_1d().get(), i);
      EXPECT_EQ(oxide::block_dim(), (oxide::Dim3{1, 1, 1}));
    });
  EXPECT_EQ(current_sim_thread, nullptr);
}

TEST(HostIntrinsicsDeathTest, KernelCodeOutsideALaunchAborts) {
  constexpr const char *kMessage =
      "oxide: kernel code called outside a launch; launch kernels through oxide::prepare";
  EXPECT_DEATH((void)oxide::thread::index_1d().get(), kMessage);
  EXPECT_DEATH((void)oxide::thread_idx(), kMessage);
  EXPECT_DEATH((void)oxide::block_idx(), kMessage);
  EXPECT_DEATH((void)oxide::block_dim(), kMessage);
  EXPECT_DEATH((void)oxide::grid_dim(), kMessage);
  EXPECT_DEATH(oxide::sync_threads(), kMessage);
  EXPECT_DEATH(oxide::thread_fence(), kMessage);
  EXPECT_DEATH((void)(oxide::shared_array<int, 4>()), kMessage);
  EXPECT_DEATH((void)oxide::dynamic_shared<int>(), kMessage);
  EXPECT_DEATH((void)oxide::warp::lane_id(), kMessage);
  EXPECT_DEATH((void)oxide::warp::shuffle(1, 0), kMessage);
  EXPECT_DEATH((void)oxide::warp::any(true), kMessage);
  EXPECT_DEATH(oxide::warp::sync(), kMessage);
  EXPECT_DEATH(oxide::trap("stop"), kMessage);
  EXPECT_DEATH((void)oxide::thread::index_2d(), kMessage);
  int element = 0;
  const auto disjoint = SpanAccess::make_disjoint(&element, 1);
  EXPECT_DEATH((void)disjoint.get_mut(oxide::thread::index_1d()), kMessage);
}

TEST(HostIntrinsicsDeathTest, BlockIntrinsicsNeedABlock) {
  // A thread without a block (as above) has geometry but cannot wait or allocate.
  EXPECT_DEATH(as_sim_thread(0, [] { oxide::sync_threads(); }), "kernel code called outside a launch");
}

TEST(HostIntrinsicsDeathTest, OutOfBoundsSpanAccessAborts) {
  float data[2] = {1.0f, 2.0f};
  const auto span = SpanAccess::make_span<const float>(data, 2);
  EXPECT_EQ(span[1], 2.0f);
  EXPECT_EQ(span.get(5), nullptr);
  EXPECT_DEATH((void)span[5], "oxide: index 5 out of bounds for span of size 2");
}

} // namespace
