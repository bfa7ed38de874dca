//===- TestOps.h - operations that only oxide-opt knows, for tests -*- C++ -*-===//
#ifndef OXIDE_OPT_TESTOPS_H
#define OXIDE_OPT_TESTOPS_H

#include "mlir/IR/DialectRegistry.h"

namespace oxide {

/// Registers oxide-opt's test operations (TestOps.cpp) into the oxide dialect when it loads.
void registerTestOps(mlir::DialectRegistry &registry);

} // namespace oxide

#endif // OXIDE_OPT_TESTOPS_H
