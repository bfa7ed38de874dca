// The values warp operations exchange, computed once every lane of the group has arrived.
//
// Pure functions of the lanes' requests, so the lockstep scheduling (block_runner.cpp) and the
// exchange rules (here, tested on their own) stay separate.
#pragma once

#include <array>
#include <cstdint>

namespace oxide::detail::sim {

inline constexpr std::uint32_t kWarpSize = 32;
/// The threads that issue one wgmma together: four warps.
inline constexpr std::uint32_t kWarpgroupSize = 4 * kWarpSize;

enum class WarpOpKind : std::uint8_t { shuffle, vote, sync, redux, match };

/// What one lane asked for; `mode` and `arg` as in __oxide_warp_shuffle / __oxide_warp_vote /
/// __oxide_warp_redux / __oxide_warp_match (`mode` is an intrinsic::ShuffleMode, VoteMode,
/// ReduxKind or MatchKind code).
struct WarpRequest {
  WarpOpKind kind = WarpOpKind::sync;
  std::uint32_t mode = 0;
  std::uint32_t mask = 0;
  std::uint32_t value = 0;         ///< the shuffled value or the vote's predicate
  std::uint32_t arg = 0;           ///< source lane, delta or xor mask
  std::uint32_t width = kWarpSize; ///< a shuffle's segment (tile) of lanes: 1, 2, 4, ... 32
};

/// The lane a shuffle of `mode` by `lane` with operand `arg` reads within the lane's segment of
/// `width` lanes, or kWarpSize when that is past the segment (the lane then gets its own value
/// back, as shfl.sync defines for its c operand).
[[nodiscard]] std::uint32_t shuffle_source(std::uint32_t lane, std::uint32_t mode, std::uint32_t arg,
                                           std::uint32_t width = kWarpSize) noexcept;

/// The result for `lane` once the lanes of `group` (a bit per lane, `lane` among them) have
/// arrived with `values` (indexed by lane). A shuffle whose source lane is outside the warp or
/// not in `group` returns the lane's own value (on the GPU a lane outside the group gives an
/// undefined value: the checking mode reports it, see BlockRunner); votes, reductions and
/// matches see only the lanes of `group`.
[[nodiscard]] std::uint32_t warp_result(std::uint32_t lane, const WarpRequest &request, std::uint32_t group,
                                        const std::array<std::uint32_t, kWarpSize> &values) noexcept;

/// "shuffle", "vote", "sync", "reduce" or "match", for messages.
[[nodiscard]] const char *warp_op_name(WarpOpKind kind) noexcept;

} // namespace oxide::detail::sim
