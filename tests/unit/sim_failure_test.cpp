// Kernels that fail on the CPU simulator, in and out of the checking mode: each launch fails
// with an oxide::Error naming the kernel, block and thread, and later launches still work.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "oxide/oxide.hpp"
#include "sim_test_support.hpp"

namespace {

using oxide::DeviceBuffer;
using oxide::DisjointSpan;
using oxide::Span;
using oxide_test::error_of;
using oxide_test::simulator;

void trap_at(std::uint32_t block, std::uint32_t thread, Span<std::uint32_t> done) {
  if (oxide::block_idx().x == block && oxide::thread_idx().x == thread)
    oxide::trap("the value is negative");
  oxide::AtomicRef<std::uint32_t>(done[0]).fetch_add(1);
}

void read_past_the_end(Span<const float> in) {
  volatile float sink = in[oxide::thread::index_1d().get() + 1];
  (void)sink;
}

void throws(int) { throw std::runtime_error("boom"); }

// Threads past `active` return before the barrier the others wait at.
void early_return(std::uint32_t active, Span<std::uint32_t> out) {
  const std::uint32_t t = oxide::thread_idx().x;
  if (t >= active)
    return;
  out[t] = 1;
  oxide::sync_threads();
  out[t] = 2;
}

// Two barriers at two places in the code, each reached by half of the block.
[[gnu::noinline]] void barrier_a(Span<std::uint32_t> out, std::uint32_t t) {
  out[t] = 1;
  oxide::sync_threads();
  out[t] += 10;
}
[[gnu::noinline]] void barrier_b(Span<std::uint32_t> out, std::uint32_t t) {
  out[t] = 2;
  oxide::sync_threads();
  out[t] += 20;
}
void two_barriers(Span<std::uint32_t> out) {
  const std::uint32_t t = oxide::thread_idx().x;
  if (t < 16)
    barrier_a(out, t);
  else
    barrier_b(out, t);
}

// Thread 0 waits at one barrier more than the others: they exit while it waits.
void one_barrier_more(int) {
  oxide::sync_threads();
  if (oxide::thread_idx().x == 0)
    oxide::sync_threads();
}

// Half a warp waits at the block barrier, the other half in a warp operation: neither completes.
void barrier_against_warp(int) {
  if (oxide::warp::lane_id() < 16)
    oxide::sync_threads();
  else
    oxide::warp::sync();
}

// Named barrier 1 for 64 threads that only the first warp reaches.
void named_short(int) {
  if (oxide::thread_idx().x < 32)
    oxide::NamedBarrier(1, 64).sync();
}

// Two warps at named barrier 2 with different counts.
void named_counts(int) { oxide::NamedBarrier(2, oxide::thread_idx().x < 32 ? 64 : 96).sync(); }

// A named barrier whose id comes from the launch: 0 is checked when it runs.
void named_runtime_id(unsigned id) { oxide::NamedBarrier(id, 32).sync(); }

// Lanes past 15 leave, the rest reduce over the full warp.
void warp_after_exit(Span<std::uint32_t> out) {
  const std::uint32_t lane = oxide::warp::lane_id();
  if (lane >= 16)
    return;
  out[lane] = oxide::warp::sum(lane);
}

void mask_without_caller(Span<std::uint32_t> out) {
  out[oxide::thread_idx().x] = oxide::warp::any(true, 0x0000ffffu);
}

void mixed_votes(Span<std::uint32_t> out) {
  const std::uint32_t lane = oxide::warp::lane_id();
  out[lane] = lane % 2 == 0 ? oxide::warp::any(lane == 4) : oxide::warp::ballot(lane == 4);
}

// In a 2-D launch index_1d ignores y: rows of a block write the same elements.
void write_by_row(DisjointSpan<float> out) {
  const auto idx = oxide::thread::index_1d();
  if (float *element = out.get_mut(idx))
    *element = static_cast<float>(oxide::thread_idx().y);
}

// In a 3-D launch index_2d ignores z: the layers write the same elements.
void write_by_layer(oxide::DisjointSpan2D<int> out) {
  const auto idx = oxide::thread::index_2d();
  if (int *element = out.get_mut(idx))
    *element = static_cast<int>(oxide::thread_idx().z);
}

// In a 2-D launch the rows' tiles coincide.
void tiles_by_row(DisjointSpan<float> out) {
  auto tile = out.tile_mut<2>(oxide::thread::index_1d());
  for (std::size_t k = 0; k < tile.size(); ++k)
    tile[k] = 1.0f;
}

void bad_stride_rank(int) { (void)__oxide_grid_stride_next(0, 0, 0); }
void bad_stride_dimension(int) { (void)__oxide_grid_stride_next(0, 1, 1); }
void bad_tile(int) { (void)__oxide_disjoint_tile(nullptr, 4, 4, 0, 0, 0); }

void bad_rank(int) { (void)__oxide_thread_index(4, 0); }
void bad_rank_dimension(int) { (void)__oxide_thread_index(2, 2); }

void too_much_shared(int) {
  auto big = oxide::shared_array<char, 40000>();
  big[0] = 1;
}

void bad_dimension(int) { (void)__oxide_thread_idx(3); }
void bad_shuffle_mode(int) { (void)__oxide_warp_shuffle(~0u, 1, 0, 7, 32); }
void bad_vote_mode(int) { (void)__oxide_warp_vote(~0u, 1, 5); }
void bad_fence_scope(int) { __oxide_fence(9); }

void recurse(volatile char *previous, int depth) {
  volatile char frame[1024];
  frame[0] = previous ? previous[0] : 0;
  if (depth > 0)
    recurse(frame, depth - 1);
}
void overflow_the_stack(int depth) { recurse(nullptr, depth); }

class SimFailures : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    oxide::sim::register_kernel(trap_at, "trap_at");
    oxide::sim::register_kernel(read_past_the_end, "read_past_the_end");
    oxide::sim::register_kernel(throws, "throws");
    oxide::sim::register_kernel(early_return, "early_return");
    oxide::sim::register_kernel(two_barriers, "two_barriers");
    oxide::sim::register_kernel(one_barrier_more, "one_barrier_more");
    oxide::sim::register_kernel(barrier_against_warp, "barrier_against_warp");
    oxide::sim::register_kernel(named_short, "named_short");
    oxide::sim::register_kernel(named_counts, "named_counts");
    oxide::sim::register_kernel(named_runtime_id, "named_runtime_id");
    oxide::sim::register_kernel(warp_after_exit, "warp_after_exit");
    oxide::sim::register_kernel(mask_without_caller, "mask_without_caller");
    oxide::sim::register_kernel(mixed_votes, "mixed_votes");
    oxide::sim::register_kernel(write_by_row, "write_by_row");
    oxide::sim::register_kernel(write_by_layer, "write_by_layer");
    oxide::sim::register_kernel(bad_rank, "bad_rank");
    oxide::sim::register_kernel(tiles_by_row, "tiles_by_row");
    oxide::sim::register_kernel(bad_stride_rank, "bad_stride_rank");
    oxide::sim::register_kernel(bad_stride_dimension, "bad_stride_dimension");
    oxide::sim::register_kernel(bad_tile, "bad_tile");
    oxide::sim::register_kernel(bad_rank_dimension, "bad_rank_dimension");
    oxide::sim::register_kernel(too_much_shared, "too_much_shared");
    oxide::sim::register_kernel(bad_dimension, "bad_dimension");
    oxide::sim::register_kernel(bad_shuffle_mode, "bad_shuffle_mode");
    oxide::sim::register_kernel(bad_vote_mode, "bad_vote_mode");
    oxide::sim::register_kernel(bad_fence_scope, "bad_fence_scope");
    oxide::sim::register_kernel(overflow_the_stack, "overflow_the_stack");
  }

  /// The error of launching `kernel` with one block of `block` threads and an int argument.
  template <class... P, class... A>
  static std::string launch_error(oxide::Context &ctx, void (*kernel)(P...), oxide::LaunchConfig1D config,
                                  A &&...args) {
    auto stream = ctx.default_stream();
    return error_of([&] { oxide::unsafe_launch(stream, kernel, config, args...); });
  }
};

