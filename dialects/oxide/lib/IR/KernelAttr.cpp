//===- KernelAttr.cpp - #oxide.kernel's syntax and invariants -------------===//

#include "Oxide/IR/KernelContract.h"
#include "Oxide/IR/OxideDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

using namespace mlir;
using namespace oxide;

#define GET_ATTRDEF_CLASSES
#include "Oxide/IR/OxideAttrs.cpp.inc"

void OxideDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "Oxide/IR/OxideAttrs.cpp.inc"
      >();
}

namespace {

/// `[a, b, ...]` of unsigned integers.
ParseResult parseUnsignedList(AsmParser &parser, SmallVectorImpl<uint32_t> &values) {
  return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() -> ParseResult {
    llvm::SMLoc loc = parser.getCurrentLocation();
    int64_t value = 0;
    if (parser.parseInteger(value))
      return failure();
    if (value < 0 || value > std::numeric_limits<uint32_t>::max())
      return parser.emitError(loc) << "expected an unsigned 32-bit integer";
    values.push_back(static_cast<uint32_t>(value));
    return success();
  });
}

/// `[name : kind, ...]`, the kinds by the names of include/oxide/detail/param_kind.hpp.
ParseResult parseParams(AsmParser &parser, SmallVectorImpl<StringAttr> &names,
                        SmallVectorImpl<oxide::detail::ParamKind> &kinds) {
  return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() -> ParseResult {
    std::string name, kindName;
    llvm::SMLoc kindLoc;
    if (parser.parseKeywordOrString(&name) || parser.parseColon() ||
        (kindLoc = parser.getCurrentLocation(), parser.parseKeywordOrString(&kindName)))
      return failure();
    std::optional<oxide::detail::ParamKind> kind = oxide::detail::param_kind_named(kindName);
    if (!kind)
      return parser.emitError(kindLoc) << "unknown parameter kind '" << kindName
                                       << "' (the kinds are those of include/oxide/detail/param_kind.hpp)";
    names.push_back(StringAttr::get(parser.getContext(), name));
    kinds.push_back(*kind);
    return success();
  });
}

} // namespace

Attribute KernelAttr::parse(AsmParser &parser, Type) {
  SmallVector<StringAttr> names;
  SmallVector<oxide::detail::ParamKind> kinds;
  std::optional<std::string> contractText;
  llvm::SMLoc contractLoc;
  SmallVector<uint32_t> bounds, sizes;
  llvm::SMLoc boundsLoc;
  if (succeeded(parser.parseOptionalLess())) {
    llvm::StringSet<> seen;
    auto parseEntry = [&]() -> ParseResult {
      std::string key;
      llvm::SMLoc keyLoc = parser.getCurrentLocation();
      if (parser.parseKeywordOrString(&key) || parser.parseEqual())
        return failure();
      if (!seen.insert(key).second)
        return parser.emitError(keyLoc) << "'" << key << "' is given twice";
      if (key == "params")
        return parseParams(parser, names, kinds);
      if (key == "contract") {
        contractLoc = parser.getCurrentLocation();
        contractText.emplace();
        return parser.parseString(&*contractText);
      }
      if (key == "launch_bounds") {
        boundsLoc = parser.getCurrentLocation();
        return parseUnsignedList(parser, bounds);
      }
      if (key == "element_sizes")
        return parseUnsignedList(parser, sizes);
      return parser.emitError(keyLoc)
             << "unknown key '" << key << "' (expected params, contract, launch_bounds or element_sizes)";
    };
    if (parser.parseCommaSeparatedList(parseEntry) || parser.parseGreater())
      return {};
  }
  if (!bounds.empty() && bounds.size() != 2) {
    parser.emitError(boundsLoc) << "launch_bounds is [max threads per block, min blocks per SM]";
    return {};
  }

  ParsedContract contract;
  if (contractText) {
    auto parsed = parseContract(*contractText, kinds);
    if (auto *error = std::get_if<oxide::detail::ContractError>(&parsed)) {
      parser.emitError(contractLoc) << "malformed contract: " << error->message;
      return {};
    }
    contract = {StringAttr::get(parser.getContext(), *contractText),
                std::make_shared<const oxide::detail::Contract>(
                    std::move(std::get<oxide::detail::Contract>(parsed)))};
  }
  return parser.getChecked<KernelAttr>(parser.getContext(), names, kinds, contract,
                                       bounds.empty() ? 0u : bounds[0], bounds.empty() ? 0u : bounds[1],
                                       sizes);
}

void KernelAttr::print(AsmPrinter &printer) const {
  SmallVector<std::function<void()>> entries;
  if (!getParamNames().empty())
    entries.push_back([&] {
      printer << "params = [";
      llvm::interleaveComma(llvm::zip_equal(getParamNames(), getParamKinds()), printer, [&](auto param) {
        printer.printKeywordOrString(std::get<0>(param).getValue());
        printer << ": " << oxide::detail::param_kind_name(std::get<1>(param));
      });
      printer << "]";
    });
  if (getContract().text)
    entries.push_back([&] {
      printer << "contract = ";
      printer.printString(getContract().text.getValue());
    });
  if (getMaxThreads() || getMinBlocks())
    entries.push_back(
        [&] { printer << "launch_bounds = [" << getMaxThreads() << ", " << getMinBlocks() << "]"; });
  if (!getElementSizes().empty())
    entries.push_back([&] {
      printer << "element_sizes = [";
      llvm::interleaveComma(getElementSizes(), printer);
      printer << "]";
    });
  if (entries.empty())
    return;
  printer << "<";
  llvm::interleaveComma(entries, printer, [](const std::function<void()> &entry) { entry(); });
  printer << ">";
}

LogicalResult KernelAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<StringAttr> paramNames,
                                 ArrayRef<oxide::detail::ParamKind> paramKinds, ParsedContract contract,
                                 unsigned, unsigned, ArrayRef<uint32_t>) {
  if (paramNames.size() != paramKinds.size())
    return emitError() << "#oxide.kernel has " << paramNames.size() << " parameter names and "
                       << paramKinds.size() << " kinds";
  llvm::SmallDenseSet<StringAttr> names;
  for (auto [name, kind] : llvm::zip_equal(paramNames, paramKinds)) {
    if (!name || name.getValue().empty())
      return emitError() << "#oxide.kernel: a parameter has no name";
    if (!names.insert(name).second)
      return emitError() << "#oxide.kernel: two parameters are named '" << name.getValue() << "'";
    if (oxide::detail::is_pointer(kind))
      return emitError() << "#oxide.kernel: parameter '" << name.getValue()
                         << "' is a pointer, which kernels declare as 'other'";
  }
  if (bool(contract.text) != bool(contract.parsed))
    return emitError() << "#oxide.kernel: a contract's text and its parse go together";
  return success();
}

KernelAttr KernelAttr::withElementSizes(ArrayRef<uint32_t> sizes) const {
  return KernelAttr::get(getContext(), getParamNames(), getParamKinds(), getContract(), getMaxThreads(),
                         getMinBlocks(), sizes);
}
