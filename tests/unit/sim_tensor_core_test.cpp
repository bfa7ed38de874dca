// The tensor-core operations on the CPU simulator: mma.sync, ldmatrix, stmatrix and cp.async, each checked
// against a scalar reference, with the fragment layouts restated here from the PTX ISA ("Matrix
// Fragments for mma.m16n8k16 / m16n8k8 / m16n8k32", "ldmatrix"), independently of mma.hpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "oxide/oxide.hpp"
#include "sim_test_support.hpp"

namespace {

using oxide::DeviceBuffer;
using oxide::Span;
using oxide::mma::Coord;
using oxide_test::simulator;

// --- the PTX ISA's tables, element by element ------------------------------------------------

/// A (16 x K): element i of lane (g = lane / 4, t = lane % 4).
template <class T> Coord ptx_a(unsigned lane, unsigned i) {
  const unsigned g = lane / 4, t = lane % 4;
  if constexpr (std::is_same_v<T, oxide::tf32>) // a0..a3: (g, t), (g+8, t), (g, t+4), (g+8, t+4)
    return {g + (i % 2 ? 8u : 0u), t + (i >= 2 ? 4u : 0u)};
  else if constexpr (sizeof(T) ==
                     1) // a0-3 (g), a4-7 (g+8), a8-11 (g), a12-15 (g+8); col t*4 + i%4 (+16 for i >= 8)
    return {g + ((i / 4) % 2 ? 8u : 0u), t * 4 + (i % 4) + (i >= 8 ? 16u : 0u)};
  else // a0,a1,a4,a5: row g, else g+8; col t*2 + i%2 (+8 for i >= 4)
    return {g + (i == 2 || i == 3 || i == 6 || i == 7 ? 8u : 0u), t * 2 + (i % 2) + (i >= 4 ? 8u : 0u)};
}
/// B (K x 8).
template <class T> Coord ptx_b(unsigned lane, unsigned i) {
  const unsigned g = lane / 4, t = lane % 4;
  if constexpr (std::is_same_v<T, oxide::tf32>) // b0: (t, g), b1: (t+4, g)
    return {t + (i ? 4u : 0u), g};
  else if constexpr (sizeof(T) == 1) // row t*4 + i%4 (+16 for i >= 4)
    return {t * 4 + (i % 4) + (i >= 4 ? 16u : 0u), g};
  else // row t*2 + i%2 (+8 for i >= 2)
    return {t * 2 + (i % 2) + (i >= 2 ? 8u : 0u), g};
}
/// C and D (16 x 8): c0, c1 row g, c2, c3 row g+8; col t*2 + i%2.
Coord ptx_c(unsigned lane, unsigned i) { return {lane / 4 + (i >= 2 ? 8u : 0u), (lane % 4) * 2 + (i % 2)}; }

/// Shared arrays of `N` T aligned to 16 bytes, as ldmatrix rows and cp.async copies need.
template <class T, std::size_t N> struct alignas(16) Aligned {
  T v[N];
};
template <class T, std::size_t N, auto Site = [] {}> T *aligned_shared() {
  return oxide::shared_array<Aligned<T, N>, 1, Site>()[0].v;
}

template <class T> using Value = typename oxide::mma::Traits<T>::value_type;
template <class T> using Acc = typename oxide::mma::Traits<T>::accumulator;
template <class T> constexpr unsigned K = oxide::mma::Traits<T>::k;

// mma.sync: every lane fills its fragments from row-major A (16 x K), B (K x 8), C (16 x 8) by the
// PTX tables above and writes its elements of D back by the same table.
template <class T>
void mma_kernel(Span<const Value<T>> a, Span<const Value<T>> b, Span<const Acc<T>> c, Span<Acc<T>> d) {
  using namespace oxide::mma;
  const unsigned lane = __oxide_lane_id();
  FragmentA<T> fa;
  FragmentB<T> fb;
  FragmentC<Acc<T>> fc, fd;
  for (unsigned i = 0; i < FragmentA<T>::size; ++i)
    fa.set(i, a[ptx_a<T>(lane, i).row * K<T> + ptx_a<T>(lane, i).col]);
  for (unsigned i = 0; i < FragmentB<T>::size; ++i)
    fb.set(i, b[ptx_b<T>(lane, i).row * 8 + ptx_b<T>(lane, i).col]);
  for (unsigned i = 0; i < 4; ++i)
    fc.x[i] = c[ptx_c(lane, i).row * 8 + ptx_c(lane, i).col];
  mma_sync(fd, fa, fb, fc);
  mma_sync(fc, fa, fb, fc); // d may be c
  for (unsigned i = 0; i < 4; ++i) {
    d[ptx_c(lane, i).row * 8 + ptx_c(lane, i).col] = fd.x[i];
    d[128 + ptx_c(lane, i).row * 8 + ptx_c(lane, i).col] = fc.x[i];
  }
}

template <class T> void check_mma() {
  using V = Value<T>;
  constexpr unsigned k = K<T>;
  // The header's layouts are the PTX tables.
  for (unsigned lane = 0; lane < 32; ++lane) {
    for (unsigned i = 0; i < oxide::mma::FragmentA<T>::size; ++i)
      ASSERT_EQ(oxide::mma::FragmentA<T>::coord(lane, i), ptx_a<T>(lane, i)) << lane << " " << i;
    for (unsigned i = 0; i < oxide::mma::FragmentB<T>::size; ++i)
      ASSERT_EQ(oxide::mma::FragmentB<T>::coord(lane, i), ptx_b<T>(lane, i)) << lane << " " << i;
    for (unsigned i = 0; i < 4; ++i)
      ASSERT_EQ(oxide::mma::FragmentC<Acc<T>>::coord(lane, i), ptx_c(lane, i)) << lane << " " << i;
  }
  // Small integers: every product and sum is exact, so the result must equal the reference.
  std::vector<V> a(16 * k), b(k * 8);
  std::vector<Acc<T>> c(16 * 8), expected(16 * 8);
  for (unsigned r = 0; r < 16; ++r)
    for (unsigned col = 0; col < k; ++col)
      a[r * k + col] = static_cast<V>(static_cast<int>((r * 7 + col * 3) % 11) - 5);
  for (unsigned r = 0; r < k; ++r)
    for (unsigned col = 0; col < 8; ++col)
      b[r * 8 + col] = static_cast<V>(static_cast<int>((r * 5 + col * 13) % 9) - 4);
  for (unsigned i = 0; i < 16 * 8; ++i)
    c[i] = static_cast<Acc<T>>(static_cast<int>(i % 17) - 8);
  for (unsigned r = 0; r < 16; ++r)
    for (unsigned col = 0; col < 8; ++col) {
      double sum = static_cast<double>(c[r * 8 + col]);
      for (unsigned j = 0; j < k; ++j)
        sum += static_cast<double>(a[r * k + j]) * static_cast<double>(b[j * 8 + col]);
      expected[r * 8 + col] = static_cast<Acc<T>>(sum);
    }
  auto ctx = simulator(/*check=*/true);
  auto stream = ctx.default_stream();
  auto da = DeviceBuffer<V>::from_host(stream, a);
  auto db = DeviceBuffer<V>::from_host(stream, b);
  auto dc = DeviceBuffer<Acc<T>>::from_host(stream, c);
  auto dd = DeviceBuffer<Acc<T>>::zeroed(stream, 256);
  oxide::unsafe_launch(stream, mma_kernel<T>, oxide::LaunchConfig1D{1, 32}, da, db, dc, dd);
  const auto d = dd.to_host(stream);
  for (unsigned i = 0; i < 128; ++i) {
    EXPECT_EQ(d[i], expected[i]) << "element (" << i / 8 << ", " << i % 8 << ")";
    EXPECT_EQ(d[128 + i], expected[i]) << "in place, element (" << i / 8 << ", " << i % 8 << ")";
  }
}

void mma_edges(Span<float> tf, Span<std::int32_t> s8);
void ldmatrix_kernel(Span<std::uint32_t> out);
void stmatrix_kernel(Span<std::uint16_t> out);
void load_kernel(Span<std::uint32_t> bad);
struct CopyObservations;
void cp_async_kernel(Span<const std::uint32_t> in, Span<CopyObservations> out);

class SimTensorCore : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    oxide::sim::register_kernel(mma_kernel<oxide::bfloat16>, "mma_kernel<bf16>");
    oxide::sim::register_kernel(mma_kernel<oxide::half>, "mma_kernel<f16>");
    oxide::sim::register_kernel(mma_kernel<oxide::tf32>, "mma_kernel<tf32>");
    oxide::sim::register_kernel(mma_kernel<std::int8_t>, "mma_kernel<s8>");
    oxide::sim::register_kernel(mma_edges, "mma_edges");
    oxide::sim::register_kernel(ldmatrix_kernel, "ldmatrix_kernel");
    oxide::sim::register_kernel(stmatrix_kernel, "stmatrix_kernel");
    oxide::sim::register_kernel(load_kernel, "load_kernel");
    oxide::sim::register_kernel(cp_async_kernel, "cp_async_kernel");
  }
};