TEST_F(SimFailures, TrapStopsTheLaunchAndLaterLaunchesWork) {
  auto ctx = simulator(false, 1); // one host thread: blocks run in order
  auto stream = ctx.default_stream();
  auto done = DeviceBuffer<std::uint32_t>::zeroed(stream, 1);
  auto launch = [&](auto &&...args) {
    oxide::unsafe_launch(stream, trap_at, oxide::LaunchConfig1D{4, 64}, args...);
  };
  try {
    launch(1u, 3u, done);
    FAIL() << "expected oxide::Error";
  } catch (const oxide::Error &e) {
    EXPECT_STREQ(e.what(), "oxide: kernel 'trap_at' block (1,0,0) thread (3,0,0): the value is negative");
    EXPECT_EQ(e.kernel(), "trap_at");
  }
  // Block 0 finished, block 1 stopped at its fourth thread, blocks 2 and 3 never started.
  EXPECT_EQ(done.to_host(stream)[0], 64u + 3u);
  auto fresh = DeviceBuffer<std::uint32_t>::zeroed(stream, 1);
  launch(99u, 0u, fresh); // nothing traps: the context still works
  EXPECT_EQ(fresh.to_host(stream)[0], 256u);
}

TEST_F(SimFailures, TrapOnManyHostThreadsStillFailsTheLaunch) {
  auto ctx = simulator(false, 4);
  auto stream = ctx.default_stream();
  auto done = DeviceBuffer<std::uint32_t>::zeroed(stream, 1);
  EXPECT_EQ(launch_error(ctx, trap_at, oxide::LaunchConfig1D{64, 32}, 5u, 7u, done),
            "oxide: kernel 'trap_at' block (5,0,0) thread (7,0,0): the value is negative");
}

