// The Hopper operations on the CPU simulator: mbarriers (phases, arrival counts, transaction
// bytes, deadlocks), TMA box copies (each swizzle, zero fill, multicast), TMA stores (each
// swizzle, clipping) and wgmma (each type and
// layout against a scalar product). The layouts are restated here from the PTX ISA and CUTLASS's
// canonical GMMA layouts, independently of runtime/sim/hopper.cpp.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "oxide/detail/intrinsic_abi.hpp"
#include "oxide/oxide.hpp"
#include "sim/mbarrier.hpp"
#include "sim/tensor_map_format.hpp"
#include "sim_test_support.hpp"

namespace {

using oxide::DeviceBuffer;
using oxide::DisjointSpan;
using oxide::Span;
using oxide::detail::sim::Mbarrier;
using oxide::detail::sim::TensorMapImage;
using oxide::intrinsic::WgmmaType;
using oxide_test::error_of;
using oxide_test::simulator;

/// Shared memory aligned as TMA boxes and wgmma operands need it.
template <std::size_t Bytes> struct alignas(1024) SharedBytes {
  std::byte b[Bytes];
};

/// The swizzle as CUTLASS's Swizzle<3,4,3>, <2,4,3>, <1,4,3> state it on a byte offset.
std::size_t swizzled(std::size_t o, std::uint32_t span) {
  const std::size_t m = span == 128 ? 7 : span == 64 ? 3 : span == 32 ? 1 : 0;
  return o ^ (((o >> 7) & m) << 4);
}

// --- the mbarrier word -------------------------------------------------------------------------

TEST(SimHopperParts, MbarrierWordRoundTrips) {
  for (const Mbarrier m : {Mbarrier{1, 1, 0, 0}, Mbarrier{Mbarrier::kMaxCount, 17, Mbarrier::kMaxTx, 1},
                           Mbarrier{5, 0, Mbarrier::kMinTx, 0}, Mbarrier{3, 2, -16, 1}}) {
    const auto back = Mbarrier::decode(m.encode());
    ASSERT_TRUE(back);
    EXPECT_EQ(back->count, m.count);
    EXPECT_EQ(back->pending, m.pending);
    EXPECT_EQ(back->tx, m.tx);
    EXPECT_EQ(back->parity, m.parity);
  }
  // Zeroed memory and the checking mode's poison hold no barrier.
  EXPECT_FALSE(Mbarrier::decode(0));
  EXPECT_FALSE(Mbarrier::decode(~std::uint64_t{0}));
  Mbarrier m = Mbarrier::initial(2);
  EXPECT_TRUE(m.phase_complete(1)); // the phase before phase 0 counts as complete
  EXPECT_FALSE(m.phase_complete(0));
  m.pending = 0;
  m.tx = 8;
  EXPECT_FALSE(m.try_complete()); // bytes still due
  m.tx = 0;
  EXPECT_TRUE(m.try_complete());
  EXPECT_EQ(m.parity, 1u);
  EXPECT_EQ(m.pending, 2u);
}

// --- mbarriers in kernels ----------------------------------------------------------------------

void phases(Span<std::uint32_t> out);
void stuck(Span<const std::uint32_t> config);
void misuse(Span<const std::uint32_t> which);

// The kernels, registered with the simulator once.
void tma_box(Span<const TensorMapImage>, Span<const std::int32_t>, Span<std::uint8_t>);
void tma_misuse(Span<const TensorMapImage>, Span<const std::uint32_t>);
void tma_store_box(Span<const TensorMapImage>, Span<const std::int32_t>, Span<const std::uint8_t>);
void multicast(Span<const TensorMapImage>, DisjointSpan<std::uint16_t>);
/// What the kernel needs: descriptors without their start address, the start offsets in the
/// shared image, and the instruction.
struct WgmmaArgs {
  std::uint64_t desc_a, desc_b;
  std::uint32_t start_a, start_b;
  std::uint32_t n, type, accumulate, trans_a, trans_b;
};
void wgmma_kernel(Span<const std::byte>, Span<const WgmmaArgs>, Span<const std::uint32_t>,
                  Span<std::uint32_t>);
void wgmma_outside(Span<const std::uint32_t>);
void wgmma_then_release(Span<float>);

class SimHopper : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    using oxide::sim::register_kernel;
    register_kernel(phases, "phases");
    register_kernel(stuck, "stuck");
    register_kernel(misuse, "misuse");
    register_kernel(tma_box, "tma_box");
    register_kernel(tma_misuse, "tma_misuse");
    register_kernel(tma_store_box, "tma_store_box");
    register_kernel(multicast, "multicast", "domain = 1, block = 32, cluster = 2", {"map", "out"});
    register_kernel(wgmma_kernel, "wgmma_kernel");
    register_kernel(wgmma_outside, "wgmma_outside");
    register_kernel(wgmma_then_release, "wgmma_then_release");
  }
};

/// 64 threads, 3 phases of a barrier counting 64 arrivals: thread 63 writes the phase's value
/// last, the others wait and must see it.
void phases(Span<std::uint32_t> out) {
  auto bar = oxide::shared_array<std::uint64_t, 1>();
  auto value = oxide::shared_array<std::uint32_t, 1>();
  const std::uint32_t t = oxide::thread_idx().x;
  if (t == 0)
    __oxide_mbarrier_init(bar.data(), 64);
  __oxide_sync_threads();
  for (std::uint32_t phase = 0; phase < 3; ++phase) {
    if (t == 63)
      value[0] = 100 + phase;
    __oxide_mbarrier_arrive(bar.data());
    while (!__oxide_mbarrier_try_wait_parity(bar.data(), phase % 2)) {
    }
    out[phase * 64 + t] = value[0];
    __oxide_sync_threads(); // thread 63 writes the next value only after every thread read this one
  }
  // The phase before the current one has completed: a wait on its parity returns at once.
  out[192 + t] = __oxide_mbarrier_try_wait_parity(bar.data(), 0);
}

