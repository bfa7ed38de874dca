// Host definitions of the Hopper intrinsics (the "Hopper" section of oxide/device/intrinsics.hpp)
// for the CPU simulator: mbarriers, TMA bulk tensor copies, warpgroup MMA, fences, setmaxnreg.
//
// - An mbarrier's state lives in its word in shared memory (sim/mbarrier.hpp). A try_wait whose
//   phase has not completed suspends the thread until it does (BlockRunner::mbarrier_wait): the
//   wait is bounded by the phase's completion, and a phase that never completes is reported as a
//   deadlock once no thread can run.
// - A TMA copy reads the simulator's TensorMap (sim/tensor_map_format.hpp) and is queued; it lands
//   (the box, zeros outside the tensor, swizzled on the shared-memory address bits as the GPU
//   does) when a thread waits at its mbarrier or no thread can run, completing its bytes there.
//   A TMA store writes its box (elements outside the tensor skipped) when it is issued.
// - wgmma reads A and B from shared memory through the matrix descriptors as the PTX ISA lays
//   them out ("Matrix Descriptor Format", "Shared Memory Matrix Layout"); each thread computes its
//   own accumulators at once, then waits for the rest of its warpgroup (so the wait is a no-op,
//   and a warp past it knows the other warps have read the operands). Shared-memory addresses
//   (shared_address, descriptors) are offsets in the block's arena, which is page-aligned: its address bits
//   4-9, which the swizzles permute, are those of the offsets.
#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

#include "oxide/detail/intrinsic_abi.hpp"
#include "oxide/device/intrinsics.hpp"
#include "sim/block_runner.hpp"
#include "sim/hopper.hpp"
#include "sim/mbarrier.hpp"
#include "sim/sim_thread.hpp"
#include "sim/tensor_map_format.hpp"

