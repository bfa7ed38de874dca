//===- OxideOps.cpp - oxide dialect operations ----------------------------===//

#include "Oxide/OxideOps.h"

using namespace mlir;
using namespace oxide;

LogicalResult ThreadIndexOp::verify() {
  // A witness only means something inside a kernel: on the host there is no launch to index.
  auto func = (*this)->getParentOfType<LLVM::LLVMFuncOp>();
  if (!func)
    return emitOpError("must be inside an llvm.func");
  return success();
}

#define GET_OP_CLASSES
#include "Oxide/OxideOps.cpp.inc"
