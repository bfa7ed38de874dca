#include "oxide/host/error.hpp"

#include <fmt/format.h>

#include <utility>

namespace oxide {

Error::Error(std::string_view message, std::string kernel)
    : std::runtime_error(fmt::format("oxide: {}", message)),
      info_(std::make_shared<const Info>(Info{{}, {}, 0, std::move(kernel)})) {}

Error::Error(const std::string &what, Info info)
    : std::runtime_error(what), info_(std::make_shared<const Info>(std::move(info))) {}

Error Error::driver(std::string api, int code, std::string error_name, std::string_view description,
                    std::string kernel, std::string_view details) {
  std::string what = fmt::format("oxide: {} failed", api);
  if (!kernel.empty())
    what += fmt::format(" for kernel '{}'", kernel);
  what += fmt::format(": {} ({})", error_name, description);
  if (!details.empty())
    what += fmt::format("\n{}", details);
  return Error(what, Info{std::move(api), std::move(error_name), code, std::move(kernel)});
}

} // namespace oxide
