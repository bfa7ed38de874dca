// Host definitions of the tensor-core intrinsics (mma.sync, ldmatrix, stmatrix, cp.async) for the CPU
// simulator.
//
// mma.sync and ldmatrix are warp-collective: every lane gathers the warp's registers (or row
// addresses) with the simulator's warp shuffles, all lanes running the same sequence of
// shuffles as for the warp reductions, then computes its own registers with the fragment
// layouts of oxide/device/mma.hpp, the one statement of them. cp.async is deferred as on the GPU:
// a copy lands when a wait completes its group, so a kernel that reads shared memory before
// waiting sees stale data here too.
#include <array>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "oxide/device/intrinsics.hpp"
#include "oxide/device/mma.hpp"
#include "sim_thread.hpp"

namespace {

using oxide::intrinsic::code;
constexpr std::uint32_t kIdx = code(oxide::intrinsic::ShuffleMode::idx);
constexpr std::uint32_t kAllLanes = ~0u;
constexpr std::uint32_t kLanes = 32;

/// Register r of every lane: all[lane][r].
template <unsigned Count>
std::array<std::array<std::uint32_t, Count>, kLanes> gather(const void *registers) noexcept {
  std::uint32_t mine[Count];
  std::memcpy(mine, registers, sizeof mine);
  std::array<std::array<std::uint32_t, Count>, kLanes> all{};
  for (unsigned r = 0; r < Count; ++r)
    for (std::uint32_t lane = 0; lane < kLanes; ++lane)
      all[lane][r] = __oxide_warp_shuffle(kAllLanes, mine[r], lane, kIdx, kLanes);
  return all;
}

/// An element as the tensor cores read it: tf32 keeps the top 10 mantissa bits.
template <class T> double widen(typename oxide::mma::Traits<T>::value_type v) noexcept {
  if constexpr (std::is_same_v<T, oxide::tf32>)
    return std::bit_cast<float>(std::bit_cast<std::uint32_t>(v) & 0xffffe000u);
  else
    return static_cast<double>(v);
}

/// d = a * b + c for the warp, as mma.sync m16n8kK: each lane rebuilds the tiles from every
/// lane's fragment, then computes its four elements of D. Floating products are exact and summed
/// in double, rounded once (the GPU's order of summation is unspecified, so the last bit may
/// differ); int8 sums saturate to the s32 range (.satfinite).
template <class T> void mma(void *d, const void *a, const void *b, const void *c) noexcept {
  using namespace oxide::mma;
  using Acc = typename Traits<T>::accumulator;
  using A = FragmentA<T>;
  using B = FragmentB<T>;
  using C = FragmentC<Acc>;
  const auto as = gather<A::registers>(a);
  const auto bs = gather<B::registers>(b);
  const auto cs = gather<C::size>(c); // 32-bit accumulators travel as their bits

  double tileA[A::rows][A::cols] = {}, tileB[B::rows][B::cols] = {};
  for (std::uint32_t lane = 0; lane < kLanes; ++lane) {
    A fa;
    B fb;
    std::memcpy(fa.reg, as[lane].data(), sizeof fa.reg);
    std::memcpy(fb.reg, bs[lane].data(), sizeof fb.reg);
    for (unsigned i = 0; i < A::size; ++i) {
      const Coord at = A::coord(lane, i);
      tileA[at.row][at.col] = widen<T>(fa.get(i));
    }
    for (unsigned i = 0; i < B::size; ++i) {
      const Coord at = B::coord(lane, i);
      tileB[at.row][at.col] = widen<T>(fb.get(i));
    }
  }
  const std::uint32_t lane = __oxide_lane_id();
  Acc result[C::size];
  for (unsigned i = 0; i < C::size; ++i) {
    const Coord at = C::coord(lane, i);
    const auto acc = std::bit_cast<Acc>(cs[lane][i]);
    if constexpr (std::is_same_v<Acc, float>) {
      double sum = acc;
      for (unsigned k = 0; k < A::cols; ++k)
        sum += tileA[at.row][k] * tileB[k][at.col];
      result[i] = static_cast<float>(sum);
    } else {
      auto sum = static_cast<std::int64_t>(acc);
      for (unsigned k = 0; k < A::cols; ++k)
        sum += static_cast<std::int64_t>(tileA[at.row][k]) * static_cast<std::int64_t>(tileB[k][at.col]);
      constexpr std::int64_t lo = INT32_MIN, hi = INT32_MAX;
      result[i] = static_cast<std::int32_t>(sum < lo ? lo : sum > hi ? hi : sum);
    }
  }
  std::memcpy(d, result, sizeof result);
}

/// The copies of one simulated thread: those not yet committed, and the committed groups, oldest
/// first. `block` tells a thread's state from that of an earlier block's thread at the same
/// address, whose copies are dropped.
struct AsyncCopy {
  void *dst;
  const void *src;
  std::uint32_t bytes, src_bytes;
};
struct ThreadCopies {
  const void *block = nullptr;
  std::uint32_t block_idx[3] = {0, 0, 0};
  std::vector<AsyncCopy> open;
  std::vector<std::vector<AsyncCopy>> groups;
};

// Blocks run on several host threads; the copies of each simulated thread are its own, so the
// lock only guards the map.
std::mutex copies_mutex;
std::unordered_map<const oxide::detail::sim::SimThread *, ThreadCopies> copies;

/// The calling simulated thread's copies, under `lock`.
ThreadCopies &thread_copies(const std::lock_guard<std::mutex> &) {
  const oxide::detail::sim::SimThread *self = oxide::detail::sim::current_sim_thread;
  ThreadCopies &state = copies[self];
  const void *block = self ? static_cast<const void *>(self->home) : nullptr;
  const std::uint32_t *idx = self && self->geometry ? self->geometry->block_idx : nullptr;
  if (state.block != block || (idx && std::memcmp(state.block_idx, idx, sizeof state.block_idx) != 0)) {
    state = ThreadCopies{};
    state.block = block;
    if (idx)
      std::memcpy(state.block_idx, idx, sizeof state.block_idx);
  }
  return state;
}

void land(const AsyncCopy &copy) noexcept {
  std::memcpy(copy.dst, copy.src, copy.src_bytes);
  std::memset(static_cast<unsigned char *>(copy.dst) + copy.src_bytes, 0, copy.bytes - copy.src_bytes);
}

} // namespace

