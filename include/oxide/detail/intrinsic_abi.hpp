// The catalog of codes that cross the boundary between Oxide's device headers, the compiler and
// the CPU simulator: each is defined here and only here.
//
// - The device headers (oxide/device/*.hpp) pass the enums below as the constant operands of the
//   __oxide_* intrinsics (oxide/device/intrinsics.hpp), through code(); where a header still
//   writes a code as a literal (the dimensions, clock and cluster kinds), a static_assert at its
//   end checks the literal against this file.
// - The simulator's definitions of the intrinsics (runtime/sim) switch on them.
// - The dialect's enum attributes (dialects/oxide/include/Oxide/IR/OxideEnums.td) take their cases
//   from them: dialects/oxide/catalog/abi_enums_to_td.py reads this file at build time and writes
//   the case lists that OxideEnums.td includes, so an op's attribute and the code a header passes
//   cannot disagree, and oxide-raise bounds each operand by the generated getMaxEnumValFor...().
// - The compiler reads span parameters at the offsets of kSpanDataOffset and friends, which
//   oxide/device/span.hpp and atomic.hpp static_assert against their classes.
//
// Why a C++ header and not a separate catalog file (cuda-oxide generates its intrinsic tables from
// one catalog.json): every consumer but TableGen is C++, and the device headers must stay
// includable from an installed tree without generated files, so the header itself is the catalog
// and only TableGen's copy is generated. Parameter kinds, which only host code decodes, are in
// oxide/detail/param_kind.hpp.
//
// For the generator: every `enum class Name : std::uint32_t` becomes `Oxide_NameCases`, one
// `name = value,` per line. The dialect prints an enumerator by its name without a trailing
// underscore (`and_` prints `and`), or by the word after a trailing `// printed:` comment.
//
// Dependency-free (<cstddef>, <cstdint>) and constexpr only: device code, host code and the
// compiler include it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace oxide::intrinsic {

/// A launch dimension: the `dim` operand of the geometry, thread-index and cluster intrinsics.
enum class Dim : std::uint32_t {
  x = 0,
  y = 1,
  z = 2,
};

/// The launch geometry register an intrinsic reads; chosen by the intrinsic's name
/// (__oxide_thread_idx, __oxide_block_idx, __oxide_block_dim, __oxide_grid_dim), not an operand.
enum class GeometryKind : std::uint32_t {
  thread_idx = 0,
  block_idx = 1,
  block_dim = 2,
  grid_dim = 3,
};

/// The memory scope of __oxide_fence.
enum class Scope : std::uint32_t {
  block = 0,
  device = 1,
  system = 2,
};

/// Where __oxide_warp_shuffle reads from (shfl.sync's modes).
enum class ShuffleMode : std::uint32_t {
  idx = 0,  // lane `arg`
  up = 1,   // lane - `arg`
  down = 2, // lane + `arg`
  bfly = 3, // printed: xor
};

/// __oxide_warp_vote: all and any return 0/1, ballot a bit per lane.
enum class VoteMode : std::uint32_t {
  all = 0,
  any = 1,
  ballot = 2,
};

/// The operation of __oxide_warp_redux (redux.sync); min and max are signed.
enum class ReduxKind : std::uint32_t {
  add = 0,
  min = 1,
  max = 2,
  umin = 3,
  umax = 4,
  and_ = 5,
  or_ = 6,
  xor_ = 7,
};

/// __oxide_warp_match (match.sync): any = the lanes holding the caller's value, all = the mask
/// when every lane holds the same value, else 0.
enum class MatchKind : std::uint32_t {
  any = 0,
  all = 1,
};

/// The lane mask __oxide_lane_mask reads (%lanemask_*): the lanes below, up to, equal to, from or
/// above the calling lane.
enum class LaneMaskKind : std::uint32_t {
  lt = 0,
  le = 1,
  eq = 2,
  ge = 3,
  gt = 4,
};

/// The time source of __oxide_clock: the SM's cycle counter or the global nanosecond timer.
enum class ClockKind : std::uint32_t {
  clock64 = 0,
  globaltimer = 1,
};