TEST_F(SimTensorCore, MmaBf16MatchesTheScalarProduct) { check_mma<oxide::bfloat16>(); }
TEST_F(SimTensorCore, MmaF16MatchesTheScalarProduct) { check_mma<oxide::half>(); }
TEST_F(SimTensorCore, MmaTf32MatchesTheScalarProduct) { check_mma<oxide::tf32>(); }
TEST_F(SimTensorCore, MmaS8MatchesTheScalarProduct) { check_mma<std::int8_t>(); }

// tf32 reads the top 10 mantissa bits only; s8 saturates.
void mma_edges(Span<float> tf, Span<std::int32_t> s8) {
  using namespace oxide::mma;
  const unsigned lane = __oxide_lane_id();
  FragmentA<oxide::tf32> a; // A = 1 + 2^-20 everywhere (the extra bit is ignored), B = identity-ish
  FragmentB<oxide::tf32> b;
  FragmentC<float> c, d;
  for (unsigned i = 0; i < 4; ++i)
    a.set(i, 1.0f + 0x1p-20f);
  for (unsigned i = 0; i < 2; ++i)
    b.set(i, FragmentB<oxide::tf32>::coord(lane, i).row == 0 ? 1.0f : 0.0f);
  mma_sync(d, a, b, c);
  tf[lane] = d.x[0];
  FragmentA<std::int8_t> ia;
  FragmentB<std::int8_t> ib;
  FragmentC<std::int32_t> ic, id;
  for (unsigned i = 0; i < 16; ++i)
    ia.set(i, -128);
  for (unsigned i = 0; i < 8; ++i)
    ib.set(i, -128);
  for (unsigned i = 0; i < 4; ++i)
    ic.x[i] = INT32_MAX - 5;
  mma_sync(id, ia, ib, ic);
  s8[lane] = id.x[0];
}

