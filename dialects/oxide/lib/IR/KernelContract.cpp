//===- KernelContract.cpp - the frontend's kernel strings and #oxide.kernel ===//

#include "Oxide/IR/KernelContract.h"
#include "Oxide/IR/OxideDialect.h"

#include "llvm/ADT/StringSwitch.h"

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

std::variant<oxide::detail::Contract, oxide::detail::ContractError>
oxide::parseContract(llvm::StringRef text, llvm::ArrayRef<detail::ParamKind> kinds) {
  std::vector<bool> isSpan;
  for (detail::ParamKind kind : kinds)
    isSpan.push_back(detail::is_span(kind));
  return detail::parse_canonical_contract(std::string_view(text.data(), text.size()), isSpan);
}

oxide::KernelAttr oxide::getKernelAttr(Operation *op) {
  return op ? op->getAttrOfType<KernelAttr>(OxideDialect::getKernelAttrName()) : KernelAttr();
}

const oxide::detail::Contract *oxide::getKernelContract(Operation *op) {
  KernelAttr kernel = getKernelAttr(op);
  return kernel ? kernel.getParsedContract() : nullptr;
}

namespace {

/// The kind of a parameter whose span class the frontend could not name (a template's parameter,
/// written before instantiation as 'x'): the instantiated parameter's byval type names it.
oxide::detail::ParamKind spanClassKind(TypeAttr byval) {
  using oxide::detail::ParamKind;
  auto type = byval ? dyn_cast<LLVM::LLVMStructType>(byval.getValue()) : nullptr;
  if (!type || !type.isIdentified())
    return ParamKind::other;
  // "class.oxide::DisjointSpan.3": an instantiation is named after its template.
  llvm::StringRef name = type.getName().split('.').second.split('.').first;
  return llvm::StringSwitch<ParamKind>(name)
      .Case("oxide::DisjointSpan", ParamKind::output)
      .Case("oxide::DisjointSpan2D", ParamKind::output_2d)
      .Case("oxide::DisjointSpan3D", ParamKind::output_3d)
      .Case("oxide::AtomicSpan", ParamKind::atomic)
      .Case("oxide::AppendSpan", ParamKind::append)
      .Case("oxide::PermutationSpan", ParamKind::permutation)
      .Case("oxide::ClaimSet", ParamKind::claims)
      .Case("oxide::TensorMap", ParamKind::tensor_map)
      .Case("oxide::Span", ParamKind::input)
      .Default(ParamKind::other);
}

} // namespace

FailureOr<oxide::KernelAttr> oxide::kernelAttrFromStrings(LLVM::LLVMFuncOp func, StringAttr contract,
                                                          StringAttr params, StringAttr launchBounds) {
  MLIRContext *ctx = func.getContext();
  SmallVector<StringAttr> names;
  SmallVector<detail::ParamKind> kinds;
  if (params) {
    auto parsed = parseKernelParams(params.getValue());
    if (!parsed)
      return func.emitError() << "malformed '" << kParamsAttr
                              << "': expected name=kind,... with kinds i, m, o, 2, 3, u, x";
    for (auto [i, param] : llvm::enumerate(*parsed)) {
      names.push_back(StringAttr::get(ctx, param.name));
      kinds.push_back(
          param.kind == detail::ParamKind::other && i < func.getNumArguments()
              ? spanClassKind(func.getArgAttrOfType<TypeAttr>(i, LLVM::LLVMDialect::getByValAttrName()))
              : param.kind);
    }
  } else if (contract && func.getNumArguments() != 0) {
    // A kernel without parameters has an empty list, which the annotations do not carry.
    return func.emitError() << "kernel '" << func.getSymName() << "' has a contract but no valid '"
                            << kParamsAttr << "' attribute";
  }

  ParsedContract parsedContract;
  if (contract) {
    auto parsed = parseContract(contract.getValue(), kinds);
    if (auto *error = std::get_if<detail::ContractError>(&parsed))
      return func.emitError() << "malformed contract on kernel '" << func.getSymName()
                              << "': " << error->message;
    parsedContract = {
        contract, std::make_shared<const detail::Contract>(std::move(std::get<detail::Contract>(parsed)))};
  }

  unsigned maxThreads = 0, minBlocks = 0;
  if (launchBounds) {
    auto [maxText, minText] = launchBounds.getValue().split(',');
    if (maxText.getAsInteger(10, maxThreads) || minText.getAsInteger(10, minBlocks))
      return func.emitError() << "malformed launch bounds '" << launchBounds.getValue() << "'";
  }
  return KernelAttr::get(ctx, names, kinds, parsedContract, maxThreads, minBlocks, {});
}

SmallVector<Attribute> oxide::kernelStrings(KernelAttr kernel) {
  MLIRContext *ctx = kernel.getContext();
  SmallVector<Attribute> entries;
  auto add = [&](llvm::StringRef key, const std::string &value) {
    entries.push_back(ArrayAttr::get(ctx, {StringAttr::get(ctx, key), StringAttr::get(ctx, value)}));
  };
  if (!kernel.getParamNames().empty()) {
    std::string params;
    for (auto [i, name] : llvm::enumerate(kernel.getParamNames()))
      params += (i ? "," : "") + name.str() + "=" + detail::param_kind_letter(kernel.getParamKinds()[i]);
    add(kParamsAttr, params);
  }
  if (kernel.getContract().text)
    add(kContractAttr, kernel.getContract().text.str());
  if (kernel.getMaxThreads() || kernel.getMinBlocks())
    add(kLaunchBoundsAttr,
        std::to_string(kernel.getMaxThreads()) + "," + std::to_string(kernel.getMinBlocks()));
  if (!kernel.getElementSizes().empty()) {
    std::string sizes;
    for (auto [i, size] : llvm::enumerate(kernel.getElementSizes()))
      sizes += (i ? "," : "") + std::to_string(size);
    add(kElementSizesAttr, sizes);
  }
  return entries;
}