TEST_F(SimHopper, MbarrierPhasesWaitForEveryArrival) {
  for (const bool check : {false, true}) {
    auto ctx = simulator(check);
    auto stream = ctx.default_stream();
    auto out = DeviceBuffer<std::uint32_t>::zeroed(stream, 256);
    oxide::unsafe_launch(stream, phases, oxide::LaunchConfig1D{1, 64}, out);
    const auto host = out.to_host(stream);
    for (std::uint32_t i = 0; i < 192; ++i)
      ASSERT_EQ(host[i], 100 + i / 64) << "phase " << i / 64 << " thread " << i % 64;
    for (std::uint32_t i = 192; i < 256; ++i)
      EXPECT_EQ(host[i], 1u);
  }
}

/// Thread 0 expects `bytes` but `arrivals` of the 2 threads arrive: the waiters deadlock.
void stuck(Span<const std::uint32_t> config) {
  auto bar = oxide::shared_array<std::uint64_t, 1>();
  const std::uint32_t t = oxide::thread_idx().x;
  if (t == 0)
    __oxide_mbarrier_init(bar.data(), 2);
  __oxide_sync_threads();
  if (t == 0)
    __oxide_mbarrier_arrive_expect_tx(bar.data(), config[0]);
  if (t == 1 && config[1] == 2)
    __oxide_mbarrier_arrive(bar.data());
  while (!__oxide_mbarrier_try_wait_parity(bar.data(), 0)) {
  }
}

TEST_F(SimHopper, MbarrierWaitThatCannotCompleteIsADeadlock) {
  auto ctx = simulator(true);
  auto stream = ctx.default_stream();
  // An arrival missing.
  auto one = DeviceBuffer<std::uint32_t>::from_host(stream, std::vector<std::uint32_t>{0, 1});
  EXPECT_EQ(
      error_of([&] { oxide::unsafe_launch(stream, stuck, oxide::LaunchConfig1D{1, 32}, one); }),
      "oxide: kernel 'stuck' block (0,0,0) thread (0,0,0): deadlock: the thread waits for the phase of "
      "parity 0 of the mbarrier at byte 0 of a shared array, which can never complete: 1 of its 2 "
      "arrivals and 0 transaction bytes are still due, and no thread can run (32 of the 32 threads wait "
      "at mbarriers, 0 at sync_threads or cluster::sync, 0 in warp operations, 0 have exited)");
  // Every arrival, but bytes expected that no copy brings.
  auto bytes = DeviceBuffer<std::uint32_t>::from_host(stream, std::vector<std::uint32_t>{4096, 2});
  EXPECT_EQ(error_of([&] { oxide::unsafe_launch(stream, stuck, oxide::LaunchConfig1D{1, 32}, bytes); }),
            "oxide: kernel 'stuck' block (0,0,0) thread (0,0,0): deadlock: the thread waits for the phase of "
            "parity 0 of the mbarrier at byte 0 of a shared array, which can never complete: 0 of its 2 "
            "arrivals and 4096 transaction bytes are still due, and no thread can run (32 of the 32 threads "
            "wait at mbarriers, 0 at sync_threads or cluster::sync, 0 in warp operations, 0 have exited)");
}

void misuse(Span<const std::uint32_t> which) {
  auto bar = oxide::shared_array<std::uint64_t, 1>();
  std::uint64_t local = 0;
  switch (which[0]) {
  case 0: // arrive before init (the checking mode poisons shared memory)
    __oxide_mbarrier_arrive(bar.data());
    break;
  case 1: // one arrival more than the count
    __oxide_mbarrier_init(bar.data(), 1);
    __oxide_mbarrier_arrive_expect_tx(bar.data(), 64);
    __oxide_mbarrier_arrive(bar.data());
    break;
  case 2: // not shared memory
    __oxide_mbarrier_init(&local, 1);
    break;
  case 3:
    __oxide_mbarrier_init(bar.data(), 0);
    break;
  case 4: // invalidated, then waited at
    __oxide_mbarrier_init(bar.data(), 1);
    __oxide_mbarrier_inval(bar.data());
    (void)__oxide_mbarrier_try_wait_parity(bar.data(), 0);
    break;
  case 5:
    __oxide_setmaxnreg(20, 1);
    break;
  }
}

TEST_F(SimHopper, MbarrierMisuseIsReported) {
  auto ctx = simulator(true);
  auto stream = ctx.default_stream();
  const auto run = [&](std::uint32_t which) {
    auto arg = DeviceBuffer<std::uint32_t>::from_host(stream, std::vector<std::uint32_t>{which});
    return error_of([&] { oxide::unsafe_launch(stream, misuse, oxide::LaunchConfig1D{1, 1}, arg); });
  };
  const std::string prefix = "oxide: kernel 'misuse' block (0,0,0) thread (0,0,0): ";
  EXPECT_EQ(run(0), prefix +
                        "mbarrier_arrive: the mbarrier at byte 0 of a shared array is not initialised (call "
                        "mbarrier_init first, and again after mbarrier_inval)");
  EXPECT_EQ(run(1), prefix +
                        "mbarrier_arrive: phase 0 of the mbarrier at byte 0 of a shared array has had all "
                        "its 1 arrivals and waits for 64 transaction bytes; one arrival more than its "
                        "count is undefined on the GPU");
  EXPECT_NE(run(2).find("mbarrier_init: the mbarrier at 0x"), std::string::npos);
  EXPECT_NE(run(2).find("is not in the block's shared memory (a shared_array or dynamic_shared)"),
            std::string::npos);
  EXPECT_EQ(run(3), prefix +
                        "mbarrier_init: the arrival count 0 of the mbarrier at byte 0 of a shared array is "
                        "outside 1..1048575");
  EXPECT_EQ(run(4), prefix + "mbarrier_try_wait_parity: the mbarrier at byte 0 of a shared array is not "
                             "initialised (call mbarrier_init first, and again after mbarrier_inval)");
  EXPECT_EQ(run(5), prefix +
                        "setmaxnreg: 20 registers (1): the count is a multiple of 8 in 24..256, increase 0 "
                        "or 1");
}