TEST_F(SimTensorCore, Tf32TruncatesAndS8Saturates) {
  auto ctx = simulator();
  auto stream = ctx.default_stream();
  auto tf = DeviceBuffer<float>::zeroed(stream, 32);
  auto s8 = DeviceBuffer<std::int32_t>::zeroed(stream, 32);
  oxide::unsafe_launch(stream, mma_edges, oxide::LaunchConfig1D{1, 32}, tf, s8);
  for (float v : tf.to_host(stream))
    EXPECT_EQ(v, 1.0f);
  for (std::int32_t v : s8.to_host(stream))
    EXPECT_EQ(v, INT32_MAX);
  EXPECT_EQ(oxide::to_tf32(1.0f + 0x1p-11f), 1.0f + 0x1p-10f); // rounds half away from zero
  EXPECT_EQ(oxide::to_tf32(1.0f + 0x1p-12f), 1.0f);
}

// ldmatrix: a 32 x 16 tile of u16 (value = row * 256 + col) in shared memory; each lane passes
// the address of row `lane` (four 8x8 matrices: rows 0-7, 8-15, 16-23, 24-31, columns 0-7).
void ldmatrix_kernel(Span<std::uint32_t> out) {
  std::uint16_t *tile = aligned_shared<std::uint16_t, 32 * 16>();
  const unsigned lane = __oxide_lane_id();
  for (unsigned col = 0; col < 16; ++col)
    tile[lane * 16 + col] = static_cast<std::uint16_t>(lane * 256 + col);
  oxide::sync_threads();
  std::uint32_t x4[4], t4[4], x1[1], x2[2];
  oxide::mma::ldmatrix<4>(x4, &tile[lane * 16]);
  oxide::mma::ldmatrix_trans<4>(t4, &tile[lane * 16]);
  oxide::mma::ldmatrix<1>(x1, &tile[(lane % 8) * 16 + 8]); // the columns 8-15 of rows 0-7
  oxide::mma::ldmatrix_trans<2>(x2, &tile[(lane % 16) * 16]);
  for (unsigned j = 0; j < 4; ++j) {
    out[lane * 16 + j] = x4[j];
    out[lane * 16 + 4 + j] = t4[j];
  }
  out[lane * 16 + 8] = x1[0];
  out[lane * 16 + 9] = x2[0];
  out[lane * 16 + 10] = x2[1];
}

