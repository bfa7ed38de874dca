// Blocks that run together on the CPU simulator: thread-block clusters (cluster::sync and
// distributed shared memory) and cooperative launches (grid::sync), with the diagnostics of a
// group that cannot go on.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "oxide/oxide.hpp"
#include "sim_test_support.hpp"

namespace {

using oxide::AtomicSpan;
using oxide::DeviceBuffer;
using oxide::DisjointSpan;
using oxide::Span;
using oxide_test::error_of;
using oxide_test::simulator;

// --- kernels ----------------------------------------------------------------------------------

constexpr std::uint32_t kRecord = 20; // values each thread of cluster_geometry records

/// Every thread records what it sees of the cluster, at its linear index in the grid.
void cluster_geometry(AtomicSpan<std::uint32_t> out) {
  const oxide::Dim3 t = oxide::thread_idx(), b = oxide::block_idx(), bd = oxide::block_dim(),
                    gd = oxide::grid_dim();
  const std::uint64_t block = b.x + gd.x * (b.y + std::uint64_t(gd.y) * b.z);
  const std::uint64_t thread = t.x + bd.x * (t.y + bd.y * t.z);
  const std::uint64_t base = (block * bd.x * bd.y * bd.z + thread) * kRecord;
  const oxide::Dim3 idx = oxide::cluster::block_idx(), dim = oxide::cluster::dim(),
                    cluster = oxide::cluster::cluster_idx(), clusters = oxide::cluster::grid_dim();
  const std::uint32_t values[kRecord] = {oxide::cluster::block_rank(),
                                         oxide::cluster::block_count(),
                                         idx.x,
                                         idx.y,
                                         idx.z,
                                         dim.x,
                                         dim.y,
                                         dim.z,
                                         cluster.x,
                                         cluster.y,
                                         cluster.z,
                                         clusters.x,
                                         clusters.y,
                                         clusters.z,
                                         b.x,
                                         b.y,
                                         b.z,
                                         t.x,
                                         t.y,
                                         t.z};
  for (std::uint32_t k = 0; k < kRecord; ++k)
    out.store(base + k, values[k]);
}

constexpr std::uint32_t kClusterBlocks = 4, kClusterThreads = 64;

/// Each block fills its shared array, then reads the arrays of the cluster's other blocks: the
/// cluster barrier orders the writes before the reads (blocks start one after the other on a
/// host thread, so without it the later blocks would not have written yet).
void cluster_exchange(DisjointSpan<std::uint32_t> out) {
  auto part = oxide::shared_array<std::uint32_t, kClusterThreads>();
  const std::uint32_t t = oxide::thread_idx().x, rank = oxide::cluster::block_rank();
  const std::uint32_t cluster = oxide::cluster::cluster_idx().x;
  part[t] = 1000000 * cluster + 1000 * rank + t;
  oxide::cluster::sync();
  const std::uint32_t next = (rank + 1) % oxide::cluster::block_count();
  const std::uint32_t value = oxide::cluster::map_shared(part, next)[(t + 1) % kClusterThreads];
  // A pointer into the middle of the array maps to the same element of the other block's.
  const std::uint32_t other = (rank + 2) % kClusterBlocks;
  if (*static_cast<std::uint32_t *>(__oxide_cluster_map_shared(part.data() + t, other)) !=
      1000000 * cluster + 1000 * other + t)
    oxide::trap("an interior pointer mapped to the wrong element");
  oxide::cluster::sync(); // nobody exits while others read its shared memory
  if (std::uint32_t *o = out.get_mut(oxide::thread::index_1d()))
    *o = value;
}

/// Rank 0 writes into rank 1's static array (and dynamic shared memory) before rank 1 has
/// reached the declaration: on a GPU static shared memory exists from the start of a block.
void write_ahead(DisjointSpan<std::uint32_t> out) {
  auto inbox = oxide::shared_array<std::uint32_t, 32>();
  auto dynamic = oxide::dynamic_shared<std::uint32_t>();
  const std::uint32_t t = oxide::thread_idx().x, rank = oxide::cluster::block_rank();
  if (rank == 0) {
    oxide::cluster::map_shared(inbox, 1)[t] = 500 + t;
    oxide::cluster::map_shared(dynamic, 1)[t] = 700 + t;
  }
  oxide::cluster::sync();
  if (std::uint32_t *o = out.get_mut(oxide::thread::index_1d()))
    *o = rank == 1 ? inbox[t] + 1000 * dynamic[t] : 0;
  oxide::cluster::sync();
}

/// Several grid-wide phases: each reads what other blocks wrote in the phase before, and
/// counts the threads that finished it, which must be all of them once the barrier is passed.
void phases(Span<const std::uint32_t> in, AtomicSpan<std::uint32_t> a, AtomicSpan<std::uint32_t> b,
            AtomicSpan<std::uint32_t> counts, DisjointSpan<std::uint32_t> out) {
  const std::size_t n = in.size();
  const std::uint64_t threads = std::uint64_t(oxide::grid_dim().x) * oxide::block_dim().x;
  for (const auto &i : oxide::thread::grid_stride(n))
    a.store(i.get(), in[i.get()] * 2);
  counts.fetch_add(0, 1);
  oxide::grid::sync();
  if (counts.load(0) != threads)
    counts.fetch_add(3, 1); // a thread passed the barrier early
  for (const auto &i : oxide::thread::grid_stride(n))
    b.store(i.get(), a.load((i.get() + 1) % n) + 1);
  counts.fetch_add(1, 1);
  oxide::grid::sync();
  if (counts.load(1) != threads)
    counts.fetch_add(3, 1);
  for (const auto &i : oxide::thread::grid_stride(n))
    a.store(i.get(), b.load((i.get() + 7) % n) * 3);
  counts.fetch_add(2, 1);
  oxide::grid::sync();
  if (counts.load(2) != threads)
    counts.fetch_add(3, 1);
  for (const auto &i : oxide::thread::grid_stride(n))
    if (std::uint32_t *o = out.get_mut(i))
      *o = a.load((n - 1 - i.get()));
}

/// Half of each block waits at the block barrier, the other half at the cluster barrier.
void split_barriers(int) {
  if (oxide::thread_idx().x < 16)
    oxide::sync_threads();
  else
    oxide::cluster::sync();
}

/// Rank 1 leaves without meeting the others at the cluster barrier.
void rank_one_leaves(int) {
  if (oxide::cluster::block_rank() == 1)
    return;
  oxide::cluster::sync();
}

/// Lane 0 of block 1 waits at the grid barrier while its warp waits for it (the other blocks'
/// warps finish).
void warp_against_grid(int) {
  if (oxide::block_idx().x == 1 && oxide::warp::lane_id() == 0)
    oxide::grid::sync();
  else
    oxide::warp::sync();
}

void map_rank(std::uint32_t rank) {
  auto part = oxide::shared_array<float, 8>();
  part[0] = 1.0f;
  (void)oxide::cluster::map_shared(part, rank);
}

void map_rank_raw(std::uint32_t rank) {
  auto part = oxide::shared_array<float, 8>();
  (void)__oxide_cluster_map_shared(part.data(), rank);
}

void map_global(Span<float> global) { (void)__oxide_cluster_map_shared(global.data(), 0); }

/// The segment mean of examples/cluster_center.cpp without the second cluster barrier: blocks
/// exit while the others still read their shared memory.
void missing_final_sync(DisjointSpan<float> out) {
  auto sum = oxide::shared_array<float, 1>();
  if (oxide::thread_idx().x == 0)
    sum[0] = static_cast<float>(oxide::cluster::block_rank());
  oxide::cluster::sync();
  float total = 0.0f;
  for (std::uint32_t r = 0; r < oxide::cluster::block_count(); ++r)
    total += oxide::cluster::map_shared(sum, r)[0];
  if (float *o = out.get_mut(oxide::thread::index_1d()))
    *o = total;
}

void trap_in_cluster(std::uint32_t block, std::uint32_t thread) {
  oxide::cluster::sync();
  if (oxide::block_idx().x == block && oxide::thread_idx().x == thread)
    oxide::trap("stop here");
  oxide::cluster::sync();
}

void grid_sync_uncooperative(int) { oxide::grid::sync(); }

/// Without clusters every block is a cluster of one, and cluster::sync a barrier of its block.
void lone_cluster(DisjointSpan<std::uint32_t> out) {
  auto slots = oxide::shared_array<std::uint32_t, 32>();
  const std::uint32_t t = oxide::thread_idx().x;
  slots[t] = t * 3 + oxide::cluster::block_rank() + 100 * (oxide::cluster::block_count() - 1);
  oxide::cluster::sync();
  if (std::uint32_t *o = out.get_mut(oxide::thread::index_1d()))
    *o = oxide::cluster::map_shared(slots, 0)[(t + 1) % 32] + 1000 * oxide::cluster::cluster_idx().x;
}

class SimGroups : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    using oxide::sim::register_kernel;
    register_kernel(cluster_geometry, "cluster_geometry", "domain = 3, cluster = (2, 1, 2)", {"out"});
    register_kernel(cluster_exchange, "cluster_exchange", "domain = 1, block = 64, cluster = 4", {"out"});
    register_kernel(write_ahead, "write_ahead", "domain = 1, block = 32, cluster = 2, dynamic_shared = 128",
                    {"out"});
    register_kernel(phases, "phases", "domain = 1, cooperative = true, requires = (in.size() == out.size())",
                    {"in", "a", "b", "counts", "out"});
    register_kernel(split_barriers, "split_barriers", "domain = 1, cluster = 2", {"unused"});
    register_kernel(rank_one_leaves, "rank_one_leaves", "domain = 1, cluster = 2", {"unused"});
    register_kernel(warp_against_grid, "warp_against_grid", "domain = 1, cooperative = true", {"unused"});
    register_kernel(map_rank, "map_rank", "domain = 1, cluster = 4", {"rank"});
    register_kernel(map_rank_raw, "map_rank_raw", "domain = 1, cluster = 4", {"rank"});
    register_kernel(missing_final_sync, "missing_final_sync", "domain = 1, cluster = 4", {"out"});
    register_kernel(trap_in_cluster, "trap_in_cluster", "domain = 1, cluster = 4", {"block", "thread"});
    register_kernel(grid_sync_uncooperative, "grid_sync_uncooperative");
    register_kernel(lone_cluster, "lone_cluster", "domain = 1", {"out"});
  }
};

