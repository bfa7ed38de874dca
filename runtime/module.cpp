// Loading a kernel's device image into a context: pick the code object, JIT PTX if needed.
#include <fmt/format.h>

#include <array>
#include <string>

#include "context_state.hpp"
#include "cuda_driver.hpp"
#include "oxide/host/error.hpp"

namespace oxide::detail {
namespace {

std::string describe_code(const DeviceImage &image) {
  if (image.code.empty())
    return "no code at all";
  std::string out;
  for (const CodeObject &code : image.code) {
    if (!out.empty())
      out += ", ";
    out += fmt::format("{} for {}", code.kind == CodeKind::Cubin ? "cubin" : "PTX", code_target_name(code));
  }
  return out;
}

std::string_view trimmed(const char *log) {
  std::string_view text(log);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0' || text.back() == ' '))
    text.remove_suffix(1);
  return text;
}

struct LoadedModule {
  CUmodule module;
  const CodeObject *code;
};

/// `user` says what needs the module ("kernel 'vecadd'", "constant 'taps'"), for messages;
/// `kernel` is the kernel's name for Error::kernel(), if a kernel needs it.
LoadedModule load_module(const DeviceImage &image, const std::string &user, const std::string &kernel,
                         const Device &device) {
  const int arch = device.compute_capability().as_int();
  const CodeObject *code = select_code(image, arch);
  if (!code)
    throw Error(ErrorKind::NoDeviceCode,
                fmt::format("the device code of {} cannot run on {} (sm_{}): the image has {}; rebuild "
                            "with --arch=sm_{}",
                            user, device.name(), arch, describe_code(image), arch),
                user);

  // The JIT writes its diagnostics into these buffers; they explain a PTX that fails to load.
  std::array<char, 16384> error_log{};
  std::array<char, 4096> info_log{};
  std::array<CUjit_option, 4> options{CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                                      CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  std::array<void *, 4> values{error_log.data(), reinterpret_cast<void *>(error_log.size()), info_log.data(),
                               reinterpret_cast<void *>(info_log.size())};
  CUmodule module = nullptr;
  // std::string keeps a terminating NUL, which the driver needs to find the end of PTX text.
  const CUresult result = driver().cuModuleLoadDataEx(
      &module, code->bytes.c_str(), static_cast<unsigned>(options.size()), options.data(), values.data());
  if (result != CUDA_SUCCESS) {
    std::string details =
        fmt::format("(loading {} for {} on {}, sm_{})", code->kind == CodeKind::Cubin ? "cubin" : "PTX",
                    code_target_name(*code), device.name(), arch);
    if (const std::string_view log = trimmed(error_log.data()); !log.empty())
      details += fmt::format("\nJIT error log:\n{}", log);
    throw_driver_error(result, "cuModuleLoadDataEx", kernel, details);
  }
  return {module, code};
}

} // namespace

CUmodule ContextState::module_for(const RegisteredKernel &kernel) {
  return module_for_image(*kernel.image, kernel.image_index, fmt::format("kernel '{}'", kernel.display_name),
                          kernel.display_name);
}

CUmodule ContextState::module_for_image(const DeviceImage &image, std::size_t image_index,
                                        const std::string &user, const std::string &kernel) {
  // One lock per context: a module loads once even when several threads prepare kernels at once.
  std::lock_guard lock(modules_mutex_);
  if (auto it = modules_.find(image_index); it != modules_.end())
    return it->second;
  ScopedCurrent current(*this);
  const auto [module, code] = load_module(image, user, kernel, device_);
  modules_.emplace(image_index, module);
  // A module whose code has a failure report gets the context's record (made on first need).
  if (FailureReports::reports_failures(code->bytes)) {
    if (!failure_reports_)
      failure_reports_ = FailureReports::create(handle_);
    if (failure_reports_)
      failure_reports_->attach(module);
  }
  return module;
}

} // namespace oxide::detail
