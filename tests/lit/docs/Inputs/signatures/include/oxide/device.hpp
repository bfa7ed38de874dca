// A miniature device header for signatures.test: what check_signatures.py lists and what it
// leaves out (detail namespaces, private and deleted members).
#pragma once

#include <cstdint>

namespace oxide::warp {
inline constexpr std::uint32_t kFullMask = 0xffffffffu;

template <class T>
inline T shuffle(T value, std::uint32_t src_lane, std::uint32_t mask = kFullMask) noexcept {
  return src_lane == mask ? value : value;
}
inline std::uint32_t lane_id() noexcept { return 0; }

namespace detail {
inline void hidden() noexcept {}
} // namespace detail
} // namespace oxide::warp

namespace oxide {
template <class T> class Box {
public:
  Box() = default;
  Box(const Box &) = delete;
  [[nodiscard]] T get() const noexcept { return value_; }

private:
  void secret() noexcept {}
  T value_{};
};
} // namespace oxide
