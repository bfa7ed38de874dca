//===- AttributeFamilies.h - registration of each attribute file -*- C++ -*-===//
//
// Private to compiler/ast/: oxide::registerOxideAttributes (KernelAttributes.cpp) calls these,
// once, so each file keeps its ParsedAttrInfo types to itself.
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_COMPILER_AST_ATTRIBUTEFAMILIES_H
#define OXIDE_COMPILER_AST_ATTRIBUTEFAMILIES_H

namespace oxide::ast {

/// launch_contract and launch_bounds (ContractAttributes.cpp).
void registerContractAttributes();
/// oxide_device_variable (ConstantVariables.cpp).
void registerConstantVariables();

} // namespace oxide::ast

#endif
