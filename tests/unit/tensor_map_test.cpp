// DeviceTensorMap (oxide/host/tensor_map.hpp) and the TensorMap parameter (oxide/device/tma.hpp):
// what launches accept, the checks of create on both backends, and copies through a map on the
// simulator into a SharedMatrix. The GPU cases skip with "skipped: no CUDA device".
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "oxide/oxide.hpp"
#include "sim_test_support.hpp"

namespace {

using oxide::Box;
using oxide::DeviceBuffer;
using oxide::DeviceTensorMap;
using oxide::ErrorKind;
using oxide::Swizzle;
using oxide::TensorMap;
using oxide_test::error_of;

using Map = TensorMap<const std::uint16_t, Box<16, 64>, Swizzle::b128>;
using HostMap = DeviceTensorMap<const std::uint16_t, Box<16, 64>, Swizzle::b128>;

// What a TensorMap parameter accepts: a named DeviceTensorMap of exactly its type.
static_assert(oxide::KernelArgument<HostMap &, Map>);
static_assert(oxide::KernelArgument<const HostMap &, Map>);
static_assert(!oxide::KernelArgument<HostMap, Map>,
              "a temporary would free the descriptor during the launch");
static_assert(!oxide::KernelArgument<DeviceTensorMap<const std::uint16_t, Box<16, 64>, Swizzle::none> &, Map>,
              "another swizzle");
static_assert(!oxide::KernelArgument<DeviceTensorMap<const std::uint16_t, Box<8, 64>, Swizzle::b128> &, Map>,
              "another box");
static_assert(!oxide::KernelArgument<DeviceTensorMap<const std::int16_t, Box<16, 64>, Swizzle::b128> &, Map>,
              "another element type");
static_assert(!oxide::KernelArgument<Map &, Map>, "a TensorMap made on the host (empty) binds to nothing");
static_assert(!oxide::KernelArgument<DeviceBuffer<std::uint16_t> &, Map>, "a buffer is not a map");
// The bytes a copy completes, and the matrix it lands in, follow from the type.
static_assert(Map::box_bytes == 16 * 64 * 2);
static_assert(std::is_same_v<Map::matrix_type, oxide::SharedMatrix<std::uint16_t, 16, 64, Swizzle::b128>>);
static_assert(TensorMap<const float, Box<4, 2, 8>>::box_bytes == 4 * 2 * 8 * 4);
static_assert(
    std::is_same_v<TensorMap<const float, Box<4, 2, 8>>::matrix_type, oxide::SharedMatrix<float, 8, 8>>);

/// Each block copies the box at (16 blockIdx.x + row0, col0) of the map into a SharedMatrix and
/// writes it out unswizzled: out[b][r][c] is element (r, c) of block b's box.
void copy_boxes(Map map, oxide::Span<const std::int32_t> origin, oxide::DisjointSpan<std::uint16_t> out) {
  auto &tile = oxide::shared_array<Map::matrix_type, 1>()[0];
  auto &bar = oxide::shared_array<oxide::Mbarrier, 1>()[0];
  const std::uint32_t t = oxide::thread_idx().x;
  if (t == 0) {
    bar.init(1);
    oxide::Mbarrier::fence_init();
    oxide::tma::prefetch(map);
    bar.arrive_expect_tx(Map::box_bytes);
    oxide::tma::load(tile, map, {static_cast<std::int32_t>(16 * oxide::block_idx().x) + origin[0], origin[1]},
                     bar);
  }
  oxide::sync_threads();
  bar.wait(0);
  auto mine = out.tile_mut<16>(oxide::thread::index_1d()); // 64 threads: 16 elements each of 16 x 64
  for (std::size_t j = 0; j < mine.size(); ++j) {
    const std::size_t e = 16 * std::size_t{t} + j;
    mine[j] = tile(e / 64, e % 64);
  }
}

/// Element i of the tensor becomes 1 + i: what a producer kernel writes before the map reads it.
void number_elements(oxide::DisjointSpan<std::uint16_t> out) {
  if (std::uint16_t *o = out.get_mut(oxide::thread::index_1d()))
    *o = static_cast<std::uint16_t>(1 + oxide::thread::index_1d().get());
}

class TensorMaps : public oxide_test::OnEachBackend {
protected:
  static void SetUpTestSuite() {
    oxide::sim::register_kernel(copy_boxes, "copy_boxes", "domain = 1, block = 64", {"map", "origin", "out"});
    oxide::sim::register_kernel(number_elements, "number_elements", "domain = 1", {"out"});
  }
};

TEST_P(TensorMaps, CreateChecksTheTensor) {
  auto ctx = context();
  auto stream = ctx.default_stream();
  const auto kind_and_message = [&](auto body) {
    try {
      body();
    } catch (const oxide::Error &e) {
      EXPECT_EQ(e.kind(), ErrorKind::InvalidTensorMap);
      return std::string(e.what());
    }
    ADD_FAILURE() << "expected an oxide::Error";
    return std::string();
  };
  const std::string prefix = "oxide: DeviceTensorMap::create: ";
  EXPECT_EQ(kind_and_message([&] {
              (void)HostMap::create(stream, DeviceBuffer<std::uint16_t>::zeroed(stream, 1000), {20, 64});
            }),
            prefix + "a tensor of extents (20, 64) needs 2560 bytes of its buffer, which has 2000");
  EXPECT_EQ(kind_and_message([&] {
              (void)HostMap::create(stream, DeviceBuffer<std::uint16_t>::zeroed(stream, 1000), {0, 64});
            }),
            prefix + "extent 0 of (0, 64) (outermost first) is 0; each extent is 1..2^32");
  EXPECT_EQ(kind_and_message([&] {
              (void)HostMap::create(stream, DeviceBuffer<std::uint16_t>::zeroed(stream, 1000), {10, 60});
            }),
            prefix +
                "the stride of dimension 0 (outermost first) is 60 elements (120 bytes); TMA strides are "
                "multiples of 16 bytes below 2^40 bytes");
  EXPECT_EQ(
      kind_and_message([&] {
        (void)HostMap::create(stream, DeviceBuffer<std::uint16_t>::zeroed(stream, 1000), {10, 64}, {56});
      }),
      prefix +
          "the stride of dimension 0 (outermost first) is 56 elements, less than the 64 of the dimension "
          "inside it: its indices would overlap");
  // Padded rows are fine; the last row needs only its own elements.
  auto padded =
      HostMap::create(stream, DeviceBuffer<std::uint16_t>::zeroed(stream, 9 * 72 + 64), {10, 64}, {72});
  EXPECT_FALSE(padded.empty());
  EXPECT_EQ(padded.extents(), (std::array<std::uint64_t, 2>{10, 64}));
  EXPECT_EQ(padded.buffer().size(), 9u * 72 + 64);
  auto buffer = std::move(padded).release();
  EXPECT_EQ(buffer.size(), 9u * 72 + 64);
}

// A writable map (TMA stores) also needs the last row's last 16-byte chunk: stores write whole
// chunks, so rows of 60 u16 (120 bytes) are written up to 128 bytes.
TEST_P(TensorMaps, AWritableMapNeedsTheLastRowsWholeChunk) {
  auto ctx = context();
  auto stream = ctx.default_stream();
  using Writable = DeviceTensorMap<std::uint16_t, Box<8, 8>>;
  try {
    (void)Writable::create(stream, DeviceBuffer<std::uint16_t>::zeroed(stream, 3 * 64 + 60), {4, 60}, {64});
    ADD_FAILURE() << "expected an oxide::Error";
  } catch (const oxide::Error &e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidTensorMap);
    EXPECT_NE(std::string(e.what()).find("give the buffer 512 bytes (it has 504)"), std::string::npos)
        << e.what();
  }
  auto map = Writable::create(stream, DeviceBuffer<std::uint16_t>::zeroed(stream, 4 * 64), {4, 60}, {64});
  EXPECT_FALSE(map.empty());
  EXPECT_EQ(map.to_host(stream).size(), 4u * 64);
  // A read-only map needs only the elements.
  (void)DeviceTensorMap<const std::uint16_t, Box<8, 8>>::create(
      stream, DeviceBuffer<std::uint16_t>::zeroed(stream, 3 * 64 + 60), {4, 60}, {64});
}