// --- TMA ---------------------------------------------------------------------------------------

constexpr std::size_t kBoxBytes = 16384;

/// Thread 0 copies the box at `coords` into 1024-byte-aligned shared memory; the block waits and
/// writes the shared bytes (the swizzled box) to `out`. out[kBoxBytes..] records what thread 0
/// read of the box before waiting.
void tma_box(Span<const TensorMapImage> map, Span<const std::int32_t> coords, Span<std::uint8_t> out) {
  auto bar = oxide::shared_array<std::uint64_t, 1>();
  auto &box = oxide::shared_array<SharedBytes<kBoxBytes>, 1>()[0];
  const std::uint32_t t = oxide::thread_idx().x;
  const auto bytes = static_cast<std::uint32_t>(map[0].box_bytes());
  if (t == 0) {
    __oxide_mbarrier_init(bar.data(), 1);
    __oxide_mbarrier_arrive_expect_tx(bar.data(), bytes);
    __oxide_tma_load(box.b, map.data(), bar.data(), map[0].rank, coords[0], coords[1], coords[2], coords[3],
                     coords[4]);
    std::memcpy(&out[kBoxBytes], box.b, 16); // not landed yet
  }
  while (!__oxide_mbarrier_try_wait_parity(bar.data(), 0)) {
  }
  for (std::uint32_t i = t; i < bytes; i += oxide::block_dim().x)
    out[i] = std::to_integer<std::uint8_t>(box.b[i]);
}

/// A tensor of 16-bit elements whose value names its coordinates.
struct Tensor {
  std::vector<std::uint64_t> extents;
  std::vector<std::uint16_t> values;
  std::vector<std::uint64_t> strides; // bytes, dimensions 1..
};

Tensor make_tensor(std::vector<std::uint64_t> extents, std::uint64_t row_elements) {
  Tensor t{extents, {}, {}};
  std::uint64_t total = row_elements;
  std::uint64_t stride = row_elements * 2;
  for (std::size_t d = 1; d < extents.size(); ++d) {
    t.strides.push_back(stride);
    stride *= extents[d];
    total *= extents[d];
  }
  t.values.resize(total);
  for (std::size_t i = 0; i < total; ++i)
    t.values[i] = static_cast<std::uint16_t>(i * 2654435761u >> 7) | 1; // never 0: zeros mean outside
  return t;
}

std::vector<std::uint8_t> expected_box(const Tensor &t, const std::vector<std::uint32_t> &box,
                                       const std::vector<std::int32_t> &coords, std::uint32_t span) {
  std::size_t count = 1;
  for (std::uint32_t b : box)
    count *= b;
  std::vector<std::uint8_t> bytes(count * 2, 0);
  for (std::size_t e = 0; e < count; ++e) {
    std::size_t rest = e, offset = 0;
    bool inside = true;
    for (std::size_t d = 0; d < box.size(); ++d) {
      const std::int64_t c = coords[d] + static_cast<std::int64_t>(rest % box[d]);
      rest /= box[d];
      inside = inside && c >= 0 && static_cast<std::uint64_t>(c) < t.extents[d];
      offset += d == 0 ? static_cast<std::size_t>(c) * 2 : static_cast<std::size_t>(c) * t.strides[d - 1];
    }
    std::uint16_t v = 0;
    if (inside)
      std::memcpy(&v, reinterpret_cast<const std::uint8_t *>(t.values.data()) + offset, 2);
    std::memcpy(&bytes[swizzled(e * 2, span)], &v, 2);
  }
  return bytes;
}

TensorMapImage image_of(const Tensor &t, const DeviceBuffer<std::uint16_t> &data,
                        const std::vector<std::uint32_t> &box, std::uint32_t span) {
  TensorMapImage m;
  m.rank = static_cast<std::uint32_t>(box.size());
  m.element_bytes = 2;
  m.swizzle_bytes = span;
  m.data = reinterpret_cast<std::uint64_t>(data.device_ptr());
  for (std::size_t d = 0; d < box.size(); ++d) {
    m.extents[d] = t.extents[d];
    m.box[d] = box[d];
    if (d > 0)
      m.strides[d - 1] = t.strides[d - 1];
  }
  return m;
}

void check_box(const Tensor &t, const std::vector<std::uint32_t> &box,
               const std::vector<std::int32_t> &coords, std::uint32_t span) {
  SCOPED_TRACE(testing::Message() << "swizzle " << span << ", rank " << box.size() << ", coords " << coords[0]
                                  << ", " << coords[1]);
  auto ctx = simulator(true);
  auto stream = ctx.default_stream();
  auto data = DeviceBuffer<std::uint16_t>::from_host(stream, t.values);
  const TensorMapImage image = image_of(t, data, box, span);
  auto map = DeviceBuffer<TensorMapImage>::from_host(stream, std::vector<TensorMapImage>{image});
  std::vector<std::int32_t> c5(5, 0);
  std::copy(coords.begin(), coords.end(), c5.begin());
  auto dc = DeviceBuffer<std::int32_t>::from_host(stream, c5);
  auto out = DeviceBuffer<std::uint8_t>::zeroed(stream, kBoxBytes + 16);
  oxide::unsafe_launch(stream, tma_box, oxide::LaunchConfig1D{1, 64}, map, dc, out);
  const auto host = out.to_host(stream);
  const auto expected = expected_box(t, box, coords, span);
  for (std::size_t i = 0; i < expected.size(); ++i)
    ASSERT_EQ(host[i], expected[i]) << "shared byte " << i;
  // The checking mode's poison is still there before the wait: copies land when waited for.
  for (std::size_t i = 0; i < 16; ++i)
    EXPECT_EQ(host[kBoxBytes + i], 0xff);
}