/// The register __oxide_cluster_geometry reads: block_rank and block_count ignore `dim`.
enum class ClusterGeometryKind : std::uint32_t {
  block_rank = 0,    // the block's rank in its cluster
  block_count = 1,   // blocks per cluster
  block_idx = 2,     // the block's index in its cluster along `dim`
  cluster_dim = 3,   // the cluster's shape along `dim`
  cluster_idx = 4,   // the cluster's index in the grid along `dim`
  grid_clusters = 5, // clusters in the grid along `dim`
};

/// The thread groups that own outputs together (__oxide_group_index): a warp is 32 threads of a
/// block by linear thread index (threadIdx.x fastest), as the hardware groups them.
enum class Group : std::uint32_t {
  warp = 0,    // blockLinear * ceil(blockThreads / 32) + linearTid / 32
  block = 1,   // the block's linear index in the grid (x fastest)
  cluster = 2, // the cluster's linear index in the grid (x fastest)
};

/// The write sets of __oxide_owned_elem: for each shape, the set of elements an owner (a thread or
/// a group, by its witness) may write, and which member of a group writes each. Different owners'
/// sets never meet, which is why the compiler accepts writes through them; `j` names one element
/// of the set. B is the block's thread count along x, T the launch's (gridDim.x * blockDim.x).
enum class Ownership : std::uint32_t {
  warp_leader = 0,    // 1-D, warp w: element w, written by lane 0
  warp_lanes = 1,     // 2-D, warp w: row w; lane l writes columns l + 32 j
  block_leader = 2,   // 1-D, block b: element b, written by the block's thread 0
  block_threads = 3,  // 2-D, block b: row b; thread t (linear) writes columns t + blockThreads * j
  cluster_leader = 4, // 1-D, cluster c: element c, written by thread 0 of the cluster's block rank 0
  launch_strided = 5, // 1-D, thread i: elements i + T j
  block_strided = 6,  // 1-D, thread i = b B + t (`count` K): elements b B K + t + B j, j < K
  strided_rows = 7,   // 2-D, thread (x, y), y = b By + t (`count` K): column x, rows b By K + t + By j, j < K
  pair = 8,           // 1-D, thread i, distance h (uniform): elements (i / h) 2h + i % h + h j, j < 2
  z_column = 9,       // 3-D, thread (x, y) of a 2-D launch: elements [j][y][x]
  warpgroup_tile = 10, // 2-D, block b: its tile of warpgroup-MMA accumulators (detail::WarpgroupTile)
};

/// What __oxide_owned_elem's `param` is for a shape.
enum class OwnedParam : std::uint8_t {
  none,     // unused (0)
  count,    // the elements per thread, K: a constant from 1 to detail::kMaxStridedCount
  distance, // the pair distance h: a run-time value the same for every thread
  tile,     // a packed detail::WarpgroupTile
};

/// Everything about a shape of Ownership but its element formula (the dialect's lowering and
/// the simulator): the op's verifier and oxide-raise read the ranks and the param, and
/// oxide-verify-safety the witnesses. Row s describes Ownership s.
struct OwnershipShape {
  Ownership shape;
  std::uint32_t output_rank; // extents of the output it writes
  std::uint32_t owner_rank;  // owner coordinates (x, then y)
  bool grouped;              // owned by a group (`group`, by its group index), else by a thread
  Group group;
  std::uint32_t witness_rank; // a thread's owner: its thread index of this rank, one per dimension
  bool steps_x, steps_y;      // whether the x / y owner may be a grid-stride step of that index
  OwnedParam param;
};