TEST_F(SimTensorCore, LdmatrixDealsRowsAndColumnsAsThePtxTable) {
  auto ctx = simulator(/*check=*/true);
  auto stream = ctx.default_stream();
  auto out = DeviceBuffer<std::uint32_t>::zeroed(stream, 32 * 16);
  oxide::unsafe_launch(stream, ldmatrix_kernel, oxide::LaunchConfig1D{1, 32}, out);
  const auto host = out.to_host(stream);
  auto at = [](unsigned row, unsigned col) { return row * 256 + col; };
  auto pair = [](std::uint32_t lo, std::uint32_t hi) { return hi << 16 | lo; };
  for (unsigned lane = 0; lane < 32; ++lane) {
    const unsigned r = lane / 4, c = 2 * (lane % 4);
    for (unsigned j = 0; j < 4; ++j) {
      // matrix j: row lane / 4, columns 2 (lane % 4) and the next
      EXPECT_EQ(host[lane * 16 + j], pair(at(8 * j + r, c), at(8 * j + r, c + 1))) << lane << " x4 " << j;
      // transposed: column lane / 4, rows 2 (lane % 4) and the next
      EXPECT_EQ(host[lane * 16 + 4 + j], pair(at(8 * j + c, r), at(8 * j + c + 1, r)))
          << lane << " trans " << j;
    }
    EXPECT_EQ(host[lane * 16 + 8], pair(at(r, 8 + c), at(r, 9 + c))) << lane << " x1";
    EXPECT_EQ(host[lane * 16 + 9], pair(at(c, r), at(c + 1, r))) << lane << " x2.trans 0";
    EXPECT_EQ(host[lane * 16 + 10], pair(at(8 + c, r), at(9 + c, r))) << lane << " x2.trans 1";
  }
}