extern "C" {

void __oxide_mma_m16n8k16_bf16(void *d, const void *a, const void *b, const void *c) noexcept {
  mma<oxide::bfloat16>(d, a, b, c);
}
void __oxide_mma_m16n8k16_f16(void *d, const void *a, const void *b, const void *c) noexcept {
  mma<oxide::half>(d, a, b, c);
}
void __oxide_mma_m16n8k8_tf32(void *d, const void *a, const void *b, const void *c) noexcept {
  mma<oxide::tf32>(d, a, b, c);
}
void __oxide_mma_m16n8k32_s8(void *d, const void *a, const void *b, const void *c) noexcept {
  mma<std::int8_t>(d, a, b, c);
}

void __oxide_ldmatrix(void *fragment, const void *row, std::uint32_t count,
                      std::uint32_t transpose) noexcept {
  if (count != 1 && count != 2 && count != 4)
    __oxide_trap("oxide simulator: ldmatrix loads 1, 2 or 4 matrices");
  // Every lane passes an address; those of lanes past 8 * count are not read (as on the GPU).
  const auto address = reinterpret_cast<std::uintptr_t>(row);
  std::array<const unsigned char *, kLanes> rows{};
  for (std::uint32_t lane = 0; lane < 8 * count; ++lane) {
    const std::uint64_t lo =
        __oxide_warp_shuffle(kAllLanes, static_cast<std::uint32_t>(address), lane, kIdx, kLanes);
    const std::uint64_t hi =
        __oxide_warp_shuffle(kAllLanes, static_cast<std::uint32_t>(address >> 32), lane, kIdx, kLanes);
    rows[lane] = reinterpret_cast<const unsigned char *>(static_cast<std::uintptr_t>(hi << 32 | lo));
    if (reinterpret_cast<std::uintptr_t>(rows[lane]) % 16 != 0)
      __oxide_trap("oxide simulator: ldmatrix row address is not 16-byte aligned");
  }
  const std::uint32_t lane = __oxide_lane_id();
  std::uint32_t out[4] = {};
  for (std::uint32_t j = 0; j < count; ++j) {
    std::uint16_t lo, hi;
    if (!transpose) { // row lane / 4, columns 2 (lane % 4) and the next
      const unsigned char *r = rows[8 * j + lane / 4] + 4 * (lane % 4);
      std::memcpy(&lo, r, 2);
      std::memcpy(&hi, r + 2, 2);
    } else { // column lane / 4 of rows 2 (lane % 4) and the next
      const unsigned column = 2 * (lane / 4);
      std::memcpy(&lo, rows[8 * j + 2 * (lane % 4)] + column, 2);
      std::memcpy(&hi, rows[8 * j + 2 * (lane % 4) + 1] + column, 2);
    }
    out[j] = static_cast<std::uint32_t>(hi) << 16 | lo;
  }
  std::memcpy(fragment, out, 4 * count);
}

void __oxide_stmatrix(void *row, const void *fragment, std::uint32_t count,
                      std::uint32_t transpose) noexcept {
  if (count != 1 && count != 2 && count != 4)
    __oxide_trap("oxide simulator: stmatrix stores 1, 2 or 4 matrices");
  // Every lane passes an address; those of lanes past 8 * count are not used (as on the GPU).
  const auto address = reinterpret_cast<std::uintptr_t>(row);
  std::array<unsigned char *, kLanes> rows{};
  for (std::uint32_t lane = 0; lane < 8 * count; ++lane) {
    const std::uint64_t lo =
        __oxide_warp_shuffle(kAllLanes, static_cast<std::uint32_t>(address), lane, kIdx, kLanes);
    const std::uint64_t hi =
        __oxide_warp_shuffle(kAllLanes, static_cast<std::uint32_t>(address >> 32), lane, kIdx, kLanes);
    rows[lane] = reinterpret_cast<unsigned char *>(static_cast<std::uintptr_t>(hi << 32 | lo));
    if (reinterpret_cast<std::uintptr_t>(rows[lane]) % 16 != 0)
      __oxide_trap("oxide simulator: stmatrix row address is not 16-byte aligned");
  }
  // Each lane stores its own registers where ldmatrix would have read them.
  const std::uint32_t lane = __oxide_lane_id();
  std::uint32_t in[4] = {};
  std::memcpy(in, fragment, 4 * count);
  for (std::uint32_t j = 0; j < count; ++j) {
    const auto lo = static_cast<std::uint16_t>(in[j]), hi = static_cast<std::uint16_t>(in[j] >> 16);
    if (!transpose) { // row lane / 4, columns 2 (lane % 4) and the next
      unsigned char *r = rows[8 * j + lane / 4] + 4 * (lane % 4);
      std::memcpy(r, &lo, 2);
      std::memcpy(r + 2, &hi, 2);
    } else { // column lane / 4 of rows 2 (lane % 4) and the next
      const unsigned column = 2 * (lane / 4);
      std::memcpy(rows[8 * j + 2 * (lane % 4)] + column, &lo, 2);
      std::memcpy(rows[8 * j + 2 * (lane % 4) + 1] + column, &hi, 2);
    }
  }
}

void __oxide_cp_async(void *dst, const void *src, std::uint32_t bytes, std::uint32_t src_bytes) noexcept {
  if ((bytes != 4 && bytes != 8 && bytes != 16) || src_bytes > bytes)
    __oxide_trap("oxide simulator: cp.async copies 4, 8 or 16 bytes, src_bytes at most that");
  if (reinterpret_cast<std::uintptr_t>(dst) % bytes != 0 ||
      (src_bytes && reinterpret_cast<std::uintptr_t>(src) % bytes != 0))
    __oxide_trap("oxide simulator: cp.async addresses must be aligned to the copy's size");
  const std::lock_guard lock(copies_mutex);
  thread_copies(lock).open.push_back({dst, src, bytes, src_bytes});
}

void __oxide_cp_async_commit() noexcept {
  const std::lock_guard lock(copies_mutex);
  ThreadCopies &state = thread_copies(lock);
  state.groups.push_back(std::move(state.open)); // an empty group is a group too
  state.open.clear();
}

void __oxide_cp_async_wait(std::uint32_t pending) noexcept {
  const std::lock_guard lock(copies_mutex);
  ThreadCopies &state = thread_copies(lock);
  while (state.groups.size() > pending) {
    for (const AsyncCopy &copy : state.groups.front())
      land(copy);
    state.groups.erase(state.groups.begin());
  }
  if (state.groups.empty() && state.open.empty())
    copies.erase(oxide::detail::sim::current_sim_thread);
}

} // extern "C"