namespace oxide::detail::sim {
namespace {

/// The running simulated thread of a launch (the intrinsics of intrinsics.cpp abort with the
/// simulator's message outside one).
SimThread &self() noexcept {
  (void)__oxide_dynamic_shared_size();
  return *current_sim_thread;
}

[[noreturn]] void fail(SimThread &t, std::string message) { t.block->fail(t, std::move(message)); }

/// `address` in `shared` for a message: "byte N of dynamic shared memory" or "of a shared array".
/// A fixed buffer, not a std::string: the messages go to fail(), which never returns, so a
/// temporary that owned heap memory in its caller's frame would never be freed.
struct Place {
  char text[96] = {};
};
Place place(const SharedMemory &shared, const void *address) {
  Place p;
  if (const auto location = shared.locate(address))
    fmt::format_to_n(p.text, sizeof p.text - 1, "byte {} of {}", location->offset,
                     location->site ? "a shared array" : "dynamic shared memory");
  else
    fmt::format_to_n(p.text, sizeof p.text - 1, "address {}, which is not in the block's shared memory",
                     fmt::ptr(address));
  return p;
}

/// Whether [address, address + bytes) lies in one array (or the dynamic area) of `shared`.
bool inside(const SharedMemory &shared, const void *address, std::size_t bytes) noexcept {
  const auto location = shared.locate(address);
  return location && location->offset + bytes <= location->bytes;
}

/// The swizzle of a shared-memory address (CUTLASS's Swizzle<3,4,3>, <2,4,3>, <1,4,3>): the
/// 16-byte chunk (bits 4-6) of a `span`-byte row is XORed with the row's index among 8 (bits 7-9).
constexpr std::uint64_t swizzle(std::uint64_t address, std::uint32_t span) noexcept {
  const std::uint64_t mask = span == 128 ? 7 : span == 64 ? 3 : span == 32 ? 1 : 0;
  return address ^ ((address >> 7 & mask) << 4);
}

// --- mbarriers -------------------------------------------------------------------------------

/// The mbarrier at `bar` in shared memory of a block of the group, 8-byte aligned; fails the
/// thread otherwise. `op` names the device call.
SharedMemory &barrier_memory(SimThread &t, const std::uint64_t *bar, const char *op) {
  BlockState *owner = t.block->owner_of(bar);
  if (!owner || !inside(owner->shared, bar, sizeof *bar))
    fail(t, fmt::format("{}: the mbarrier at {} is not in the block's shared memory (a shared_array or "
                        "dynamic_shared)",
                        op, fmt::ptr(bar)));
  if (reinterpret_cast<std::uintptr_t>(bar) % 8 != 0)
    fail(t, fmt::format("{}: the mbarrier at {} is not 8-byte aligned", op, place(owner->shared, bar).text));
  return owner->shared;
}

/// The state of the initialised mbarrier at `bar`; fails the thread when it is not one.
Mbarrier load_barrier(SimThread &t, const std::uint64_t *bar, const char *op) {
  const SharedMemory &shared = barrier_memory(t, bar, op);
  std::uint64_t word = 0;
  {
    const BlockRunner::OwnAccess access(*t.block);
    word = *bar;
  }
  if (const auto m = Mbarrier::decode(word))
    return *m;
  fail(t, fmt::format("{}: the mbarrier at {} is not initialised (call mbarrier_init first, and again after "
                      "mbarrier_inval)",
                      op, place(shared, bar).text));
}

void store_barrier(SimThread &t, std::uint64_t *bar, const Mbarrier &m) {
  const BlockRunner::OwnAccess access(*t.block);
  *bar = m.encode();
}

/// One arrival on `bar` (in any block of the group), expecting `tx` more transaction bytes first.
void arrive(SimThread &t, std::uint64_t *bar, std::uint32_t tx, const char *op) {
  Mbarrier m = load_barrier(t, bar, op);
  const std::int64_t due = std::int64_t{m.tx} + tx;
  if (due > Mbarrier::kMaxTx)
    fail(t, fmt::format("{}: the mbarrier at {} would expect {} transaction bytes at once, more than the {} "
                        "of its tx-count",
                        op, place(barrier_memory(t, bar, op), bar).text, due, Mbarrier::kMaxTx));
  if (m.pending == 0)
    fail(t, fmt::format("{}: phase {} of the mbarrier at {} has had all its {} arrivals and waits for {} "
                        "transaction bytes; one arrival more than its count is undefined on the GPU",
                        op, m.parity, place(barrier_memory(t, bar, op), bar).text, m.count, m.tx));
  m.tx = static_cast<std::int32_t>(due);
  --m.pending;
  const bool completed = m.try_complete();
  store_barrier(t, bar, m);
  if (completed)
    t.block->mbarrier_completed(bar);
}

// --- TMA -------------------------------------------------------------------------------------

/// The simulator's TensorMap at `map`; fails the thread when `map` holds none.
TensorMapImage load_map(SimThread &t, const void *map, const char *op) {
  if (!map || reinterpret_cast<std::uintptr_t>(map) % alignof(TensorMapImage) != 0)
    fail(t,
         fmt::format("{}: the TensorMap address {} is not 64-byte aligned device memory", op, fmt::ptr(map)));
  TensorMapImage image;
  std::memcpy(&image, map, sizeof image);
  if (image.magic != TensorMapImage::kMagic || image.rank < 1 || image.rank > TensorMapImage::kMaxRank)
    fail(t, fmt::format("{}: {} holds no TensorMap of the simulator (was it made for a GPU context, or is it "
                        "not a TensorMap at all?)",
                        op, fmt::ptr(map)));
  return image;
}

void tma_load(void *dst, const void *map, std::uint64_t *bar, std::uint32_t rank, const std::int32_t (&c)[5],
              std::uint32_t mask, const char *op) {
  SimThread &t = self();
  const TensorMapImage image = load_map(t, map, op);
  if (rank != image.rank)
    fail(t, fmt::format("{}: a copy of rank {} with a TensorMap of rank {}", op, rank, image.rank));
  SharedMemory &shared = t.home->shared;
  const std::uint64_t bytes = image.box_bytes();
  // The swizzle permutes 16-byte chunks within 128-byte rows of the destination.
  const std::uint64_t span = image.swizzle_bytes ? (bytes + 127) / 128 * 128 : bytes;
  if (!inside(shared, dst, span))
    fail(t, fmt::format("{}: the {}-byte box does not fit in the block's shared memory at {}", op, bytes,
                        place(shared, dst).text));
  if (reinterpret_cast<std::uintptr_t>(dst) % 128 != 0)
    fail(t, fmt::format("{}: the destination at {} is not 128-byte aligned", op, place(shared, dst).text));
  (void)load_barrier(t, bar, op);
  if (t.home->shared.locate(bar) == std::nullopt)
    fail(t, fmt::format("{}: the mbarrier must be in the calling block's shared memory", op));
  TmaCopy copy{image, {c[0], c[1], c[2], c[3], c[4]}, static_cast<std::byte *>(dst), bar, t.slot};
  if (mask == 0) {
    t.block->defer_copy(copy);
    return;
  }
  for (std::uint32_t r = 0; r < 16; ++r)
    if (mask >> r & 1) {
      copy.dst = static_cast<std::byte *>(t.block->map_shared(t, dst, r));
      copy.bar = static_cast<std::uint64_t *>(t.block->map_shared(t, bar, r));
      (void)load_barrier(t, copy.bar, op);
      t.block->defer_copy(copy);
    }
}

/// Writes the box of `map` at `c` (innermost first) from shared memory at `src`, row-major and
/// swizzled as a load lands it; elements outside the tensor are skipped (TMA stores clip), but in
/// whole 16-byte chunks along the innermost dimension, as the GPU writes them: when a row's bytes
/// are not a multiple of 16, the elements up to the next 16-byte boundary past its end are written
/// too (an H200 does; the row strides, multiples of 16 bytes, leave room for them).
void store_box(const TensorMapImage &m, const std::int32_t (&c)[5], const std::byte *src) noexcept {
  const std::uint32_t size = m.element_bytes;
  std::uint32_t box[5] = {1, 1, 1, 1, 1};
  std::uint64_t extents[5] = {1, 1, 1, 1, 1};
  for (std::uint32_t d = 0; d < m.rank; ++d) {
    box[d] = m.box[d];
    extents[d] = m.extents[d];
  }
  auto *data = reinterpret_cast<std::byte *>(static_cast<std::uintptr_t>(m.data));
  const auto base = reinterpret_cast<std::uintptr_t>(src);
  const std::uint64_t row_end = (extents[0] * size + 15) / 16 * 16 / size; // whole chunks
  std::uint64_t offset = 0;
  for (std::uint32_t i4 = 0; i4 < box[4]; ++i4)
    for (std::uint32_t i3 = 0; i3 < box[3]; ++i3)
      for (std::uint32_t i2 = 0; i2 < box[2]; ++i2)
        for (std::uint32_t i1 = 0; i1 < box[1]; ++i1) {
          const std::int64_t outer[4] = {std::int64_t{c[1]} + i1, std::int64_t{c[2]} + i2,
                                         std::int64_t{c[3]} + i3, std::int64_t{c[4]} + i4};
          bool row_inside = true;
          std::int64_t row_offset = 0;
          for (std::uint32_t d = 1; d < 5; ++d) {
            row_inside =
                row_inside && outer[d - 1] >= 0 && static_cast<std::uint64_t>(outer[d - 1]) < extents[d];
            if (d < m.rank)
              row_offset += outer[d - 1] * static_cast<std::int64_t>(m.strides[d - 1]);
          }
          for (std::uint32_t i0 = 0; i0 < box[0]; ++i0, offset += size) {
            const std::int64_t x = std::int64_t{c[0]} + i0;
            if (!row_inside || x < 0 || static_cast<std::uint64_t>(x) >= row_end)
              continue;
            const auto *from = reinterpret_cast<const std::byte *>(swizzle(base + offset, m.swizzle_bytes));
            std::memcpy(data + row_offset + x * size, from, size);
          }
        }
}

/// A TMA store: checked, then done at once (the GPU's copy may finish any time before the
/// wait_group.read that covers it; doing it at the issue is one of the orders it allows).
void tma_store(const void *map, const void *src, std::uint32_t rank, const std::int32_t (&c)[5]) {
  SimThread &t = self();
  const TensorMapImage image = load_map(t, map, "tma_store");
  if (rank != image.rank)
    fail(t, fmt::format("tma_store: a copy of rank {} with a TensorMap of rank {}", rank, image.rank));
  SharedMemory &shared = t.home->shared;
  const std::uint64_t bytes = image.box_bytes();
  const std::uint64_t span = image.swizzle_bytes ? (bytes + 127) / 128 * 128 : bytes;
  if (!inside(shared, src, span))
    fail(t, fmt::format("tma_store: the {}-byte box does not fit in the block's shared memory at {}", bytes,
                        place(shared, src).text));
  if (reinterpret_cast<std::uintptr_t>(src) % 128 != 0)
    fail(t, fmt::format("tma_store: the source at {} is not 128-byte aligned", place(shared, src).text));
  const BlockRunner::OwnAccess access(*t.block);
  store_box(image, c, static_cast<const std::byte *>(src));
}

// --- wgmma -----------------------------------------------------------------------------------

struct Descriptor {
  std::uint32_t start = 0, lbo = 0, sbo = 0, base_offset = 0;
  std::uint32_t swizzle = 0; ///< bytes of the swizzle span: 0, 32, 64 or 128
};

/// The fields of a shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format").
constexpr Descriptor decode(std::uint64_t d) noexcept {
  constexpr std::uint32_t spans[4] = {0, 128, 64, 32};
  return {static_cast<std::uint32_t>(d & 0x3fff) << 4, static_cast<std::uint32_t>(d >> 16 & 0x3fff) << 4,
          static_cast<std::uint32_t>(d >> 32 & 0x3fff) << 4, static_cast<std::uint32_t>(d >> 49 & 7),
          spans[d >> 62]};
}

/// The shared-memory address of element (mn, k) of an operand (M or N rows of K) whose elements
/// take `size` bytes, K-major or MN-major (PTX ISA, "Shared Memory Matrix Layout"; CUTLASS's
/// canonical GMMA layouts). Core matrices are 8 rows of 16 bytes. K-major: rows of the matrix are
/// 16 bytes (no swizzle: the next 16 bytes of K are LBO further) or the swizzle's span; the next 8
/// rows are SBO further. MN-major: 8 K-rows of 16 bytes of MN (no swizzle: the next 16 bytes of
/// MN are SBO further, the next 8 K-rows LBO) or of the span (the next span of MN is LBO
/// further, the next 8 K-rows SBO).
constexpr std::uint64_t element_address(const Descriptor &d, bool mn_major, std::uint32_t size,
                                        std::uint32_t mn, std::uint32_t k) noexcept {
  std::uint64_t a = d.start;
  if (!mn_major) {
    const std::uint32_t kb = k * size;
    if (d.swizzle == 0)
      a += std::uint64_t{mn / 8} * d.sbo + mn % 8 * 16 + std::uint64_t{kb / 16} * d.lbo + kb % 16;
    else
      a += std::uint64_t{mn / 8} * d.sbo + mn % 8 * d.swizzle + kb;
  } else {
    const std::uint32_t mb = mn * size;
    if (d.swizzle == 0)
      a += std::uint64_t{mb / 16} * d.sbo + std::uint64_t{k / 8} * d.lbo + k % 8 * 16 + mb % 16;
    else
      a += std::uint64_t{mb / d.swizzle} * d.lbo + std::uint64_t{k / 8} * d.sbo + k % 8 * d.swizzle +
           mb % d.swizzle;
  }
  return swizzle(a, d.swizzle);
}

/// An FP8 value (OCP E4M3, NVIDIA's e4m3: no infinities, S.1111.111 is NaN; E5M2: IEEE-like).
double fp8(std::uint8_t bits, unsigned exponent_bits) noexcept {
  const unsigned mantissa_bits = 7 - exponent_bits;
  const int bias = (1 << (exponent_bits - 1)) - 1;
  const unsigned e = bits >> mantissa_bits & ((1u << exponent_bits) - 1);
  const unsigned m = bits & ((1u << mantissa_bits) - 1);
  const double sign = bits & 0x80 ? -1.0 : 1.0;
  if (exponent_bits == 4 && e == 15 && m == 7)
    return std::numeric_limits<double>::quiet_NaN();
  if (exponent_bits == 5 && e == 31)
    return m ? std::numeric_limits<double>::quiet_NaN() : sign * std::numeric_limits<double>::infinity();
  if (e == 0)
    return sign * std::ldexp(static_cast<double>(m), 1 - bias - static_cast<int>(mantissa_bits));
  return sign * std::ldexp(static_cast<double>(m | 1u << mantissa_bits),
                           static_cast<int>(e) - bias - static_cast<int>(mantissa_bits));
}

/// An element of `type` as the tensor cores read it (tf32: the top 19 bits of an f32).
double widen(intrinsic::WgmmaType type, const std::byte *p) noexcept {
  using intrinsic::WgmmaType;
  switch (type) {
  case WgmmaType::bf16: {
    __bf16 v;
    std::memcpy(&v, p, 2);
    return static_cast<double>(static_cast<float>(v));
  }
  case WgmmaType::f16: {
    _Float16 v;
    std::memcpy(&v, p, 2);
    return static_cast<double>(v);
  }
  case WgmmaType::tf32: {
    std::uint32_t bits;
    std::memcpy(&bits, p, 4);
    return std::bit_cast<float>(bits & 0xffffe000u);
  }
  case WgmmaType::e4m3:
    return fp8(std::to_integer<std::uint8_t>(*p), 4);
  case WgmmaType::e5m2:
    return fp8(std::to_integer<std::uint8_t>(*p), 5);
  case WgmmaType::s8:
    return static_cast<std::int8_t>(std::to_integer<std::uint8_t>(*p));
  }
  return 0;
}

/// Bytes of an element of `type`; 0 for a code that names no type.
std::uint32_t element_size(std::uint32_t code) noexcept {
  using intrinsic::WgmmaType;
  switch (static_cast<WgmmaType>(code)) {
  case WgmmaType::bf16:
  case WgmmaType::f16:
    return 2;
  case WgmmaType::tf32:
    return 4;
  case WgmmaType::e4m3:
  case WgmmaType::e5m2:
  case WgmmaType::s8:
    return 1;
  }
  return 0;
}

/// Reads operand elements from the calling block's shared memory, checking each against the
/// allocated arrays (the last one found is remembered: operands lie in one or two).
class OperandReader {
public:
  OperandReader(SimThread &t, const char *operand, const Descriptor &d, std::uint64_t raw)
      : t_(t), shared_(t.home->shared), base_(static_cast<const std::byte *>(t.home->shared.dynamic_base())),
        operand_(operand), descriptor_(d), raw_(raw) {}