TEST_F(SimGroups, ClusterGeometry) {
  // A 3-D grid of 4 x 3 x 4 blocks in clusters of 2 x 1 x 2: 2 x 3 x 2 clusters.
  const oxide::Dim3 grid{4, 3, 4}, block{2, 2, 1}, cluster{2, 1, 2};
  for (const unsigned threads : {1u, 3u}) {
    auto ctx = simulator(false, threads);
    auto stream = ctx.default_stream();
    const std::size_t blocks = 4 * 3 * 4, per_block = 4;
    auto out = DeviceBuffer<std::uint32_t>::zeroed(stream, blocks * per_block * kRecord);
    oxide::prepare(ctx, cluster_geometry, oxide::LaunchConfig3D{grid, block, 0})(stream, out);
    const auto host = out.to_host(stream);
    for (std::size_t i = 0; i < blocks * per_block; ++i) {
      const std::uint32_t *r = &host[i * kRecord];
      const std::uint32_t bx = r[14], by = r[15], bz = r[16];
      SCOPED_TRACE(testing::Message() << "block (" << bx << "," << by << "," << bz << ") thread (" << r[17]
                                      << "," << r[18] << "," << r[19] << ")");
      ASSERT_EQ(i / per_block, bx + 4 * (by + 3 * bz));
      EXPECT_EQ(r[0], bx % 2 + 2 * (bz % 2)); // rank: x fastest
      EXPECT_EQ(r[1], 4u);
      EXPECT_EQ(r[2], bx % 2);
      EXPECT_EQ(r[3], 0u);
      EXPECT_EQ(r[4], bz % 2);
      EXPECT_EQ(r[5], cluster.x);
      EXPECT_EQ(r[6], cluster.y);
      EXPECT_EQ(r[7], cluster.z);
      EXPECT_EQ(r[8], bx / 2);
      EXPECT_EQ(r[9], by);
      EXPECT_EQ(r[10], bz / 2);
      EXPECT_EQ(r[11], 2u);
      EXPECT_EQ(r[12], 3u);
      EXPECT_EQ(r[13], 2u);
    }
  }
}

