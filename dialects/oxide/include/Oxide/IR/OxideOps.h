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

#define GET_OP_CLASSES
#include "Oxide/IR/OxideOps.h.inc"

#endif // OXIDE_OXIDEOPS_H
