//===- OxideOps.h - oxide dialect operations --------------------*- C++ -*-===//
#ifndef OXIDE_OXIDEOPS_H
#define OXIDE_OXIDEOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "Oxide/IR/OxideDialect.h"
#include "oxide/detail/intrinsic_abi.hpp"

#include "Oxide/IR/OxideEnums.h.inc"

namespace oxide {
/// The LLVM sync scope of a memory scope, as NVPTX reads it: "block" is .cta, "device" .gpu and
/// "" (LLVM's system scope) .sys.
inline llvm::StringRef llvmSyncScope(Scope scope) {
  switch (scope) {
  case Scope::block:
    return "block";
  case Scope::device:
    return "device";
  case Scope::system:
    break;
  }
  return "";
}
} // namespace oxide

#define GET_OP_CLASSES
#include "Oxide/IR/OxideOps.h.inc"

#endif // OXIDE_OXIDEOPS_H
