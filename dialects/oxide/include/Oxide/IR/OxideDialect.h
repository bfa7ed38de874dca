//===- OxideDialect.h - the oxide dialect -----------------------*- C++ -*-===//
#ifndef OXIDE_OXIDEDIALECT_H
#define OXIDE_OXIDEDIALECT_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Dialect.h"

#include "Oxide/IR/OxideDialect.h.inc"

#endif // OXIDE_OXIDEDIALECT_H
