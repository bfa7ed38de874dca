// CUB's warp-level data movement in contracted kernels (oxide::cub::WarpLoad, WarpExchange,
// WarpStore), written as a CUDA program writes them with CUB, checked against the host's answers:
// whole and logical warps (8 and 32 lanes), blocked, striped and transposed loads, partial tiles
// with a default, exchanges both ways and scattered by rank, stores of a lane's blocked items into
// a 1-D output and of striped or transposed items into the warp's row of a 2-D one. The same
// source runs on the GPU and the CPU simulator.
#include <oxide/cub.hpp>
#include <oxide/oxide.hpp>

#include "lang_check.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace cub = oxide::cub;
using lang::Checks;

namespace {

constexpr int kItems = 4;
constexpr int kWarpTile = 32 * kItems;
constexpr int kResults = 7 * kItems; // per thread in `loads`

// Three warps, each loading its tile of 128 ints (the last one partial, padded with -1) five
// ways (vectorised also one element on, off the vectors' alignment), then exchanging and
// scattering: every lane's 28 results into its tile of `out`.
[[kernel, oxide::launch_contract("domain = 1, block = 96")]] void loads(oxide::Span<const int> in,
                                                                        oxide::DisjointSpan<int> out) {
  const auto i = oxide::thread::index_1d();
  const std::uint32_t w = oxide::thread_idx().x / 32;
  const std::size_t offset = std::size_t{oxide::warp::index().get()} * kWarpTile;
  const int valid = static_cast<int>(std::min<std::size_t>(kWarpTile, in.size() - offset));
  using Exchange = cub::WarpExchange<int, kItems>;
  auto storage = oxide::shared_array<Exchange::TempStorage, 3>();

  int r[kResults];
  int blocked[kItems], striped[kItems], transposed[kItems];
  cub::WarpLoad<int, kItems>().Load(in, offset, blocked, valid, -1);
  cub::WarpLoad<int, kItems, cub::WARP_LOAD_STRIPED>().Load(in, offset, striped, valid, -1);
  auto &load_storage =
      oxide::shared_object<cub::WarpLoad<int, kItems, cub::WARP_LOAD_TRANSPOSE>::TempStorage[3]>();
  cub::WarpLoad<int, kItems, cub::WARP_LOAD_TRANSPOSE>(load_storage[w])
      .Load(in, offset, transposed, valid, -1);
  int vectorized[kItems], shifted[kItems];
  cub::WarpLoad<int, kItems, cub::WARP_LOAD_VECTORIZE>().Load(in, offset, vectorized, valid, -1);
  // A whole tile one element on: inside `in` but off the vectors' alignment, so read item by item
  // (a vector load there would fault on the GPU); the partial tile with valid_items.
  if (offset + 1 + kWarpTile <= in.size())
    cub::WarpLoad<int, kItems, cub::WARP_LOAD_VECTORIZE>().Load(in, offset + 1, shifted);
  else
    cub::WarpLoad<int, kItems, cub::WARP_LOAD_VECTORIZE>().Load(in, offset + 1, shifted, valid - 1, -1);
  int exchanged[kItems];
  Exchange(storage[w]).BlockedToStriped(blocked, exchanged);
  oxide::warp::sync(); // the storage is used again
  // The tile reversed: item p goes to position 127 - p, read back striped.
  int scattered[kItems], ranks[kItems];
  for (int k = 0; k < kItems; ++k) {
    scattered[k] = blocked[k];
    ranks[k] = kWarpTile - 1 - static_cast<int>(oxide::warp::lane_id() * kItems + k);
  }
  Exchange(storage[w]).ScatterToStriped(scattered, ranks);
  for (int k = 0; k < kItems; ++k) {
    r[k] = blocked[k];
    r[kItems + k] = striped[k];
    r[2 * kItems + k] = transposed[k];
    r[3 * kItems + k] = exchanged[k];
    r[4 * kItems + k] = scattered[k];
    r[5 * kItems + k] = vectorized[k];
    r[6 * kItems + k] = shifted[k];
  }
  auto mine = out.tile_mut<kResults>(i);
  for (std::size_t k = 0; k < mine.size(); ++k)
    mine[k] = r[k];
}

// Logical warps of 8 lanes, 3 floats a lane: a transposed load, striped back in place, blocked
// again, then each lane's blocked items stored into its logical warp's tile of a 1-D output (the
// last tile partial).
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void logical(oxide::Span<const float> in,
                                                                          oxide::DisjointSpan<float> out) {
  const auto i = oxide::thread::index_1d();
  constexpr int kTile = 8 * 3;
  const std::size_t offset = i.get() / 8 * kTile;
  const int valid = static_cast<int>(std::min<std::size_t>(kTile, in.size() - std::min(offset, in.size())));
  using Load = cub::WarpLoad<float, 3, cub::WARP_LOAD_TRANSPOSE, 8>;
  using Exchange = cub::WarpExchange<float, 3, 8>;
  auto &load_storage = oxide::shared_object<Load::TempStorage[8]>();
  auto &exchange_storage = oxide::shared_object<Exchange::TempStorage[8]>();
  const std::uint32_t g = oxide::thread_idx().x / 8;
  float v[3];
  Load(load_storage[g]).Load(in, offset, v, valid, 0.5f);
  for (float &x : v)
    x = x * 3 + static_cast<float>(oxide::thread_idx().x % 8);
  Exchange(exchange_storage[g]).BlockedToStriped(v, v);
  oxide::warp::sync();
  Exchange(exchange_storage[g]).StripedToBlocked(v, v);
  cub::WarpStore<float, 3, cub::WARP_STORE_DIRECT, 8>().Store(out, i, v, valid);
}

// Whole warps storing into their rows of a 2-D output (rows of 128, the last partial by
// valid_items): striped items directly, blocked items through the transposing store.
[[kernel, oxide::launch_contract("domain = 1, block = 64")]] void
rows(oxide::Span<const int> in, oxide::DisjointSpan2D<int> striped_out,
     oxide::DisjointSpan2D<int> transposed_out) {
  const auto w = oxide::warp::index();
  const std::size_t offset = std::size_t{w.get()} * kWarpTile;
  const int valid =
      static_cast<int>(std::min<std::size_t>(kWarpTile, in.size() - std::min(offset, in.size())));
  int striped[kItems], blocked[kItems];
  cub::WarpLoad<int, kItems, cub::WARP_LOAD_STRIPED>().Load(in, offset, striped, valid, -1);
  cub::WarpLoad<int, kItems>().Load(in, offset, blocked, valid, -1);
  for (int k = 0; k < kItems; ++k) {
    striped[k] += 1000;
    blocked[k] += 2000;
  }
  cub::WarpStore<int, kItems, cub::WARP_STORE_STRIPED>().Store(striped_out.row_mut(w), striped, valid);
  using Store = cub::WarpStore<int, kItems, cub::WARP_STORE_TRANSPOSE>;
  auto &storage = oxide::shared_object<Store::TempStorage[2]>();
  Store(storage[oxide::thread_idx().x / 32]).Store(transposed_out.row_mut(w), blocked, valid);
}

// A scatter rank outside the warp's tile stops the kernel with its message.
[[kernel, oxide::launch_contract("domain = 1, block = 32")]] void bad_rank(oxide::Span<const int> in,
                                                                           oxide::DisjointSpan<int> out) {
  const auto i = oxide::thread::index_1d();
  using Exchange = cub::WarpExchange<int, 1>;
  auto &storage = oxide::shared_object<Exchange::TempStorage>();
  int v[1] = {in[i.get()]}, rank[1] = {v[0]};
  Exchange(storage).ScatterToStriped(v, rank);
  if (int *o = out.get_mut(i))
    *o = v[0];
}

std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void check_loads(Checks &c, oxide::Context &ctx, oxide::Stream &stream) {
  constexpr std::size_t n = 2 * kWarpTile + 50; // the third warp's tile is partial
  std::vector<int> x(n);
  for (std::size_t j = 0; j < n; ++j)
    x[j] = static_cast<int>(mix(j) % 10000);
  auto in = oxide::DeviceBuffer<int>::from_host(stream, x);
  auto out = oxide::DeviceBuffer<int>::uninitialized(stream, 96 * kResults);
  oxide::prepare(ctx, loads, oxide::LaunchConfig1D{1, 96})(stream, in, out);
  const std::vector<int> r = out.to_host(stream);
  auto item = [&](std::size_t w, std::size_t p) { return w * kWarpTile + p < n ? x[w * kWarpTile + p] : -1; };
  std::size_t wrong[7] = {};
  for (std::size_t t = 0; t < 96; ++t) {
    const std::size_t w = t / 32, lane = t % 32;
    for (std::size_t k = 0; k < kItems; ++k) {
      const int *got = &r[t * kResults];
      wrong[0] += got[k] != item(w, lane * kItems + k);
      wrong[1] += got[kItems + k] != item(w, k * 32 + lane);
      wrong[2] += got[2 * kItems + k] != item(w, lane * kItems + k);
      wrong[3] += got[3 * kItems + k] != item(w, k * 32 + lane);
      wrong[4] += got[4 * kItems + k] != item(w, kWarpTile - 1 - (k * 32 + lane));
      wrong[5] += got[5 * kItems + k] != item(w, lane * kItems + k);
      const std::size_t q = w * kWarpTile + lane * kItems + k + 1; // the tile one element on
      wrong[6] += got[6 * kItems + k] != (q < n ? x[q] : -1);
    }
  }
  const char *names[] = {"WarpLoad direct",
                         "WarpLoad striped",
                         "WarpLoad transposed",
                         "WarpExchange BlockedToStriped",
                         "WarpExchange ScatterToStriped (reversed)",
                         "WarpLoad vectorised",
                         "WarpLoad vectorised, unaligned"};
  for (int k = 0; k < 7; ++k)
    c.expect(wrong[k] == 0, std::string(names[k]) + ": " + std::to_string(wrong[k]) + " items wrong");
}

void check_logical(Checks &c, oxide::Context &ctx, oxide::Stream &stream) {
  constexpr std::size_t n = 5 * 24 + 10; // 2 blocks of 8 logical warps; the sixth's tile partial
  std::vector<float> x(n);
  for (std::size_t j = 0; j < n; ++j)
    x[j] = static_cast<float>(mix(j + 1) % 100);
  auto in = oxide::DeviceBuffer<float>::from_host(stream, x);
  auto out = oxide::DeviceBuffer<float>::from_host(stream, std::vector<float>(n + 20, -7.0f));
  oxide::prepare(ctx, logical, oxide::LaunchConfig1D{2, 64})(stream, in, out.slice(0, n));
  const std::vector<float> r = out.to_host(stream);
  // Lane l of logical warp g holds tile items l * 3 + k (blocked), each x * 3 + l.
  std::vector<float> want(n + 20, -7.0f);
  for (std::size_t g = 0; g < 16; ++g)
    for (std::size_t lane = 0; lane < 8; ++lane)
      for (std::size_t k = 0; k < 3; ++k) {
        const std::size_t p = g * 24 + lane * 3 + k;
        if (p < n)
          want[p] = x[p] * 3 + static_cast<float>(lane);
      }
  c.expect(r == want, "WarpLoad transposed, WarpExchange both ways, WarpStore direct: logical warps of 8");
}

void check_rows(Checks &c, oxide::Context &ctx, oxide::Stream &stream) {
  constexpr std::size_t n = 3 * kWarpTile + 70, rows = 4; // 4 warps, the last tile partial
  std::vector<int> x(n);
  for (std::size_t j = 0; j < n; ++j)
    x[j] = static_cast<int>(mix(j + 2) % 10000);
  auto in = oxide::DeviceBuffer<int>::from_host(stream, x);
  auto striped = oxide::DeviceBuffer<int>::from_host(stream, std::vector<int>(rows * kWarpTile, -5));
  auto transposed = oxide::DeviceBuffer<int>::from_host(stream, std::vector<int>(rows * kWarpTile, -5));
  oxide::prepare(ctx, ::rows, oxide::LaunchConfig1D{2, 64})(stream, in, striped.view_2d(kWarpTile, rows),
                                                            transposed.view_2d(kWarpTile, rows));
  std::vector<int> want_striped(rows * kWarpTile, -5), want_transposed(rows * kWarpTile, -5);
  for (std::size_t j = 0; j < n; ++j) {
    want_striped[j] = x[j] + 1000;
    want_transposed[j] = x[j] + 2000;
  }
  c.expect(striped.to_host(stream) == want_striped, "WarpStore striped into warp rows");
  c.expect(transposed.to_host(stream) == want_transposed, "WarpStore transposed into warp rows");
}

} // namespace

int main() try {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  Checks c;
  check_loads(c, ctx, stream);
  check_logical(c, ctx, stream);
  check_rows(c, ctx, stream);

  c.expect_stop("a WarpExchange rank outside the tile", [&] {
    std::vector<int> ranks(32);
    for (int j = 0; j < 32; ++j)
      ranks[j] = j == 7 ? 32 : j; // lane 7 gives rank 32 in a tile of 32
    auto in = oxide::DeviceBuffer<int>::from_host(stream, ranks);
    auto out = oxide::DeviceBuffer<int>::uninitialized(stream, 32);
    oxide::prepare(ctx, bad_rank, oxide::LaunchConfig1D{1, 32})(stream, in, out);
    stream.synchronize();
  });
  return c.finish("cub_warp_io", ctx);
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\nFAIL\n", e.what());
  return 1;
}
