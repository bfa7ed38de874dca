// Warp-level operations: 32 lanes exchanging registers without shared memory.
//
// Convergence rule: every lane named in `mask` must execute the same warp operation together
// (as with CUDA's *_sync intrinsics). The default mask is the whole warp, so call these from
// code that all 32 lanes reach, e.g. not inside `if (lane < 16)`.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <source_location>
#include <type_traits>

#include "oxide/device/intrinsics.hpp"

namespace oxide::warp {

inline constexpr std::uint32_t kSize = 32;
inline constexpr std::uint32_t kFullMask = 0xffffffffu;

/// This thread's lane (0..31) within its warp.
inline std::uint32_t lane_id() noexcept { return __oxide_lane_id(); }

/// The lanes of the warp executing this call together with the caller (__activemask()): in
/// divergent code, the lanes that took the caller's branch. Unlike the operations below it waits
/// for no lane and names no convergence; it reports it. `where` is the call, by which the CPU
/// simulator tells the branches apart (leave it to its default).
inline std::uint32_t active_mask(std::source_location where = std::source_location::current()) noexcept {
  return __oxide_active_mask(where.file_name(), where.line(), where.column());
}

/// The lanes below the caller's (%lanemask_lt): (1 << lane_id()) - 1.
inline std::uint32_t lane_mask_lt() noexcept {
  return __oxide_lane_mask(intrinsic::code(intrinsic::LaneMaskKind::lt));
}
/// The caller's lane and those below it (%lanemask_le).
inline std::uint32_t lane_mask_le() noexcept {
  return __oxide_lane_mask(intrinsic::code(intrinsic::LaneMaskKind::le));
}
/// The caller's lane alone (%lanemask_eq): 1 << lane_id().
inline std::uint32_t lane_mask_eq() noexcept {
  return __oxide_lane_mask(intrinsic::code(intrinsic::LaneMaskKind::eq));
}
/// The caller's lane and those above it (%lanemask_ge).
inline std::uint32_t lane_mask_ge() noexcept {
  return __oxide_lane_mask(intrinsic::code(intrinsic::LaneMaskKind::ge));
}
/// The lanes above the caller's (%lanemask_gt).
inline std::uint32_t lane_mask_gt() noexcept {
  return __oxide_lane_mask(intrinsic::code(intrinsic::LaneMaskKind::gt));
}

namespace detail {
using intrinsic::ShuffleMode;

/// What a shuffle moves: a trivially copyable value of 4 to 32 bytes, a multiple of 4 (a
/// Float4 or double2 takes four shfl.sync, one per 32-bit word).
template <class T>
concept Shuffleable =
    std::is_trivially_copyable_v<T> && sizeof(T) % 4 == 0 && sizeof(T) >= 4 && sizeof(T) <= 32;
/// What match.sync compares: a trivially copyable value of 4 or 8 bytes.
template <class T>
concept Matchable = std::is_trivially_copyable_v<T> && (sizeof(T) == 4 || sizeof(T) == 8);

/// A shuffle within the caller's segment of `Width` lanes (a tile of oxide/device/cooperative.hpp;
/// the whole warp by default).
template <ShuffleMode Mode, Shuffleable T, std::uint32_t Width = kSize>
  requires(std::has_single_bit(Width) && Width <= kSize)
inline T shuffle(T value, std::uint32_t arg, std::uint32_t mask) noexcept {
  constexpr std::uint32_t mode = intrinsic::code(Mode);
  if constexpr (sizeof(T) == 4) {
    return std::bit_cast<T>(
        __oxide_warp_shuffle(mask, std::bit_cast<std::uint32_t>(value), arg, mode, Width));
  } else if constexpr (sizeof(T) == 8) {
    const auto bits = std::bit_cast<std::uint64_t>(value);
    const std::uint32_t lo = __oxide_warp_shuffle(mask, static_cast<std::uint32_t>(bits), arg, mode, Width);
    const std::uint32_t hi =
        __oxide_warp_shuffle(mask, static_cast<std::uint32_t>(bits >> 32), arg, mode, Width);
    return std::bit_cast<T>(std::uint64_t(hi) << 32 | lo);
  } else {
    // Word by word; the array stays in registers (SROA), as the value itself does.
    struct Words {
      std::uint32_t word[sizeof(T) / 4];
    };
    Words words = std::bit_cast<Words>(value);
    for (std::uint32_t &word : words.word)
      word = __oxide_warp_shuffle(mask, word, arg, mode, Width);
    return std::bit_cast<T>(words);
  }
}
} // namespace detail

/// The value held by lane `src_lane` (mod 32).
template <detail::Shuffleable T>
inline T shuffle(T value, std::uint32_t src_lane, std::uint32_t mask = kFullMask) noexcept {
  return detail::shuffle<detail::ShuffleMode::idx>(value, src_lane, mask);
}
/// The value of lane (lane_id - delta); lanes below `delta` keep their own value.
template <detail::Shuffleable T>
inline T shuffle_up(T value, std::uint32_t delta, std::uint32_t mask = kFullMask) noexcept {
  return detail::shuffle<detail::ShuffleMode::up>(value, delta, mask);
}
/// The value of lane (lane_id + delta); lanes past 31 - delta keep their own value.
template <detail::Shuffleable T>
inline T shuffle_down(T value, std::uint32_t delta, std::uint32_t mask = kFullMask) noexcept {
  return detail::shuffle<detail::ShuffleMode::down>(value, delta, mask);
}
/// The value of lane (lane_id ^ lane_mask).
template <detail::Shuffleable T>
inline T shuffle_xor(T value, std::uint32_t lane_mask, std::uint32_t mask = kFullMask) noexcept {
  return detail::shuffle<detail::ShuffleMode::bfly>(value, lane_mask, mask);
}

/// True when `predicate` holds on every lane of `mask`.
inline bool all(bool predicate, std::uint32_t mask = kFullMask) noexcept {
  return __oxide_warp_vote(mask, predicate, intrinsic::code(intrinsic::VoteMode::all)) != 0;
}
/// True when `predicate` holds on some lane of `mask`.
inline bool any(bool predicate, std::uint32_t mask = kFullMask) noexcept {
  return __oxide_warp_vote(mask, predicate, intrinsic::code(intrinsic::VoteMode::any)) != 0;
}
/// Bit i set when `predicate` holds on lane i.
inline std::uint32_t ballot(bool predicate, std::uint32_t mask = kFullMask) noexcept {
  return __oxide_warp_vote(mask, predicate, intrinsic::code(intrinsic::VoteMode::ballot));
}
/// Waits for the lanes of `mask` (__syncwarp).
inline void sync(std::uint32_t mask = kFullMask) noexcept { __oxide_warp_sync(mask); }

/// Combines `value` over all 32 lanes with `op` (associative and commutative); every lane gets
/// the result. A butterfly of five xor-shuffles.
template <detail::Shuffleable T, class Op> inline T reduce(T value, Op op) noexcept {
  for (std::uint32_t offset = kSize / 2; offset > 0; offset /= 2)
    value = op(value, shuffle_xor(value, offset));
  return value;
}

namespace detail {
template <class T>
concept Int32 = std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::uint32_t>;
using intrinsic::code, intrinsic::MatchKind, intrinsic::ReduxKind;
template <ReduxKind Kind, Int32 T> inline T redux(T value, std::uint32_t mask) noexcept {
  return static_cast<T>(__oxide_warp_redux(mask, static_cast<std::uint32_t>(value), code(Kind)));
}
} // namespace detail

/// 32-bit integer reductions over the lanes of `mask` in one instruction (redux.sync, sm_80+);
/// every lane of the mask gets the result.
template <detail::Int32 T> inline T reduce_add(T value, std::uint32_t mask = kFullMask) noexcept {
  return detail::redux<detail::ReduxKind::add>(value, mask);
}
template <detail::Int32 T> inline T reduce_min(T value, std::uint32_t mask = kFullMask) noexcept {
  return detail::redux<std::is_signed_v<T> ? detail::ReduxKind::min : detail::ReduxKind::umin>(value, mask);
}
template <detail::Int32 T> inline T reduce_max(T value, std::uint32_t mask = kFullMask) noexcept {
  return detail::redux<std::is_signed_v<T> ? detail::ReduxKind::max : detail::ReduxKind::umax>(value, mask);
}
inline std::uint32_t reduce_and(std::uint32_t value, std::uint32_t mask = kFullMask) noexcept {
  return detail::redux<detail::ReduxKind::and_>(value, mask);
}
inline std::uint32_t reduce_or(std::uint32_t value, std::uint32_t mask = kFullMask) noexcept {
  return detail::redux<detail::ReduxKind::or_>(value, mask);
}
inline std::uint32_t reduce_xor(std::uint32_t value, std::uint32_t mask = kFullMask) noexcept {
  return detail::redux<detail::ReduxKind::xor_>(value, mask);
}

namespace detail {
template <MatchKind Kind, Matchable T> inline std::uint32_t match(T value, std::uint32_t mask) noexcept {
  if constexpr (sizeof(T) == 4)
    return __oxide_warp_match(mask, std::bit_cast<std::uint32_t>(value), code(Kind));
  else
    return __oxide_warp_match_b64(mask, std::bit_cast<std::uint64_t>(value), code(Kind));
}
} // namespace detail

/// The lanes of `mask` whose `value` equals the calling lane's (match.sync.any.b32 or .b64): e.g.
/// to let one lane per distinct key do the atomic update for its group. T is any 4- or 8-byte
/// trivially copyable type, compared bit for bit (so +0.0 and -0.0 differ).
template <detail::Matchable T>
inline std::uint32_t match_any(T value, std::uint32_t mask = kFullMask) noexcept {
  return detail::match<detail::MatchKind::any>(value, mask);
}
/// `mask` when every lane of `mask` holds the same `value`, else 0 (match.sync.all.b32 or .b64).
template <detail::Matchable T>
inline std::uint32_t match_all(T value, std::uint32_t mask = kFullMask) noexcept {
  return detail::match<detail::MatchKind::all>(value, mask);
}

/// Sum, maximum and minimum over the warp; 32-bit integers use redux.sync, others a butterfly.
template <detail::Shuffleable T> inline T sum(T value) noexcept {
  if constexpr (detail::Int32<T>)
    return reduce_add(value);
  else
    return reduce(value, [](T a, T b) { return a + b; });
}
template <detail::Shuffleable T> inline T max(T value) noexcept {
  if constexpr (detail::Int32<T>)
    return reduce_max(value);
  else
    return reduce(value, [](T a, T b) { return a < b ? b : a; });
}
template <detail::Shuffleable T> inline T min(T value) noexcept {
  if constexpr (detail::Int32<T>)
    return reduce_min(value);
  else
    return reduce(value, [](T a, T b) { return b < a ? b : a; });
}

} // namespace oxide::warp
