//===- contract_parser_fuzzer.cpp - libFuzzer target: launch contracts ----===//
//
// The launch-contract parser runs on user text at compile time (the launch_contract attribute)
// and on the canonical text of every device image at run time. Every input must give a contract
// or an error at an offset inside the text, never a crash or unbounded recursion; a contract
// must survive canonical_contract -> parse_canonical_contract unchanged, and evaluating it (its
// `requires` and a `dynamic_shared` tied to the arguments) must not crash.
//
//===----------------------------------------------------------------------===//

#include "oxide/detail/contract.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <variant>

using namespace oxide::detail;

namespace {

// Five parameters: three spans (a 1-D, b 2-D, out 3-D), one unsigned scalar, one parameter that
// is not usable.
std::optional<ContractParam> resolve(std::string_view name) {
  if (name == "a" || name == "b" || name == "out") {
    ContractParam span{name == "a" ? 0u : name == "b" ? 1u : 2u, true, {}};
    span.rank = span.index + 1;
    return span;
  }
  if (name == "n")
    return ContractParam{3, false, {}};
  if (name == "s")
    return ContractParam{4, false, "a float"};
  return std::nullopt;
}

// Constants, as the compiler resolves them: kTile and ns::kBig have values, others do not.
ContractConstant constant(std::string_view name, std::size_t) {
  if (name == "kTile")
    return {16, {}};
  if (name == "ns::kBig")
    return {UINT64_MAX, {}};
  return {std::nullopt, "not a constant"};
}

[[noreturn]] void fail(const char *what) {
  std::fprintf(stderr, "contract_parser_fuzzer: %s\n", what);
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char *>(data), size);
  // The names the compiler looks up before parsing lie inside the text.
  for (const ContractName &n : contract_names(text))
    if (n.name.empty() || n.offset + n.name.size() > text.size() ||
        text.substr(n.offset, n.name.size()) != n.name)
      fail("contract_names gave a name that is not in the text");
  auto parsed = parse_contract(text, resolve, constant);
  if (auto *err = std::get_if<ContractError>(&parsed)) {
    if (err->offset > text.size())
      fail("error offset past the end of the text");
    if (err->message.empty())
      fail("error without a message");
    return 0;
  }
  const Contract &contract = std::get<Contract>(parsed);
  const std::string canonical = canonical_contract(contract);
  auto reparsed = parse_canonical_contract(canonical, {true, true, true, false, false});
  if (!std::holds_alternative<Contract>(reparsed))
    fail("the canonical text of a contract does not parse");
  if (canonical_contract(std::get<Contract>(reparsed)) != canonical)
    fail("the canonical text is not a fixed point");
  const std::vector<ContractOperand> values = {{7, {7, 1, 1}}, {6, {3, 2, 1}}, {8, {2, 2, 2}}, {3}, {0}};
  for (const ContractRelation &r : contract.requires_)
    (void)evaluate_contract_relation(contract, r, values);
  if (contract.dynamic_shared_expr) {
    if (*contract.dynamic_shared_expr >= contract.nodes.size())
      fail("dynamic_shared's expression is not a node of the contract");
    (void)evaluate_contract_expression(contract, *contract.dynamic_shared_expr, values);
  }
  return 0;
}
