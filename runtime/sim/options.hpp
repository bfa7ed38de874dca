// The simulator's settings, read from the environment when a simulator context is created.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace oxide::detail::sim {

struct Options {
  static constexpr std::size_t kDefaultStackBytes = 64 * 1024;
  static constexpr std::size_t kMinStackBytes = 16 * 1024;
  static constexpr std::size_t kMaxStackBytes = std::size_t{1} << 30;
  static constexpr unsigned kMaxThreads = 1024;

  bool check = false;                           ///< OXIDE_SIM_CHECK=1: the checking mode
  std::size_t stack_bytes = kDefaultStackBytes; ///< OXIDE_SIM_STACK: per simulated GPU thread
  unsigned threads = 1;                         ///< OXIDE_SIM_THREADS: host threads running blocks
};

/// The settings from OXIDE_SIM_CHECK, OXIDE_SIM_STACK and OXIDE_SIM_THREADS, defaulting to no
/// checks, 64 KiB stacks and one thread per hardware thread. Throws oxide::Error naming the
/// variable when a value is malformed.
[[nodiscard]] Options options_from_environment();

/// The parsers behind options_from_environment; `value` is the variable's text. Each throws
/// oxide::Error with a message that names the variable and the accepted values.
[[nodiscard]] bool parse_check(std::string_view value);
[[nodiscard]] std::size_t parse_stack_bytes(std::string_view value);
[[nodiscard]] unsigned parse_threads(std::string_view value);

/// The number of host threads used when OXIDE_SIM_THREADS is not set.
[[nodiscard]] unsigned default_threads() noexcept;

} // namespace oxide::detail::sim