TEST_F(SimFailures, OutOfBoundsSpanAccess) {
  auto ctx = simulator();
  auto stream = ctx.default_stream();
  auto in = DeviceBuffer<float>::zeroed(stream, 10);
  EXPECT_EQ(
      launch_error(ctx, read_past_the_end, oxide::LaunchConfig1D{1, 10}, in),
      "oxide: kernel 'read_past_the_end' block (0,0,0) thread (9,0,0): index 10 out of bounds for span of "
      "size 10");
}

TEST_F(SimFailures, ExceptionsBecomeLaunchErrors) {
  auto ctx = simulator();
  EXPECT_EQ(launch_error(ctx, throws, oxide::LaunchConfig1D{2, 2}, 0),
            "oxide: kernel 'throws' block (0,0,0) thread (0,0,0): the kernel threw an exception: boom");
}

TEST_F(SimFailures, EarlyReturnBeforeABarrier) {
  // Outside the checking mode a thread that exited no longer holds a barrier up (documented),
  // so the others pass it.
  {
    auto ctx = simulator(false);
    auto stream = ctx.default_stream();
    auto out = DeviceBuffer<std::uint32_t>::zeroed(stream, 64);
    oxide::unsafe_launch(stream, early_return, oxide::LaunchConfig1D{1, 64}, 40u, out);
    const auto host = out.to_host(stream);
    EXPECT_EQ(host[39], 2u);
    EXPECT_EQ(host[40], 0u);
  }
  auto ctx = simulator(true);
  auto stream = ctx.default_stream();
  auto out = DeviceBuffer<std::uint32_t>::zeroed(stream, 64);
  EXPECT_EQ(
      launch_error(ctx, early_return, oxide::LaunchConfig1D{1, 64}, 40u, out),
      "oxide: kernel 'early_return' block (0,0,0) thread (0,0,0): divergent barrier: 24 threads of the block "
      "exited without reaching the sync_threads this thread waits at (first: thread (40,0,0))");
  oxide::unsafe_launch(stream, early_return, oxide::LaunchConfig1D{1, 64}, 64u, out); // all reach it: fine
}

