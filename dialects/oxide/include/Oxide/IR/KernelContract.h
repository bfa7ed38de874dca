//===- KernelContract.h - a kernel's launch contract in MLIR ----*- C++ -*-===//
//
// A kernel entry point carries `oxide.kernel = #oxide.kernel<...>` (OxideAttrs.td): its
// parameters' names and kinds, its launch contract (parsed once), its launch bounds and the
// element sizes the write proof found. The frontend's strings arrive in the function's
// passthrough; oxide-raise reads them into the attribute and oxide-to-nvvm writes the attribute
// back as the same strings for the kernel table (compiler/host/KernelTable.cpp):
//   oxide.contract       canonical contract text (include/oxide/detail/contract.hpp)
//   oxide.params         "name=kind,..." with the kind letters of include/oxide/detail/param_kind.hpp
//   oxide.launch_bounds  "max_threads,min_blocks"
//   oxide.elem_sizes     "S0,S1,...", one per kernel argument (0: not a span the code indexes)
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_KERNELCONTRACT_H
#define OXIDE_KERNELCONTRACT_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "oxide/detail/contract.hpp"
#include "oxide/detail/param_kind.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace oxide {

inline constexpr llvm::StringLiteral kContractAttr = "oxide.contract";
inline constexpr llvm::StringLiteral kParamsAttr = "oxide.params";
inline constexpr llvm::StringLiteral kLaunchBoundsAttr = "oxide.launch_bounds";
inline constexpr llvm::StringLiteral kElementSizesAttr = "oxide.elem_sizes";

/// A contract's canonical text and what it parses to. Compared and hashed by the text: the
/// parse is a function of it and of the parameter kinds, which the attribute also holds.
struct ParsedContract {
  mlir::StringAttr text; ///< null: the kernel has no contract
  std::shared_ptr<const detail::Contract> parsed;

  bool operator==(const ParsedContract &other) const { return text == other.text; }
};
inline llvm::hash_code hash_value(const ParsedContract &contract) { return mlir::hash_value(contract.text); }

struct KernelParam {
  std::string name;
  detail::ParamKind kind = detail::ParamKind::other;
};

/// Parses "name=kind,..."; std::nullopt when malformed.
std::optional<std::vector<KernelParam>> parseKernelParams(llvm::StringRef text);

/// Parses a canonical contract for parameters of `kinds`; the message on failure.
std::variant<detail::Contract, detail::ContractError> parseContract(llvm::StringRef text,
                                                                    llvm::ArrayRef<detail::ParamKind> kinds);

} // namespace oxide

#define GET_ATTRDEF_CLASSES
#include "Oxide/IR/OxideAttrs.h.inc"

namespace oxide {

/// The kernel attribute of `op`; null when `op` is not a kernel entry point.
KernelAttr getKernelAttr(mlir::Operation *op);

/// The launch contract of kernel `op`; nullptr when `op` is no kernel or has no contract.
const detail::Contract *getKernelContract(mlir::Operation *op);

/// The kernel attribute of `func` from the frontend's strings (each may be null). Emits an error
/// at `func` and returns failure when one is malformed.
mlir::FailureOr<KernelAttr> kernelAttrFromStrings(mlir::LLVM::LLVMFuncOp func, mlir::StringAttr contract,
                                                  mlir::StringAttr params, mlir::StringAttr launchBounds);

/// The frontend's strings for `kernel`, as passthrough entries (["oxide.contract", "..."], ...).
llvm::SmallVector<mlir::Attribute> kernelStrings(KernelAttr kernel);

} // namespace oxide

#endif