  const std::byte *at(std::uint64_t address, std::uint32_t bytes, std::uint32_t mn, std::uint32_t k) {
    const std::byte *p = base_ + address;
    if (p >= lo_ && p + bytes <= hi_)
      return p;
    const auto location = shared_.in_arena(p) ? shared_.locate(p) : std::nullopt;
    if (!location || location->offset + bytes > location->bytes)
      fail(t_,
           fmt::format("wgmma: element ({}, {}) of {} is at shared address 0x{:x}, outside the block's "
                       "shared memory (its arrays and dynamic shared memory); the descriptor 0x{:016x} "
                       "says start 0x{:x}, leading byte offset {}, stride byte offset {}, swizzle {}",
                       mn, k, operand_, address, raw_, descriptor_.start, descriptor_.lbo, descriptor_.sbo,
                       descriptor_.swizzle ? fmt::format("{}B", descriptor_.swizzle) : "none"));
    lo_ = p - location->offset;
    hi_ = lo_ + location->bytes;
    return p;
  }

private:
  SimThread &t_;
  const SharedMemory &shared_;
  const std::byte *base_;
  const char *operand_;
  Descriptor descriptor_;
  std::uint64_t raw_;
  const std::byte *lo_ = nullptr, *hi_ = nullptr;
};

/// A's rows row0 and row0 + 8 (k < k_size) from the warp's registers: every lane's 4 registers
/// through the simulator's warp shuffles (all lanes run the same shuffles), laid out as mma.sync's
/// A fragment (oxide/device/intrinsics.hpp, __oxide_wgmma_rs).
void gather_register_a(const void *registers, intrinsic::WgmmaType type, std::uint32_t size,
                       std::uint32_t k_size, double (&a)[2][32]) noexcept {
  std::uint32_t mine[4];
  std::memcpy(mine, registers, sizeof mine);
  const std::uint32_t lane = __oxide_lane_id(), per_register = 4 / size;
  for (std::uint32_t from = 0; from < 32; ++from)
    for (std::uint32_t r = 0; r < 4; ++r) {
      const std::uint32_t reg =
          __oxide_warp_shuffle(~0u, mine[r], from, intrinsic::code(intrinsic::ShuffleMode::idx), 32);
      if (from / 4 != lane / 4) // another row pair than this lane's
        continue;
      std::byte bytes[4];
      std::memcpy(bytes, &reg, 4);
      for (std::uint32_t e = 0; e < per_register; ++e)
        a[r % 2][(from % 4) * per_register + e + (r >= 2 ? k_size / 2 : 0)] = widen(type, bytes + e * size);
    }
}

/// The products of one wgmma for the calling thread's accumulator registers: A from shared
/// memory through desc_a, or (a_registers not null) from the warp's registers.
void multiply(void *acc, const void *a_registers, std::uint64_t desc_a, std::uint64_t desc_b, std::uint32_t n,
              std::uint32_t type_code, std::uint32_t accumulate, std::uint32_t trans_a,
              std::uint32_t trans_b) {
  SimThread &t = self();
  using intrinsic::WgmmaType;
  const std::uint32_t size = element_size(type_code);
  if (size == 0)
    fail(t, fmt::format("wgmma: type code {} names no intrinsic::WgmmaType", type_code));
  const auto type = static_cast<WgmmaType>(type_code);
  const bool integer = type == WgmmaType::s8;
  if (n < 8 || n > 256 || n % 8 != 0 || (integer && n > 32 && n % 16 != 0))
    fail(t,
         fmt::format("wgmma: n = {} is not an instruction's N (8..256 in steps of 8; for s8 8, 16, 24, then "
                     "steps of 16)",
                     n));
  if (accumulate > 1 || trans_a > 1 || trans_b > 1)
    fail(t, "wgmma: accumulate, trans_a and trans_b are 0 or 1");
  if ((trans_a || trans_b) && size != 2)
    fail(t, "wgmma: only bf16 and f16 operands may be MN-major (transposed); the others are K-major");
  const BlockGeometry &g = *t.geometry;
  const std::uint32_t threads = g.block_dim[0] * g.block_dim[1] * g.block_dim[2];
  if ((t.linear / kWarpgroupSize + 1) * kWarpgroupSize > threads)
    fail(t,
         fmt::format("wgmma: thread {} is in warpgroup {} of a block of {} threads, which does not have its "
                     "128 threads; a block that uses wgmma has a multiple of 128 threads",
                     t.linear, t.linear / kWarpgroupSize, threads));
  const Descriptor da = decode(desc_a), db = decode(desc_b);
  if (da.base_offset != 0 || db.base_offset != 0)
    fail(t, "wgmma: a matrix descriptor with a nonzero base offset; the simulator supports only swizzle "
            "patterns that start on their repeat boundary (base offset 0)");
  const std::uint32_t k_size = 32 / size;
  const std::uint32_t lane = t.linear % 32, warp = t.linear / 32 % 4;
  const std::uint32_t row0 = 16 * warp + lane / 4;
  double a[2][32], b[64][32];
  if (a_registers) // before taking the block's shared memory: the shuffles wait for the warp
    gather_register_a(a_registers, type, size, k_size, a);
  const BlockRunner::OwnAccess access(*t.block);
  OperandReader read_a(t, "A", da, desc_a), read_b(t, "B", db, desc_b);
  for (std::uint32_t r = 0; r < 2 && !a_registers; ++r)
    for (std::uint32_t k = 0; k < k_size; ++k) {
      const std::uint32_t m = row0 + 8 * r;
      a[r][k] = widen(type, read_a.at(element_address(da, trans_a, size, m, k), size, m, k));
    }
  // The thread's columns: 8 j + 2 (lane % 4) + c, for j < n / 8 and c < 2.
  for (std::uint32_t j = 0; j < n / 8; ++j)
    for (std::uint32_t c = 0; c < 2; ++c)
      for (std::uint32_t k = 0; k < k_size; ++k) {
        const std::uint32_t col = 8 * j + 2 * (lane % 4) + c;
        b[2 * j + c][k] = widen(type, read_b.at(element_address(db, trans_b, size, col, k), size, col, k));
      }
  // Element i: row row0 + 8 ((i / 2) % 2), column 8 (i / 4) + 2 (lane % 4) + i % 2. Floating
  // products are exact in double and summed there, rounded once; integer sums wrap as s32.
  for (std::uint32_t i = 0; i < n / 2; ++i) {
    const double *ra = a[(i / 2) % 2];
    const double *cb = b[2 * (i / 4) + i % 2];
    auto *slot = static_cast<std::byte *>(acc) + 4 * i;
    if (integer) {
      std::int32_t old = 0;
      std::memcpy(&old, slot, 4);
      std::int64_t sum = accumulate ? old : 0;
      for (std::uint32_t k = 0; k < k_size; ++k)
        sum += static_cast<std::int64_t>(ra[k]) * static_cast<std::int64_t>(cb[k]);
      const auto result = static_cast<std::int32_t>(static_cast<std::uint32_t>(sum));
      std::memcpy(slot, &result, 4);
    } else {
      float old = 0;
      std::memcpy(&old, slot, 4);
      double sum = accumulate ? old : 0.0;
      for (std::uint32_t k = 0; k < k_size; ++k)
        sum += ra[k] * cb[k];
      const auto result = static_cast<float>(sum);
      std::memcpy(slot, &result, 4);
    }
  }
}

/// One wgmma. The GPU's is one operation of the warpgroup: its completion, which wait_group waits
/// for, means every warp has read its operands, an order a pipeline relies on to release their
/// stage. The threads meet once each has done its part (reading shared memory at the issue is
/// one of the orders the asynchronous wgmma allows), so wait_group has nothing left to wait for.
void wgmma(void *acc, const void *a_registers, std::uint64_t desc_a, std::uint64_t desc_b, std::uint32_t n,
           std::uint32_t type_code, std::uint32_t accumulate, std::uint32_t trans_a, std::uint32_t trans_b) {
  multiply(acc, a_registers, desc_a, desc_b, n, type_code, accumulate, trans_a, trans_b);
  SimThread &t = self();
  t.block->warpgroup_rendezvous(t);
}

} // namespace

std::string land(const TmaCopy &copy, bool &completed) noexcept {
  const TensorMapImage &m = copy.map;
  const std::uint32_t size = m.element_bytes;
  std::uint32_t box[5] = {1, 1, 1, 1, 1};
  std::uint64_t extents[5] = {1, 1, 1, 1, 1};
  for (std::uint32_t d = 0; d < m.rank; ++d) {
    box[d] = m.box[d];
    extents[d] = m.extents[d];
  }
  const auto *data = reinterpret_cast<const std::byte *>(static_cast<std::uintptr_t>(m.data));
  const auto dst = reinterpret_cast<std::uintptr_t>(copy.dst);
  // The box is row-major in shared memory (dimension 0 fastest); element by element, an element
  // never straddles a 16-byte chunk, so the swizzle moves it whole.
  std::uint64_t offset = 0;
  for (std::uint32_t i4 = 0; i4 < box[4]; ++i4)
    for (std::uint32_t i3 = 0; i3 < box[3]; ++i3)
      for (std::uint32_t i2 = 0; i2 < box[2]; ++i2)
        for (std::uint32_t i1 = 0; i1 < box[1]; ++i1) {
          const std::int64_t outer[4] = {std::int64_t{copy.coords[1]} + i1, std::int64_t{copy.coords[2]} + i2,
                                         std::int64_t{copy.coords[3]} + i3,
                                         std::int64_t{copy.coords[4]} + i4};
          bool row_inside = true;
          std::int64_t row_offset = 0;
          for (std::uint32_t d = 1; d < 5; ++d) {
            row_inside =
                row_inside && outer[d - 1] >= 0 && static_cast<std::uint64_t>(outer[d - 1]) < extents[d];
            if (d < m.rank)
              row_offset += outer[d - 1] * static_cast<std::int64_t>(m.strides[d - 1]);
          }
          for (std::uint32_t i0 = 0; i0 < box[0]; ++i0, offset += size) {
            const std::int64_t x = std::int64_t{copy.coords[0]} + i0;
            auto *to = reinterpret_cast<std::byte *>(swizzle(dst + offset, m.swizzle_bytes));
            if (row_inside && x >= 0 && static_cast<std::uint64_t>(x) < extents[0])
              std::memcpy(to, data + row_offset + x * size, size);
            else
              std::memset(to, 0, size);
          }
        }
  const auto state = Mbarrier::decode(*copy.bar);
  if (!state)
    return "tma_load: the copy's mbarrier is no longer initialised when the copy completes (mbarrier_inval "
           "before the phase that expects the copy completed?)";
  Mbarrier b = *state;
  const std::int64_t due = std::int64_t{b.tx} - static_cast<std::int64_t>(offset);
  if (due < Mbarrier::kMinTx)
    return fmt::format("tma_load: the {}-byte copy completes more transaction bytes than its mbarrier's "
                       "tx-count can hold ({} pending); expect them with mbarrier_arrive_expect_tx",
                       offset, b.tx);
  b.tx = static_cast<std::int32_t>(due);
  completed = b.try_complete();
  *copy.bar = b.encode();
  return {};
}

} // namespace oxide::detail::sim