TEST_F(SimFailures, BarriersAtDifferentPlacesCountAsOne) {
  // Documented: any sync_threads completes the barrier, as bar.sync 0 does on the GPU, in both
  // modes. (Return addresses cannot tell barriers apart: optimizers duplicate calls.)
  for (const bool check : {false, true}) {
    auto ctx = simulator(check);
    auto stream = ctx.default_stream();
    auto out = DeviceBuffer<std::uint32_t>::zeroed(stream, 32);
    oxide::unsafe_launch(stream, two_barriers, oxide::LaunchConfig1D{1, 32}, out);
    const auto host = out.to_host(stream);
    EXPECT_EQ(host[0], 11u);
    EXPECT_EQ(host[31], 22u);
  }
}

TEST_F(SimFailures, ADifferentNumberOfBarriers) {
  auto unchecked = simulator(false); // thread 0 passes once the others have exited
  auto stream = unchecked.default_stream();
  oxide::unsafe_launch(stream, one_barrier_more, oxide::LaunchConfig1D{2, 8}, 0);
  auto checked = simulator(true);
  EXPECT_EQ(
      launch_error(checked, one_barrier_more, oxide::LaunchConfig1D{1, 8}, 0),
      "oxide: kernel 'one_barrier_more' block (0,0,0) thread (0,0,0): divergent barrier: 7 threads of the "
      "block exited without reaching the sync_threads this thread waits at (first: thread (1,0,0))");
}

TEST_F(SimFailures, DeadlockBetweenABarrierAndAWarpOperation) {
  for (const bool check : {false, true}) {
    auto ctx = simulator(check);
    EXPECT_EQ(launch_error(ctx, barrier_against_warp, oxide::LaunchConfig1D{1, 32}, 0),
              "oxide: kernel 'barrier_against_warp' block (0,0,0) thread (16,0,0): deadlock: warp sync (mask "
              "0xffffffff) waits for lane 0, which waits at sync_threads");
  }
}

TEST_F(SimFailures, NamedBarrierThatTooFewReach) {
  for (const bool check : {false, true}) {
    auto ctx = simulator(check);
    EXPECT_EQ(
        launch_error(ctx, named_short, oxide::LaunchConfig1D{1, 64}, 0),
        "oxide: kernel 'named_short' block (0,0,0) thread (0,0,0): deadlock: named barrier 1 waits for 64 "
        "threads and only 32 arrived (32 of the block's 64 threads have exited); every warp that takes "
        "part must reach it");
  }
}

TEST_F(SimFailures, NamedBarrierWithTwoCounts) {
  auto ctx = simulator(false);
  const std::string error = launch_error(ctx, named_counts, oxide::LaunchConfig1D{1, 128}, 0);
  EXPECT_NE(error.find("named barrier 2 is waited for by "), std::string::npos) << error;
  EXPECT_NE(error.find("every thread at one barrier must give the same count"), std::string::npos) << error;
  // In a block of 64, the count of 96 is more threads than there are.
  EXPECT_EQ(
      launch_error(ctx, named_counts, oxide::LaunchConfig1D{1, 64}, 0),
      "oxide: kernel 'named_counts' block (0,0,0) thread (32,0,0): named barrier 2 for 96 threads: the id "
      "must be 1..15 and the count a multiple of 32 no larger than the block (64 threads)");
}

TEST_F(SimFailures, NamedBarrierWithARuntimeIdOutOfRange) {
  auto ctx = simulator(false);
  const std::string error = launch_error(ctx, named_runtime_id, oxide::LaunchConfig1D{1, 32}, 0u);
  EXPECT_NE(error.find(
                "oxide::NamedBarrier: the id must be 1..15 and the thread count a multiple of 32 up to 1024"),
            std::string::npos)
      << error;
}