TEST_F(SimGroups, ClusterSyncOrdersSharedMemoryAcrossTheCluster) {
  for (const bool check : {false, true})
    for (const unsigned threads : {1u, 4u}) {
      SCOPED_TRACE(testing::Message() << "check " << check << ", " << threads << " host threads");
      auto ctx = simulator(check, threads);
      auto stream = ctx.default_stream();
      const std::uint32_t clusters = 6, n = clusters * kClusterBlocks * kClusterThreads;
      auto out = DeviceBuffer<std::uint32_t>::zeroed(stream, n);
      oxide::prepare(ctx, cluster_exchange,
                     oxide::LaunchConfig1D{clusters * kClusterBlocks, kClusterThreads})(stream, out);
      const auto host = out.to_host(stream);
      for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint32_t block = i / kClusterThreads, t = i % kClusterThreads;
        const std::uint32_t cluster = block / kClusterBlocks, rank = block % kClusterBlocks;
        const std::uint32_t next = (rank + 1) % kClusterBlocks;
        ASSERT_EQ(host[i], 1000000 * cluster + 1000 * next + (t + 1) % kClusterThreads) << "element " << i;
      }
    }
}

TEST_F(SimGroups, MapSharedReachesArraysNotYetDeclared) {
  for (const bool check : {false, true}) {
    auto ctx = simulator(check, 1);
    auto stream = ctx.default_stream();
    auto out = DeviceBuffer<std::uint32_t>::zeroed(stream, 4 * 32);
    oxide::prepare(ctx, write_ahead, oxide::LaunchConfig1D{4, 32, 128})(stream, out);
    const auto host = out.to_host(stream);
    for (std::uint32_t i = 0; i < 4 * 32; ++i) {
      const std::uint32_t t = i % 32;
      ASSERT_EQ(host[i], i / 32 % 2 == 1 ? 500 + t + 1000 * (700 + t) : 0u) << "element " << i;
    }
  }
}

