// The simulator's settings, read from the environment when a simulator context is created.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
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
  /// OXIDE_SIM_WARP_RACES=1: the checking mode, and its warp races from traced shared-memory
  /// accesses (x86-64: every access faults and is single-stepped; slow).
  bool trace_warp_races = false;
  bool random_schedule = false; ///< OXIDE_SIM_SCHEDULE=random (sim/schedule.hpp)
  std::uint64_t seed = 0;       ///< OXIDE_SIM_SEED, or drawn when random
  /// The launches made with these settings (of one context), shared by its copies: launch n
  /// draws its schedule from (seed, n).
  std::shared_ptr<std::atomic<std::uint64_t>> launches = std::make_shared<std::atomic<std::uint64_t>>(0);
};

/// The settings from OXIDE_SIM_CHECK, OXIDE_SIM_STACK, OXIDE_SIM_THREADS, OXIDE_SIM_SCHEDULE and
/// OXIDE_SIM_SEED, defaulting to no checks, 64 KiB stacks, one thread per hardware thread and the
/// ordered schedule. Throws oxide::Error naming the variable when a value is malformed. A random
/// schedule prints its seed on stderr, so that the run can be replayed.
[[nodiscard]] Options options_from_environment();

/// The parsers behind options_from_environment; `value` is the variable's text. Each throws
/// oxide::Error with a message that names the variable and the accepted values.
[[nodiscard]] bool parse_check(std::string_view value);
[[nodiscard]] std::size_t parse_stack_bytes(std::string_view value);
[[nodiscard]] unsigned parse_threads(std::string_view value);
/// OXIDE_SIM_WARP_RACES: true for "1", false for "0".
[[nodiscard]] bool parse_warp_races(std::string_view value);
/// true for "random", false for "ordered".
[[nodiscard]] bool parse_schedule(std::string_view value);
[[nodiscard]] std::uint64_t parse_seed(std::string_view value);

/// The number of host threads used when OXIDE_SIM_THREADS is not set.
[[nodiscard]] unsigned default_threads() noexcept;

} // namespace oxide::detail::sim
