// Helpers for tests that run kernels on the CPU simulator.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <optional>
#include <string>

#include "oxide/oxide.hpp"

namespace oxide_test {

/// Sets an environment variable for the scope (unsets it for nullopt), restoring it afterwards.
class ScopedEnv {
public:
  ScopedEnv(const char *name, std::optional<std::string> value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old;
    if (value)
      setenv(name, value->c_str(), 1);
    else
      unsetenv(name);
  }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }

private:
  const char *name_;
  std::optional<std::string> old_;
};

/// A simulator context with the checking mode on or off and `threads` host threads.
inline oxide::Context simulator(bool check = false, unsigned threads = 0) {
  ScopedEnv check_env("OXIDE_SIM_CHECK", check ? "1" : "0");
  ScopedEnv threads_env("OXIDE_SIM_THREADS",
                        threads == 0 ? std::nullopt : std::optional<std::string>(std::to_string(threads)));
  return oxide::Context::cpu();
}

/// The message of the oxide::Error that `body` throws; fails the test when it throws none.
inline std::string error_of(const std::function<void()> &body) {
  try {
    body();
  } catch (const oxide::Error &e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an oxide::Error";
  return {};
}

/// A test run on the simulator (parameter false) and on GPU 0 (true), which it skips, saying so,
/// on a machine without one. Instantiate with ::testing::Bool().
class OnEachBackend : public ::testing::TestWithParam<bool> {
protected:
  void SetUp() override {
    if (GetParam() && oxide::Device::count() == 0)
      GTEST_SKIP() << "skipped: no CUDA device";
  }
  [[nodiscard]] oxide::Context context() const {
    return GetParam() ? oxide::Context::create(0) : oxide::Context::cpu();
  }
};

} // namespace oxide_test