TEST_F(SimGroups, CooperativeLaunchWithSeveralGridSyncs) {
  for (const bool check : {false, true})
    for (const std::uint32_t block : {32u, 256u}) {
      SCOPED_TRACE(testing::Message() << "check " << check << ", blocks of " << block);
      auto ctx = simulator(check, 2);
      auto stream = ctx.default_stream();
      const std::uint32_t blocks = oxide::max_resident_blocks(ctx, phases, block);
      EXPECT_EQ(blocks, block == 32 ? 64u : 32u); // documented in docs/simulator.md
      const std::size_t n = 10007;
      std::vector<std::uint32_t> in(n);
      for (std::size_t i = 0; i < n; ++i)
        in[i] = static_cast<std::uint32_t>(i * 7 + 3);
      auto in_buffer = DeviceBuffer<std::uint32_t>::from_host(stream, in);
      auto a = DeviceBuffer<std::uint32_t>::zeroed(stream, n);
      auto b = DeviceBuffer<std::uint32_t>::zeroed(stream, n);
      auto counts = DeviceBuffer<std::uint32_t>::zeroed(stream, 4);
      auto out = DeviceBuffer<std::uint32_t>::zeroed(stream, n);
      oxide::prepare(ctx, phases, oxide::LaunchConfig1D{blocks, block})(stream, in_buffer, a, b, counts, out);
      const auto host = out.to_host(stream);
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t j = ((n - 1 - i) + 7) % n; // out[i] = a2[n-1-i] = b[(n-1-i+7)%n] * 3
        ASSERT_EQ(host[i], (in[(j + 1) % n] * 2 + 1) * 3) << "element " << i;
      }
      const auto count = counts.to_host(stream);
      const std::uint32_t threads = blocks * block;
      EXPECT_EQ(count, (std::vector<std::uint32_t>{threads, threads, threads, 0}));
    }
}

