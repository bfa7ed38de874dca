// Host definitions of the warp reductions and matches (redux.sync, match.sync) for the CPU
// simulator, built from the simulator's warp shuffles: every lane of the mask runs the same
// sequence of shuffles, so the lanes meet in each one as on the GPU.
#include <bit>
#include <cstdint>

#include "oxide/device/intrinsics.hpp"

namespace {

using oxide::intrinsic::code;
constexpr std::uint32_t kIdx = code(oxide::intrinsic::ShuffleMode::idx);
constexpr std::uint32_t kXor = code(oxide::intrinsic::ShuffleMode::bfly);

std::uint32_t combine(std::uint32_t kind, std::uint32_t a, std::uint32_t b) noexcept {
  using Kind = oxide::intrinsic::ReduxKind;
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

extern "C" {

std::uint32_t __oxide_warp_redux(std::uint32_t mask, std::uint32_t value, std::uint32_t kind) noexcept {
  // The whole warp: a butterfly of five xor-shuffles (integer operations: the order is free).
  if (mask == ~0u) {
    for (std::uint32_t offset = 16; offset > 0; offset /= 2)
      value = combine(kind, value, __oxide_warp_shuffle(mask, value, offset, kXor));
    return value;
  }
  // Part of it: every lane reads every lane of the mask, lowest first, and folds in that order.
  std::uint32_t result = 0;
  bool first = true;
  for (std::uint32_t lanes = mask; lanes != 0; lanes &= lanes - 1) {
    const std::uint32_t other = __oxide_warp_shuffle(mask, value, std::countr_zero(lanes), kIdx);
    result = first ? other : combine(kind, result, other);
    first = false;
  }
  return result;
}

std::uint32_t __oxide_warp_match(std::uint32_t mask, std::uint32_t value, std::uint32_t kind) noexcept {
  std::uint32_t same = 0;
  for (std::uint32_t lanes = mask; lanes != 0; lanes &= lanes - 1) {
    const std::uint32_t lane = static_cast<std::uint32_t>(std::countr_zero(lanes));
    if (__oxide_warp_shuffle(mask, value, lane, kIdx) == value)
      same |= 1u << lane;
  }
  if (kind == code(oxide::intrinsic::MatchKind::any))
    return same;
  return same == mask ? mask : 0; // every lane found all the others equal to itself
}

} // extern "C"