TEST_F(SimHopper, TmaBoxWithEachSwizzleAndZeroFill) {
  // 2-D: 100 x 50 elements in rows of 104; boxes of a swizzle span's row (64 elements without).
  const Tensor t = make_tensor({100, 50}, 104);
  for (const std::uint32_t span : {0u, 32u, 64u, 128u}) {
    const std::uint32_t inner = span ? span / 2 : 64;
    check_box(t, {inner, 16}, {8, 3}, span);    // inside
    check_box(t, {inner, 16}, {80, 40}, span);  // past both ends
    check_box(t, {inner, 16}, {-10, -5}, span); // before both
    check_box(t, {inner, 16}, {-70, 10}, span); // wholly outside
  }
  // 3-D and 5-D boxes.
  const Tensor t3 = make_tensor({40, 6, 5}, 40);
  check_box(t3, {16, 4, 3}, {30, 3, 3}, 32);
  const Tensor t5 = make_tensor({24, 3, 2, 3, 2}, 24);
  check_box(t5, {8, 2, 2, 2, 2}, {20, 2, 1, 0, 1}, 0);
}

/// The block fills 1024-byte-aligned shared memory with `box` (the box as it lies in shared
/// memory, swizzled), then thread 0 stores it at `coords` with a TMA store and waits for it.
void tma_store_box(Span<const TensorMapImage> map, Span<const std::int32_t> coords,
                   Span<const std::uint8_t> box) {
  auto &shared = oxide::shared_array<SharedBytes<kBoxBytes>, 1>()[0];
  const std::uint32_t t = oxide::thread_idx().x;
  for (std::uint32_t i = t; i < box.size(); i += oxide::block_dim().x)
    shared.b[i] = std::byte{box[i]};
  __oxide_fence_proxy_async_shared();
  oxide::sync_threads();
  if (t == 0) {
    __oxide_tma_store(map.data(), shared.b, map[0].rank, coords[0], coords[1], coords[2], coords[3],
                      coords[4]);
    __oxide_tma_store_commit();
    __oxide_tma_store_wait(0);
  }
}

/// The tensor after storing the box whose element e (logical, row-major) is at shared byte
/// swizzled(2 e): every element of the box inside the tensor takes its value, the others stay;
/// along the innermost dimension the GPU writes whole 16-byte chunks, so "inside" reaches the
/// next multiple of 8 elements past a row's end.
std::vector<std::uint16_t> expected_store(const Tensor &t, const std::vector<std::uint32_t> &box,
                                          const std::vector<std::int32_t> &coords, std::uint32_t span,
                                          const std::vector<std::uint8_t> &shared) {
  std::vector<std::uint16_t> values = t.values;
  std::size_t count = 1;
  for (std::uint32_t b : box)
    count *= b;
  for (std::size_t e = 0; e < count; ++e) {
    std::size_t rest = e, offset = 0;
    bool inside = true;
    for (std::size_t d = 0; d < box.size(); ++d) {
      const std::int64_t c = coords[d] + static_cast<std::int64_t>(rest % box[d]);
      rest /= box[d];
      const std::uint64_t end = d == 0 ? (t.extents[0] + 7) / 8 * 8 : t.extents[d];
      inside = inside && c >= 0 && static_cast<std::uint64_t>(c) < end;
      offset += d == 0 ? static_cast<std::size_t>(c) * 2 : static_cast<std::size_t>(c) * t.strides[d - 1];
    }
    if (inside)
      std::memcpy(reinterpret_cast<std::uint8_t *>(values.data()) + offset, &shared[swizzled(e * 2, span)],
                  2);
  }
  return values;
}

void check_store(const Tensor &t, const std::vector<std::uint32_t> &box,
                 const std::vector<std::int32_t> &coords, std::uint32_t span) {
  SCOPED_TRACE(testing::Message() << "store: swizzle " << span << ", rank " << box.size() << ", coords "
                                  << coords[0] << ", " << coords[1]);
  auto ctx = simulator(true);
  auto stream = ctx.default_stream();
  auto data = DeviceBuffer<std::uint16_t>::from_host(stream, t.values);
  const TensorMapImage image = image_of(t, data, box, span);
  auto map = DeviceBuffer<TensorMapImage>::from_host(stream, std::vector<TensorMapImage>{image});
  std::vector<std::int32_t> c5(5, 0);
  std::copy(coords.begin(), coords.end(), c5.begin());
  auto dc = DeviceBuffer<std::int32_t>::from_host(stream, c5);
  std::vector<std::uint8_t> shared(image.box_bytes());
  for (std::size_t i = 0; i < shared.size(); ++i)
    shared[i] = static_cast<std::uint8_t>(i * 97 + 13);
  auto box_bytes = DeviceBuffer<std::uint8_t>::from_host(stream, shared);
  oxide::unsafe_launch(stream, tma_store_box, oxide::LaunchConfig1D{1, 64}, map, dc, box_bytes);
  const auto host = data.to_host(stream);
  const auto expected = expected_store(t, box, coords, span, shared);
  for (std::size_t i = 0; i < expected.size(); ++i)
    ASSERT_EQ(host[i], expected[i]) << "tensor element " << i;
}

TEST_F(SimHopper, TmaStoreWithEachSwizzleSkipsElementsOutsideTheTensor) {
  // Rows of 50 elements (100 bytes) in rows of 104: a store past a row's end writes up to 56.
  const Tensor t = make_tensor({100, 50}, 104);
  for (const std::uint32_t span : {0u, 32u, 64u, 128u}) {
    const std::uint32_t inner = span ? span / 2 : 64;
    check_store(t, {inner, 16}, {8, 3}, span);    // inside
    check_store(t, {inner, 16}, {80, 40}, span);  // past both ends: clipped
    check_store(t, {inner, 16}, {-10, -5}, span); // before both
    check_store(t, {inner, 16}, {-70, 10}, span); // wholly outside: nothing written
  }
  const Tensor t3 = make_tensor({40, 6, 5}, 40);
  check_store(t3, {16, 4, 3}, {30, 3, 3}, 32);
  const Tensor t5 = make_tensor({24, 3, 2, 3, 2}, 24);
  check_store(t5, {8, 2, 2, 2, 2}, {20, 2, 1, 0, 1}, 0);
}

