//===- OxideOps.h - oxide dialect operations --------------------*- C++ -*-===//
#ifndef OXIDE_OXIDEOPS_H
#define OXIDE_OXIDEOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "Oxide/IR/OxideDialect.h"
#include "oxide/detail/intrinsic_abi.hpp"

#include "Oxide/IR/OxideEnums.h.inc"

#include "Oxide/IR/ArchNeed.h"
#include "Oxide/IR/MemoryAccess.h"
#include "llvm/ADT/SmallVector.h"

#include "Oxide/IR/OxideInterfaces.h.inc"

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

namespace oxide::OpTrait {
/// The operation is nested in a function (an llvm.func, at any depth of its regions).
template <typename ConcreteType>
class InFunction : public mlir::OpTrait::TraitBase<ConcreteType, InFunction> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    if (op->getParentOfType<mlir::FunctionOpInterface>())
      return mlir::success();
    return op->emitOpError("must be inside a function: oxide operations describe what a kernel's code "
                           "does");
  }
};
} // namespace oxide::OpTrait

#define GET_OP_CLASSES
#include "Oxide/IR/OxideOps.h.inc"

#endif // OXIDE_OXIDEOPS_H
