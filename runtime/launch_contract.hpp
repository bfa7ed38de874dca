// A kernel's launch contract as the runtime uses it: parsed once from the canonical text in
// the device image, with the parameter names that messages quote.
#pragma once

#include <string>
#include <vector>

#include "oxide/detail/contract.hpp"
#include "oxide/detail/host/registry.hpp"
#include "oxide/detail/param_kind.hpp"

namespace oxide::detail {

class KernelContract {
public:
  KernelContract(Contract contract, std::vector<std::string> names) noexcept
      : contract_(std::move(contract)), names_(std::move(names)) {}

  [[nodiscard]] const Contract &contract() const noexcept { return contract_; }
  /// The kernel's parameter names, by position ("a", "b", "c").
  [[nodiscard]] const std::vector<std::string> &names() const noexcept { return names_; }
  [[nodiscard]] bool has_requires() const noexcept { return !contract_.requires_.empty(); }

private:
  Contract contract_;
  std::vector<std::string> names_;
};

/// The contract of `kernel`, parsed on first use and kept for the life of the process; nullptr
/// when the kernel has none. Throws oxide::Error (InvalidContract) when the stored text or
/// parameter list cannot be parsed, which means the program and runtime do not match.
/// Thread-safe.
[[nodiscard]] const KernelContract *launch_contract(const RegisteredKernel &kernel);

/// The parameter names and kinds of a KernelInfo::param_kinds string ("a=i,b=u"); std::nullopt
/// when it is malformed.
struct ParamKinds {
  std::vector<std::string> names;
  std::string kinds; ///< one letter per parameter (oxide/detail/param_kind.hpp)
};
[[nodiscard]] std::optional<ParamKinds> parse_param_kinds(std::string_view text);

/// Whether a parameter of the kind `letter` encodes has a `.size()` in `requires`.
[[nodiscard]] constexpr bool is_span_letter(char letter) noexcept {
  const std::optional<ParamKind> kind = param_kind(letter);
  return kind && is_span(*kind);
}

} // namespace oxide::detail
