// A kernel's launch contract as the runtime uses it: parsed once from the canonical text in
// the device image, with the parameter names that messages quote.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "oxide/detail/contract.hpp"
#include "oxide/detail/host/registry.hpp"
#include "oxide/detail/param_kind.hpp"

namespace oxide::detail {

class KernelContract {
public:
  /// `kinds`: one letter of oxide/detail/param_kind.hpp per parameter (or none at all).
  KernelContract(Contract contract, std::vector<std::string> names, std::string_view kinds = {})
      : contract_(std::move(contract)), names_(std::move(names)) {
    for (const ContractNode &node : contract_.nodes)
      if (node.kind == ContractNode::Kind::Scalar && node.value < kinds.size() &&
          param_kind(kinds[node.value]) == ParamKind::signed_integer &&
          std::find(signed_operands_.begin(), signed_operands_.end(), node.value) == signed_operands_.end())
        signed_operands_.push_back(static_cast<std::uint32_t>(node.value));
  }

  [[nodiscard]] const Contract &contract() const noexcept { return contract_; }
  /// The kernel's parameter names, by position ("a", "b", "c").
  [[nodiscard]] const std::vector<std::string> &names() const noexcept { return names_; }
  /// Whether each launch evaluates the contract on its arguments: `requires`, or dynamic shared
  /// memory tied to them.
  [[nodiscard]] bool has_requires() const noexcept {
    return !contract_.requires_.empty() || contract_.dynamic_shared_expr.has_value();
  }
  /// The signed integer parameters `requires` reads: each launch checks they are not negative,
  /// since `requires` (and the compiler's assumptions from it) count in unsigned 64 bits.
  [[nodiscard]] const std::vector<std::uint32_t> &signed_operands() const noexcept {
    return signed_operands_;
  }

private:
  Contract contract_;
  std::vector<std::string> names_;
  std::vector<std::uint32_t> signed_operands_;
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