// stmatrix: each lane builds its registers from the scalar reference at(row, col) = row * 256 +
// col by the ldmatrix table, and stores them into zeroed shared memory: P (rows 0-31) by x4, T
// (rows 32-63) by x4.trans, S (rows 64-79) by x1 into columns 8-15 of its rows 0-7 and x2.trans
// into columns 0-7 of its rows 0-15. out[0 .. 80 * 16) is the shared tile afterwards; out[80 * 16
// + lane] is 1 when ldmatrix reads back from P the registers x4 stored.
void stmatrix_kernel(Span<std::uint16_t> out) {
  std::uint16_t *tile = aligned_shared<std::uint16_t, 80 * 16>();
  std::uint16_t *p = tile, *t = tile + 32 * 16, *s = tile + 64 * 16;
  const unsigned lane = __oxide_lane_id();
  for (unsigned i = lane; i < 80 * 16; i += 32)
    tile[i] = 0;
  oxide::sync_threads();
  auto at = [](unsigned row, unsigned col) { return row * 256 + col; };
  auto pair = [](std::uint32_t lo, std::uint32_t hi) { return hi << 16 | lo; };
  const unsigned r = lane / 4, c = 2 * (lane % 4);
  std::uint32_t x4[4], t4[4], x1[1], x2[2];
  for (unsigned j = 0; j < 4; ++j) {
    x4[j] = pair(at(8 * j + r, c), at(8 * j + r, c + 1));
    t4[j] = pair(at(8 * j + c, r), at(8 * j + c + 1, r));
  }
  x1[0] = pair(at(r, 8 + c), at(r, 9 + c));
  x2[0] = pair(at(c, r), at(c + 1, r));
  x2[1] = pair(at(8 + c, r), at(9 + c, r));
  oxide::mma::stmatrix<4>(&p[lane * 16], x4);
  oxide::mma::stmatrix_trans<4>(&t[lane * 16], t4);
  oxide::mma::stmatrix<1>(&s[(lane % 8) * 16 + 8], x1);
  oxide::mma::stmatrix_trans<2>(&s[(lane % 16) * 16], x2);
  oxide::sync_threads();
  for (unsigned i = lane; i < 80 * 16; i += 32)
    out[i] = tile[i];
  std::uint32_t back[4];
  oxide::mma::ldmatrix<4>(back, &p[lane * 16]);
  out[80 * 16 + lane] = back[0] == x4[0] && back[1] == x4[1] && back[2] == x4[2] && back[3] == x4[3];
}

TEST_F(SimTensorCore, StmatrixStoresWhereLdmatrixLoads) {
  auto ctx = simulator(/*check=*/true);
  auto stream = ctx.default_stream();
  auto out = DeviceBuffer<std::uint16_t>::zeroed(stream, 80 * 16 + 32);
  oxide::unsafe_launch(stream, stmatrix_kernel, oxide::LaunchConfig1D{1, 32}, out);
  const auto host = out.to_host(stream);
  auto at = [](unsigned row, unsigned col) { return static_cast<std::uint16_t>(row * 256 + col); };
  for (unsigned row = 0; row < 32; ++row)
    for (unsigned col = 0; col < 16; ++col) {
      // x4 and x4.trans write the first 8 columns of each of their 32 rows.
      EXPECT_EQ(host[row * 16 + col], col < 8 ? at(row, col) : 0) << "x4 (" << row << ", " << col << ")";
      EXPECT_EQ(host[(32 + row) * 16 + col], col < 8 ? at(row, col) : 0)
          << "x4.trans (" << row << ", " << col << ")";
    }
  for (unsigned row = 0; row < 16; ++row)
    for (unsigned col = 0; col < 16; ++col) {
      // x2.trans: columns 0-7 of rows 0-15; x1: columns 8-15 of rows 0-7.
      const bool written = col < 8 || row < 8;
      EXPECT_EQ(host[(64 + row) * 16 + col], written ? at(row, col) : 0)
          << "S (" << row << ", " << col << ")";
    }
  for (unsigned lane = 0; lane < 32; ++lane)
    EXPECT_EQ(host[80 * 16 + lane], 1) << "ldmatrix reads back lane " << lane;
}

// load_a / load_b / load_b_trans give the fragments of the tiles they read (f16 here: the host
// has no float-to-bf16 conversion without compiler-rt, and the loaders only move 16-bit values).
void load_kernel(Span<std::uint32_t> bad) {
  using namespace oxide::mma;
  oxide::half *a = aligned_shared<oxide::half, 16 * 24>(); // 16 x 16, rows 24 apart
  oxide::half *bt = aligned_shared<oxide::half, 8 * 24>(); // B as 8 rows of 16 k
  oxide::half *b = aligned_shared<oxide::half, 16 * 8>();  // B row-major, 16 x 8
  const unsigned lane = __oxide_lane_id();
  for (unsigned i = lane; i < 16 * 24; i += 32)
    a[i] = static_cast<oxide::half>(static_cast<float>(i % 200));
  for (unsigned i = lane; i < 8 * 24; i += 32)
    bt[i] = static_cast<oxide::half>(static_cast<float>(i % 150));
  for (unsigned i = lane; i < 16 * 8; i += 32)
    b[i] = static_cast<oxide::half>(static_cast<float>(i));
  oxide::sync_threads();
  FragmentA<oxide::half> fa;
  FragmentB<oxide::half> fb, fbt;
  load_a(fa, a, 24);
  load_b(fbt, bt, 24);
  load_b_trans(fb, b, 8);
  std::uint32_t wrong = 0;
  for (unsigned i = 0; i < fa.size; ++i) {
    const Coord at = fa.coord(lane, i);
    wrong += fa.get(i) != a[at.row * 24 + at.col];
  }
  for (unsigned i = 0; i < fb.size; ++i) {
    const Coord at = fb.coord(lane, i);
    wrong += fbt.get(i) != bt[at.col * 24 + at.row];
    wrong += fb.get(i) != b[at.row * 8 + at.col];
  }
  bad[lane] = wrong;
}