using namespace oxide::detail::sim;

extern "C" {

std::uint32_t __oxide_shared_address(const void *p) noexcept {
  SimThread &t = self();
  SharedMemory &shared = t.home->shared;
  if (!shared.locate(p))
    fail(t, fmt::format("shared_address: {} is not in the block's shared memory (a shared_array or "
                        "dynamic_shared)",
                        fmt::ptr(p)));
  return static_cast<std::uint32_t>(static_cast<const std::byte *>(p) -
                                    static_cast<const std::byte *>(shared.dynamic_base()));
}

void __oxide_mbarrier_init(std::uint64_t *bar, std::uint32_t count) noexcept {
  SimThread &t = self();
  const SharedMemory &shared = barrier_memory(t, bar, "mbarrier_init");
  if (!t.home->shared.locate(bar))
    fail(t, "mbarrier_init: the mbarrier must be in the calling block's shared memory");
  if (count < 1 || count > Mbarrier::kMaxCount)
    fail(t, fmt::format("mbarrier_init: the arrival count {} of the mbarrier at {} is outside 1..{}", count,
                        place(shared, bar).text, Mbarrier::kMaxCount));
  if (t.block->checking() && t.block->mbarrier_in_use(bar))
    fail(t, fmt::format("mbarrier_init: threads still wait at the mbarrier at {}, or copies will complete it",
                        place(shared, bar).text));
  store_barrier(t, bar, Mbarrier::initial(count));
}

void __oxide_mbarrier_init_fence() noexcept { (void)self(); }

void __oxide_mbarrier_arrive(std::uint64_t *bar) noexcept { arrive(self(), bar, 0, "mbarrier_arrive"); }

void __oxide_mbarrier_arrive_expect_tx(std::uint64_t *bar, std::uint32_t bytes) noexcept {
  SimThread &t = self();
  if (bytes > static_cast<std::uint32_t>(Mbarrier::kMaxTx))
    fail(t,
         fmt::format("mbarrier_arrive_expect_tx: {} transaction bytes, more than the {} an mbarrier counts",
                     bytes, Mbarrier::kMaxTx));
  arrive(t, bar, bytes, "mbarrier_arrive_expect_tx");
}

void __oxide_mbarrier_arrive_cluster(std::uint64_t *bar, std::uint32_t rank) noexcept {
  SimThread &t = self();
  auto *remote = static_cast<std::uint64_t *>(t.block->map_shared(t, bar, rank));
  arrive(t, remote, 0, "mbarrier_arrive_cluster");
}

std::uint32_t __oxide_mbarrier_try_wait_parity(std::uint64_t *bar, std::uint32_t parity) noexcept {
  SimThread &t = self();
  if (parity > 1)
    fail(t, fmt::format("mbarrier_try_wait_parity: parity {} is not 0 or 1", parity));
  t.block->land_copies(t, bar);
  if (!load_barrier(t, bar, "mbarrier_try_wait_parity").phase_complete(parity))
    t.block->mbarrier_wait(t, bar, parity); // returns once the phase has completed
  t.block->mbarrier_acquired(t);
  return 1;
}

void __oxide_mbarrier_inval(std::uint64_t *bar) noexcept {
  SimThread &t = self();
  (void)load_barrier(t, bar, "mbarrier_inval");
  if (t.block->checking() && t.block->mbarrier_in_use(bar))
    fail(t,
         fmt::format("mbarrier_inval: threads still wait at the mbarrier at {}, or copies will complete it",
                     place(t.home->shared, bar).text));
  const BlockRunner::OwnAccess access(*t.block);
  *bar = 0;
}

void __oxide_fence_proxy_async_shared() noexcept { (void)self(); }

void __oxide_tma_load(void *dst, const void *map, std::uint64_t *bar, std::uint32_t rank, std::int32_t c0,
                      std::int32_t c1, std::int32_t c2, std::int32_t c3, std::int32_t c4) noexcept {
  tma_load(dst, map, bar, rank, {c0, c1, c2, c3, c4}, 0, "tma_load");
}

void __oxide_tma_load_multicast(void *dst, const void *map, std::uint64_t *bar, std::uint32_t rank,
                                std::int32_t c0, std::int32_t c1, std::int32_t c2, std::int32_t c3,
                                std::int32_t c4, std::uint16_t mask) noexcept {
  if (mask == 0) {
    SimThread &t = self();
    fail(t, "tma_load_multicast: the mask of blocks is empty");
  }
  tma_load(dst, map, bar, rank, {c0, c1, c2, c3, c4}, mask, "tma_load_multicast");
}

void __oxide_tma_prefetch(const void *map) noexcept { (void)load_map(self(), map, "tma_prefetch"); }

void __oxide_tma_store(const void *map, const void *src, std::uint32_t rank, std::int32_t c0, std::int32_t c1,
                       std::int32_t c2, std::int32_t c3, std::int32_t c4) noexcept {
  tma_store(map, src, rank, {c0, c1, c2, c3, c4});
}

void __oxide_tma_store_commit() noexcept { (void)self(); }

void __oxide_tma_store_wait(std::uint32_t pending) noexcept {
  SimThread &t = self();
  if (pending > 7)
    fail(t, fmt::format("tma_store_wait: {} pending groups; the instruction takes 0..7", pending));
}

void __oxide_wgmma(void *acc, std::uint64_t desc_a, std::uint64_t desc_b, std::uint32_t n, std::uint32_t type,
                   std::uint32_t accumulate, std::uint32_t trans_a, std::uint32_t trans_b) noexcept {
  wgmma(acc, nullptr, desc_a, desc_b, n, type, accumulate, trans_a, trans_b);
}

void __oxide_wgmma_rs(void *acc, const void *a, std::uint64_t desc_b, std::uint32_t n, std::uint32_t type,
                      std::uint32_t accumulate, std::uint32_t trans_b) noexcept {
  wgmma(acc, a, 0, desc_b, n, type, accumulate, 0, trans_b);
}

void __oxide_wgmma_fence() noexcept { (void)self(); }

void __oxide_wgmma_commit_group() noexcept { (void)self(); }

void __oxide_wgmma_wait_group(std::uint32_t pending) noexcept {
  SimThread &t = self();
  if (pending > 7)
    fail(t, fmt::format("wgmma_wait_group: {} pending groups; the instruction takes 0..7", pending));
}

void __oxide_setmaxnreg(std::uint32_t count, std::uint32_t increase) noexcept {
  SimThread &t = self();
  if (count < 24 || count > 256 || count % 8 != 0 || increase > 1)
    fail(t, fmt::format(
                "setmaxnreg: {} registers ({}): the count is a multiple of 8 in 24..256, increase 0 or 1",
                count, increase));
}

} // extern "C"