TEST_P(TensorMaps, CopiesLandInASharedMatrix) {
  if (GetParam())
    GTEST_SKIP() << "the kernel is registered for the simulator only (tests/gpu runs TMA on the GPU)";
  auto ctx = context();
  auto stream = ctx.default_stream();
  const std::uint64_t rows = 40, cols = 100; // 100 is not a multiple of 8: rows are padded to 104
  std::vector<std::uint16_t> host(rows * 104, 0);
  for (std::uint64_t r = 0; r < rows; ++r)
    for (std::uint64_t c = 0; c < cols; ++c)
      host[r * 104 + c] = static_cast<std::uint16_t>(1 + r * 1000 + c);
  auto map =
      HostMap::create(stream, DeviceBuffer<std::uint16_t>::from_host(stream, host), {rows, cols}, {104});
  for (const std::vector<std::int32_t> &origin :
       std::vector<std::vector<std::int32_t>>{{0, 0}, {-3, 50}, {8, -20}}) {
    SCOPED_TRACE(testing::Message() << "origin " << origin[0] << ", " << origin[1]);
    auto dorigin = DeviceBuffer<std::int32_t>::from_host(stream, origin);
    const std::uint32_t blocks = 3; // the third block's box is past the last row
    auto out = DeviceBuffer<std::uint16_t>::zeroed(stream, blocks * 16 * 64);
    oxide::prepare(ctx, copy_boxes, oxide::LaunchConfig1D{blocks, 64})(stream, map, dorigin, out);
    const auto got = out.to_host(stream);
    for (std::uint32_t b = 0; b < blocks; ++b)
      for (std::int64_t r = 0; r < 16; ++r)
        for (std::int64_t c = 0; c < 64; ++c) {
          const std::int64_t row = 16 * std::int64_t{b} + origin[0] + r, col = origin[1] + c;
          const bool inside = row >= 0 && row < static_cast<std::int64_t>(rows) && col >= 0 &&
                              col < static_cast<std::int64_t>(cols);
          const std::uint16_t expected = inside ? static_cast<std::uint16_t>(1 + row * 1000 + col) : 0;
          ASSERT_EQ(got[(b * 16 + r) * 64 + c], expected) << "block " << b << " (" << r << ", " << c << ")";
        }
  }
}