inline constexpr OwnershipShape kOwnershipShapes[] = {
    {Ownership::warp_leader, 1, 1, true, Group::warp, 0, false, false, OwnedParam::none},
    {Ownership::warp_lanes, 2, 1, true, Group::warp, 0, false, false, OwnedParam::none},
    {Ownership::block_leader, 1, 1, true, Group::block, 0, false, false, OwnedParam::none},
    {Ownership::block_threads, 2, 1, true, Group::block, 0, false, false, OwnedParam::none},
    {Ownership::cluster_leader, 1, 1, true, Group::cluster, 0, false, false, OwnedParam::none},
    {Ownership::launch_strided, 1, 1, false, Group::warp, 1, true, false, OwnedParam::none},
    // The block's place comes from the launch registers: the thread's own index, not a step of it.
    {Ownership::block_strided, 1, 1, false, Group::warp, 1, false, false, OwnedParam::count},
    {Ownership::strided_rows, 2, 2, false, Group::warp, 2, true, false, OwnedParam::count},
    {Ownership::pair, 1, 1, false, Group::warp, 1, true, false, OwnedParam::distance},
    {Ownership::z_column, 3, 2, false, Group::warp, 2, true, true, OwnedParam::none},
    {Ownership::warpgroup_tile, 2, 1, true, Group::block, 0, false, false, OwnedParam::tile},
};

/// The row of `shape`.
[[nodiscard]] constexpr const OwnershipShape &ownership_shape(Ownership shape) noexcept {
  return kOwnershipShapes[static_cast<std::uint32_t>(shape)];
}

static_assert(
    [] {
      for (std::uint32_t i = 0; i < sizeof(kOwnershipShapes) / sizeof(kOwnershipShapes[0]); ++i)
        if (static_cast<std::uint32_t>(kOwnershipShapes[i].shape) != i)
          return false;
      return true;
    }(),
    "kOwnershipShapes: row s describes Ownership s");

/// The multiplicands of a warpgroup MMA (__oxide_wgmma): the accumulator is f32, s32 for s8.
/// K of one instruction is 32 bytes of the multiplicand: 16 for bf16/f16, 8 for tf32, 32 for
/// the 8-bit types.
enum class WgmmaType : std::uint32_t {
  bf16 = 0,
  f16 = 1,
  tf32 = 2,
  e4m3 = 3,
  e5m2 = 4,
  s8 = 5,
};

/// The cache operator of __oxide_cached_load and __oxide_cached_store (PTX's ld/st .cop, or
/// ld.global.nc), printed as its PTX suffix. Loads take nc, ca, cg, cs, lu and cv; stores wb, cg,
/// cs and wt (the PTX ISA, "Cache Operators"); CUDA's __ldg, __ldca, __ldcg, __ldcs, __ldlu,
/// __ldcv, __stwb, __stcg, __stcs and __stwt.
enum class CacheHint : std::uint32_t {
  read_only = 0,     // printed: nc
  all_levels = 1,    // printed: ca
  global_level = 2,  // printed: cg
  streaming = 3,     // printed: cs
  last_use = 4,      // printed: lu
  no_cache = 5,      // printed: cv
  write_back = 6,    // printed: wb
  write_through = 7, // printed: wt
};

/// The operand an intrinsic takes for `value`. consteval, so that it is a literal in the IR at
/// every optimisation level (oxide-raise requires constants).
template <class E> [[nodiscard]] consteval std::uint32_t code(E value) noexcept {
  return static_cast<std::uint32_t>(value);
}

} // namespace oxide::intrinsic

