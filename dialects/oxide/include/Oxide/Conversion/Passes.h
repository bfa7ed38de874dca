//===- Passes.h - lowering out of the oxide dialect -------------*- C++ -*-===//
#ifndef OXIDE_CONVERSION_PASSES_H
#define OXIDE_CONVERSION_PASSES_H

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/Pass.h"

#include "Oxide/IR/OxideDialect.h"

namespace oxide {

#define GEN_PASS_DECL
#include "Oxide/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Oxide/Conversion/Passes.h.inc"

} // namespace oxide

#endif // OXIDE_CONVERSION_PASSES_H