TEST_P(TensorMaps, AnEmptyMapIsRefusedAtLaunch) {
  if (GetParam())
    GTEST_SKIP() << "the kernel is registered for the simulator only (tests/gpu runs TMA on the GPU)";
  auto ctx = context();
  auto stream = ctx.default_stream();
  auto map = HostMap::create(stream, DeviceBuffer<std::uint16_t>::zeroed(stream, 16 * 64), {16, 64});
  (void)std::move(map).release();
  auto origin = DeviceBuffer<std::int32_t>::zeroed(stream, 2);
  auto out = DeviceBuffer<std::uint16_t>::zeroed(stream, 16 * 64);
  auto launch = oxide::prepare(ctx, copy_boxes, oxide::LaunchConfig1D{1, 64});
  try {
    launch(stream, map, origin, out);
    FAIL() << "expected oxide::Error";
  } catch (const oxide::Error &e) {
    EXPECT_EQ(e.kind(), oxide::ErrorKind::InvalidTensorMap);
    EXPECT_NE(std::string(e.what()).find("an empty DeviceTensorMap"), std::string::npos) << e.what();
  }
}

// The tensor is reachable as a const DeviceBuffer&: a const_cast that gives it other (smaller)
// memory leaves the descriptor pointing at the old memory, which TMA copies would read.
TEST_P(TensorMaps, AMapWhoseTensorWasReplacedIsRefusedAtLaunch) {
  if (GetParam())
    GTEST_SKIP() << "the kernel is registered for the simulator only (tests/gpu runs TMA on the GPU)";
  auto ctx = context();
  auto stream = ctx.default_stream();
  auto map = HostMap::create(stream, DeviceBuffer<std::uint16_t>::zeroed(stream, 16 * 64), {16, 64});
  auto origin = DeviceBuffer<std::int32_t>::zeroed(stream, 2);
  auto out = DeviceBuffer<std::uint16_t>::zeroed(stream, 16 * 64);
  auto launch = oxide::prepare(ctx, copy_boxes, oxide::LaunchConfig1D{1, 64});
  launch(stream, map, origin, out);
  const_cast<DeviceBuffer<std::uint16_t> &>(map.buffer()) = DeviceBuffer<std::uint16_t>::zeroed(stream, 4);
  try {
    launch(stream, map, origin, out);
    FAIL() << "expected oxide::Error";
  } catch (const oxide::Error &e) {
    EXPECT_EQ(e.kind(), oxide::ErrorKind::InvalidTensorMap);
    EXPECT_NE(std::string(e.what()).find("was given other memory after create"), std::string::npos)
        << e.what();
  }
}

// A kernel writes the map's tensor (buffer_mut), a later launch on the same stream reads it through
// the map; one launch that does both is refused.
TEST_P(TensorMaps, ALaunchWritesTheTensorThatALaterLaunchReads) {
  if (GetParam())
    GTEST_SKIP() << "the kernel is registered for the simulator only (tests/gpu runs TMA on the GPU)";
  auto ctx = context();
  auto stream = ctx.default_stream();
  auto map = HostMap::create(stream, DeviceBuffer<std::uint16_t>::zeroed(stream, 32 * 64), {32, 64});
  oxide::prepare(ctx, number_elements, oxide::LaunchConfig1D::for_elements(32 * 64))(stream,
                                                                                     map.buffer_mut());
  auto origin = DeviceBuffer<std::int32_t>::zeroed(stream, 2);
  auto out = DeviceBuffer<std::uint16_t>::zeroed(stream, 2 * 16 * 64);
  auto copy = oxide::prepare(ctx, copy_boxes, oxide::LaunchConfig1D{2, 64});
  copy(stream, map, origin, out);
  const auto got = out.to_host(stream);
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i], static_cast<std::uint16_t>(1 + i)) << "element " << i;
  try {
    copy(stream, map, origin, map.buffer_mut());
    FAIL() << "expected oxide::Error";
  } catch (const oxide::Error &e) {
    EXPECT_EQ(e.kind(), oxide::ErrorKind::OverlappingArguments) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, TensorMaps, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool> &info) {
                           return std::string(info.param ? "Gpu" : "Simulator");
                         });

} // namespace
