// Kernel faults on the CPU simulator: a wild or null pointer, a stack overflow, an integer
// division by zero fail the launch with an oxide::Error of kind KernelFault naming the kernel,
// block and thread, as the GPU's CUDA_ERROR_ILLEGAL_ADDRESS does, instead of killing the
// process; later launches work. A fault outside a kernel still kills the process.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <csignal>
#include <cstdint>
#include <functional>
#include <string>

#include "oxide/oxide.hpp"
#include "sim_test_support.hpp"

namespace {

using oxide::DeviceBuffer;
using oxide::Span;
using oxide_test::simulator;

// Thread `thread` of block `block` writes (or reads) through `address`; every thread counts.
void poke(std::uint32_t block, std::uint32_t thread, std::uint64_t address, bool write,
          Span<std::uint32_t> done) {
  if (oxide::block_idx().x == block && oxide::thread_idx().x == thread) {
    auto *p = reinterpret_cast<volatile std::uint32_t *>(address);
    if (write)
      *p = 1;
    else
      done[1] = *p;
  }
  oxide::AtomicRef<std::uint32_t>(done[0]).fetch_add(1);
}

[[gnu::noinline]] std::uint32_t recurse(std::uint32_t depth) {
  volatile char frame[1024];
  frame[depth % sizeof frame] = static_cast<char>(depth); // a variable index keeps the whole frame
  if (depth == 0)
    return 0;
  const std::uint32_t below = recurse(depth - 1);
  return below + static_cast<std::uint32_t>(frame[depth % sizeof frame]); // live across the call
}

// Thread 5 recurses 1000 frames of 1 KiB: far beyond a 64 KiB fiber stack.
void overflow(Span<std::uint32_t> out) {
  const std::uint32_t t = oxide::thread_idx().x;
  out[t] = t == 5 ? recurse(1000) : t;
}

// Every thread waits at a barrier first, so that the faulting thread runs on a fiber of its own
// while others are suspended.
void divide(std::uint32_t divisor, Span<std::uint32_t> out) {
  oxide::sync_threads();
  const std::uint32_t t = oxide::thread_idx().x;
  const volatile std::uint32_t d = t == 3 ? divisor : 1;
  out[t] = 100 / d;
}

// Clang and GCC define it under -fsanitize=address (scripts/test-sanitizers.sh adds undefined).
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

class SimKernelFaults : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    oxide::sim::register_kernel(poke, "poke");
    oxide::sim::register_kernel(overflow, "overflow");
    oxide::sim::register_kernel(divide, "divide");
  }
};

/// The error a launch throws; fails the test when it throws none.
oxide::Error launch_fault(const std::function<void()> &launch) {
  try {
    launch();
  } catch (const oxide::Error &e) {
    return e;
  }
  ADD_FAILURE() << "expected an oxide::Error";
  return oxide::Error("none");
}

TEST_F(SimKernelFaults, NullAndWildPointersFailTheLaunch) {
  for (const unsigned threads : {1u, 2u}) { // on the calling host thread and on workers
    auto ctx = simulator(false, threads);
    auto stream = ctx.default_stream();
    auto done = DeviceBuffer<std::uint32_t>::zeroed(stream, 2);
    const oxide::Error null_write = launch_fault([&] {
      oxide::unsafe_launch(stream, poke, oxide::LaunchConfig1D{4, 64}, 2u, 17u, std::uint64_t{8}, true, done);
    });
    EXPECT_EQ(null_write.kind(), oxide::ErrorKind::KernelFault);
    EXPECT_EQ(null_write.kernel(), "poke");
    EXPECT_STREQ(null_write.what(),
                 "oxide: kernel 'poke' block (2,0,0) thread (17,0,0): illegal address: a write "
                 "to address 0x8 (a null pointer, or an offset from one); on a GPU the launch "
                 "fails with CUDA_ERROR_ILLEGAL_ADDRESS");
    // A wild read far from anything mapped (80 TiB: below the program and its mappings, and in
    // ordinary memory for AddressSanitizer, whose check of the address comes first there).
    const oxide::Error wild_read = launch_fault([&] {
      oxide::unsafe_launch(stream, poke, oxide::LaunchConfig1D{4, 64}, 0u, 40u, std::uint64_t{0x500000000000},
                           false, done);
    });
    EXPECT_EQ(wild_read.kind(), oxide::ErrorKind::KernelFault);
    EXPECT_NE(
        std::string(wild_read.what())
            .find("block (0,0,0) thread (40,0,0): illegal address: a read of address 0x500000000000; on a "
                  "GPU"),
        std::string::npos)
        << wild_read.what();
    // The context, the stream and the host thread go on working.
    auto fresh = DeviceBuffer<std::uint32_t>::zeroed(stream, 2);
    oxide::unsafe_launch(stream, poke, oxide::LaunchConfig1D{4, 64}, 99u, 0u, std::uint64_t{0}, true, fresh);
    EXPECT_EQ(fresh.to_host(stream)[0], 256u);
  }
}

