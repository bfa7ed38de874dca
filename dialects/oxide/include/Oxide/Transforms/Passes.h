//===- Passes.h - oxide dialect transformations -----------------*- C++ -*-===//
#ifndef OXIDE_TRANSFORMS_PASSES_H
#define OXIDE_TRANSFORMS_PASSES_H

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/Pass.h"

#include "Oxide/IR/OxideDialect.h"

namespace oxide {

#define GEN_PASS_DECL
#include "Oxide/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Oxide/Transforms/Passes.h.inc"

} // namespace oxide

#endif // OXIDE_TRANSFORMS_PASSES_H
