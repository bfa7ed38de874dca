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
  registerAttributes();
}

LogicalResult OxideDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == getMacroPrefixMapAttrName()) {
    if (!isa<ModuleOp>(op))
      return op->emitError() << "'" << name << "' may only be set on a module";
    auto pairs = dyn_cast<ArrayAttr>(attr.getValue());
    if (!pairs || !llvm::all_of(pairs, [](Attribute pair) {
          auto text = dyn_cast<StringAttr>(pair);
          return text && text.getValue().contains('=');
        }))
      return op->emitError() << "'" << name << "' must be an array of \"OLD=NEW\" strings";
    return success();
  }
  if (name != getKernelAttrName())
    return op->emitError() << "unknown oxide attribute '" << name << "'";
  if (!isa<KernelAttr>(attr.getValue()))
    return op->emitError() << "'" << getKernelAttrName() << "' must be a #oxide.kernel attribute";
  auto func = dyn_cast<LLVM::LLVMFuncOp>(op);
  if (!func)
    return op->emitError() << "'" << getKernelAttrName() << "' may only mark an llvm.func";
  if (func.isExternal())
    return op->emitError() << "kernel '" << func.getSymName() << "' has no body";
  if (!isa<LLVM::LLVMVoidType>(func.getFunctionType().getReturnType()))
    return op->emitError() << "kernel '" << func.getSymName() << "' must return void";
  return success();
}
