// Shared by the language-coverage programs in tests/lang/: launch a kernel whose first parameter
// is a DisjointSpan<T> output over `n` threads, then compare each element with the same
// computation on the host.
//
// T is an arithmetic type or a std::array of one; floating-point elements compare within a
// relative tolerance (the GPU's libdevice and the host's libm may differ by a few ulps), the
// rest exactly.
#pragma once

#include <oxide/oxide.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace lang {

/// SplitMix64's finaliser: reproducible pseudo-random test data from an index.
inline std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// Named checks counted for the summary line; the first 20 failures are printed as
/// "mismatch: WHAT", and a refused call prints the message the user reads.
struct Checks {
  std::size_t count = 0, failures = 0;
  void expect(bool ok, const std::string &what) {
    ++count;
    if (!ok && failures++ < 20)
      std::printf("mismatch: %s\n", what.c_str());
  }
  template <class F> void expect_error(oxide::ErrorKind kind, const std::string &what, F &&f) {
    try {
      f();
      expect(false, what + ": no error");
    } catch (const oxide::Error &e) {
      expect(e.kind() == kind, what + ": " + std::string(e.kind_name()) + ": " + e.what());
      std::printf("refused, %s: %s\n", what.c_str(), e.what()); // the message the user reads
    }
  }
  /// `launch` must stop its kernel: prints "stopped, WHAT: message" (the message the user reads).
  /// Call it last: a stopped kernel may leave the context unusable on the GPU.
  template <class F> void expect_stop(const std::string &what, F &&launch) {
    try {
      launch();
      expect(false, what + ": not stopped");
    } catch (const oxide::Error &e) {
      std::printf("stopped, %s: %s\n", what.c_str(), e.what());
      expect(true, "stopped");
    }
  }
  /// The program's last lines: "NAME: N checks on DEVICE" and PASS (exit code 0), or the failures.
  [[nodiscard]] int finish(const char *name, const oxide::Context &ctx) const {
    if (failures != 0) {
      std::printf("FAIL: %zu of %zu checks\n", failures, count);
      return 1;
    }
    std::printf("%s: %zu checks on %s\nPASS\n", name, count, ctx.device().name().c_str());
    return 0;
  }
};

struct Checker {
  oxide::Context ctx = oxide::Context::create();
  oxide::Stream stream = ctx.default_stream();
  std::size_t checks = 0;
  std::size_t failures = 0;

  /// Launches `kernel(out, args...)` over n threads (a contracted kernel through oxide::prepare)
  /// and compares out[i] with host(i).
  template <class T, class... P, class Host, class... Args>
  void run(const char *name, void (*kernel)(oxide::DisjointSpan<T>, P...), std::size_t n, Host &&host,
           Args &&...args) {
    auto out = oxide::DeviceBuffer<T>::zeroed(stream, n);
    auto launch = oxide::prepare(ctx, kernel, oxide::LaunchConfig1D::for_elements(n, 64));
    launch(stream, out, std::forward<Args>(args)...);
    compare(name, out.to_host(stream), std::forward<Host>(host));
  }

  /// The same for a kernel without a contract, through oxide::unsafe_launch.
  template <class T, class... P, class Host, class... Args>
  void run_unsafe(const char *name, void (*kernel)(oxide::DisjointSpan<T>, P...), std::size_t n, Host &&host,
                  Args &&...args) {
    auto out = oxide::DeviceBuffer<T>::zeroed(stream, n);
    oxide::unsafe_launch(stream, kernel, oxide::LaunchConfig1D::for_elements(n, 64), out,
                         std::forward<Args>(args)...);
    compare(name, out.to_host(stream), std::forward<Host>(host));
  }

  template <class T, class Host> void compare(const char *name, const std::vector<T> &got, Host &&host) {
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      const T want = host(i);
      ++checks;
      if (!same_value(got[i], want)) {
        if (wrong++ < 4) {
          std::printf("%s: mismatch at %zu:", name, i);
          print_difference(got[i], want);
        }
      }
    }
    if (wrong != 0) {
      std::printf("%s: %zu of %zu wrong\n", name, wrong, got.size());
      ++failures;
    }
  }

  /// Prints the summary line and PASS/FAIL; returns the exit status.
  int finish(const char *group) {
    std::printf("%s: %zu checks on %s\n", group, checks, ctx.device().name().c_str());
    if (failures != 0) {
      std::printf("FAIL: %zu kernels disagree with the host\n", failures);
      return 1;
    }
    std::printf("PASS\n");
    return 0;
  }

private:
  template <class V> static bool same_scalar(V got, V want) {
    if constexpr (std::is_floating_point_v<V>) {
      if (std::isnan(want))
        return std::isnan(got);
      if (std::isinf(want))
        return got == want;
      const double tolerance = std::is_same_v<V, float> ? 1e-5 : 1e-12;
      return std::fabs(double(got) - double(want)) <= tolerance * (1.0 + std::fabs(double(want)));
    } else {
      return got == want;
    }
  }
  template <class V> static bool same_value(const V &got, const V &want) {
    if constexpr (std::is_arithmetic_v<V>) {
      return same_scalar(got, want);
    } else {
      for (std::size_t k = 0; k < got.size(); ++k)
        if (!same_scalar(got[k], want[k]))
          return false;
      return true;
    }
  }
  template <class V> static void print_scalar(V v) {
    if constexpr (std::is_floating_point_v<V>)
      std::printf(" %.17g", double(v));
    else if constexpr (std::is_signed_v<V>)
      std::printf(" %lld", static_cast<long long>(v));
    else
      std::printf(" %llu", static_cast<unsigned long long>(v));
  }
  template <class V> static void print_difference(const V &got, const V &want) {
    if constexpr (std::is_arithmetic_v<V>) {
      std::printf(" got");
      print_scalar(got);
      std::printf(", expected");
      print_scalar(want);
      std::printf("\n");
    } else {
      for (std::size_t k = 0; k < got.size(); ++k)
        if (!same_scalar(got[k], want[k])) {
          std::printf(" [%zu] got", k);
          print_scalar(got[k]);
          std::printf(", expected");
          print_scalar(want[k]);
          std::printf(";");
        }
      std::printf("\n");
    }
  }
};

/// main() of every program: runs `body(checker)` and reports.
template <class Body> int run_group(const char *group, Body &&body) {
  try {
    Checker checker;
    body(checker);
    return checker.finish(group);
  } catch (const oxide::Error &e) {
    std::fprintf(stderr, "%s\nFAIL\n", e.what());
    return 1;
  }
}

} // namespace lang
