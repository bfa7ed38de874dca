// Which backend oxide::Context::create() picks: the OXIDE_DEVICE setting.
#pragma once

#include <string_view>

namespace oxide::detail {

struct DeviceChoice {
  enum class Kind { automatic, cpu, cuda } kind = Kind::automatic;
  int ordinal = 0; ///< for Kind::cuda
  friend bool operator==(const DeviceChoice &, const DeviceChoice &) = default;
};

/// Parses OXIDE_DEVICE's value: empty (automatic), "cpu", "cuda" or "cuda:N". Throws
/// oxide::Error with the accepted forms for anything else.
[[nodiscard]] DeviceChoice parse_device_choice(std::string_view value);

/// The choice the environment makes (automatic when OXIDE_DEVICE is unset).
[[nodiscard]] DeviceChoice device_choice_from_environment();

} // namespace oxide::detail