TEST_F(SimFailures, WarpOperationWaitingForAnExitedLane) {
  for (const bool check : {false, true}) {
    auto ctx = simulator(check);
    auto stream = ctx.default_stream();
    auto out = DeviceBuffer<std::uint32_t>::zeroed(stream, 32);
    EXPECT_EQ(
        launch_error(ctx, warp_after_exit, oxide::LaunchConfig1D{1, 32}, out),
        "oxide: kernel 'warp_after_exit' block (0,0,0) thread (0,0,0): warp reduce_add (mask 0xffffffff) "
        "waits for lane 16, which has exited");
  }
}

TEST_F(SimFailures, MaskWithoutTheCallingLane) {
  auto checked = simulator(true);
  auto stream = checked.default_stream();
  auto out = DeviceBuffer<std::uint32_t>::zeroed(stream, 32);
  EXPECT_EQ(
      launch_error(checked, mask_without_caller, oxide::LaunchConfig1D{1, 32}, out),
      "oxide: kernel 'mask_without_caller' block (0,0,0) thread (16,0,0): warp any with mask 0x0000ffff, "
      "which does not include the calling lane 16");
  auto unchecked = simulator(false);
  EXPECT_EQ(
      launch_error(unchecked, mask_without_caller, oxide::LaunchConfig1D{1, 32}, out),
      "oxide: kernel 'mask_without_caller' block (0,0,0) thread (16,0,0): warp any (mask 0x0000ffff) waits "
      "for lane 0, which has exited");
}

TEST_F(SimFailures, DifferentWarpOperationsTogether) {
  {
    auto ctx = simulator(false); // each lane gets its own operation's answer
    auto stream = ctx.default_stream();
    auto out = DeviceBuffer<std::uint32_t>::zeroed(stream, 32);
    oxide::unsafe_launch(stream, mixed_votes, oxide::LaunchConfig1D{1, 32}, out);
    const auto host = out.to_host(stream);
    EXPECT_EQ(host[0], 1u);
    EXPECT_EQ(host[1], 1u << 4);
  }
  auto ctx = simulator(true);
  auto stream = ctx.default_stream();
  auto out = DeviceBuffer<std::uint32_t>::zeroed(stream, 32);
  EXPECT_EQ(
      launch_error(ctx, mixed_votes, oxide::LaunchConfig1D{1, 32}, out),
      "oxide: kernel 'mixed_votes' block (0,0,0) thread (31,0,0): divergent warp operation: the thread calls "
      "warp ballot with mask 0xffffffff while lane 0 calls warp any with mask 0xffffffff");
}

TEST_F(SimFailures, TwoThreadsWritingOneDisjointElement) {
  auto launch_2d = [](oxide::Context &ctx, DeviceBuffer<float> &out) {
    auto stream = ctx.default_stream();
    oxide::unsafe_launch(stream, write_by_row, oxide::LaunchConfig2D{{2, 1, 1}, {32, 2, 1}}, out);
  };
  {
    auto ctx = simulator(false); // silently racy without the checking mode
    auto stream = ctx.default_stream();
    auto out = DeviceBuffer<float>::zeroed(stream, 64);
    launch_2d(ctx, out);
  }
  auto ctx = simulator(true, 1);
  auto stream = ctx.default_stream();
  auto out = DeviceBuffer<float>::zeroed(stream, 64);
  EXPECT_EQ(error_of([&] { launch_2d(ctx, out); }),
            "oxide: kernel 'write_by_row' block (0,0,0) thread (0,1,0): two threads write element 0 of a "
            "DisjointSpan: this thread and thread (0,0,0) of block (0,0,0)");
}

TEST_F(SimFailures, TwoThreadsWritingOneElementOfA2DSpan) {
  auto ctx = simulator(true, 1);
  auto stream = ctx.default_stream();
  auto out = DeviceBuffer<int>::zeroed(stream, 8 * 4);
  EXPECT_EQ(
      error_of([&] {
        oxide::unsafe_launch(stream, write_by_layer, oxide::LaunchConfig3D{{1, 1, 1}, {8, 4, 2}, 0},
                             out.view_2d(8, 4));
      }),
      "oxide: kernel 'write_by_layer' block (0,0,0) thread (0,0,1): two threads write element [0][0] of a "
      "DisjointSpan: this thread and thread (0,0,0) of block (0,0,0)");
}

