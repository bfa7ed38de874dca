#include "launch_contract.hpp"

#include <fmt/format.h>

#include <memory>
#include <mutex>
#include <unordered_map>

#include "oxide/host/error.hpp"

namespace oxide::detail {

std::optional<ParamKinds> parse_param_kinds(std::string_view text) {
  ParamKinds result;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view entry = text.substr(0, comma);
    const std::size_t equals = entry.rfind('=');
    if (equals == std::string_view::npos || equals == 0 || equals + 2 != entry.size())
      return std::nullopt;
    result.names.emplace_back(entry.substr(0, equals));
    result.kinds.push_back(entry[equals + 1]);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
  }
  return result;
}

namespace {

std::unique_ptr<const KernelContract> parse(const RegisteredKernel &kernel) {
  const KernelInfo &info = *kernel.info;
  auto invalid = [&](std::string_view why) {
    return Error(
        ErrorKind::InvalidContract,
        fmt::format("the launch contract of kernel '{}' in its device image is invalid ({}); rebuild the "
                    "program with a matching oxcc and runtime",
                    kernel.display_name, why),
        kernel.display_name);
  };
  const std::optional<ParamKinds> params = parse_param_kinds(info.param_kinds);
  if (!params || params->names.size() != info.params.size())
    throw invalid(fmt::format("parameter list '{}' for {} parameters", info.param_kinds, info.params.size()));
  std::vector<bool> is_span;
  for (char kind : params->kinds)
    is_span.push_back(is_span_letter(kind));
  auto parsed = parse_canonical_contract(info.contract, is_span);
  if (const auto *error = std::get_if<ContractError>(&parsed))
    throw invalid(fmt::format("'{}' at byte {}: {}", info.contract, error->offset, error->message));
  return std::make_unique<const KernelContract>(std::get<Contract>(std::move(parsed)), params->names,
                                                params->kinds);
}

} // namespace

const KernelContract *launch_contract(const RegisteredKernel &kernel) {
  if (kernel.info->contract.empty())
    return nullptr;
  // Never destroyed, like the registry whose KernelInfo addresses key it.
  static auto *mutex = new std::mutex;
  static auto *cache = new std::unordered_map<const KernelInfo *, std::unique_ptr<const KernelContract>>;
  std::lock_guard lock(*mutex);
  auto it = cache->find(kernel.info);
  if (it == cache->end())
    it = cache->emplace(kernel.info, parse(kernel)).first;
  return it->second.get();
}

} // namespace oxide::detail