/// The copy's map is not a TensorMap, its destination is not aligned or not shared memory.
void tma_misuse(Span<const TensorMapImage> map, Span<const std::uint32_t> which) {
  auto bar = oxide::shared_array<std::uint64_t, 1>();
  auto &box = oxide::shared_array<SharedBytes<kBoxBytes>, 1>()[0];
  __oxide_mbarrier_init(bar.data(), 1);
  switch (which[0]) {
  case 0:
    __oxide_tma_load(box.b + 16, map.data(), bar.data(), 2, 0, 0, 0, 0, 0);
    break;
  case 1:
    __oxide_tma_load(box.b, map.data(), bar.data(), 3, 0, 0, 0, 0, 0);
    break;
  case 2:
    __oxide_tma_load(box.b + kBoxBytes - 1024, map.data(), bar.data(), 2, 0, 0, 0, 0, 0);
    break;
  case 3: {
    alignas(64) std::byte bogus[128] = {};
    __oxide_tma_prefetch(bogus);
    break;
  }
  }
}

TEST_F(SimHopper, TmaMisuseIsReported) {
  auto ctx = simulator(true);
  auto stream = ctx.default_stream();
  const Tensor t = make_tensor({100, 50}, 104);
  auto data = DeviceBuffer<std::uint16_t>::from_host(stream, t.values);
  auto map = DeviceBuffer<TensorMapImage>::from_host(stream, std::vector{image_of(t, data, {64, 16}, 128)});
  const auto run = [&](std::uint32_t which) {
    auto arg = DeviceBuffer<std::uint32_t>::from_host(stream, std::vector<std::uint32_t>{which});
    return error_of([&] { oxide::unsafe_launch(stream, tma_misuse, oxide::LaunchConfig1D{1, 1}, map, arg); });
  };
  const std::string prefix = "oxide: kernel 'tma_misuse' block (0,0,0) thread (0,0,0): ";
  EXPECT_EQ(run(0),
            prefix + "tma_load: the destination at byte 16 of a shared array is not 128-byte aligned");
  EXPECT_EQ(run(1), prefix + "tma_load: a copy of rank 3 with a TensorMap of rank 2");
  EXPECT_EQ(run(2), prefix + "tma_load: the 2048-byte box does not fit in the block's shared memory at byte "
                             "15360 of a shared array");
  EXPECT_NE(run(3).find("holds no TensorMap of the simulator"), std::string::npos);
}

/// Clusters of 2: block 0 multicasts one box to both blocks, each of which expects it on its own
/// barrier; block 1 then releases block 0 through block 0's second barrier (arrive_cluster).
void multicast(Span<const TensorMapImage> map, DisjointSpan<std::uint16_t> out) {
  auto bars = oxide::shared_array<std::uint64_t, 2>();
  auto &box = oxide::shared_array<SharedBytes<4096>, 1>()[0];
  const std::uint32_t t = oxide::thread_idx().x, rank = oxide::cluster::block_rank();
  const auto bytes = static_cast<std::uint32_t>(map[0].box_bytes());
  if (t == 0) {
    __oxide_mbarrier_init(&bars[0], 1);
    __oxide_mbarrier_init(&bars[1], 1);
    __oxide_mbarrier_arrive_expect_tx(&bars[0], bytes);
  }
  oxide::cluster::sync(); // both blocks' barriers are initialised
  if (rank == 0 && t == 0)
    __oxide_tma_load_multicast(box.b, map.data(), &bars[0], 2, 0, 0, 0, 0, 0, 0b11);
  while (!__oxide_mbarrier_try_wait_parity(&bars[0], 0)) {
  }
  const auto *values = reinterpret_cast<const std::uint16_t *>(box.b);
  auto mine = out.tile_mut<32>(oxide::thread::index_1d()); // elements [32 t, 32 t + 32) of the box
  for (std::size_t j = 0; j < mine.size(); ++j)
    mine[j] = values[32 * t + j];
  if (rank == 1 && t == 0)
    __oxide_mbarrier_arrive_cluster(&bars[1], 0);
  if (rank == 0)
    while (!__oxide_mbarrier_try_wait_parity(&bars[1], 0)) {
    }
  oxide::cluster::sync(); // block 0's barrier outlives block 1's arrival
}

TEST_F(SimHopper, TmaMulticastAndRemoteArrivals) {
  for (const unsigned threads : {1u, 2u}) {
    auto ctx = simulator(true, threads);
    auto stream = ctx.default_stream();
    const Tensor t = make_tensor({64, 20}, 64);
    auto data = DeviceBuffer<std::uint16_t>::from_host(stream, t.values);
    auto map = DeviceBuffer<TensorMapImage>::from_host(stream, std::vector{image_of(t, data, {64, 16}, 0)});
    auto out = DeviceBuffer<std::uint16_t>::zeroed(stream, 4 * 64 * 16);
    oxide::prepare(ctx, multicast, oxide::LaunchConfig1D{4, 32})(stream, map, out);
    const auto host = out.to_host(stream);
    for (std::size_t block = 0; block < 4; ++block)
      for (std::size_t i = 0; i < 64 * 16; ++i)
        ASSERT_EQ(host[block * 1024 + i], t.values[i]) << "block " << block << " element " << i;
  }
}

// --- wgmma -------------------------------------------------------------------------------------

constexpr std::size_t kImageBytes = 40 * 1024; // A at 0 (8 KiB at most), B at 8 KiB
constexpr std::size_t kBOffset = 8 * 1024;

