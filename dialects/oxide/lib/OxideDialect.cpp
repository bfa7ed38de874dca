//===- OxideDialect.cpp - the oxide dialect -------------------------------===//

#include "Oxide/OxideDialect.h"
#include "Oxide/OxideOps.h"

using namespace mlir;
using namespace oxide;

#include "Oxide/OxideDialect.cpp.inc"

void OxideDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "Oxide/OxideOps.cpp.inc"
      >();
}

LogicalResult OxideDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  if (attr.getName() != getKernelAttrName())
    return op->emitError() << "unknown oxide attribute '" << attr.getName().getValue() << "'";
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