TEST_F(SimTensorCore, FragmentLoadersFollowTheFragmentLayouts) {
  auto ctx = simulator();
  auto stream = ctx.default_stream();
  auto bad = DeviceBuffer<std::uint32_t>::zeroed(stream, 32);
  oxide::unsafe_launch(stream, load_kernel, oxide::LaunchConfig1D{1, 32}, bad);
  for (std::uint32_t v : bad.to_host(stream))
    EXPECT_EQ(v, 0u);
}

// cp.async: copies land at the wait that completes their group, not before; src_bytes < bytes
// fills the rest with zeros; wait_group<1> leaves the newest group in flight.
struct CopyObservations {
  std::uint32_t before_wait, after_wait_1_old, after_wait_1_new, after_wait_0_new, zero_filled[4];
};

void cp_async_kernel(Span<const std::uint32_t> in, Span<CopyObservations> out) {
  std::uint32_t *buffer = aligned_shared<std::uint32_t, 32 * 12>();
  const unsigned t = oxide::thread_idx().x;
  std::uint32_t *mine = &buffer[t * 12];
  for (unsigned i = 0; i < 12; ++i)
    mine[i] = 7;
  oxide::cp_async::copy<16>(mine, in, t * 4);
  oxide::cp_async::commit_group();
  oxide::cp_async::copy<16>(mine + 4, in, t * 4 + 128);
  oxide::cp_async::copy_or_zero<16>(mine + 8, in, in.size() - 2); // two elements, two zeros
  oxide::cp_async::commit_group();
  CopyObservations o{};
  o.before_wait = mine[0];
  oxide::cp_async::wait_group<1>();
  o.after_wait_1_old = mine[0];
  o.after_wait_1_new = mine[4];
  oxide::cp_async::wait_all();
  o.after_wait_0_new = mine[4];
  for (unsigned i = 0; i < 4; ++i)
    o.zero_filled[i] = mine[8 + i];
  out[t] = o;
}

TEST_F(SimTensorCore, CpAsyncLandsWhenItsGroupCompletes) {
  auto ctx = simulator(/*check=*/true);
  auto stream = ctx.default_stream();
  std::vector<std::uint32_t> in(262);
  for (unsigned i = 0; i < in.size(); ++i)
    in[i] = 1000 + i;
  auto din = DeviceBuffer<std::uint32_t>::from_host(stream, in);
  auto out = DeviceBuffer<CopyObservations>::zeroed(stream, 32);
  oxide::unsafe_launch(stream, cp_async_kernel, oxide::LaunchConfig1D{1, 32}, din, out);
  const auto host = out.to_host(stream);
  for (unsigned t = 0; t < 32; ++t) {
    EXPECT_EQ(host[t].before_wait, 7u) << t;
    EXPECT_EQ(host[t].after_wait_1_old, 1000 + t * 4) << t;
    EXPECT_EQ(host[t].after_wait_1_new, 7u) << t;
    EXPECT_EQ(host[t].after_wait_0_new, 1000 + t * 4 + 128) << t;
    EXPECT_EQ(host[t].zero_filled[0], 1260u) << t;
    EXPECT_EQ(host[t].zero_filled[1], 1261u) << t;
    for (unsigned i = 2; i < 4; ++i)
      EXPECT_EQ(host[t].zero_filled[i], 0u) << t;
  }
}

} // namespace