/// One warpgroup: copies `image` to shared memory, runs the wgmma with the accumulators from
/// `acc_in` (element i of thread t at [t * n / 2 + i]) and writes them back in the same order.
void wgmma_kernel(Span<const std::byte> image, Span<const WgmmaArgs> args, Span<const std::uint32_t> acc_in,
                  Span<std::uint32_t> acc_out) {
  auto &tile = oxide::shared_array<SharedBytes<kImageBytes>, 1>()[0];
  const std::uint32_t t = oxide::thread_idx().x;
  for (std::size_t i = t; i < kImageBytes; i += 128)
    tile.b[i] = image[i];
  __oxide_sync_threads();
  const WgmmaArgs a = args[0];
  const std::uint32_t base = __oxide_shared_address(tile.b);
  std::uint32_t acc[128];
  for (std::uint32_t i = 0; i < a.n / 2; ++i)
    acc[i] = acc_in[t * a.n / 2 + i];
  __oxide_wgmma_fence();
  __oxide_wgmma(acc, a.desc_a | (base + a.start_a) >> 4, a.desc_b | (base + a.start_b) >> 4, a.n, a.type,
                a.accumulate, a.trans_a, a.trans_b);
  __oxide_wgmma_commit_group();
  __oxide_wgmma_wait_group(0);
  for (std::uint32_t i = 0; i < a.n / 2; ++i)
    acc_out[t * a.n / 2 + i] = acc[i];
}

/// The bits of `value` (a small integer or half-integer) as an element of `type`.
std::vector<std::uint8_t> encode(WgmmaType type, double value) {
  std::vector<std::uint8_t> bits;
  const auto push = [&](auto v) {
    bits.resize(sizeof v);
    std::memcpy(bits.data(), &v, sizeof v);
  };
  switch (type) {
  case WgmmaType::bf16:
    push(static_cast<__bf16>(static_cast<float>(value)));
    break;
  case WgmmaType::f16:
    push(static_cast<_Float16>(value));
    break;
  case WgmmaType::tf32: // low bits set: the tensor cores ignore them
    push(std::bit_cast<std::uint32_t>(static_cast<float>(value)) | 0x1fffu);
    break;
  case WgmmaType::s8:
    push(static_cast<std::int8_t>(value));
    break;
  case WgmmaType::e4m3:
  case WgmmaType::e5m2: { // the values used: 0, +-0.5, +-1, +-2, +-3, +-4
    const bool e4 = type == WgmmaType::e4m3;
    const double magnitude = value < 0 ? -value : value;
    std::uint8_t b = 0;
    if (magnitude == 0.5)
      b = e4 ? 0x30 : 0x38;
    else if (magnitude == 1)
      b = e4 ? 0x38 : 0x3c;
    else if (magnitude == 2)
      b = 0x40;
    else if (magnitude == 3)
      b = e4 ? 0x44 : 0x42;
    else if (magnitude == 4)
      b = e4 ? 0x48 : 0x44;
    push(static_cast<std::uint8_t>(b | (value < 0 ? 0x80 : 0)));
    break;
  }
  }
  return bits;
}

std::uint32_t size_of(WgmmaType type) {
  return type == WgmmaType::tf32 ? 4 : type == WgmmaType::bf16 || type == WgmmaType::f16 ? 2 : 1;
}

/// An operand (rows `mn` of `k_total` elements, of which the instruction reads columns
/// [k0, k0 + 32 / size)) laid out in shared memory: the byte offset of element (mn, k) from the
/// operand's start, per CUTLASS's canonical layouts, and the descriptor's LBO and SBO.
struct Layout {
  bool mn_major;
  std::uint32_t span; // swizzle bytes, 0: none
  std::uint32_t rows; // M or N
  std::uint32_t size; // element bytes
  std::uint32_t lbo() const {
    if (!mn_major)
      return span ? 16 : 128;                         // unused when swizzled; core matrices along K adjacent
    return span ? 2 * 8 * span : rows * 2 / 16 * 128; // next MN span after both K groups; next K group
  }
  std::uint32_t sbo() const {
    if (!mn_major)
      return span ? 8 * span : 256; // next 8 rows
    return span ? 8 * span : 128;   // next 8 K-rows; next 16 bytes of MN
  }
  /// Offset of (mn, k) from the tile's start (k over the whole stored row).
  std::size_t offset(std::uint32_t mn, std::uint32_t k) const {
    if (!mn_major) {
      const std::uint32_t kb = k * size;
      if (!span)
        return mn / 8 * sbo() + mn % 8 * 16 + kb / 16 * lbo() + kb % 16;
      return mn / 8 * sbo() + mn % 8 * span + kb;
    }
    const std::uint32_t mb = mn * size;
    if (!span)
      return mb / 16 * sbo() + k / 8 * lbo() + k % 8 * 16 + mb % 16;
    return mb / span * lbo() + k / 8 * sbo() + k % 8 * span + mb % span;
  }
  /// Elements of K stored per row: a whole swizzle span for K-major (the instruction reads 32
  /// bytes of it), else the instruction's K.
  std::uint32_t stored_k() const { return !mn_major && span ? span / size : 32 / size; }
  std::uint64_t descriptor_bits() const {
    const std::uint64_t mode = span == 128 ? 1 : span == 64 ? 2 : span == 32 ? 3 : 0;
    return std::uint64_t{lbo() >> 4} << 16 | std::uint64_t{sbo() >> 4} << 32 | mode << 62;
  }
};