TEST_F(SimFailures, TwoThreadsWritingOneTile) {
  auto ctx = simulator(true, 1);
  auto stream = ctx.default_stream();
  auto out = DeviceBuffer<float>::zeroed(stream, 64);
  EXPECT_EQ(error_of([&] {
              oxide::unsafe_launch(stream, tiles_by_row, oxide::LaunchConfig2D{{1, 1, 1}, {4, 2, 1}, 0}, out);
            }),
            "oxide: kernel 'tiles_by_row' block (0,0,0) thread (0,1,0): two threads write element 0 of a "
            "DisjointSpan: this thread and thread (0,0,0) of block (0,0,0)");
}

TEST_F(SimFailures, StaticSharedMemoryBeyondTheLimit) {
  auto ctx = simulator();
  EXPECT_EQ(
      launch_error(ctx, too_much_shared, oxide::LaunchConfig1D{1, 1, 200000}, 0),
      "oxide: kernel 'too_much_shared' block (0,0,0) thread (0,0,0): shared memory: a 40000-byte array on "
      "top of 0 bytes of static and 200000 of dynamic shared memory exceeds the 232448 bytes per block of "
      "the CPU simulator");
  auto stream = ctx.default_stream();
  oxide::unsafe_launch(stream, too_much_shared, oxide::LaunchConfig1D{1, 1, 8192}, 0);
}

TEST_F(SimFailures, IntrinsicsWithInvalidArguments) {
  auto ctx = simulator();
  const oxide::LaunchConfig1D one{1, 1};
  EXPECT_EQ(launch_error(ctx, bad_dimension, one, 0), "oxide: kernel 'bad_dimension' block (0,0,0) thread "
                                                      "(0,0,0): __oxide_thread_idx called with dimension 3");
  EXPECT_EQ(launch_error(ctx, bad_shuffle_mode, one, 0),
            "oxide: kernel 'bad_shuffle_mode' block (0,0,0) thread (0,0,0): __oxide_warp_shuffle called with "
            "mode 7");
  EXPECT_EQ(
      launch_error(ctx, bad_vote_mode, one, 0),
      "oxide: kernel 'bad_vote_mode' block (0,0,0) thread (0,0,0): __oxide_warp_vote called with mode 5");
  EXPECT_EQ(launch_error(ctx, bad_rank, one, 0),
            "oxide: kernel 'bad_rank' block (0,0,0) thread (0,0,0): __oxide_thread_index called with rank 4");
  EXPECT_EQ(
      launch_error(ctx, bad_rank_dimension, one, 0),
      "oxide: kernel 'bad_rank_dimension' block (0,0,0) thread (0,0,0): __oxide_thread_index called with "
      "dimension 2");
  EXPECT_EQ(
      launch_error(ctx, bad_fence_scope, one, 0),
      "oxide: kernel 'bad_fence_scope' block (0,0,0) thread (0,0,0): __oxide_fence called with scope 9");
}

TEST_F(SimFailures, DeepRecursionFitsALargerStack) {
  oxide_test::ScopedEnv stack("OXIDE_SIM_STACK", "2M");
  auto ctx = oxide::Context::cpu();
  auto stream = ctx.default_stream();
  oxide::unsafe_launch(stream, overflow_the_stack, oxide::LaunchConfig1D{1, 4}, 1000); // ~1 MiB deep
}

TEST_F(SimFailures, StackOverflowHitsTheGuardPage) {
  // The guard page's fault fails the launch (sim_kernel_faults_test.cpp has the others).
  auto ctx = simulator(false, 1);
  EXPECT_NE(launch_error(ctx, overflow_the_stack, oxide::LaunchConfig1D{1, 1}, 1000).find("stack overflow"),
            std::string::npos);
}

} // namespace
