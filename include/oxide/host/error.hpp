// oxide::Error: the one exception type of the host runtime.
//
// A failed CUDA driver call keeps the call's name and the driver's error name, so callers can
// react to a specific failure without parsing what(); kernel() names the kernel involved, if any.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace oxide {

class Error : public std::runtime_error {
public:
  /// A failure found by Oxide itself. what() is "oxide: " + message.
  explicit Error(std::string_view message, std::string kernel = {});

  /// A failed driver call. what() reads
  /// "oxide: <api> failed[ for kernel '<kernel>']: <error_name> (<description>)[\n<details>]".
  static Error driver(std::string api, int code, std::string error_name, std::string_view description,
                      std::string kernel = {}, std::string_view details = {});

  /// The driver API call that failed ("cuLaunchKernel"); empty when Oxide itself found the error.
  [[nodiscard]] const std::string &api() const noexcept { return info_->api; }
  /// The driver's name for the error ("CUDA_ERROR_INVALID_VALUE"); empty unless api() is set.
  [[nodiscard]] const std::string &driver_error_name() const noexcept { return info_->driver_error_name; }
  /// The driver's CUresult value; 0 unless api() is set.
  [[nodiscard]] int driver_error_code() const noexcept { return info_->driver_error_code; }
  /// The kernel involved, when the failure concerns one; empty otherwise.
  [[nodiscard]] const std::string &kernel() const noexcept { return info_->kernel; }

private:
  struct Info {
    std::string api;
    std::string driver_error_name;
    int driver_error_code = 0;
    std::string kernel;
  };
  Error(const std::string &what, Info info);

  // Shared so that copying an exception never allocates (and so never throws).
  std::shared_ptr<const Info> info_;
};

} // namespace oxide