void check_wgmma(WgmmaType type, std::uint32_t n, bool mn_major, std::uint32_t span, bool accumulate) {
  SCOPED_TRACE(testing::Message() << "type " << static_cast<int>(type) << ", n " << n
                                  << (mn_major ? ", MN" : ", K") << "-major, swizzle " << span
                                  << (accumulate ? ", accumulate" : ""));
  const std::uint32_t size = size_of(type), k_size = 32 / size;
  const Layout la{mn_major, span, 64, size}, lb{mn_major, span, n, size};
  const std::uint32_t stored = la.stored_k();
  // K-major swizzled: the instruction reads the last 32 bytes of each row (start + 32 per step).
  const std::uint32_t k0 = stored - k_size;
  const std::uint32_t step = mn_major ? 0 : k0 * size;
  std::vector<std::uint8_t> image(kImageBytes, 0);
  std::vector<double> a(64 * stored), b(std::size_t{n} * stored);
  const bool integer = type == WgmmaType::s8;
  const auto value = [&](std::uint32_t i, std::uint32_t j, std::uint32_t salt) {
    const int v = static_cast<int>((i * 7 + j * 3 + salt) % 9) - 4;
    return integer || v % 2 ? static_cast<double>(v) : v / 4.0; // +-0.5 among them, except for s8
  };
  for (std::uint32_t m = 0; m < 64; ++m)
    for (std::uint32_t k = 0; k < stored; ++k) {
      a[m * stored + k] = value(m, k, 1);
      const auto bits = encode(type, a[m * stored + k]);
      std::memcpy(&image[swizzled(la.offset(m, k), span)], bits.data(), bits.size());
    }
  for (std::uint32_t c = 0; c < n; ++c)
    for (std::uint32_t k = 0; k < stored; ++k) {
      b[c * stored + k] = value(c, k, 5);
      const auto bits = encode(type, b[c * stored + k]);
      std::memcpy(&image[kBOffset + swizzled(lb.offset(c, k), span)], bits.data(), bits.size());
    }
  // Accumulators in: element i of thread t is (row, col) of the ABI's layout.
  std::vector<std::uint32_t> acc(128 * n / 2), expected(acc.size());
  for (std::uint32_t t = 0; t < 128; ++t)
    for (std::uint32_t i = 0; i < n / 2; ++i) {
      const std::uint32_t warp = t / 32, lane = t % 32;
      const std::uint32_t row = 16 * warp + lane / 4 + 8 * ((i / 2) % 2);
      const std::uint32_t col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
      const double c = static_cast<int>((row * 5 + col) % 7) - 3;
      double sum = accumulate ? c : 0;
      for (std::uint32_t k = 0; k < k_size; ++k)
        sum += a[row * stored + k0 + k] * b[col * stored + k0 + k];
      if (integer) {
        acc[t * n / 2 + i] = static_cast<std::uint32_t>(static_cast<std::int32_t>(c));
        expected[t * n / 2 + i] = static_cast<std::uint32_t>(static_cast<std::int32_t>(sum));
      } else {
        acc[t * n / 2 + i] = std::bit_cast<std::uint32_t>(static_cast<float>(c));
        expected[t * n / 2 + i] = std::bit_cast<std::uint32_t>(static_cast<float>(sum));
      }
    }
  const WgmmaArgs args{la.descriptor_bits(),
                       lb.descriptor_bits(),
                       step,
                       static_cast<std::uint32_t>(kBOffset) + step,
                       n,
                       static_cast<std::uint32_t>(type),
                       accumulate ? 1u : 0u,
                       mn_major ? 1u : 0u,
                       mn_major ? 1u : 0u};
  auto ctx = simulator(true);
  auto stream = ctx.default_stream();
  std::vector<std::byte> bytes(image.size());
  std::memcpy(bytes.data(), image.data(), image.size());
  auto dimage = DeviceBuffer<std::byte>::from_host(stream, bytes);
  auto dargs = DeviceBuffer<WgmmaArgs>::from_host(stream, std::vector{args});
  auto dacc = DeviceBuffer<std::uint32_t>::from_host(stream, acc);
  auto dout = DeviceBuffer<std::uint32_t>::zeroed(stream, acc.size());
  oxide::unsafe_launch(stream, wgmma_kernel, oxide::LaunchConfig1D{1, 128}, dimage, dargs, dacc, dout);
  const auto out = dout.to_host(stream);
  for (std::size_t i = 0; i < out.size(); ++i)
    ASSERT_EQ(out[i], expected[i]) << "thread " << i / (n / 2) << " element " << i % (n / 2);
}

TEST_F(SimHopper, WgmmaMatchesAScalarProduct) {
  for (const WgmmaType type :
       {WgmmaType::bf16, WgmmaType::f16, WgmmaType::tf32, WgmmaType::e4m3, WgmmaType::e5m2, WgmmaType::s8})
    for (const std::uint32_t n : {8u, 64u, 128u, 256u})
      for (const std::uint32_t span : {0u, 32u, 64u, 128u})
        for (const bool accumulate : {false, true}) {
          check_wgmma(type, n, false, span, accumulate);
          if (size_of(type) == 2)
            check_wgmma(type, n, true, span, accumulate);
        }
}

/// The GEMM's case, spelled out: a 64 x 64 bf16 tile stored by TMA with the 128-byte swizzle is
/// the A operand of 4 k-steps at start + 32 bytes each, LBO 1 (unused), SBO 1024.
TEST_F(SimHopper, WgmmaReadsATmaTileWithTheGemmDescriptors) {
  for (std::uint32_t step = 0; step < 4; ++step) {
    const std::uint64_t desc =
        std::uint64_t{1} << 16 | std::uint64_t{1024 >> 4} << 32 | std::uint64_t{1} << 62;
    const Layout l{false, 128, 64, 2};
    EXPECT_EQ(l.descriptor_bits() & ~(std::uint64_t{0x3fff} << 16), desc & ~(std::uint64_t{0x3fff} << 16));
    // Element (m, k) of step s is byte (m / 8) * 1024 + (m % 8) * 128 + (16 s + k) * 2, swizzled.
    for (std::uint32_t m = 0; m < 64; m += 9)
      for (std::uint32_t k = 0; k < 16; k += 5)
        EXPECT_EQ(l.offset(m, 16 * step + k), (m / 8) * 1024 + (m % 8) * 128 + (16 * step + k) * 2);
  }
}