TEST_F(SimGroups, CooperativeGridBeyondTheResidentBlocks) {
  auto ctx = simulator();
  EXPECT_EQ(oxide::max_resident_blocks(ctx, phases, 1024), 8u);
  EXPECT_EQ(oxide::max_resident_blocks(ctx, phases, 1), 64u);
  auto stream = ctx.default_stream();
  auto buffer = DeviceBuffer<std::uint32_t>::zeroed(stream, 16);
  auto counts = DeviceBuffer<std::uint32_t>::zeroed(stream, 4);
  try {
    oxide::prepare(ctx, phases, oxide::LaunchConfig1D{9, 1024})(stream, buffer, buffer, buffer, counts,
                                                                buffer);
    FAIL() << "expected oxide::Error";
  } catch (const oxide::Error &e) {
    EXPECT_EQ(e.kind(), oxide::ErrorKind::CooperativeGridTooLarge);
    EXPECT_STREQ(e.what(), "oxide: kernel 'phases' is cooperative, so all its blocks must be resident at "
                           "once, but the CPU simulator holds 8 blocks of 1024 threads and the grid has 9; "
                           "size the grid with oxide::max_resident_blocks");
  }
}

TEST_F(SimGroups, StalledClusterIsDiagnosed) {
  for (const bool check : {false, true}) {
    auto ctx = simulator(check);
    auto stream = ctx.default_stream();
    EXPECT_EQ(error_of([&] { oxide::prepare(ctx, split_barriers, oxide::LaunchConfig1D{4, 32})(stream, 0); }),
              "oxide: kernel 'split_barriers' block (0,0,0) thread (0,0,0): deadlock: sync_threads waits for "
              "thread (16,0,0), which waits at cluster::sync");
  }
}

TEST_F(SimGroups, ExitedBlockAtAClusterBarrier) {
  // Outside the checking mode exited threads do not hold a barrier up, as with sync_threads.
  auto unchecked = simulator(false);
  auto stream = unchecked.default_stream();
  oxide::prepare(unchecked, rank_one_leaves, oxide::LaunchConfig1D{4, 32})(stream, 0);
  auto checked = simulator(true);
  auto checked_stream = checked.default_stream();
  EXPECT_EQ(
      error_of(
          [&] { oxide::prepare(checked, rank_one_leaves, oxide::LaunchConfig1D{4, 32})(checked_stream, 0); }),
      "oxide: kernel 'rank_one_leaves' block (0,0,0) thread (0,0,0): divergent cluster::sync: 32 threads "
      "of the cluster exited without reaching the cluster::sync this thread waits at (first: thread "
      "(0,0,0) of block (1,0,0))");
}

TEST_F(SimGroups, StalledCooperativeGridIsDiagnosed) {
  for (const bool check : {false, true}) {
    auto ctx = simulator(check);
    auto stream = ctx.default_stream();
    EXPECT_EQ(
        error_of([&] { oxide::prepare(ctx, warp_against_grid, oxide::LaunchConfig1D{3, 64})(stream, 0); }),
        "oxide: kernel 'warp_against_grid' block (1,0,0) thread (1,0,0): deadlock: warp sync (mask "
        "0xffffffff) waits for lane 0, which waits at grid::sync");
  }
}

TEST_F(SimGroups, MapSharedRankOutsideTheCluster) {
  auto ctx = simulator();
  auto stream = ctx.default_stream();
  const oxide::LaunchConfig1D config{8, 32};
  // oxide::cluster::map_shared checks the rank itself, as on the GPU ...
  EXPECT_EQ(error_of([&] { oxide::prepare(ctx, map_rank, config)(stream, 4u); }),
            "oxide: kernel 'map_rank' block (0,0,0) thread (0,0,0): oxide::cluster::map_shared: block rank "
            "outside the cluster");
  // ... and the simulator's intrinsic says more.
  EXPECT_EQ(error_of([&] { oxide::prepare(ctx, map_rank_raw, config)(stream, 9u); }),
            "oxide: kernel 'map_rank_raw' block (0,0,0) thread (0,0,0): cluster::map_shared: block rank 9 is "
            "outside the cluster of 4 blocks");
  oxide::prepare(ctx, map_rank, config)(stream, 3u); // within: fine
}

TEST_F(SimGroups, MapSharedOfMemoryThatIsNotShared) {
  auto ctx = simulator();
  auto stream = ctx.default_stream();
  oxide::sim::register_kernel(map_global, "map_global");
  auto global = DeviceBuffer<float>::zeroed(stream, 4);
  const std::string error =
      error_of([&] { oxide::unsafe_launch(stream, map_global, oxide::LaunchConfig1D{1, 1}, global); });
  EXPECT_EQ(
      error.rfind("oxide: kernel 'map_global' block (0,0,0) thread (0,0,0): cluster::map_shared: address "
                  "0x",
                  0),
      0u)
      << error;
  EXPECT_NE(error.find("is not in the block's shared memory (a shared_array or dynamic_shared)"),
            std::string::npos)
      << error;
}

