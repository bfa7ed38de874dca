// oxide::sim::register_kernel: kernels of programs not built by oxcc, with the contract their
// attribute would have given them, in the canonical form oxcc stores.
#include <fmt/format.h>

#include <string>

#include "launch_contract.hpp"
#include "oxide/detail/contract.hpp"
#include "oxide/host/error.hpp"
#include "oxide/host/simulator.hpp"
#include "registry_internal.hpp"

namespace oxide::sim::detail {

namespace {

using oxide::detail::ContractParam;
using oxide::detail::KernelInfo;

/// Fills the contract fields of `info` as oxcc would from the attribute.
void describe_contract(KernelInfo &info, const ContractSpec &spec) {
  auto resolve = [&](std::string_view name) -> std::optional<ContractParam> {
    for (std::size_t i = 0; i < spec.names.size(); ++i) {
      if (spec.names[i] != name)
        continue;
      ContractParam param{static_cast<std::uint32_t>(i), oxide::detail::is_span_letter(spec.kinds[i]), {}};
      const auto kind = oxide::detail::param_kind(spec.kinds[i]);
      if (kind)
        param.rank = oxide::detail::span_extents(*kind);
      if (!param.is_span && !(kind && oxide::detail::is_integer_scalar(*kind)))
        param.unusable_reason = "'" + std::string(name) +
                                "' is not a span or an integer; requires relations use span sizes and "
                                "integer parameters";
      return param;
    }
    return std::nullopt;
  };
  auto parsed = oxide::detail::parse_contract(spec.contract, resolve);
  if (const auto *error = std::get_if<oxide::detail::ContractError>(&parsed))
    throw Error(ErrorKind::InvalidContract,
                fmt::format("invalid launch contract for kernel '{}' at byte {} of \"{}\": {}", info.name,
                            error->offset, spec.contract, error->message),
                info.name);
  info.contract = oxide::detail::canonical_contract(std::get<oxide::detail::Contract>(parsed));
  for (std::size_t i = 0; i < spec.names.size(); ++i)
    info.param_kinds += fmt::format("{}{}={}", i ? "," : "", spec.names[i], spec.kinds[i]);
  info.max_threads = spec.max_threads;
}

} // namespace

void register_host_kernel(const void *host_address, std::string_view name,
                          std::span<const oxide::detail::HostParam> params, const ContractSpec *spec) {
  KernelInfo info;
  info.name = std::string(name);
  for (const oxide::detail::HostParam &param : params)
    info.params.push_back({static_cast<std::uint32_t>(param.size), static_cast<std::uint32_t>(param.align)});
  if (spec)
    describe_contract(info, *spec);
  const std::string entry = info.name;
  const char *entry_name = entry.c_str();
  oxide::detail::DeviceImage image; // no code: only the simulator can run it
  image.kernels.push_back(std::move(info));
  oxide::detail::add_to_registry(std::move(image), {&host_address, 1}, {&entry_name, 1});
}

} // namespace oxide::sim::detail