void wgmma_outside(Span<const std::uint32_t> which) {
  auto &tile = oxide::shared_array<SharedBytes<8192>, 1>()[0];
  const std::uint32_t base = __oxide_shared_address(tile.b);
  float acc[4] = {};
  const std::uint64_t sbo = std::uint64_t{1024 >> 4} << 32 | std::uint64_t{1} << 62;
  const std::uint64_t inside = sbo | base >> 4, past = sbo | (base + 8192 - 512) >> 4;
  const std::uint32_t a[4] = {};
  switch (which[0]) {
  case 0:
    __oxide_wgmma(acc, inside, past, 8, 0, 0, 0, 0);
    break;
  case 1:
    __oxide_wgmma(acc, inside, inside, 8, static_cast<std::uint32_t>(WgmmaType::s8), 0, 1, 0);
    break;
  case 4: // the last warp of the warpgroup does not issue it
    if (oxide::thread_idx().x < 96)
      __oxide_wgmma(acc, inside, inside, 8, 0, 0, 0, 0);
    break;
  case 2: // A in registers, B past the tile
    __oxide_wgmma_rs(acc, a, past, 8, 0, 0, 0);
    break;
  default: // A in registers, a tf32 B read MN-major
    __oxide_wgmma_rs(acc, a, inside, 8, static_cast<std::uint32_t>(WgmmaType::tf32), 0, 1);
    break;
  }
}

TEST_F(SimHopper, WgmmaMisuseIsReported) {
  auto ctx = simulator(true);
  auto stream = ctx.default_stream();
  auto zero = DeviceBuffer<std::uint32_t>::from_host(stream, std::vector<std::uint32_t>{0});
  const std::string outside =
      error_of([&] { oxide::unsafe_launch(stream, wgmma_outside, oxide::LaunchConfig1D{1, 128}, zero); });
  EXPECT_NE(outside.find("wgmma: element (4, 0) of B is at shared address 0x"), std::string::npos) << outside;
  EXPECT_NE(outside.find("outside the block's shared memory"), std::string::npos) << outside;
  EXPECT_NE(outside.find("stride byte offset 1024, swizzle 128B"), std::string::npos) << outside;
  EXPECT_NE(error_of([&] {
              oxide::unsafe_launch(stream, wgmma_outside, oxide::LaunchConfig1D{1, 96}, zero);
            }).find("which does not have its 128 threads"),
            std::string::npos);
  auto one = DeviceBuffer<std::uint32_t>::from_host(stream, std::vector<std::uint32_t>{1});
  EXPECT_NE(error_of([&] {
              oxide::unsafe_launch(stream, wgmma_outside, oxide::LaunchConfig1D{1, 128}, one);
            }).find("only bf16 and f16 operands may be MN-major"),
            std::string::npos);
  // The register-A form checks B the same way.
  auto two = DeviceBuffer<std::uint32_t>::from_host(stream, std::vector<std::uint32_t>{2});
  const std::string register_outside =
      error_of([&] { oxide::unsafe_launch(stream, wgmma_outside, oxide::LaunchConfig1D{1, 128}, two); });
  EXPECT_NE(register_outside.find("of B is at shared address 0x"), std::string::npos) << register_outside;
  auto three = DeviceBuffer<std::uint32_t>::from_host(stream, std::vector<std::uint32_t>{3});
  EXPECT_NE(error_of([&] {
              oxide::unsafe_launch(stream, wgmma_outside, oxide::LaunchConfig1D{1, 128}, three);
            }).find("only bf16 and f16 operands may be MN-major"),
            std::string::npos);
  // A wgmma is one operation of the warpgroup: three warps cannot issue it alone.
  auto four = DeviceBuffer<std::uint32_t>::from_host(stream, std::vector<std::uint32_t>{4});
  const std::string partial =
      error_of([&] { oxide::unsafe_launch(stream, wgmma_outside, oxide::LaunchConfig1D{1, 128}, four); });
  EXPECT_NE(partial.find("deadlock: a wgmma of warpgroup 0 (threads 0..127) was issued by 96 of its 128 "
                         "threads (32 have exited)"),
            std::string::npos)
      << partial;
}

/// 128 threads: each warp's wgmma reads a tile of bf16 ones, which the warpgroup's last thread
/// overwrites with twos once its wait_group returns. On the GPU that wait means the whole
/// warpgroup's wgmma has read the tile (a pipeline releases its stage there), so every
/// accumulator is 16 (16 products of ones), whichever warp runs first.
void wgmma_then_release(Span<float> out) {
  auto &tile = oxide::shared_array<SharedBytes<8192>, 1>()[0];
  const std::uint32_t t = oxide::thread_idx().x;
  auto *bf16 = reinterpret_cast<std::uint16_t *>(tile.b);
  for (std::uint32_t i = t; i < 4096; i += 128)
    bf16[i] = 0x3f80;
  __oxide_sync_threads();
  const std::uint64_t desc =
      std::uint64_t{1024 >> 4} << 32 | std::uint64_t{1} << 62 | __oxide_shared_address(tile.b) >> 4;
  float acc[4] = {};
  __oxide_wgmma_fence();
  __oxide_wgmma(acc, desc, desc, 8, static_cast<std::uint32_t>(WgmmaType::bf16), 0, 0, 0);
  __oxide_wgmma_commit_group();
  __oxide_wgmma_wait_group(0);
  if (t == 127) // the thread the barrier left running: it reaches the wait first
    for (std::uint32_t i = 0; i < 4096; ++i)
      bf16[i] = 0x4000;
  for (std::uint32_t i = 0; i < 4; ++i)
    out[4 * t + i] = acc[i];
}

TEST_F(SimHopper, WgmmaCompletesForTheWholeWarpgroup) {
  for (const char *schedule : {"ordered", "random"}) {
    const oxide_test::ScopedEnv schedule_env("OXIDE_SIM_SCHEDULE", std::string(schedule));
    auto ctx = simulator(false);
    auto stream = ctx.default_stream();
    auto out = DeviceBuffer<float>::zeroed(stream, 512);
    oxide::unsafe_launch(stream, wgmma_then_release, oxide::LaunchConfig1D{1, 128}, out);
    const std::vector<float> host = out.to_host(stream);
    for (std::size_t i = 0; i < host.size(); ++i)
      ASSERT_EQ(host[i], 16.0f) << schedule << ": accumulator " << i % 4 << " of thread " << i / 4;
  }
}

} // namespace
