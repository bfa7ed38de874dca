//===- KernelContract.cpp -------------------------------------------------===//

#include "Oxide/IR/KernelContract.h"

using namespace mlir;

std::optional<std::vector<oxide::KernelParam>> oxide::parseKernelParams(llvm::StringRef text) {
  std::vector<KernelParam> params;
  if (text.empty())
    return params;
  llvm::SmallVector<llvm::StringRef> items;
  text.split(items, ',');
  for (llvm::StringRef item : items) {
    auto [name, letter] = item.split('=');
    // Pointers are `x` here; their own kinds are for the simulator's descriptions.
    auto kind = letter.size() == 1 ? detail::param_kind(letter[0]) : std::nullopt;
    if (name.empty() || !kind || detail::is_pointer(*kind))
      return std::nullopt;
    params.push_back({name.str(), *kind});
  }
  return params;
}

FailureOr<std::optional<oxide::KernelContract>> oxide::getKernelContract(LLVM::LLVMFuncOp func) {
  auto text = func->getAttrOfType<StringAttr>(kContractAttr);
  if (!text)
    return std::optional<KernelContract>();
  KernelContract result;
  auto paramsText = func->getAttrOfType<StringAttr>(kParamsAttr);
  // A kernel without parameters has an empty list, which the annotations do not carry.
  auto params = paramsText ? parseKernelParams(paramsText.getValue())
                : func.getNumArguments() == 0
                    ? std::optional<std::vector<KernelParam>>(std::vector<KernelParam>{})
                    : std::nullopt;
  if (!params)
    return func.emitError() << "kernel '" << func.getSymName() << "' has a contract but no valid '"
                            << kParamsAttr << "' attribute";
  result.params = std::move(*params);
  std::vector<bool> isSpan;
  for (const KernelParam &p : result.params)
    isSpan.push_back(p.isSpan());
  auto parsed = detail::parse_canonical_contract(
      std::string_view(text.getValue().data(), text.getValue().size()), isSpan);
  if (auto *error = std::get_if<detail::ContractError>(&parsed))
    return func.emitError() << "malformed contract on kernel '" << func.getSymName()
                            << "': " << error->message;
  result.contract = std::move(std::get<detail::Contract>(parsed));
  auto bounds = getLaunchBounds(func);
  if (mlir::failed(bounds))
    return failure();
  std::tie(result.maxThreads, result.minBlocks) = *bounds;
  return std::optional<KernelContract>(std::move(result));
}

FailureOr<std::pair<unsigned, unsigned>> oxide::getLaunchBounds(LLVM::LLVMFuncOp func) {
  std::pair<unsigned, unsigned> result{0, 0};
  if (auto bounds = func->getAttrOfType<StringAttr>(kLaunchBoundsAttr)) {
    auto [maxText, minText] = bounds.getValue().split(',');
    if (maxText.getAsInteger(10, result.first) || minText.getAsInteger(10, result.second))
      return func.emitError() << "malformed launch bounds '" << bounds.getValue() << "'";
  }
  return result;
}