namespace oxide::detail {

/// The layout of every span parameter (Span, DisjointSpan, DisjointSpan2D/3D, AtomicSpan): the data
/// pointer, then its extents (size, or width, height[, depth]) as 64-bit integers. The compiler
/// reads a parameter's extents at these byte offsets (oxide-optimize, for `requires`).
inline constexpr std::size_t kSpanDataOffset = 0;
inline constexpr std::size_t kSpanExtentOffset = 8;
inline constexpr std::size_t kSpanExtentStride = 8;
/// An AppendSpan (oxide/device/append.hpp) is a span followed by the pointer to its counter.
inline constexpr std::size_t kAppendCounterOffset = 16;

/// The device function a failed bounds check calls (index, size, file, line, function): the
/// lowering (oxide-to-nvvm) builds it, and the LLVM passes that move, join or prove checks find
/// checks by the blocks that call it.
inline constexpr char kBoundsFailureFunction[] = "__oxide_bounds_failure";

/// Threads per warp: the lanes of the warp shapes of intrinsic::Ownership.
inline constexpr std::uint32_t kWarpSize = 32;

/// The most elements a strided shape of intrinsic::Ownership (block_strided, strided_rows) gives
/// one thread: the compiler's arithmetic on (blockIdx * K + j) * blockDim then stays below 2^64
/// (2^31 blocks, 2^10 threads, 2^16 elements), so no element index can wrap.
inline constexpr std::uint64_t kMaxStridedCount = 65536;

/// An AppendSpan's reservations (__oxide_reserve) stay distinct while its 64-bit counter does not
/// wrap. No AppendSpan of more than kMaxAppendSlots elements gives a slot, so a reservation adds
/// at most that many, and nothing once the counter has passed it: only threads resident between
/// their test and their add (fewer than 2^18 on any GPU) can still add, 2^58 at most. A count of
/// at most kSmallReserve adds as asked, without reading the counter first: 2^56 reservations
/// would be needed to wrap it.
inline constexpr std::uint64_t kMaxAppendSlots = std::uint64_t{1} << 40;
inline constexpr std::uint64_t kSmallReserve = 256;

/// What __oxide_reserve adds to a counter that holds `counter` for a request of `count`.
constexpr std::uint64_t reserve_increment(std::uint64_t counter, std::uint64_t count) noexcept {
  return counter >= kMaxAppendSlots ? 0 : count < kMaxAppendSlots ? count : kMaxAppendSlots;
}

/// The shape of Ownership::warpgroup_tile, packed into __oxide_owned_elem's `param`. Block b owns
/// the tile (bm, bn) of (64 * consumers) x n elements, the blocks taking the tiles `group` tile
/// rows at a time (so that blocks running together share inputs in L2): with
/// tiles_m = ceil(height / (64 consumers)), tiles_n = ceil(width / n), per = group * tiles_n,
/// first_m = b / per * group and rows = min(group, tiles_m - first_m),
/// bm = first_m + b % per % rows and bn = b % per / rows (for b < tiles_m * tiles_n; that is a
/// bijection). With `longest_first`, block b (a block_stride step) first goes through
/// serpentine(): with B the grid's blocks, its round r = b / B keeps its order when even and is
/// reversed when odd (position b % B becomes L - 1 - b % B, L the round's length), so that the
/// blocks of a persistent launch, which take one step a round, share the long and the short
/// tiles evenly (a launch of a block per tile has one round: nothing moves). It is then reordered
/// by a run-time value the same for every thread, passed as the owner's y: its low kPeriodBits bits are
/// `period` p, the rest `runs at once` G (longest_first_order() packs them). The tiles come in runs = tiles /
/// p runs of p (an attention head's q-tiles, whose work grows along the run), taken G runs at a time (0, or G
/// >= runs: all of them): group g = b / (p G) holds runs [g G, g G + n), n = min(G, runs - g G), and with r =
/// b % (p G), b' = (g G + r % n) p + (p - 1 - r / n): each group's runs' last tiles first, then their next (a
/// bijection too; a period that is 0 or does not divide the tiles gives no block a tile). In the tile, thread
/// t of the block (linear) in warpgroup w = t / 128, c = w - first < consumers, writes element j < n / 2 of
/// its accumulator (oxide/device/wgmma.hpp): row 64 c + 16 (t % 128 / 32) + t % 32 / 4 + 8 (j / 2 % 2),
/// column 8 (j / 4) + 2 (t % 4) + j % 2.
struct WarpgroupTile {
  std::uint32_t n = 0, consumers = 0, first = 0, group = 0, longest_first = 0;