TEST_F(SimKernelFaults, AStackOverflowFailsTheLaunch) {
  auto ctx = simulator();
  auto stream = ctx.default_stream();
  auto out = DeviceBuffer<std::uint32_t>::zeroed(stream, 32);
  const oxide::Error error =
      launch_fault([&] { oxide::unsafe_launch(stream, overflow, oxide::LaunchConfig1D{1, 32}, out); });
  EXPECT_EQ(error.kind(), oxide::ErrorKind::KernelFault);
  EXPECT_STREQ(error.what(),
               "oxide: kernel 'overflow' block (0,0,0) thread (5,0,0): stack overflow: the simulated "
               "thread needs more than its 64 KiB of stack (deep recursion or large local "
               "arrays); set OXIDE_SIM_STACK to give it more");
  // With a larger stack the same kernel runs.
  oxide_test::ScopedEnv stack("OXIDE_SIM_STACK", "4M");
  auto big = simulator();
  auto big_stream = big.default_stream();
  oxide::unsafe_launch(big_stream, overflow, oxide::LaunchConfig1D{1, 32}, out);
  EXPECT_EQ(out.to_host(big_stream)[4], 4u);
}

TEST_F(SimKernelFaults, IntegerDivisionByZeroFailsTheLaunch) {
  if (kSanitized)
    GTEST_SKIP() << "UndefinedBehaviorSanitizer reports the division first";
  auto ctx = simulator();
  auto stream = ctx.default_stream();
  auto out = DeviceBuffer<std::uint32_t>::zeroed(stream, 64);
  const oxide::Error error =
      launch_fault([&] { oxide::unsafe_launch(stream, divide, oxide::LaunchConfig1D{1, 64}, 0u, out); });
  EXPECT_EQ(error.kind(), oxide::ErrorKind::KernelFault);
  EXPECT_NE(std::string(error.what()).find("thread (3,0,0): integer division by zero"), std::string::npos)
      << error.what();
  oxide::unsafe_launch(stream, divide, oxide::LaunchConfig1D{1, 64}, 4u, out);
  EXPECT_EQ(out.to_host(stream)[3], 25u);
}

/// Killed by `signal`, as without the simulator; a sanitizer's handler reports and exits instead.
struct DiesOf {
  int signal;
  bool operator()(int status) const {
    return kSanitized ? status != 0 : WIFSIGNALED(status) && WTERMSIG(status) == signal;
  }
};

[[gnu::noinline]] void host_null_write() {
  volatile std::uint32_t *volatile p = nullptr;
  *p = 1;
}

TEST_F(SimKernelFaults, FaultsOutsideKernelsStillKillTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        // The handlers are installed by a launch; afterwards, a host fault is still fatal.
        auto ctx = simulator();
        auto stream = ctx.default_stream();
        auto done = DeviceBuffer<std::uint32_t>::zeroed(stream, 2);
        oxide::unsafe_launch(stream, poke, oxide::LaunchConfig1D{1, 1}, 9u, 0u, std::uint64_t{0}, true, done);
        host_null_write();
      },
      DiesOf{SIGSEGV}, "");
  EXPECT_EXIT(
      {
        auto ctx = simulator();
        auto stream = ctx.default_stream();
        auto done = DeviceBuffer<std::uint32_t>::zeroed(stream, 2);
        oxide::unsafe_launch(stream, poke, oxide::LaunchConfig1D{1, 1}, 9u, 0u, std::uint64_t{0}, true, done);
        std::raise(SIGBUS); // a sent signal, not a fault: the default action too
      },
      DiesOf{SIGBUS}, "");
}

} // namespace