TEST_F(SimGroups, CheckingModeFindsReadsOfAnExitedBlocksSharedMemory) {
  {
    auto ctx = simulator(false); // the memory outlives the block here: the result is right
    auto stream = ctx.default_stream();
    auto out = DeviceBuffer<float>::zeroed(stream, 8 * 32);
    oxide::prepare(ctx, missing_final_sync, oxide::LaunchConfig1D{8, 32})(stream, out);
    for (const float x : out.to_host(stream))
      ASSERT_EQ(x, 6.0f);
  }
  auto ctx = simulator(true, 1);
  auto stream = ctx.default_stream();
  auto out = DeviceBuffer<float>::zeroed(stream, 8 * 32);
  // The last thread to reach the barrier goes on first and finishes block 3; then block 0's
  // threads run to their end, and block 1's find block 0 gone.
  EXPECT_EQ(
      error_of([&] { oxide::prepare(ctx, missing_final_sync, oxide::LaunchConfig1D{8, 32})(stream, out); }),
      "oxide: kernel 'missing_final_sync' block (1,0,0) thread (0,0,0): cluster::map_shared: block "
      "(0,0,0) (rank 0 of the cluster) has exited, so its shared memory is gone; call cluster::sync() "
      "before a block exits while others may still use its shared memory");
}

TEST_F(SimGroups, FailureInAClusterNamesItsBlock) {
  for (const unsigned threads : {1u, 2u}) {
    auto ctx = simulator(false, threads);
    auto stream = ctx.default_stream();
    EXPECT_EQ(error_of([&] {
                oxide::prepare(ctx, trap_in_cluster, oxide::LaunchConfig1D{12, 32})(stream, 6u, 5u);
              }),
              "oxide: kernel 'trap_in_cluster' block (6,0,0) thread (5,0,0): stop here");
    // The context still works.
    oxide::prepare(ctx, trap_in_cluster, oxide::LaunchConfig1D{12, 32})(stream, 99u, 0u);
  }
}

TEST_F(SimGroups, GridSyncNeedsACooperativeLaunch) {
  auto ctx = simulator();
  auto stream = ctx.default_stream();
  EXPECT_EQ(error_of([&] {
              oxide::unsafe_launch(stream, grid_sync_uncooperative, oxide::LaunchConfig1D{2, 32}, 0);
            }),
            "oxide: kernel 'grid_sync_uncooperative' block (0,0,0) thread (0,0,0): grid::sync() in a launch "
            "that is not cooperative: only a kernel whose launch contract says cooperative = true may sync "
            "the grid");
}

TEST_F(SimGroups, WithoutClustersEachBlockIsAClusterOfOne) {
  for (const bool check : {false, true}) {
    auto ctx = simulator(check);
    auto stream = ctx.default_stream();
    auto out = DeviceBuffer<std::uint32_t>::zeroed(stream, 3 * 32);
    oxide::prepare(ctx, lone_cluster, oxide::LaunchConfig1D{3, 32})(stream, out);
    const auto host = out.to_host(stream);
    for (std::uint32_t i = 0; i < 3 * 32; ++i)
      ASSERT_EQ(host[i], (i % 32 + 1) % 32 * 3 + 1000 * (i / 32)) << "element " << i;
  }
}

TEST_F(SimGroups, UnsafeLaunchOfAPartialCluster) {
  auto ctx = simulator();
  auto stream = ctx.default_stream();
  try {
    oxide::unsafe_launch(stream, map_rank, oxide::LaunchConfig1D{6, 32}, 0u);
    FAIL() << "expected oxide::Error";
  } catch (const oxide::Error &e) {
    EXPECT_EQ(e.kind(), oxide::ErrorKind::ClusterMismatch);
    EXPECT_STREQ(e.what(),
                 "oxide: kernel 'map_rank' runs in clusters of (4, 1, 1) blocks, but the grid (6, 1, "
                 "1) is not a whole number of clusters");
  }
}

} // namespace
