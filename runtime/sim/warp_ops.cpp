#include "sim/warp_ops.hpp"

#include <bit>

#include "oxide/detail/intrinsic_abi.hpp"

namespace oxide::detail::sim {
namespace {

std::uint32_t combine(std::uint32_t kind, std::uint32_t a, std::uint32_t b) noexcept {
  using Kind = intrinsic::ReduxKind;
  switch (static_cast<Kind>(kind)) {
  case Kind::add:
    return a + b;
  case Kind::min:
    return static_cast<std::int32_t>(b) < static_cast<std::int32_t>(a) ? b : a;
  case Kind::max:
    return static_cast<std::int32_t>(a) < static_cast<std::int32_t>(b) ? b : a;
  case Kind::umin:
    return b < a ? b : a;
  case Kind::umax:
    return a < b ? b : a;
  case Kind::and_:
    return a & b;
  case Kind::or_:
    return a | b;
  case Kind::xor_:
    break;
  }
  return a ^ b; // xor_, and codes no kind has (oxide-raise rejects them)
}

} // namespace

std::uint32_t shuffle_source(std::uint32_t lane, std::uint32_t mode, std::uint32_t arg,
                             std::uint32_t width) noexcept {
  // PTX's rule for shfl.sync's c operand ((32 - width) << 8 | clamp): the segment runs from
  // `first` to `last`; up may not go below `first`, the others not above `last`.
  const std::uint32_t first = lane & ~(width - 1), last = first + width - 1;
  using Mode = intrinsic::ShuffleMode;
  switch (static_cast<Mode>(mode)) {
  case Mode::idx: // the lane number is taken modulo the segment's width, as shfl.sync.idx does
    return first | (arg & (width - 1));
  case Mode::up:
    return arg <= lane - first ? lane - arg : kWarpSize;
  case Mode::down:
    return arg <= last - lane ? lane + arg : kWarpSize;
  case Mode::bfly: // an xor may reach an earlier segment, as on the GPU, but not a later one
    return arg < kWarpSize && (lane ^ arg) <= last ? lane ^ arg : kWarpSize;
  }
  return kWarpSize;
}

std::uint32_t warp_result(std::uint32_t lane, const WarpRequest &request, std::uint32_t group,
                          const std::array<std::uint32_t, kWarpSize> &values) noexcept {
  switch (request.kind) {
  case WarpOpKind::shuffle: {
    const std::uint32_t source = shuffle_source(lane, request.mode, request.arg, request.width);
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
  case WarpOpKind::redux: {
    // Integer operations: the order is free; lowest lane first.
    std::uint32_t lanes = group;
    std::uint32_t result = values[static_cast<std::uint32_t>(std::countr_zero(lanes))];
    for (lanes &= lanes - 1; lanes != 0; lanes &= lanes - 1)
      result = combine(request.mode, result, values[static_cast<std::uint32_t>(std::countr_zero(lanes))]);
    return result;
  }
  case WarpOpKind::match: {
    std::uint32_t same = 0;
    for (std::uint32_t l = 0; l < kWarpSize; ++l)
      if ((group >> l & 1u) && values[l] == values[lane])
        same |= 1u << l;
    if (request.mode == intrinsic::code(intrinsic::MatchKind::any))
      return same;
    return same == group ? group : 0u; // all: every lane of the group holds the caller's value
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
  case WarpOpKind::redux:
    return "reduce";
  case WarpOpKind::match:
    return "match";
  }
  return "?";
}

} // namespace oxide::detail::sim
