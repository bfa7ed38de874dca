// stmatrix and TMA stores in a kernel launched with oxide::unsafe_launch (the safe tier refuses a
// TMA store): each block loads a 64 x 64 bf16 tile of a 96 x 64 matrix A with a TMA load, its
// four warps read it 8 x 8 matrices at a time with ldmatrix, compute 2 a + 1 in registers and
// write the results with stmatrix into two 128-byte-swizzled SharedMatrix tiles, as they are
// (B = 2 A + 1) and transposed (stmatrix .trans: C = B^T), and thread 0 stores both tiles with TMA
// stores. The last block's tiles reach past the tensors' ends: those elements are not written,
// and the padding around the tensors keeps its sentinel. The shapes are legal for real TMA (rows
// of 128 bytes, global strides multiples of 16 bytes, 1024-byte-aligned swizzled tiles), so the
// program prints PASS on an H200 as on the simulator.
#include <oxide/oxide.hpp>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <vector>

using bf16 = oxide::bfloat16;
using Box = oxide::Box<64, 64>;
constexpr auto kSwizzle = oxide::Swizzle::b128;
using InMap = oxide::TensorMap<const bf16, Box, kSwizzle>;
using OutMap = oxide::TensorMap<bf16, Box, kSwizzle>; // mutable bf16: TMA stores write it
struct Shared {
  InMap::matrix_type a;
  OutMap::matrix_type b, c;
  oxide::Mbarrier bar;
};

// C's rows (kRows elements) are a whole number of 16-byte chunks: TMA stores write whole chunks,
// so past a row whose bytes were not a multiple of 16 they would write the padding up to the next
// chunk (an H200 does; the simulator too).
constexpr std::uint64_t kRows = 96, kCols = 64;
constexpr std::uint64_t kBRows = 128;   // B's buffer: rows 96..127 are padding
constexpr std::uint64_t kCStride = 104; // C (64 x 96) in rows of 104 (208 bytes): 8 of padding
constexpr std::uint16_t kSentinel = 0x7fc1; // a bf16 NaN: no result is one

/// 2 x + 1 of each bf16 half of `r`.
std::uint32_t twice_plus_one(std::uint32_t r) {
  auto f = [](std::uint32_t bits) {
    const float x = static_cast<float>(std::bit_cast<bf16>(static_cast<std::uint16_t>(bits)));
    return static_cast<std::uint32_t>(std::bit_cast<std::uint16_t>(static_cast<bf16>(2.0f * x + 1.0f)));
  };
  return f(r >> 16) << 16 | f(r & 0xffff);
}

[[kernel]] void transform(InMap in, OutMap b_map, OutMap c_map) {
  auto &s = oxide::dynamic_shared_object<Shared>();
  const std::uint32_t t = oxide::thread_idx().x, lane = t % 32, warp = t / 32;
  const auto row0 = static_cast<std::int32_t>(64 * oxide::block_idx().x);
  if (t == 0) {
    s.bar.init(1);
    oxide::Mbarrier::fence_init();
    s.bar.arrive_expect_tx(InMap::box_bytes);
    oxide::tma::load(s.a, in, {row0, 0}, s.bar);
  }
  oxide::sync_threads();
  s.bar.wait(0);
  // The tile's 8 x 8 matrices (R, C), four of one row of them per x4: warp w takes rows w, w + 4.
  // Lane l gives row l % 8 of matrix l / 8; a swizzle moves 16-byte chunks whole, so the 8
  // elements of a matrix row stay contiguous at operator()'s address.
  for (std::uint32_t r = warp; r < 8; r += 4)
    for (std::uint32_t c0 = 0; c0 < 8; c0 += 4) {
      const std::uint32_t c = c0 + lane / 8, i = lane % 8;
      std::uint32_t frag[4];
      oxide::mma::ldmatrix<4>(frag, &s.a(8 * r + i, 8 * c));
      for (std::uint32_t &x : frag)
        x = twice_plus_one(x);
      oxide::mma::stmatrix<4>(&s.b(8 * r + i, 8 * c), frag);
      // Transposed: matrix (R, C) of B is matrix (C, R) of C, each transposed.
      oxide::mma::stmatrix_trans<4>(&s.c(8 * c + i, 8 * r), frag);
    }
  // The tiles were written by ordinary stores: make them visible to the copy engine.
  oxide::fence_async_shared();
  oxide::sync_threads();
  if (t == 0) {
    oxide::tma::store(b_map, {row0, 0}, s.b);
    oxide::tma::store(c_map, {0, row0}, s.c);
    oxide::tma::store_commit();
    oxide::tma::store_wait<0>(); // the tiles are read before the block's shared memory goes
  }
}

int main() {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  std::vector<bf16> a(kRows * kCols);
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<bf16>(static_cast<float>(i % 97));
  const auto sentinel = std::bit_cast<bf16>(kSentinel);
  auto in = oxide::DeviceTensorMap<const bf16, Box, kSwizzle>::create(
      stream, oxide::DeviceBuffer<bf16>::from_host(stream, a), {kRows, kCols});
  // B: 96 x 64 in a buffer of 128 rows; C = B^T: 64 x 96 in rows of 104.
  auto b = oxide::DeviceTensorMap<bf16, Box, kSwizzle>::create(
      stream, oxide::DeviceBuffer<bf16>::from_host(stream, std::vector<bf16>(kBRows * kCols, sentinel)),
      {kRows, kCols});
  auto c = oxide::DeviceTensorMap<bf16, Box, kSwizzle>::create(
      stream, oxide::DeviceBuffer<bf16>::from_host(stream, std::vector<bf16>(kCols * kCStride, sentinel)),
      {kCols, kRows}, {kCStride});
  oxide::unsafe_launch(
      stream, transform,
      oxide::LaunchConfig1D{2, 128, static_cast<std::uint32_t>(oxide::dynamic_shared_bytes_for<Shared>)}, in, b,
      c);
  const auto got_b = b.to_host(stream), got_c = c.to_host(stream);
  std::size_t wrong = 0;
  auto check = [&](const char *what, std::size_t row, std::size_t col, bf16 got, bool inside, float value) {
    const bool ok = inside ? static_cast<float>(got) == value
                           : std::bit_cast<std::uint16_t>(got) == kSentinel;
    if (!ok && wrong++ < 8)
      std::printf("FAIL %s(%zu, %zu): %f, expected %s %f\n", what, row, col, static_cast<double>(got),
                  inside ? "" : "the sentinel, not", static_cast<double>(value));
  };
  for (std::size_t r = 0; r < kBRows; ++r)
    for (std::size_t col = 0; col < kCols; ++col)
      check("B", r, col, got_b[r * kCols + col], r < kRows, 2.0f * static_cast<float>((r * kCols + col) % 97) + 1);
  for (std::size_t r = 0; r < kCols; ++r)
    for (std::size_t col = 0; col < kCStride; ++col)
      check("C", r, col, got_c[r * kCStride + col], col < kRows,
            2.0f * static_cast<float>((col * kCols + r) % 97) + 1);
  std::printf("tma_store: 2 blocks, %zu wrong\n", wrong);
  if (wrong)
    return 1;
  std::puts("PASS");
}
