//===- OxidePasses.h - oxide dialect passes ---------------------*- C++ -*-===//
#ifndef OXIDE_OXIDEPASSES_H
#define OXIDE_OXIDEPASSES_H

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/Pass.h"

#include "Oxide/OxideDialect.h"

namespace oxide {

#define GEN_PASS_DECL
#include "Oxide/OxidePasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "Oxide/OxidePasses.h.inc"

} // namespace oxide

#endif // OXIDE_OXIDEPASSES_H