  static constexpr std::uint32_t kMaxGroup = 0xffff;
  /// The longest-first order's run-time value: the period in the low kPeriodBits bits, the runs
  /// taken at once above them.
  static constexpr unsigned kPeriodBits = 40;
  static constexpr std::uint64_t kMaxPeriod = (std::uint64_t{1} << kPeriodBits) - 1;
  static constexpr std::uint64_t kMaxRunsAtOnce = (std::uint64_t{1} << (64 - kPeriodBits)) - 1;
  /// A period past kMaxPeriod divides no tile count (tiles stay below 2^40), so it packs as 0 (no
  /// tile); more runs at once than kMaxRunsAtOnce pack as 0 (all the runs).
  [[nodiscard]] static constexpr std::uint64_t longest_first_order(std::uint64_t period,
                                                                   std::uint64_t runs_at_once) noexcept {
    return (period > kMaxPeriod ? 0 : period) | (runs_at_once > kMaxRunsAtOnce ? 0 : runs_at_once)
                                                    << kPeriodBits;
  }
  [[nodiscard]] constexpr std::uint64_t pack() const noexcept {
    return std::uint64_t{n} | std::uint64_t{consumers} << 16 | std::uint64_t{first} << 24 |
           std::uint64_t{group} << 32 | std::uint64_t{longest_first} << 48;
  }
  [[nodiscard]] static constexpr WarpgroupTile unpack(std::uint64_t param) noexcept {
    return {static_cast<std::uint32_t>(param & 0xffff), static_cast<std::uint32_t>((param >> 16) & 0xff),
            static_cast<std::uint32_t>((param >> 24) & 0xff),
            static_cast<std::uint32_t>((param >> 32) & 0xffff), static_cast<std::uint32_t>(param >> 48)};
  }
  /// Where block `b`'s tile starts in a width x height output; `inside` is false for a block past
  /// the last tile (it owns nothing). The arithmetic of the set's definition above.
  struct Origin {
    std::size_t row = 0, column = 0;
    bool inside = false;
  };
  /// A step's place after the rounds of a grid of `blocks` blocks, every other one reversed, for
  /// `tiles` steps (s < tiles): a bijection on [0, tiles).
  [[nodiscard]] static constexpr std::size_t serpentine(std::size_t s, std::size_t tiles,
                                                        std::size_t blocks) noexcept {
    if (blocks == 0)
      return s;
    const std::size_t round = s / blocks, start = round * blocks;
    const std::size_t length = tiles - start < blocks ? tiles - start : blocks;
    return round % 2 == 1 ? start + (length - 1 - s % blocks) : s;
  }
  [[nodiscard]] constexpr Origin origin(std::size_t b, std::size_t width, std::size_t height,
                                        std::uint64_t order = 0, std::size_t blocks = 0) const noexcept {
    const std::size_t tile_rows = 64 * std::size_t{consumers};
    const std::size_t tiles_m = (height + tile_rows - 1) / tile_rows, tiles_n = (width + n - 1) / n;
    const std::size_t tiles = tiles_m * tiles_n;
    if (b >= tiles)
      return {};
    if (longest_first) {
      const std::size_t p = order & kMaxPeriod, at_once = order >> kPeriodBits;
      if (p == 0 || tiles % p != 0)
        return {};
      b = serpentine(b, tiles, blocks);
      const std::size_t runs = tiles / p, g = at_once == 0 || at_once > runs ? runs : at_once;
      const std::size_t first_run = b / (p * g) * g, left = runs - first_run, n = left < g ? left : g;
      const std::size_t r = b % (p * g);
      b = (first_run + r % n) * p + (p - 1 - r / n);
    }
    const std::size_t per = group * tiles_n, first_m = b / per * group;
    const std::size_t rows = tiles_m - first_m < group ? tiles_m - first_m : group, local = b % per;
    return {(first_m + local % rows) * tile_rows, local / rows * n, true};
  }
  /// Whether the fields describe a tile: n a multiple of 8 up to 256, 1..4 consumer warpgroups
  /// after `first` (a block has at most 8 warpgroups), 1..kMaxGroup tile rows per group.
  [[nodiscard]] constexpr bool valid() const noexcept {
    return n >= 8 && n <= 256 && n % 8 == 0 && consumers >= 1 && consumers <= 4 && first + consumers <= 8 &&
           group >= 1 && group <= kMaxGroup && longest_first <= 1;
  }
};

} // namespace oxide::detail
