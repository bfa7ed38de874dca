// Shared by the tests/lang programs whose kernels must stop on purpose (ub_guards.cpp,
// loop_checks.cpp): a stopped kernel poisons its CUDA context, so each variant runs in a child
// process. The program with no argument runs itself once per variant (`program <variant>`); the
// child exits 0 when the launch finished and its output is right, 1 when it is wrong, 3 when the
// launch failed (the kernel stopped) and 2 for an unknown variant.
#pragma once

#include <oxide/oxide.hpp>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/wait.h>

namespace lang {

/// What a child's exit code means for one variant: whether it is a failure, and the text printed
/// after the variant's name.
struct Verdict {
  bool failed;
  std::string text;
};

/// The child: runs the variant of `variants` (elements with `name` and `run(name)`) called
/// `name`, a launch failure its exit code 3.
template <class Variants> int run_child(const Variants &variants, const std::string &name) {
  for (const auto &variant : variants) {
    if (name != variant.name)
      continue;
    try {
      return variant.run(variant.name);
    } catch (const oxide::Error &e) {
      std::printf("%s: launch failed: %s: %s\n", variant.name, oxide::to_string(e.kind()).data(), e.what());
      return 3;
    }
  }
  std::printf("no variant '%s'\n", name.c_str());
  return 2;
}

inline std::string shell_quoted(const std::string &s) {
  std::string q = "'";
  for (char c : s)
    q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// `main`: the child for `program <variant>`; with no argument, every variant in a child of its
/// own, a line each (`verdict(variant, exit code)`, -1 for a child that did not exit normally),
/// then PASS, or FAIL with the count (exit 1).
template <class Variants, class Judge>
int run_variants(int argc, char **argv, const Variants &variants, Judge verdict) {
  if (argc > 1)
    return run_child(variants, argv[1]);
  std::size_t failures = 0, count = 0;
  for (const auto &variant : variants) {
    std::fflush(stdout);
    const int status = std::system((shell_quoted(argv[0]) + " " + variant.name).c_str());
    const int code = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    const Verdict v = verdict(variant, code);
    std::printf("%-24s %s\n", variant.name, v.text.c_str());
    failures += v.failed ? 1 : 0;
    ++count;
  }
  if (failures != 0) {
    std::printf("FAIL: %zu of %zu variants\n", failures, count);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}

} // namespace lang
