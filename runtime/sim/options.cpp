#include "sim/options.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>

#include "oxide/host/error.hpp"

namespace oxide::detail::sim {
namespace {

/// A decimal number that fills `text` entirely, or nullopt.
std::optional<std::size_t> parse_number(std::string_view text) {
  std::size_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size())
    return std::nullopt;
  return value;
}

std::optional<std::string_view> environment(const char *name) {
  const char *value = std::getenv(name);
  if (!value || *value == '\0')
    return std::nullopt;
  return std::string_view(value);
}

} // namespace

bool parse_check(std::string_view value) {
  if (value == "1")
    return true;
  if (value == "0")
    return false;
  throw Error(ErrorKind::InvalidEnvironment,
              fmt::format("OXIDE_SIM_CHECK='{}' is not valid; use 1 (checking mode) or 0", value));
}

std::size_t parse_stack_bytes(std::string_view value) {
  std::string_view digits = value;
  std::size_t unit = 1;
  if (!digits.empty() && (digits.back() == 'K' || digits.back() == 'k')) {
    unit = 1024;
    digits.remove_suffix(1);
  } else if (!digits.empty() && (digits.back() == 'M' || digits.back() == 'm')) {
    unit = 1024 * 1024;
    digits.remove_suffix(1);
  }
  const std::optional<std::size_t> number = parse_number(digits);
  if (!number || *number > Options::kMaxStackBytes / unit || *number * unit < Options::kMinStackBytes)
    throw Error(
        ErrorKind::InvalidEnvironment,
        fmt::format("OXIDE_SIM_STACK='{}' is not valid; use a size in bytes from {} to {}, optionally "
                    "with a K or M suffix (e.g. 64K)",
                    value, Options::kMinStackBytes, Options::kMaxStackBytes));
  return *number * unit;
}

unsigned parse_threads(std::string_view value) {
  const std::optional<std::size_t> number = parse_number(value);
  if (!number || *number == 0 || *number > Options::kMaxThreads)
    throw Error(ErrorKind::InvalidEnvironment,
                fmt::format("OXIDE_SIM_THREADS='{}' is not valid; use a number of host threads from 1 to {}",
                            value, Options::kMaxThreads));
  return static_cast<unsigned>(*number);
}

bool parse_warp_races(std::string_view value) {
  if (value == "1" || value == "0")
    return value == "1";
  throw Error(
      ErrorKind::InvalidEnvironment,
      fmt::format("OXIDE_SIM_WARP_RACES='{}' is not valid; use 1 (trace the shared-memory accesses of "
                  "the checking mode) or 0",
                  value));
}

bool parse_schedule(std::string_view value) {
  if (value == "random")
    return true;
  if (value == "ordered")
    return false;
  throw Error(ErrorKind::InvalidEnvironment,
              fmt::format("OXIDE_SIM_SCHEDULE='{}' is not valid; use random (a schedule drawn from "
                          "OXIDE_SIM_SEED) or ordered (the default)",
                          value));
}

std::uint64_t parse_seed(std::string_view value) {
  std::uint64_t seed = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seed);
  if (value.empty() || error != std::errc{} || end != value.data() + value.size())
    throw Error(ErrorKind::InvalidEnvironment,
                fmt::format("OXIDE_SIM_SEED='{}' is not valid; use a decimal number from 0 to {}", value,
                            UINT64_MAX));
  return seed;
}

unsigned default_threads() noexcept {
  const unsigned hardware = std::thread::hardware_concurrency();
  return hardware == 0 ? 1 : std::min(hardware, Options::kMaxThreads);
}

Options options_from_environment() {
  Options options;
  options.threads = default_threads();
  if (auto value = environment("OXIDE_SIM_CHECK"))
    options.check = parse_check(*value);
  if (auto value = environment("OXIDE_SIM_STACK"))
    options.stack_bytes = parse_stack_bytes(*value);
  if (auto value = environment("OXIDE_SIM_THREADS"))
    options.threads = parse_threads(*value);
  if (auto value = environment("OXIDE_SIM_WARP_RACES"))
    options.trace_warp_races = parse_warp_races(*value);
#if !defined(__x86_64__)
  options.trace_warp_races = false; // single-stepping is implemented for x86-64 only
#endif
  options.check = options.check || options.trace_warp_races;
  if (auto value = environment("OXIDE_SIM_SCHEDULE"))
    options.random_schedule = parse_schedule(*value);
  const std::optional<std::string_view> seed = environment("OXIDE_SIM_SEED");
  if (seed)
    options.seed = parse_seed(*seed); // checked even when unused: a typo should not pass
  if (options.random_schedule) {
    if (!seed)
      options.seed = (std::uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
    std::fprintf(stderr,
                 "oxide: simulator schedule random, OXIDE_SIM_SEED=%llu (set it to replay this run)\n",
                 static_cast<unsigned long long>(options.seed));
  }
  return options;
}

} // namespace oxide::detail::sim
