//===- OxideDialect.cpp - the oxide dialect -------------------------------===//

#include "Oxide/IR/OxideDialect.h"
#include "Oxide/IR/KernelContract.h"
#include "Oxide/IR/OxideOps.h"

using namespace mlir;
using namespace oxide;

#include "Oxide/IR/OxideDialect.cpp.inc"

void OxideDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "Oxide/IR/OxideOps.cpp.inc"
      >();
}

LogicalResult OxideDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kContractAttr || name == kParamsAttr || name == kLaunchBoundsAttr) {
    auto func = dyn_cast<LLVM::LLVMFuncOp>(op);
    if (!func || !isa<StringAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' must be a string attribute on an llvm.func";
    if (name == kParamsAttr && !parseKernelParams(cast<StringAttr>(attr.getValue()).getValue()))
      return op->emitError() << "malformed '" << name
                             << "': expected name=kind,... with kinds i, m, o, 2, 3, u, x";
    // The contract is checked against the parameters once both attributes are present.
    if (name == kContractAttr && failed(getKernelContract(func)))
      return failure();
    return success();
  }
  if (name != getKernelAttrName())
    return op->emitError() << "unknown oxide attribute '" << name << "'";
  if (!isa<UnitAttr>(attr.getValue()))
    return op->emitError() << "'" << getKernelAttrName() << "' must be a unit attribute";
  auto func = dyn_cast<LLVM::LLVMFuncOp>(op);
  if (!func)
    return op->emitError() << "'" << getKernelAttrName() << "' may only mark an llvm.func";
  if (func.isExternal())
    return op->emitError() << "kernel '" << func.getSymName() << "' has no body";
  if (!isa<LLVM::LLVMVoidType>(func.getFunctionType().getReturnType()))
    return op->emitError() << "kernel '" << func.getSymName() << "' must return void";
  return success();
}
