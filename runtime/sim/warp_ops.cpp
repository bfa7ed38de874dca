#include "sim/warp_ops.hpp"

#include "oxide/detail/intrinsic_abi.hpp"

namespace oxide::detail::sim {
namespace {

/// The lane a shuffle reads, or kWarpSize when it is outside the warp.
std::uint32_t shuffle_source(std::uint32_t lane, std::uint32_t mode, std::uint32_t arg) noexcept {
  using Mode = intrinsic::ShuffleMode;
  switch (static_cast<Mode>(mode)) {
  case Mode::idx: // the lane number is taken modulo the warp size, as shfl.sync.idx does
    return arg % kWarpSize;
  case Mode::up:
    return arg <= lane ? lane - arg : kWarpSize;
  case Mode::down:
    return arg < kWarpSize - lane ? lane + arg : kWarpSize;
  case Mode::bfly:
    return arg < kWarpSize ? lane ^ arg : kWarpSize;
  }
  return kWarpSize;
}

} // namespace

std::uint32_t warp_result(std::uint32_t lane, const WarpRequest &request, std::uint32_t group,
                          const std::array<std::uint32_t, kWarpSize> &values) noexcept {
  switch (request.kind) {
  case WarpOpKind::shuffle: {
    const std::uint32_t source = shuffle_source(lane, request.mode, request.arg);
    return source < kWarpSize && (group >> source & 1u) ? values[source] : values[lane];
  }
  case WarpOpKind::vote: {
    std::uint32_t ballot = 0;
    for (std::uint32_t l = 0; l < kWarpSize; ++l)
      if ((group >> l & 1u) && values[l] != 0)
        ballot |= 1u << l;
    using Mode = intrinsic::VoteMode;
    switch (static_cast<Mode>(request.mode)) {
    case Mode::all:
      return ballot == group ? 1u : 0u;
    case Mode::any:
      return ballot != 0 ? 1u : 0u;
    case Mode::ballot:
      break;
    }
    return ballot; // ballot, and codes no mode has
  }
  case WarpOpKind::sync:
    break;
  }
  return 0;
}

const char *warp_op_name(WarpOpKind kind) noexcept {
  switch (kind) {
  case WarpOpKind::shuffle:
    return "shuffle";
  case WarpOpKind::vote:
    return "vote";
  case WarpOpKind::sync:
    return "sync";
  }
  return "?";
}

} // namespace oxide::detail::sim
