#include "device_selection.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdlib>

#include "oxide/host/error.hpp"

namespace oxide::detail {

DeviceChoice parse_device_choice(std::string_view value) {
  if (value.empty())
    return {};
  if (value == "cpu")
    return {DeviceChoice::Kind::cpu, 0};
  if (value == "cuda")
    return {DeviceChoice::Kind::cuda, 0};
  if (value.starts_with("cuda:")) {
    const std::string_view digits = value.substr(5);
    int ordinal = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), ordinal);
    if (!digits.empty() && error == std::errc{} && end == digits.data() + digits.size() && ordinal >= 0)
      return {DeviceChoice::Kind::cuda, ordinal};
  }
  throw Error(
      ErrorKind::InvalidEnvironment,
      fmt::format("OXIDE_DEVICE='{}' is not valid; use cpu (the CPU simulator), cuda (the first GPU) or "
                  "cuda:N (GPU number N)",
                  value));
}

DeviceChoice device_choice_from_environment() {
  const char *value = std::getenv("OXIDE_DEVICE");
  return parse_device_choice(value ? value : "");
}

} // namespace oxide::detail
