// What both sides of the launch benchmarks share (C++17, so that nvcc compiles it too): clocks,
// settings from the environment, the timed launch loops and the RESULT lines summarize.py reads.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace launchbench {

using Clock = std::chrono::steady_clock; // CLOCK_MONOTONIC on Linux

inline double us_between(Clock::time_point t0, Clock::time_point t1) {
  return std::chrono::duration<double, std::micro>(t1 - t0).count();
}

/// CLOCK_MONOTONIC in nanoseconds: the same clock in every process, so startup.py can subtract
/// the time it started a process from the times that process prints.
inline long long monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

/// The integer in environment variable `name`, or `fallback` when unset or not a positive number.
inline long env_long(const char *name, long fallback) {
  const char *text = std::getenv(name);
  if (!text || !*text)
    return fallback;
  char *end = nullptr;
  const long value = std::strtol(text, &end, 10);
  return (end && *end == '\0' && value > 0) ? value : fallback;
}

/// LAUNCH_N launches per measurement, in batches of LAUNCH_BATCH for the batched one, LAUNCH_REPS
/// measurements of each variant, LAUNCH_WARMUP launches of each variant before the first.
struct Settings {
  long n;
  long batch;
  long reps;
  long warmup;
};

inline Settings settings(long default_n) {
  return {env_long("LAUNCH_N", default_n), env_long("LAUNCH_BATCH", 256), env_long("LAUNCH_REPS", 5),
          env_long("LAUNCH_WARMUP", 2000)};
}

/// Microseconds per launch of one measurement.
struct Sample {
  double stream_submit_us;  ///< n launches back to back, the loop alone (the queue may fill up)
  double stream_e2e_us;     ///< the same loop plus the synchronize after it
  double batched_submit_us; ///< n launches in batches of `batch`, synchronized between batches
                            ///< outside the timed region: the host's cost with a queue never full
};

/// Times `launch` (one kernel launch) n times back to back, then n times in batches; `sync` waits
/// for the stream.
template <class Launch, class Sync> Sample measure(const Settings &s, Launch &&launch, Sync &&sync) {
  Sample out{};
  const Clock::time_point t0 = Clock::now();
  for (long i = 0; i < s.n; ++i)
    launch();
  const Clock::time_point t1 = Clock::now();
  sync();
  const Clock::time_point t2 = Clock::now();
  out.stream_submit_us = us_between(t0, t1) / static_cast<double>(s.n);
  out.stream_e2e_us = us_between(t0, t2) / static_cast<double>(s.n);

  double batched = 0.0;
  for (long done = 0; done < s.n;) {
    const long m = std::min(s.batch, s.n - done);
    const Clock::time_point b0 = Clock::now();
    for (long i = 0; i < m; ++i)
      launch();
    const Clock::time_point b1 = Clock::now();
    batched += us_between(b0, b1);
    sync();
    done += m;
  }
  out.batched_submit_us = batched / static_cast<double>(s.n);
  return out;
}

template <class Launch, class Sync> void warm_up(const Settings &s, Launch &&launch, Sync &&sync) {
  for (long i = 0; i < s.warmup; ++i)
    launch();
  sync();
}

/// A device name as one RESULT field: blanks become underscores.
inline void print_device(const char *side, const char *backend, const char *name) {
  std::printf("RESULT section=device side=%s backend=%s name=", side, backend);
  for (const char *p = name; *p; ++p)
    std::putchar(*p == ' ' || *p == '\t' ? '_' : *p);
  std::putchar('\n');
}

inline void print_launch(const char *side, const char *backend, const char *variant, const char *kernel,
                         long rep, const Settings &s, const Sample &sample) {
  std::printf("RESULT section=launch side=%s backend=%s variant=%s kernel=%s rep=%ld n=%ld batch=%ld "
              "stream_submit_us=%.4f stream_e2e_us=%.4f batched_submit_us=%.4f\n",
              side, backend, variant, kernel, rep, s.n, s.batch, sample.stream_submit_us,
              sample.stream_e2e_us, sample.batched_submit_us);
  std::fflush(stdout);
}

} // namespace launchbench
