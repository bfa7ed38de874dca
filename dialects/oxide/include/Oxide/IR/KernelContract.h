//===- KernelContract.h - a kernel's launch contract in MLIR ----*- C++ -*-===//
//
// The frontend attaches a kernel's contract to its llvm.func as discardable string attributes
// (moved there by oxide-raise from the function's passthrough attributes):
//   oxide.contract       canonical contract text (include/oxide/detail/contract.hpp)
//   oxide.params         "name=kind,..." with the kind letters of include/oxide/detail/param_kind.hpp
//   oxide.launch_bounds  "max_threads,min_blocks"
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_KERNELCONTRACT_H
#define OXIDE_KERNELCONTRACT_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "oxide/detail/contract.hpp"
#include "oxide/detail/param_kind.hpp"

#include <optional>
#include <string>
#include <vector>

namespace oxide {

inline constexpr llvm::StringLiteral kContractAttr = "oxide.contract";
inline constexpr llvm::StringLiteral kParamsAttr = "oxide.params";
inline constexpr llvm::StringLiteral kLaunchBoundsAttr = "oxide.launch_bounds";

struct KernelParam {
  std::string name;
  detail::ParamKind kind = detail::ParamKind::other;
  bool isSpan() const { return detail::is_span(kind); }
};

struct KernelContract {
  detail::Contract contract;
  std::vector<KernelParam> params;
  unsigned maxThreads = 0, minBlocks = 0; ///< launch bounds; 0 when absent
};

/// Parses "name=kind,..."; std::nullopt when malformed.
std::optional<std::vector<KernelParam>> parseKernelParams(llvm::StringRef text);

/// The contract of `func`, std::nullopt when it has none. Emits an error and returns failure
/// when the attributes are malformed.
mlir::FailureOr<std::optional<KernelContract>> getKernelContract(mlir::LLVM::LLVMFuncOp func);

/// The kernel's launch bounds (max threads per block, min blocks per SM; 0 when absent), with
/// or without a contract. Emits an error and returns failure when the attribute is malformed.
mlir::FailureOr<std::pair<unsigned, unsigned>> getLaunchBounds(mlir::LLVM::LLVMFuncOp func);

} // namespace oxide

#endif
